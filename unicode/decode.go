package unicode

import "unicode/utf8"

// decodeBinary tries to read a run of invisible code points as bits, most
// significant bit first, one symbol for 0 and another for 1. The run must
// use exactly two distinct code points (a third one framing the run, as in
// ZWSP/ZWNJ encoders delimited by WORD JOINER, is trimmed) and hold whole
// bytes. Both bit assignments are tried; the result counts when at least
// 80% of it is printable text.
func decodeBinary(run []cp) (decoded []byte, zero, one rune, ok bool) {
	if d, z, o, ok := decodeBits(run); ok {
		return d, z, o, true
	}
	if len(run) > 2 && run[0].r == run[len(run)-1].r {
		inner := run[1 : len(run)-1]
		framed := true
		for _, c := range inner {
			if c.r == run[0].r {
				framed = false
				break
			}
		}
		if framed {
			return decodeBits(inner)
		}
	}
	return nil, 0, 0, false
}

func decodeBits(run []cp) ([]byte, rune, rune, bool) {
	if len(run) < 8 || len(run)%8 != 0 {
		return nil, 0, 0, false
	}
	a, b := run[0].r, rune(-1)
	for _, c := range run {
		if c.r != a {
			if b < 0 {
				b = c.r
			} else if c.r != b {
				return nil, 0, 0, false
			}
		}
	}
	if b < 0 {
		return nil, 0, 0, false
	}
	var best []byte
	bestScore := -1.0
	var bz, bo rune
	for _, zero := range [2]rune{a, b} {
		one := a
		if zero == a {
			one = b
		}
		out := make([]byte, 0, len(run)/8)
		var cur byte
		for i, c := range run {
			cur <<= 1
			if c.r == one {
				cur |= 1
			}
			if i%8 == 7 {
				out = append(out, cur)
				cur = 0
			}
		}
		if s := printableRatio(out); s > bestScore {
			best, bestScore, bz, bo = out, s, zero, one
		}
	}
	if bestScore < 0.8 {
		return nil, 0, 0, false
	}
	return best, bz, bo, true
}

// printableRatio is the share of bytes in b that belong to printable text:
// ASCII graphic characters, space, TAB, LF, CR, and well-formed UTF-8 for
// non-control code points.
func printableRatio(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	good := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
		case r >= 0x20 && r != 0x7F && !(r >= 0x80 && r <= 0x9F), r == '\t', r == '\n', r == '\r':
			good += size
		}
		i += max(size, 1)
	}
	return float64(good) / float64(len(b))
}
