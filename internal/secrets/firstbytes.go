package secrets

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// byteSet is a set of bytes.
type byteSet [256]bool

// firstBytes returns the bytes a match of pattern can start with, as
// UTF-8, and false when it cannot tell (a match may be empty, or start
// with any byte): a value whose first byte is outside the set cannot
// match (placeholderStarts).
func firstBytes(pattern string) (set byteSet, ok bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return set, false
	}
	return firstBytesOf(re)
}

// firstBytesOf is firstBytes of a parsed pattern.
func firstBytesOf(re *syntax.Regexp) (set byteSet, ok bool) {
	if !addFirst(&set, re.Simplify()) {
		return set, false
	}
	for _, in := range set {
		if !in {
			return set, true
		}
	}
	return set, false // any byte: nothing to skip
}

// byFirstByte splits pattern, ^(?:A|B|...)$ with its flags, by the byte a
// match starts with: for each byte, the pattern of only the alternatives
// that can start with it, compiled when first asked for (nil: none can).
// A value is then tried against a small part of the pattern: the whole of
// placeholderPattern, backtracking through every alternative, took ~0.4 us
// on a value as plain as "info" (1.2% of an 11,000-server scan's CPU). A
// pattern of another shape gets the whole pattern for every byte.
func byFirstByte(pattern string) *[256]func() *regexp.Regexp {
	var out [256]func() *regexp.Regexp
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) != 3 || re.Sub[0].Op != syntax.OpBeginText ||
		re.Sub[1].Op != syntax.OpAlternate || re.Sub[2].Op != syntax.OpEndText {
		whole := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
		for i := range out {
			out[i] = whole
		}
		return &out
	}
	alts := re.Sub[1].Sub
	sets := make([]byteSet, len(alts))
	for i, alt := range alts {
		if set, ok := firstBytesOf(alt); ok {
			sets[i] = set
		} else {
			for b := range sets[i] {
				sets[i][b] = true // may be empty, or start with anything
			}
		}
	}
	compiled := map[string]func() *regexp.Regexp{}
	for b := range out {
		var subs []*syntax.Regexp
		var key strings.Builder
		for i, alt := range alts {
			if sets[i][b] {
				subs = append(subs, alt)
				fmt.Fprintf(&key, "%d,", i)
			}
		}
		if len(subs) == 0 {
			continue
		}
		if f, ok := compiled[key.String()]; ok {
			out[b] = f
			continue
		}
		part := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: []*syntax.Regexp{
			re.Sub[0], {Op: syntax.OpAlternate, Flags: re.Sub[1].Flags, Sub: subs}, re.Sub[2]}}
		if len(subs) == 1 {
			part.Sub[1] = subs[0]
		}
		src := part.String()
		f := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
		compiled[key.String()] = f
		out[b] = f
	}
	return &out
}

// addFirst adds to set the first bytes of re's matches and reports whether
// re cannot match the empty string (so that what follows it cannot start
// a match); it reports false, and fills the whole set, where it cannot
// tell.
func addFirst(set *byteSet, re *syntax.Regexp) bool {
	all := func() bool {
		for i := range set {
			set[i] = true
		}
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return false
		}
		addRune(set, re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return true
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return true // matches nothing
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf {
				// Beyond ASCII: every byte a multi-byte rune may start with.
				for b := 0xC0; b < 0x100; b++ {
					set[b] = true
				}
				hi = utf8.RuneSelf - 1
			}
			for r := lo; r <= hi; r++ {
				set[r] = true
			}
		}
		return true
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		return false // zero width: what follows starts the match
	case syntax.OpCapture:
		return addFirst(set, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if addFirst(set, sub) {
				return true
			}
		}
		return false
	case syntax.OpAlternate:
		nonEmpty := true
		for _, sub := range re.Sub {
			nonEmpty = addFirst(set, sub) && nonEmpty
		}
		return nonEmpty
	case syntax.OpPlus:
		return addFirst(set, re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		addFirst(set, re.Sub[0])
		return false
	case syntax.OpRepeat:
		nonEmpty := addFirst(set, re.Sub[0])
		return nonEmpty && re.Min > 0
	}
	return all()
}

// addRune adds r's first UTF-8 byte, and with fold its other cases'.
func addRune(set *byteSet, r rune, fold bool) {
	var buf [utf8.UTFMax]byte
	add := func(r rune) {
		utf8.EncodeRune(buf[:], r)
		set[buf[0]] = true
	}
	add(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			add(f)
		}
	}
}
