package secrets

import (
	"regexp/syntax"
	"testing"
	"unicode"
	"unicode/utf8"
)

// firstBytes derives placeholderStarts from placeholderPattern
// (TestPlaceholderStarts), so that an edit of the pattern cannot leave
// the gate behind.
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

// TestPlaceholderStarts: placeholderStarts is what firstBytes derives from
// placeholderPattern.
func TestPlaceholderStarts(t *testing.T) {
	set, ok := firstBytes(placeholderPattern)
	var got []byte
	for b := range set {
		if set[b] {
			got = append(got, byte(b))
		}
	}
	if !ok || string(got) != placeholderStarts {
		t.Errorf("placeholderPattern starts with %q (known %v); placeholderStarts is %q", got, ok, placeholderStarts)
	}
}

// TestFirstBytes: the first bytes of a few shapes of pattern, and that a
// pattern that may match the empty string, or start with any byte, gives
// none.
func TestFirstBytes(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    string // the set, as a string of its bytes; "" for not known
	}{
		{`^abc`, "a"},
		{`(?i)^k`, "Kk\xe2"}, // the Kelvin sign folds to k
		{`^(?:x+|y{2,}|[0-2])$`, "012xy"},
		{`^a?b`, "ab"},
		{`^a*`, ""},
		{`^.b`, ""},
		{`^\bword`, "w"},
		{`^(?:|a)`, ""},
	} {
		set, ok := firstBytes(c.pattern)
		var got []byte
		for b := range set {
			if set[b] {
				got = append(got, byte(b))
			}
		}
		if !ok {
			got = nil
		}
		if string(got) != c.want {
			t.Errorf("%s: %q, want %q", c.pattern, got, c.want)
		}
	}
}

// FuzzPlaceholderFirstBytes: the first-byte gate never skips a value the
// placeholder pattern matches.
func FuzzPlaceholderFirstBytes(f *testing.F) {
	for _, s := range []string{
		"<token>", "[API_KEY]", "{token}", "Bearer ${TOKEN}", "basic xxx", "your-key-here", "MY_TOKEN", "example.com",
		"sample", "dummy", "fake", "test", "xxxx", "****", "...", "changeme", "placeholder", "REDACTED", "none", "null",
		"todo", "tbd", "secret", "password", "token", "sk-...", "sk-xxxx", "ghp_xxxx", "ſecret", "https://x", "-y", "@acme/x",
		"npx", "ÿ", "\xff", "",
	} {
		f.Add(s)
	}
	d := NewDetector()
	f.Fuzz(func(t *testing.T, s string) {
		if s != "" && d.placeholder().MatchString(s) && !d.placeholderFirst[s[0]] {
			t.Fatalf("the placeholder pattern matches %q, whose first byte is outside the set", s)
		}
	})
}
