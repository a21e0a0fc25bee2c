package unicode

import (
	"strings"
	"unicode"
)

// NameKeys returns the keys under which two identifiers (tool names) read
// as one: equal names have equal keys, and so do names that differ only in
// compatibility forms (fullwidth "ｒｅａｄ", mathematical "𝗿𝗲𝗮𝗱"), case,
// default-ignorable code points, White_Space, a dot above on an i, or
// characters that UTS #39's
// confusables.txt gives the same prototype (a Cyrillic "а" for a Latin
// "a", "rn" for "m"). Two names read as one when either of their keys is
// equal.
//
// Two keys, because folding case and taking skeletons do not commute:
// folded (NFKC, case folding, then the skeleton, folded again) finds
// "READ_FILE" for "read_file" and a Cyrillic "о" for "o"; shaped (the
// skeleton first, then folded) finds "Iist_files" (a capital I) for
// "list_files", which folding first turns into "iist_files". Like
// skeletons, keys are for comparison only: never show or forward them.
func NameKeys(s string) (folded, shaped string) {
	if isPrintableASCII(s) && nameASCIIInert(s) {
		k := Analysis(s)
		return k, k
	}
	return nameKeyClean(Analysis(Skeleton(Analysis(s)))), nameKeyClean(Analysis(Skeleton(s)))
}

// nameKeyClean drops from a key what a reader does not see in a name:
// White_Space anywhere ("read_file ", a no-break or ideographic space, a
// line separator), and a combining dot above on a soft-dotted i or j,
// which renders as the i's own dot (a dotless ı, whose skeleton is i, plus
// U+0307 reads as i).
func nameKeyClean(k string) string {
	clean := true
	prev := rune(0)
	for _, r := range k {
		if unicode.Is(unicode.White_Space, r) || (r == '\u0307' && (prev == 'i' || prev == 'j')) {
			clean = false
			break
		}
		prev = r
	}
	if clean {
		return k
	}
	var b strings.Builder
	prev = 0
	for _, r := range k {
		if unicode.Is(unicode.White_Space, r) {
			continue
		}
		if r == '\u0307' && (prev == 'i' || prev == 'j') {
			continue // prev stays the i: a second dot is no more visible
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// nameASCIIInert reports a printable ASCII name whose lower-case form is
// its skeleton, so both keys are that: no upper-case letter (the capital
// I is confusable with l) and no character that confusables.txt maps
// (digits 0 and 1, m, and the punctuation with prototypes).
func nameASCIIInert(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
			if c == 'm' {
				return false
			}
		case '2' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}
