package urlmatch

import (
	"strings"
	"unicode/utf8"
)

const upperHex = "0123456789ABCDEF"

// The percent-encode sets of the URL Standard (§1.3). Each reports whether a
// code point must be percent-encoded.

func c0ControlSet(r rune) bool { return r < 0x20 || r > 0x7e }

func fragmentSet(r rune) bool {
	return c0ControlSet(r) || r == ' ' || r == '"' || r == '<' || r == '>' || r == '`'
}

func querySet(r rune) bool {
	return c0ControlSet(r) || r == ' ' || r == '"' || r == '#' || r == '<' || r == '>'
}

func specialQuerySet(r rune) bool { return querySet(r) || r == '\'' }

func pathSet(r rune) bool {
	return querySet(r) || r == '?' || r == '^' || r == '`' || r == '{' || r == '}'
}

func userinfoSet(r rune) bool {
	if pathSet(r) {
		return true
	}
	switch r {
	case '/', ':', ';', '=', '@', '[', '\\', ']', '|':
		return true
	}
	return false
}

// appendEncoded writes r to b, UTF-8 percent-encoded when it is in set.
func appendEncoded(b *strings.Builder, r rune, set func(rune) bool) {
	if !set(r) {
		b.WriteRune(r)
		return
	}
	var tmp [utf8.UTFMax]byte
	n := utf8.EncodeRune(tmp[:], r)
	for _, c := range tmp[:n] {
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// percentDecode implements the URL Standard's percent-decode on bytes: a "%"
// not followed by two hex digits stays as it is.
func percentDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				out = append(out, hi<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return out
}
