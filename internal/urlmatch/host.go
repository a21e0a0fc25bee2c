package urlmatch

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// idnaProfile is the URL Standard's "domain to ASCII" with beStrict false:
// UTS #46 ToASCII with CheckHyphens=false, CheckBidi=true, CheckJoiners=true,
// UseSTD3ASCIIRules=false, Transitional_Processing=false and
// VerifyDnsLength=false. MapForLookup switches STD3 rules on, so the later
// options switch them off again (options apply in order).
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.CheckJoiners(true),
	idna.CheckHyphens(false),
	idna.StrictDomainName(false),
	idna.Transitional(false),
	idna.VerifyDNSLength(false),
)

func isForbiddenHostCodePoint(r rune) bool {
	switch r {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

func isForbiddenDomainCodePoint(r rune) bool {
	return isForbiddenHostCodePoint(r) || r <= 0x1f || r == '%' || r == 0x7f
}

// parseHost implements the URL Standard's host parser. It returns the
// serialised host.
func parseHost(in []rune, isOpaque bool) (string, bool) {
	if len(in) > 0 && in[0] == '[' {
		if in[len(in)-1] != ']' {
			return "", false
		}
		addr, ok := parseIPv6(in[1 : len(in)-1])
		if !ok {
			return "", false
		}
		return "[" + serializeIPv6(addr) + "]", true
	}
	if isOpaque {
		return parseOpaqueHost(in)
	}
	domain := string(percentDecode(string(in)))
	if !utf8.ValidString(domain) {
		domain = strings.ToValidUTF8(domain, "\uFFFD")
	}
	ascii, ok := domainToASCII(domain)
	if !ok {
		return "", false
	}
	for _, r := range ascii {
		if isForbiddenDomainCodePoint(r) {
			return "", false
		}
	}
	if endsInANumber(ascii) {
		v, ok := parseIPv4(ascii)
		if !ok {
			return "", false
		}
		return serializeIPv4(v), true
	}
	return ascii, true
}

func parseOpaqueHost(in []rune) (string, bool) {
	var b strings.Builder
	for _, r := range in {
		if isForbiddenHostCodePoint(r) {
			return "", false
		}
		appendEncoded(&b, r, c0ControlSet)
	}
	return b.String(), true
}

// maxIDNALength is the size of WebKit's hostname buffer (Claude Code runs on
// Bun, whose URL parser is WebKit's): a host that needs IDNA processing fails
// when its ASCII form is longer than this. The oracle confirms 2048 parses
// and 2049 fails; hosts on the all-ASCII fast path have no limit.
const maxIDNALength = 2048

// domainToASCII implements "domain to ASCII" with beStrict false.
func domainToASCII(domain string) (string, bool) {
	if isASCII(domain) && !hasACELabel(domain) {
		// The URL Standard's fast path: UTS #46 on such input is an ASCII
		// lowercase.
		return lowerASCII(domain), true
	}
	// Every code point that UTS #46 does not ignore yields at least one
	// character of the result, so longer input fails anyway. Checking first
	// also bounds the Punycode work, which is quadratic in a label's length.
	if idnaLowerBound(domain) > maxIDNALength {
		return "", false
	}
	out, err := idnaProfile.ToASCII(domain)
	if err != nil || out == "" || len(out) > maxIDNALength {
		return "", false
	}
	return out, true
}

// idnaLowerBound counts the code points of s that UTS #46 does not ignore
// (the "ignored" rows of the IDNA mapping table, Unicode 15; a test checks
// the list against golang.org/x/net/idna).
func idnaLowerBound(s string) int {
	n := 0
	for _, r := range s {
		if !isIDNAIgnored(r) {
			n++
		}
	}
	return n
}

func isIDNAIgnored(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, 0x180B <= r && r <= 0x180D, r == 0x180F, r == 0x200B,
		r == 0x2060, r == 0x2064, 0xFE00 <= r && r <= 0xFE0F, r == 0xFEFF,
		0x1BCA0 <= r && r <= 0x1BCA3, 0xE0100 <= r && r <= 0xE01EF:
		return true
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasACELabel reports whether a dot-separated label of s starts with "xn--"
// (any case).
func hasACELabel(s string) bool {
	for label := range strings.SplitSeq(s, ".") {
		if len(label) >= 4 && strings.EqualFold(label[:4], "xn--") {
			return true
		}
	}
	return false
}

// lowerASCII lowercases the ASCII letters of s and leaves everything else.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// endsInANumber implements the URL Standard's "ends in a number" checker.
// The last label is read in place (a host's labels were split into a
// list for it, on every parse).
func endsInANumber(s string) bool {
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" && s != "" {
		// A trailing dot: the label before it.
		rest := s[:len(s)-1]
		last = rest[strings.LastIndexByte(rest, '.')+1:]
	}
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number implements the IPv4 number parser. Values above 2^32 are
// clamped to 2^32, which every caller rejects.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	radix := uint64(10)
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, radix = s[2:], 16
	} else if len(s) >= 2 && s[0] == '0' {
		s, radix = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d, ok := unhex(s[i])
		if !ok || uint64(d) >= radix {
			return 0, false
		}
		if n <= 1<<32 {
			n = n*radix + uint64(d)
		}
		if n > 1<<32 {
			n = 1 << 32
		}
	}
	return n, true
}

// parseIPv4 implements the IPv4 parser.
func parseIPv4(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return 0, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return 0, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return 0, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return uint32(v), true
}

func serializeIPv4(v uint32) string {
	return strconv.Itoa(int(v>>24)) + "." + strconv.Itoa(int(v>>16&0xff)) + "." +
		strconv.Itoa(int(v>>8&0xff)) + "." + strconv.Itoa(int(v&0xff))
}

// parseIPv6 implements the IPv6 parser.
func parseIPv6(in []rune) ([8]uint16, bool) {
	var addr [8]uint16
	piece, compress := 0, -1
	p := 0
	c := func() rune {
		if p < len(in) {
			return in[p]
		}
		return eof
	}
	if c() == ':' {
		if p+1 >= len(in) || in[p+1] != ':' {
			return addr, false
		}
		p += 2
		piece++
		compress = piece
	}
	for c() != eof {
		if piece == 8 {
			return addr, false
		}
		if c() == ':' {
			if compress != -1 {
				return addr, false
			}
			p++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && isASCIIHex(c()) {
			d, _ := unhex(byte(c()))
			value = value*16 + int(d)
			p++
			length++
		}
		if c() == '.' {
			if length == 0 {
				return addr, false
			}
			p -= length
			if piece > 6 {
				return addr, false
			}
			numbersSeen := 0
			for c() != eof {
				ipv4Piece := -1
				if numbersSeen > 0 {
					if c() == '.' && numbersSeen < 4 {
						p++
					} else {
						return addr, false
					}
				}
				if !isASCIIDigit(c()) {
					return addr, false
				}
				for isASCIIDigit(c()) {
					n := int(c() - '0')
					switch {
					case ipv4Piece == -1:
						ipv4Piece = n
					case ipv4Piece == 0:
						return addr, false
					default:
						ipv4Piece = ipv4Piece*10 + n
					}
					if ipv4Piece > 255 {
						return addr, false
					}
					p++
				}
				addr[piece] = addr[piece]*0x100 + uint16(ipv4Piece)
				numbersSeen++
				if numbersSeen == 2 || numbersSeen == 4 {
					piece++
				}
			}
			if numbersSeen != 4 {
				return addr, false
			}
			break
		} else if c() == ':' {
			p++
			if c() == eof {
				return addr, false
			}
		} else if c() != eof {
			return addr, false
		}
		addr[piece] = uint16(value)
		piece++
	}
	if compress != -1 {
		swaps := piece - compress
		piece = 7
		for piece != 0 && swaps > 0 {
			addr[piece], addr[compress+swaps-1] = addr[compress+swaps-1], addr[piece]
			piece--
			swaps--
		}
	} else if piece != 8 {
		return addr, false
	}
	return addr, true
}

// serializeIPv6 implements the IPv6 serializer: lowercase hex, the first
// longest run of two or more zero pieces compressed to "::", and no dotted
// IPv4 form (so ::ffff:127.0.0.1 is written ::ffff:7f00:1).
func serializeIPv6(addr [8]uint16) string {
	compress, best := -1, 1
	for i := 0; i < 8; {
		if addr[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && addr[j] == 0 {
			j++
		}
		if j-i > best {
			compress, best = i, j-i
		}
		i = j
	}
	var b strings.Builder
	ignore0 := false
	for i := 0; i < 8; i++ {
		if ignore0 && addr[i] == 0 {
			continue
		}
		ignore0 = false
		if compress == i {
			if i == 0 {
				b.WriteString("::")
			} else {
				b.WriteByte(':')
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(addr[i]), 16))
		if i != 7 {
			b.WriteByte(':')
		}
	}
	return b.String()
}
