package urlmatch

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Claude Code replaces each "*" of a pattern by a random token before it
// parses the pattern as a URL, and reads the token back as "*" afterwards. The
// token is lowercase letters and digits, so lowercasing, IDNA and
// percent-encoding leave it alone. A second token protects labels such as
// "xn--*", which IDNA would otherwise try to decode as Punycode. mcpguard
// derives both from a hash of the text instead of a random source, so results
// are reproducible; the lengths equal Claude Code's (28 characters).

// tokens holds the placeholders used for one pattern.
type tokens struct {
	wild string // Claude Code's "zzwildcard<16 hex>zz"
	puny string // Claude Code's "zzpunycode<16 hex>zz"
}

// token returns prefix + 16 hex digits + "zz", chosen so that it does not occur
// in lower(text).
func token(prefix, text string) string {
	sum := sha256.Sum256([]byte(prefix + "\x00" + text))
	lower := lowerASCII(text)
	for i := 0; ; i++ {
		t := prefix + hex.EncodeToString(sum[:8]) + "zz"
		if !strings.Contains(lower, t) {
			return t
		}
		sum = sha256.Sum256(append(sum[:], byte(i)))
	}
}

func newTokens(text string) tokens {
	return tokens{wild: token("zzwildcard", text), puny: token("zzpunycode", text)}
}

// protectACE is Claude Code's guard for "xn--" labels that hold a wildcard:
// every maximal run of ASCII letters, digits and "-" that starts with "xn--"
// (any case) and contains the wildcard token (or extra, when not empty) is
// prefixed with the punycode token, so that the URL parser keeps it as an
// ordinary ASCII label.
func (t tokens) protectACE(s, extra string) string {
	if !strings.Contains(s, t.wild) && (extra == "" || !strings.Contains(s, extra)) {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isRunByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isRunByte(s[j]) {
			j++
		}
		run := s[i:j]
		if len(run) >= 4 && strings.EqualFold(run[:4], "xn--") &&
			(strings.Contains(run, t.wild) || extra != "" && strings.Contains(run, extra)) {
			b.WriteString(s[last:i])
			b.WriteString(t.puny)
			b.WriteString(run)
			last = j
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isRunByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
}

// unprotect removes the punycode token.
func (t tokens) unprotect(s string) string { return strings.ReplaceAll(s, t.puny, "") }

// aceWithWildcard reports whether u is special-ish (Claude Code's list: http,
// https, ws, wss, ftp, file) and has a host label that starts with "xn--" and
// holds the wildcard token (or extra). Such a pattern is treated as
// unparseable.
func (t tokens) aceWithWildcard(u *URL, extra string) bool {
	if !IsSpecialScheme(u.Scheme) {
		return false
	}
	for label := range strings.SplitSeq(u.Hostname, ".") {
		if strings.HasPrefix(label, "xn--") &&
			(strings.Contains(label, t.wild) || extra != "" && strings.Contains(label, extra)) {
			return true
		}
	}
	return false
}

// portTokenFallback replaces the first ":" + token (token being t.wild or
// extra) that is followed by "/", "?", "#" or the end of s with ":0". It
// reports whether it replaced anything.
func (t tokens) portTokenFallback(s, extra string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		for _, tok := range [2]string{t.wild, extra} {
			if tok == "" || !strings.HasPrefix(s[i+1:], tok) {
				continue
			}
			end := i + 1 + len(tok)
			if end == len(s) || s[end] == '/' || s[end] == '?' || s[end] == '#' {
				return s[:i] + ":0" + s[end:], true
			}
		}
	}
	return s, false
}

// compiled is a pattern after Claude Code's placeholder parse.
type compiled struct {
	pattern string
	tok     tokens
	subst   string // the pattern with "*" replaced and ACE labels protected
	url     *URL   // nil: unparseable, compare with segGlob
	anyPort bool   // the ":*" port fallback was used
}

func compile(pattern string) compiled {
	c := compiled{pattern: pattern, tok: newTokens(pattern)}
	c.subst = c.tok.protectACE(strings.ReplaceAll(pattern, "*", c.tok.wild), "")
	u, ok := parse(c.subst)
	if !ok {
		if s, changed := c.tok.portTokenFallback(c.subst, ""); changed {
			u, ok = parse(s)
			c.anyPort = ok
		}
	}
	if ok && !c.tok.aceWithWildcard(u, "") {
		c.url = u
	}
	return c
}

// star reads the wildcard token back as "*" after removing the punycode token.
func (c compiled) star(s string) string {
	return strings.ReplaceAll(c.tok.unprotect(s), c.tok.wild, "*")
}

// hostGlob is the pattern's host as Claude Code globs it: lowercase, one
// trailing dot removed, the token read back as "*".
func (c compiled) hostGlob() string {
	return strings.ReplaceAll(lowerASCII(strip1Dot(c.tok.unprotect(c.url.Hostname))), c.tok.wild, "*")
}

// hostHasWildcard reports whether the pattern host holds a "*".
func (c compiled) hostHasWildcard() bool { return strings.Contains(c.url.Hostname, c.tok.wild) }

// portAny reports whether the pattern accepts any port: an explicit ":*", or
// a wildcard host with no port (after default-port removal).
func (c compiled) portAny() bool {
	return c.anyPort || c.url.Port == "" && c.hostHasWildcard()
}

// pathAny reports whether the pattern accepts every path and query: it has no
// path (or only "/") and no query, and its text does not end with "/".
func (c compiled) pathAny() bool {
	return (c.url.Pathname == "/" || c.url.Pathname == "") && c.url.Search == "" &&
		!strings.HasSuffix(c.subst, "/")
}

// pathGlob is the pattern's pathname + search, read back with "*".
func (c compiled) pathGlob() string { return c.star(c.url.Pathname + c.url.Search) }

// schemeAny reports whether the pattern's scheme is exactly "*".
func (c compiled) schemeAny() bool { return c.url.Scheme == c.tok.wild }

func strip1Dot(s string) string { return strings.TrimSuffix(s, ".") }

// Match reports whether the serverUrl pattern matches the server URL exactly as
// Claude Code 2.1.329 decides it (docs/claude-code.md §8.1). Both strings must
// already be expanded (§3; see [ExpandEntry]). Tabs and newlines are removed
// from the pattern first, as Claude Code does when it expands an entry. Match
// never panics and runs in time roughly linear in the input sizes times the
// number of "*" in pattern.
//
// In short: "*" alone matches every URL; otherwise the server URL must parse as
// a WHATWG URL, and the pattern is parsed with each "*" replaced by a
// placeholder. A pattern that does not parse (even with a ":*" port read as
// "any port") is compared segment by segment with the server URL, which in
// practice means it never matches. Otherwise the scheme must be equal (or the
// pattern scheme is exactly "*"), the hosts are globbed after lowercasing and
// dropping one trailing dot, the ports must be equal unless the pattern has
// ":*" or a wildcard host without a port, and pathname+search are globbed
// unless the pattern has no path, no query and does not end with "/".
// Userinfo and fragments are ignored.
func Match(pattern, serverURL string) bool {
	pattern = stripTabsAndNewlines(pattern)
	if pattern == "*" {
		return true
	}
	s, ok := parse(serverURL)
	if !ok {
		return false
	}
	return compile(pattern).match(s)
}

// stripTabsAndNewlines removes every ASCII tab, LF and CR. Claude Code does
// this to every serverUrl entry before it expands and matches it.
func stripTabsAndNewlines(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isTabOrNewline(r) {
			return -1
		}
		return r
	}, s)
}

// Pattern is a compiled serverUrl pattern, for matching one pattern against
// many URLs. The zero value is not usable; use [Compile].
type Pattern struct{ c compiled }

// Compile prepares pattern for repeated [Pattern.Match] calls.
func Compile(pattern string) *Pattern {
	return &Pattern{c: compile(stripTabsAndNewlines(pattern))}
}

// Match reports whether the pattern matches serverURL, like [Match].
func (p *Pattern) Match(serverURL string) bool {
	if p.c.pattern == "*" {
		return true
	}
	s, ok := parse(serverURL)
	if !ok {
		return false
	}
	return p.c.match(s)
}

// MatchURL is [Pattern.Match] for an already parsed server URL.
func (p *Pattern) MatchURL(u *URL) bool {
	if p.c.pattern == "*" {
		return true
	}
	return u != nil && p.c.match(u)
}

func (c compiled) match(s *URL) bool {
	if c.url == nil {
		return segGlob(c.pattern, fallbackString(s))
	}
	p := c.url
	if p.Scheme != c.tok.wild && p.Scheme != s.Scheme {
		return false
	}
	if !Glob(c.hostGlob(), lowerASCII(strip1Dot(s.Hostname))) {
		return false
	}
	if !c.portAny() && p.Port != s.Port {
		return false
	}
	if c.pathAny() {
		return true
	}
	return Glob(c.pathGlob(), s.Pathname+s.Search)
}

// fallbackString is what Claude Code compares an unparseable pattern with:
// protocol + "//" + host (with port) + pathname + search.
func fallbackString(s *URL) string {
	return s.Scheme + "://" + s.Host + s.Pathname + s.Search
}

// NeverMatches reports whether pattern can match no server URL at all: an
// allow entry holding it admits nothing (fails closed) and a deny entry holding
// it blocks nothing (fails open, MCPG-P003). It is true for unparseable
// patterns whose segment comparison cannot succeed (fewer than three
// "/"-separated segments, a first segment that cannot match "scheme:", or a
// second segment that cannot be empty; this covers every scheme-less pattern)
// and for patterns whose scheme holds "*" without being exactly "*"
// ("http*://…"), because schemes are compared literally. It may return false
// for some other patterns that match nothing.
func NeverMatches(pattern string) bool {
	pattern = stripTabsAndNewlines(pattern)
	if pattern == "*" {
		return false
	}
	c := compile(pattern)
	if c.url != nil {
		return strings.Contains(c.url.Scheme, c.tok.wild) && c.url.Scheme != c.tok.wild
	}
	segs := strings.Split(pattern, "/")
	if len(segs) < 3 {
		return true
	}
	if strings.Trim(segs[1], "*") != "" {
		return true
	}
	first := segs[0]
	if first == "" || !(strings.HasSuffix(first, ":") || strings.HasSuffix(first, "*")) {
		return true
	}
	for _, r := range first {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.' || r == ':' || r == '*') {
			return true // the protocol is lowercase ASCII
		}
	}
	return false
}
