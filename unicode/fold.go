package unicode

import (
	"slices"
	"strings"
	"unicode/utf8"
)

//go:generate go run ./internal/genfold/main.go -o fold_tables.go

// foldTo returns what full case folding makes of r, and whether it
// changes it.
func foldTo(r rune) (string, bool) {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return string(r + 'a' - 'A'), true
		}
		return "", false
	}
	i, found := slices.BinarySearch(foldFrom[:], r)
	if !found {
		return "", false
	}
	start := 0
	if i > 0 {
		start = int(foldEnd[i-1])
	}
	return foldText[start:foldEnd[i]], true
}

// foldString is full Unicode case folding (golang.org/x/text/cases.Fold's,
// whose tables fold_tables.go holds), one code point at a time. Bytes that
// are not UTF-8 are kept as they are.
func foldString(s string) string {
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if _, ok := foldTo(r); ok {
			return foldRest(s, i)
		}
		i += n
	}
	return s
}

// foldRest folds s from byte i on, where the first change is.
func foldRest(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if f, ok := foldTo(r); ok { // never U+FFFD, so never a byte that is not UTF-8
			b.WriteString(f)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
