package urlmatch

import (
	"strings"

	"golang.org/x/net/publicsuffix"
)

// WeaknessKind names a way in which a serverUrl pattern admits more than it
// appears to (docs/claude-code.md §11.3, MCPG-P005).
type WeaknessKind string

// The weaknesses [Weaknesses] reports.
const (
	// AllowAll: the pattern admits every host, port and path of its scheme(s):
	// "*", "https://*", "ws://*", "*://*/*".
	AllowAll WeaknessKind = "allow-all"
	// AnyHost: the host is only "*", but the port or the path is restricted.
	AnyHost WeaknessKind = "any-host"
	// HostWildcardAnyPort: the host holds "*" and the pattern names no port
	// (or only the scheme's default port, which the parser drops), so every
	// port matches.
	HostWildcardAnyPort WeaknessKind = "host-wildcard-any-port"
	// GluedWildcard: a host "*" is not followed by "." and a registrable
	// domain, so it crosses into other domains ("https://mcp.acme.example*",
	// "https://*acme.example").
	GluedWildcard WeaknessKind = "glued-wildcard"
	// PublicSuffixWildcard: "*." is followed by a public suffix only
	// ("https://*.com", "https://*.github.io"), so anyone can register a
	// matching host.
	PublicSuffixWildcard WeaknessKind = "public-suffix-wildcard"
	// NoPath: the pattern has no path and no query (a trailing "?" or a
	// fragment does not count), so it admits every path and query.
	NoPath WeaknessKind = "no-path"
	// SchemeWildcard: the scheme is "*", which admits cleartext http and ws.
	SchemeWildcard WeaknessKind = "scheme-wildcard"
	// Userinfo: the pattern has userinfo, which restricts nothing.
	Userinfo WeaknessKind = "userinfo"
	// LegacyBypass: with the regex matcher of older clients (2.1.88 and
	// earlier, see [LegacyMatch]) a "*" in the authority can be satisfied
	// through the path, the query, the fragment or userinfo, so the real host
	// can be anything.
	LegacyBypass WeaknessKind = "legacy-bypass"
)

// Weakness is one finding about a pattern.
type Weakness struct {
	Kind WeaknessKind
	// Detail is one sentence for the finding message.
	Detail string
	// Example is a server URL that the pattern admits and that shows the
	// weakness, or "". For LegacyBypass it is admitted by [LegacyMatch] and
	// not by [Match]; otherwise it is admitted by [Match].
	Example string
}

// safeForm is the advice attached to host-wildcard findings.
const safeForm = `a wildcard host is safe only as "*." followed by a literal registrable domain, with an explicit port and a path, e.g. "https://*.acme.example:443/mcp/*"`

// Weaknesses classifies the ways in which pattern admits more than it appears
// to (MCPG-P005), in a fixed order. It returns nil for a narrow pattern and
// for an unparseable one (see [NeverMatches], MCPG-P003).
func Weaknesses(pattern string) []Weakness {
	pattern = stripTabsAndNewlines(pattern)
	if pattern == "*" {
		return []Weakness{{Kind: AllowAll, Detail: `"*" matches every remote (http, sse and ws) server`, Example: "https://evil.test/anything"}}
	}
	c := compile(pattern)
	if c.url == nil || NeverMatches(pattern) {
		return nil
	}
	var out []Weakness
	add := func(kind WeaknessKind, detail, example string) {
		if example != "" && !Match(pattern, example) {
			example = ""
		}
		out = append(out, Weakness{Kind: kind, Detail: detail, Example: example})
	}
	hg := c.hostGlob()
	anyHost := strings.Trim(hg, "*") == "" && hg != ""
	pathOpen := c.pathAny() || strings.Trim(strings.TrimPrefix(c.pathGlob(), "/"), "*") == "" && strings.Contains(c.pathGlob(), "*")
	scheme := c.url.Scheme
	if c.schemeAny() {
		scheme = "https"
	}

	switch {
	case anyHost && c.portAny() && pathOpen:
		add(AllowAll, "the pattern matches every host, port and path"+schemeNote(c), c.example(scheme, "evil.test", "4443", "/anything?x=1"))
	case anyHost:
		add(AnyHost, `the host is "*", so any server with a matching port and path is admitted`, c.example(scheme, "evil.test", "", ""))
	}
	if !anyHost && c.hostHasWildcard() && c.url.Port == "" && !c.anyPort {
		detail := "a wildcard host without a port admits every port"
		if hasExplicitDefaultPort(pattern) {
			detail = "the explicit default port is dropped by the URL parser, so this wildcard host admits every port"
		}
		add(HostWildcardAnyPort, detail+"; "+safeForm, c.example(scheme, "", "9000", ""))
	}
	if !anyHost && strings.Contains(hg, "*") {
		last := strings.LastIndexByte(hg, '*')
		lit := hg[last+1:]
		fixed := lit
		if strings.HasPrefix(lit, ".") {
			fixed = lit[1:]
		} else if i := strings.IndexByte(lit, '.'); i >= 0 {
			fixed = lit[i+1:]
		} else {
			fixed = ""
		}
		open := fixed == "" || isPublicSuffix(fixed)
		switch {
		case open && !strings.HasPrefix(lit, "."):
			sub := "evil"
			if lit == "" {
				sub = ".evil.test"
				if strings.HasSuffix(hg[:last], ".") {
					sub = "evil.test"
				}
			}
			add(GluedWildcard, `a host "*" that is not followed by "." and a registrable domain crosses into other domains; `+safeForm,
				c.example(scheme, replaceNth(hg, last, sub), "", ""))
		case open:
			add(PublicSuffixWildcard, `"*." is followed by a public suffix only, so anyone can register a matching host; `+safeForm,
				c.example(scheme, replaceNth(hg, last, "evil-corp"), "", ""))
		}
	}
	if c.pathAny() && !(anyHost && c.portAny()) {
		detail := "a pattern with no path admits every path and query"
		if strings.ContainsAny(c.subst, "?#") {
			detail = `a trailing "?" or a fragment does not restrict the path: the pattern admits every path and query`
		}
		add(NoPath, detail+`; end the pattern with "/" for the root only, or give the path`, c.example(scheme, "", "", "/admin?debug=1"))
	}
	if c.schemeAny() {
		add(SchemeWildcard, `the "*" scheme admits cleartext http:// and ws:// too`, c.example("http", "", "", ""))
	}
	if c.url.Username != "" || c.url.Password != "" {
		add(Userinfo, "userinfo in a pattern is ignored: it admits servers with any or no credentials", c.example(scheme, "", "", ""))
	}
	if ex := legacyBypassExample(pattern); ex != "" && !anyHost {
		out = append(out, Weakness{Kind: LegacyBypass,
			Detail:  `on Claude Code 2.1.88 and other regex matchers a "*" in the host or port can be satisfied through the path, query or userinfo, so the real host is unrestricted`,
			Example: ex})
	}
	return out
}

func schemeNote(c compiled) string {
	if c.schemeAny() {
		return " of every scheme"
	}
	return " for " + c.url.Scheme
}

// hasExplicitDefaultPort reports whether the pattern text spells ":443" or
// ":80" (which the parser drops for the special schemes).
func hasExplicitDefaultPort(pattern string) bool {
	rest := pattern
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#\\"); i >= 0 {
		rest = rest[:i]
	}
	return strings.HasSuffix(rest, ":443") || strings.HasSuffix(rest, ":80") || strings.HasSuffix(rest, ":21")
}

func isPublicSuffix(domain string) bool {
	if strings.Contains(domain, "*") || domain == "" {
		return false
	}
	ps, _ := publicsuffix.PublicSuffix(domain)
	return ps == domain
}

// replaceNth replaces the "*" at byte index i of s with sub and every other
// "*" with "x".
func replaceNth(s string, i int, sub string) string {
	return strings.ReplaceAll(s[:i], "*", "x") + sub + strings.ReplaceAll(s[i+1:], "*", "x")
}

// example builds a server URL from the pattern's parts, with "*" read as "x".
// Empty arguments take the pattern's own host, port and path.
func (c compiled) example(scheme, host, port, path string) string {
	if host == "" {
		host = strings.ReplaceAll(c.hostGlob(), "*", "x")
	}
	if port == "" && !c.anyPort {
		port = c.url.Port
	}
	if path == "" {
		path = strings.ReplaceAll(c.pathGlob(), "*", "x")
		if c.pathAny() {
			path = "/"
		}
	}
	u := scheme + "://" + host
	if port != "" {
		u += ":" + port
	}
	return u + path
}

// LegacyMatch is the matcher of Claude Code 2.1.88 and earlier
// (docs/claude-code.md §8.4): the pattern becomes an anchored regular
// expression in which "*" is ".*" and everything else is literal, and it is
// matched against the raw server URL, without parsing. Hosts and schemes are
// case-sensitive, ":443" does not equal no port, and "*" crosses "/", "?",
// "#" and "@" (but, like "." in JavaScript, no line terminator).
func LegacyMatch(pattern, serverURL string) bool {
	const terms = "\n\r\u2028\u2029"
	if !strings.ContainsAny(pattern, terms) && !strings.ContainsAny(serverURL, terms) {
		return Glob(pattern, serverURL)
	}
	ps := splitAny(pattern, terms)
	ss := splitAny(serverURL, terms)
	if len(ps) != len(ss) {
		return false
	}
	for i := range ps {
		if ps[i].sep != ss[i].sep || !Glob(ps[i].text, ss[i].text) {
			return false
		}
	}
	return true
}

type piece struct{ text, sep string }

func splitAny(s, seps string) []piece {
	var out []piece
	for {
		i := strings.IndexAny(s, seps)
		if i < 0 {
			return append(out, piece{text: s})
		}
		r := []rune(s[i:])[0]
		out = append(out, piece{text: s[:i], sep: string(r)})
		s = s[i+len(string(r)):]
	}
}

// legacyBypassExample looks for a URL that the legacy matcher admits and the
// current one rejects, by satisfying one "*" of the pattern's authority
// through a path, query, fragment or userinfo.
func legacyBypassExample(pattern string) string {
	start := strings.Index(pattern, "://")
	if start < 0 {
		return ""
	}
	start += 3
	end := len(pattern)
	if i := strings.IndexAny(pattern[start:], "/?#"); i >= 0 {
		end = start + i
	}
	subs := []string{"evil.test/", "evil.test?", "evil.test#", "1@evil.test", "x@evil.test", "x@evil.test/"}
	for i := start; i < end; i++ {
		if pattern[i] != '*' {
			continue
		}
		for _, sub := range subs {
			cand := replaceNth(pattern, i, sub)
			if strings.HasPrefix(pattern, "*://") {
				cand = "https" + cand[1:] // a "*" scheme: try https
			}
			if LegacyMatch(pattern, cand) && !Match(pattern, cand) {
				if u, err := Parse(cand); err == nil && u.Hostname != "" {
					return cand
				}
			}
		}
	}
	return ""
}
