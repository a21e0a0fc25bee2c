package unicode

import (
	"strings"

	"golang.org/x/text/unicode/bidi"
)

// visualOrder returns s in display order as a left-to-right terminal would
// show it, with the bidi controls removed, using x/text's implementation
// of the Unicode Bidirectional Algorithm (UAX #9). The result is evidence
// for a reviewer ("the model reads X, you see Y"), not a rendering engine:
// x/text's isolate handling is partial, so the result is best effort. A
// panic inside x/text must not take the scanner down, so it is recovered
// and reported as "no visual order".
func visualOrder(s string) (visual string, ok bool) {
	defer func() {
		if recover() != nil {
			visual, ok = "", false
		}
	}()
	var p bidi.Paragraph
	if _, err := p.SetString(s, bidi.DefaultDirection(bidi.LeftToRight)); err != nil {
		return "", false
	}
	o, err := p.Order()
	if err != nil {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < o.NumRuns(); i++ {
		run := o.Run(i)
		t := run.String()
		if run.Direction() == bidi.RightToLeft {
			t = bidi.ReverseString(t)
		}
		b.WriteString(t)
	}
	return strings.Map(func(r rune) rune {
		if bidiControlName(r) != "" || r == 0x200E || r == 0x200F || r == 0x061C {
			return -1
		}
		return r
	}, b.String()), true
}
