package jsonquote

import (
	"encoding/binary"
	"unicode/utf8"
)

// Append appends s quoted as encoding/json does: U+2028 and U+2029
// escaped, bytes that are not UTF-8 as \ufffd, and with escapeHTML
// (encoding/json's default) <, > and & as \u003c, \u003e, \u0026.
func Append(b []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	// The string is copied first and checked where it landed; when it
	// needs an escape, the copy is written over.
	at := len(b)
	b = append(b, '"')
	b = append(b, s...)
	if plain(b[at+1:], escapeHTML) {
		return append(b, '"')
	}
	b = b[:at+1]
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain reports whether p is printable ASCII that JSON writes as it
// is: no control character, quote or backslash, and with escapeHTML no <,
// > or &. Nearly every string of a report is; the test runs on eight
// bytes at a time (a byte-by-byte loop was a sixth of encoding a fleet).
func plain(p []byte, escapeHTML bool) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// has reports whether a byte of x is zero.
	has := func(x uint64) bool { return (x-ones)&^x&highs != 0 }
	for ; len(p) >= 8; p = p[8:] {
		x := binary.LittleEndian.Uint64(p)
		// Beyond ASCII, below space (x has no high bit set here, so the
		// subtraction's borrows cannot hide one), quote, backslash.
		if x&highs != 0 || (x-ones*' ')&^x&highs != 0 || has(x^(ones*'"')) || has(x^(ones*'\\')) {
			return false
		}
		if escapeHTML && (has(x^(ones*'<')) || has(x^(ones*'>')) || has(x^(ones*'&'))) {
			return false
		}
	}
	for _, c := range p {
		if c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' || escapeHTML && (c == '<' || c == '>' || c == '&') {
			return false
		}
	}
	return true
}
