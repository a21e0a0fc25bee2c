package urlmatch

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpguard/mcpguard/internal/interp"
)

// standInWord is the stand-in Claude Code substitutes for a value that is
// neither dotted digits nor IPv6-like.
const standInWord = "zzenvsubzz"

// standIn is Claude Code's sanitised stand-in for a variable value: trailing
// dots are kept, dot-separated digit groups become "0" each, a value of hex
// digits, ":" and "." that contains ":" becomes "::", and anything else
// becomes a fixed word of letters.
func standIn(v string) string {
	trimmed := strings.TrimRight(v, ".")
	if trimmed != v && trimmed != "" {
		return standIn(trimmed) + v[len(trimmed):]
	}
	if isDottedDigits(v) {
		var b strings.Builder
		for i := range strings.Count(v, ".") + 1 {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteByte('0')
		}
		return b.String()
	}
	if strings.Contains(v, ":") && strings.Trim(v, "0123456789abcdefABCDEF:.") == "" {
		return "::"
	}
	return standInWord
}

// isDottedDigits reports whether v matches ^[0-9]+(\.[0-9]+)*$.
func isDottedDigits(v string) bool {
	if v == "" {
		return false
	}
	for group := range strings.SplitSeq(v, ".") {
		if group == "" || strings.Trim(group, "0123456789") != "" {
			return false
		}
	}
	return true
}

// injectsWildcard is Claude Code's test for a value that would add wildcard
// semantics: "*" after NFKC normalisation, "%2a" in any case, or "*" after
// decodeURIComponent and NFKC. A value that decodeURIComponent rejects is not
// a wildcard.
func injectsWildcard(v string) bool {
	if strings.Contains(norm.NFKC.String(v), "*") || strings.Contains(strings.ToLower(v), "%2a") {
		return true
	}
	if !strings.Contains(v, "%") {
		return false
	}
	d, ok := decodeURIComponent(v)
	return ok && strings.Contains(norm.NFKC.String(d), "*")
}

// decodeURIComponent mirrors JavaScript's function: every "%XX" sequence is
// decoded, and a malformed escape or invalid UTF-8 fails.
func decodeURIComponent(s string) (string, bool) {
	var out []byte
	for i := 0; i < len(s); {
		if s[i] != '%' {
			out = append(out, s[i])
			i++
			continue
		}
		b, ok := hexByte(s, i)
		if !ok {
			return "", false
		}
		i += 3
		if b < 0x80 {
			out = append(out, b)
			continue
		}
		n := 0
		switch {
		case b&0xe0 == 0xc0:
			n = 2
		case b&0xf0 == 0xe0:
			n = 3
		case b&0xf8 == 0xf0:
			n = 4
		default:
			return "", false
		}
		seq := []byte{b}
		for k := 1; k < n; k++ {
			if i >= len(s) || s[i] != '%' {
				return "", false
			}
			c, ok := hexByte(s, i)
			if !ok || c&0xc0 != 0x80 {
				return "", false
			}
			seq = append(seq, c)
			i += 3
		}
		if r, size := utf8.DecodeRune(seq); r == utf8.RuneError || size != n {
			return "", false
		}
		out = append(out, seq...)
	}
	return string(out), true
}

func hexByte(s string, i int) (byte, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	hi, ok1 := unhex(s[i+1])
	lo, ok2 := unhex(s[i+2])
	return hi<<4 | lo, ok1 && ok2
}

// jsWhitespace matches JavaScript's \s.
const jsWhitespace = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

// dotSegment is Claude Code's /(^|\/)(\.|%2e)(\.|%2e)?(\/|$)/i.
// It is compiled on first use: most URLs never reach it.
var dotSegment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(^|/)(\.|%2e)(\.|%2e)?(/|$)`) })

// cleanForDots removes tabs and newlines and reads "\" as "/" and "%2e" as ".".
func cleanForDots(s string) string {
	s = strings.Map(func(r rune) rune {
		if isTabOrNewline(r) {
			return -1
		}
		if r == '\\' {
			return '/'
		}
		return r
	}, s)
	return replaceFoldASCII(s, "%2e", ".")
}

// replaceFoldASCII replaces every ASCII-case-insensitive occurrence of old.
func replaceFoldASCII(s, old, repl string) string {
	lower := lowerASCII(s)
	if !strings.Contains(lower, old) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(lower, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s, lower = s[i+len(old):], lower[i+len(old):]
	}
}

// position says where a variable's value lands in the parsed entry.
type position int

const (
	posRest      position = iota // path, query or fragment
	posAuthority                 // userinfo, host or port, or the text does not parse
	posScheme
)

// components are the parts of a parsed entry with the wildcard token read back
// as "*" (Claude Code's Bns).
type components struct {
	scheme, username, password, hostname, port, pathname, search, hash string
}

// parseEntry parses an expanded entry the way Claude Code does for the unsafe
// checks: "*" becomes a placeholder, the admin-wildcard token extra is
// protected like it, and a ":"-token port falls back to ":0". It returns nil
// when the entry does not parse.
func parseEntry(e, extra string) *components {
	tk := newTokens(e + "\x00" + extra)
	o := tk.protectACE(strings.ReplaceAll(e, "*", tk.wild), extra)
	u, ok := parse(o)
	if !ok {
		s, changed := tk.portTokenFallback(o, extra)
		if !changed {
			return nil
		}
		if u, ok = parse(s); !ok {
			return nil
		}
	}
	if tk.aceWithWildcard(u, extra) {
		return nil
	}
	h := func(s string) string { return strings.ReplaceAll(tk.unprotect(s), tk.wild, "*") }
	return &components{
		scheme: h(u.Scheme), username: h(u.Username), password: h(u.Password),
		hostname: h(u.Hostname), port: h(u.Port), pathname: h(u.Pathname),
		search: h(u.Search), hash: h(u.Hash),
	}
}

// expansion is the result of expanding an entry.
type expansion struct {
	text     string
	wildcard []string // set variables whose value injects a wildcard
}

func expand(s string, lookup interp.Lookup) expansion {
	text, _ := interp.ExpandClaude(s, lookup)
	var wild []string
	for _, r := range interp.Refs(interp.Claude, s) {
		if v, ok := lookup(r.Name); ok && injectsWildcard(v) {
			wild = append(wild, r.Name)
		}
	}
	return expansion{text: text, wildcard: wild}
}

// ExpandEntry expands the ${VAR} and ${VAR:-default} references of a
// serverUrl policy entry the way Claude Code does before matching: tabs and
// newlines are removed first (so "${HO\tST}" is a reference to HOST), then
// the references are expanded in one pass. lookup reports a variable's value
// in the policy environment and whether it is set; nil means nothing is set.
// Allow entries must also pass [UnsafeAllowEntry].
//
// Which environment to pass is the caller's business. Observed with 2.1.329
// (testdata/oracle_urls.txt): allow entries see the process environment with
// credential variables (ANTHROPIC_API_KEY, NPM_TOKEN, HTTPS_PROXY,
// AWS_SECRET_ACCESS_KEY, OTEL_*, ...) read as empty, and never the env block
// of ~/.claude/settings.json; deny entries are expanded twice, with and
// without that blanking, unset variables fall back to the env block of
// ~/.claude/settings.json, and a deny entry blocks when either form matches.
func ExpandEntry(entry string, lookup func(name string) (string, bool)) string {
	if lookup == nil {
		return stripTabsAndNewlines(entry)
	}
	out, _ := interp.ExpandClaude(stripTabsAndNewlines(entry), lookup)
	return out
}

// UnsafeAllowEntry reports whether Claude Code skips the allow serverUrl entry
// because a variable value would change the structure of the URL
// (docs/claude-code.md §3.4), and why. lookup returns a variable's value in
// the policy environment and whether it is set; nil means nothing is set. Only
// set variables take part: an unset one takes its default or stays literal.
//
// A skipped entry matches nothing (the allowlist fails closed) but still
// counts as a serverUrl entry for the per-transport rule, so name entries do
// not admit remote servers. Deny entries are never skipped.
//
// The checks follow Claude Code 2.1.329: a value that injects a wildcard; a
// value in the scheme or authority that holds "/", "@", "#", "?", "\" or
// whitespace (and ":" in the scheme); the real expansion and the expansion
// with sanitised stand-ins disagree on whether they parse, or the real one
// gains a query, fragment, "*", admin wildcard or trailing dot in its host;
// the real expansion does not parse; a value holds "?", "#" or a "."/".."
// segment; and, whenever the entry holds a "$" at all, a dot segment in the
// expanded URL before its query.
//
// The caller must apply Claude Code's credential blanking in lookup (some
// credential-like variables are read as empty); this package does not know
// that list.
func UnsafeAllowEntry(entry string, lookup func(name string) (string, bool)) (unsafe bool, reason string) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	y := stripTabsAndNewlines(entry)
	admin := token("zzadminwc", y)
	k := strings.ReplaceAll(y, "*", admin)

	real := expand(k, lookup)
	sani := expand(k, func(name string) (string, bool) {
		v, ok := lookup(name)
		if !ok {
			return "", false
		}
		return standIn(v), true
	})
	realURL := parseEntry(real.text, admin)
	saniURL := parseEntry(sani.text, admin)
	substituted := sani.text != k

	if len(real.wildcard) > 0 {
		return true, "the value of " + strings.Join(real.wildcard, ", ") + " injects a wildcard"
	}
	if substituted {
		for _, vp := range positions(k, admin, lookup) {
			v, _ := lookup(vp.name)
			switch vp.pos {
			case posAuthority:
				if strings.ContainsAny(v, "/@#?\\"+jsWhitespace) {
					return true, "the value of " + vp.name + " lands in the authority and holds /, @, #, ?, \\ or whitespace"
				}
			case posScheme:
				if strings.ContainsAny(v, ":/@#?\\"+jsWhitespace) {
					return true, "the value of " + vp.name + " lands in the scheme and holds :, /, @, #, ?, \\ or whitespace"
				}
			}
		}
	}
	if (realURL == nil) != (saniURL == nil) {
		return true, "the expansion parses differently with the real values and with sanitised stand-ins"
	}
	if substituted && realURL == nil {
		return true, "the expanded entry is not a valid URL (a whole-URL variable?)"
	}
	if realURL != nil {
		saniHash, saniSearch := "", ""
		if saniURL != nil {
			saniHash, saniSearch = saniURL.hash, saniURL.search
		}
		if realURL.hash != "" && saniHash == "" || realURL.search != "" && saniSearch == "" {
			return true, "a value adds a query or a fragment"
		}
	}
	if substituted {
		for _, r := range interp.Refs(interp.Claude, k) {
			v, ok := lookup(r.Name)
			if !ok {
				continue
			}
			if strings.ContainsAny(v, "?#") {
				return true, "the value of " + r.Name + " holds ? or #"
			}
			if dotSegment().MatchString(cleanForDots(v)) {
				return true, "the value of " + r.Name + " holds a . or .. path segment"
			}
		}
	}
	if strings.Contains(y, "$") && expandedHasDotSegment(real.text) {
		return true, "the expanded entry's path holds a . or .. segment that URL parsing would collapse"
	}
	if realURL != nil {
		saniHost := ""
		if saniURL != nil {
			saniHost = saniURL.hostname
		}
		switch {
		case strings.Contains(realURL.hostname, "*") && !strings.Contains(saniHost, "*"):
			return true, "a value puts a wildcard in the host"
		case strings.HasSuffix(realURL.hostname, ".") && !strings.HasSuffix(saniHost, "."):
			return true, "a value adds a trailing dot to the host"
		case strings.Contains(realURL.hostname, admin) && !strings.Contains(saniHost, admin):
			return true, "a value moves a pattern wildcard into the host"
		}
	}
	return false, ""
}

// expandedHasDotSegment is Claude Code's check on the whole expanded entry:
// trim C0 controls and spaces, clean it, cut at the first "?" or "#", and look
// for a "." or ".." segment.
func expandedHasDotSegment(s string) bool {
	start, end := 0, len(s)
	for start < end && s[start] <= 0x20 {
		start++
	}
	for end > start && s[end-1] <= 0x20 {
		end--
	}
	g := cleanForDots(s[start:end])
	if i := strings.IndexAny(g, "?#"); i >= 0 {
		g = g[:i]
	}
	return dotSegment().MatchString(g)
}

type varPosition struct {
	name string
	pos  position
}

// positions finds where each set variable of k lands, by substituting a marker
// for it while the other set variables take their stand-ins (Claude Code's
// BGs). Variables found in the scheme that way keep their real values while
// the others are located again.
func positions(k, admin string, lookup interp.Lookup) []varPosition {
	var names []string
	for _, r := range interp.Refs(interp.Claude, k) {
		if _, ok := lookup(r.Name); ok && !containsString(names, r.Name) {
			names = append(names, r.Name)
		}
	}
	locate := func(idx int, realVals map[string]bool) position {
		name := names[idx]
		marker := "zzv" + strconv.Itoa(idx) + "zz"
		q, _ := interp.ExpandClaude(k, func(n string) (string, bool) {
			if n == name {
				return marker, true
			}
			v, ok := lookup(n)
			if !ok {
				return "", false
			}
			if realVals[n] {
				return v, true
			}
			return standIn(v), true
		})
		c := parseEntry(q, admin)
		switch {
		case c == nil:
			return posAuthority
		case strings.Contains(c.scheme, marker):
			return posScheme
		case strings.Contains(c.username, marker) || strings.Contains(c.password, marker) ||
			strings.Contains(c.hostname, marker) || strings.Contains(c.port, marker):
			return posAuthority
		case strings.Contains(c.pathname, marker) || strings.Contains(c.search, marker) ||
			strings.Contains(c.hash, marker):
			return posRest
		}
		return posScheme
	}
	schemeVars := map[string]bool{}
	for i, n := range names {
		if locate(i, nil) == posScheme {
			schemeVars[n] = true
		}
	}
	out := make([]varPosition, len(names))
	for i, n := range names {
		p := posScheme
		if !schemeVars[n] {
			p = locate(i, schemeVars)
		}
		out[i] = varPosition{name: n, pos: p}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
