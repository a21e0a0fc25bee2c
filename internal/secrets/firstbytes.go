package secrets

import (
	"regexp"
	"regexp/syntax"
	"strconv"
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

// byFirstByte splits pattern, [flags]^(?:A|B|...)$, by the byte a match
// starts with: for each byte, the pattern of only the alternatives that
// can start with it, compiled when first asked for (nil: none can). A
// value is then tried against a small part of the pattern, where the whole
// of placeholderPattern backtracks through every alternative even on a
// value as plain as "info". The alternatives are cut from the source text,
// not from a parsed pattern written back (regexp/syntax's String folds
// every case-insensitive class through Unicode, slowly). A pattern of
// another shape gets the whole pattern for every byte.
func byFirstByte(pattern string) *[256]func() *regexp.Regexp {
	var out [256]func() *regexp.Regexp
	flags, alts, ok := topAlternatives(pattern)
	if !ok {
		whole := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
		for i := range out {
			out[i] = whole
		}
		return &out
	}
	sets := make([]byteSet, len(alts))
	for i, alt := range alts {
		if set, ok := firstBytes(flags + "^(?:" + alt + ")"); ok {
			sets[i] = set
		} else {
			for b := range sets[i] {
				sets[i][b] = true // may be empty, or start with anything
			}
		}
	}
	parts := map[string]func() *regexp.Regexp{}
	var key []byte
	for b := range out {
		key = key[:0]
		var picked []string
		for i, alt := range alts {
			if sets[i][b] {
				key = strconv.AppendInt(append(key, ','), int64(i), 10)
				picked = append(picked, alt)
			}
		}
		if len(picked) == 0 {
			continue
		}
		f, ok := parts[string(key)]
		if !ok {
			src := flags + "^(?:" + strings.Join(picked, "|") + ")$"
			f = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
			parts[string(key)] = f
		}
		out[b] = f
	}
	return &out
}

// topAlternatives cuts pattern, [flags]^(?:A|B|...)$, into its flags and
// its alternatives as written; ok is false for any other shape, or for
// an alternation that does not parse.
func topAlternatives(pattern string) (flags string, alts []string, ok bool) {
	at := strings.Index(pattern, "^(?:")
	if at < 0 || !strings.HasSuffix(pattern, ")$") || !flagGroup(pattern[:at]) {
		return "", nil, false
	}
	flags, body := pattern[:at], pattern[at+len("^(?:"):len(pattern)-len(")$")]
	depth, class, from := 0, false, 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			i++ // the escaped character
		case class:
			if c == ']' {
				class = false
			}
		case c == '[':
			class = true
			if i+1 < len(body) && body[i+1] == '^' {
				i++
			}
			if i+1 < len(body) && body[i+1] == ']' {
				i++ // a leading ] is a member
			}
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth < 0 {
				return "", nil, false // the group closes before the end
			}
		case c == '|' && depth == 0:
			alts = append(alts, body[from:i])
			from = i + 1
		}
	}
	if depth != 0 || class {
		return "", nil, false
	}
	alts = append(alts, body[from:])
	// A pattern that does not parse is not cut: its parts would not
	// compile where they are first used.
	if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
		return "", nil, false
	}
	return flags, alts, true
}

// flagGroup reports whether s is nothing or a group of flags, "(?i)".
func flagGroup(s string) bool {
	if s == "" {
		return true
	}
	if len(s) < 4 || !strings.HasPrefix(s, "(?") || s[len(s)-1] != ')' {
		return false
	}
	for _, c := range s[2 : len(s)-1] {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
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
