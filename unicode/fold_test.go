package unicode

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/cases"
)

// TestFoldMatchesXText holds the generated folding tables to x/text's
// cases.Fold, which they were generated from: every code point alone, and
// random strings of code points that fold, that do not, and of bytes that
// are not UTF-8. A stale or damaged table fails here.
func TestFoldMatchesXText(t *testing.T) {
	fold := cases.Fold()
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		s := string(r)
		if got, want := foldString(s), fold.String(s); got != want {
			t.Fatalf("U+%04X: folded to %q, want %q", r, got, want)
		}
	}
	pieces := []string{"a", "Z", "ẞ", "ß", "İ", "ﬃ", "Σ", "ς", "K", "Å", "ǅ", "ᾼ", "𞤀", "\xff", "\xe2\x82", " ", "é", "é", "≈"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			if rng.IntN(4) == 0 {
				b.WriteRune(rune(rng.IntN(0x20000)))
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		s := b.String()
		if !utf8.ValidString(s) {
			// x/text replaces bytes that are not UTF-8; folding is only
			// applied to valid text, where the two must agree. Here: kept.
			if got := foldString(s); !strings.Contains(got, "\xff") && strings.Contains(s, "\xff") {
				t.Fatalf("%q: folded to %q, lost a byte that is not UTF-8", s, got)
			}
			continue
		}
		if got, want := foldString(s), fold.String(s); got != want {
			t.Fatalf("%q: folded to %q, want %q", s, got, want)
		}
	}
}
