package urlmatch

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrInvalidURL is returned by [Parse] for every input that the WHATWG basic
// URL parser rejects (the JavaScript `new URL(s)` throws a TypeError).
var ErrInvalidURL = errors.New("urlmatch: invalid URL")

// URL is a parsed URL record, exposed through the same accessors as the
// JavaScript URL class. Every field holds the serialised form that the
// corresponding JavaScript getter returns.
type URL struct {
	// Scheme is the lowercase scheme without the trailing ":" ("https").
	Scheme string
	// Username and Password are the percent-encoded userinfo parts.
	Username string
	Password string
	// Host is the serialised host followed by ":" and the port when there is
	// one, like the JavaScript `host` getter ("[::1]:8080", "example.com").
	Host string
	// Hostname is the serialised host alone: a lowercase ASCII domain, a dotted
	// IPv4 address, a bracketed IPv6 address ("[::1]") or an opaque host.
	Hostname string
	// Port is the decimal port, or "" when there is none or it is the
	// scheme's default port.
	Port string
	// Pathname is the serialised path ("/a/b", or the opaque path).
	Pathname string
	// Search is "?" and the query, or "" when the query is absent or empty.
	Search string
	// Hash is "#" and the fragment, or "" when the fragment is absent or empty.
	Hash string

	hasHost     bool // the host is not null
	opaquePath  bool
	hasQuery    bool // the query is not null (it may be empty)
	query       string
	hasFragment bool // the fragment is not null (it may be empty)
	fragment    string
}

// Protocol returns the scheme followed by ":", like the JavaScript `protocol`
// getter.
func (u *URL) Protocol() string { return u.Scheme + ":" }

// Href returns the URL serialisation (the JavaScript `href` getter). Parsing
// the result again yields an equal URL.
func (u *URL) Href() string {
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteByte(':')
	if u.hasHost {
		b.WriteString("//")
		if u.Username != "" || u.Password != "" {
			b.WriteString(u.Username)
			if u.Password != "" {
				b.WriteByte(':')
				b.WriteString(u.Password)
			}
			b.WriteByte('@')
		}
		b.WriteString(u.Host)
	} else if !u.opaquePath && strings.HasPrefix(u.Pathname, "//") {
		// A path that starts with an empty segment would read back as a host.
		b.WriteString("/.")
	}
	b.WriteString(u.Pathname)
	if u.hasQuery {
		b.WriteByte('?')
		b.WriteString(u.query)
	}
	if u.hasFragment {
		b.WriteByte('#')
		b.WriteString(u.fragment)
	}
	return b.String()
}

// String returns [URL.Href].
func (u *URL) String() string { return u.Href() }

// specialPorts maps the special schemes to their default port ("" for file).
var specialPorts = map[string]string{
	"ftp": "21", "file": "", "http": "80", "https": "443", "ws": "80", "wss": "443",
}

// IsSpecialScheme reports whether scheme (lowercase, without ":") is one of the
// WHATWG special schemes: ftp, file, http, https, ws and wss.
func IsSpecialScheme(scheme string) bool {
	_, ok := specialPorts[scheme]
	return ok
}

type state int

const (
	stSchemeStart state = iota
	stScheme
	stSpecialAuthoritySlashes
	stPathOrAuthority
	stSpecialAuthorityIgnoreSlashes
	stAuthority
	stHost
	stPort
	stFile
	stFileSlash
	stFileHost
	stPathStart
	stPath
	stOpaquePath
	stQuery
	stFragment
)

const eof = -1

// Parse parses s with the WHATWG URL Standard's basic URL parser and no base
// URL, which is what `new URL(s)` does in Claude Code. Relative references,
// inputs without a scheme, invalid hosts and ports above 65535 fail with
// [ErrInvalidURL].
func Parse(s string) (*URL, error) {
	u, ok := parse(s)
	if !ok {
		return nil, ErrInvalidURL
	}
	return u, nil
}

// parser holds the state of one run of the basic URL parser.
type parser struct {
	in      []rune
	p       int
	buf     []rune
	special bool

	scheme     string
	username   strings.Builder
	password   strings.Builder
	hasHost    bool
	host       string
	port       int // -1: null
	path       []string
	opaque     strings.Builder
	opaquePath bool
	hasQuery   bool
	query      strings.Builder
	hasFrag    bool
	frag       strings.Builder
}

func isASCIIAlpha(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
func isASCIIDigit(r rune) bool { return '0' <= r && r <= '9' }
func isASCIIHex(r rune) bool   { return isASCIIDigit(r) || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F' }
func isASCIIAlnum(r rune) bool { return isASCIIAlpha(r) || isASCIIDigit(r) }
func lowerASCIIRune(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + ('a' - 'A')
	}
	return r
}
func isTabOrNewline(r rune) bool { return r == '\t' || r == '\n' || r == '\r' }
func isWindowsDriveLetter(s []rune) bool {
	return len(s) == 2 && isASCIIAlpha(s[0]) && (s[1] == ':' || s[1] == '|')
}
func isNormalizedWindowsDriveLetter(s string) bool {
	return len(s) == 2 && isASCIIAlpha(rune(s[0])) && s[1] == ':'
}

// toRunes trims leading and trailing C0 controls and spaces, removes every
// ASCII tab and newline, and decodes s into code points (invalid UTF-8
// becomes U+FFFD, as it does when a JavaScript string is built from bytes).
func toRunes(s string) []rune {
	start, end := 0, len(s)
	for start < end && s[start] <= 0x20 {
		start++
	}
	for end > start && s[end-1] <= 0x20 {
		end--
	}
	s = s[start:end]
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if isTabOrNewline(r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func (ps *parser) c() rune {
	if ps.p >= len(ps.in) || ps.p < 0 {
		return eof
	}
	return ps.in[ps.p]
}

// remainingStartsWith reports whether the code points after the current one
// begin with s.
func (ps *parser) remainingStartsWith(s string) bool {
	i := ps.p + 1
	for _, r := range s {
		if i >= len(ps.in) || ps.in[i] != r {
			return false
		}
		i++
	}
	return true
}

func parse(s string) (*URL, bool) {
	ps := &parser{in: toRunes(s), port: -1}
	if !ps.run() {
		return nil, false
	}
	return ps.result(), true
}

func (ps *parser) run() bool {
	st := stSchemeStart
	atSignSeen, insideBrackets, passwordTokenSeen := false, false, false
	for ; ; ps.p++ {
		c := ps.c()
		switch st {
		case stSchemeStart:
			if isASCIIAlpha(c) {
				ps.buf = append(ps.buf, lowerASCIIRune(c))
				st = stScheme
				continue
			}
			return false // no scheme, and there is no base URL

		case stScheme:
			if isASCIIAlnum(c) || c == '+' || c == '-' || c == '.' {
				ps.buf = append(ps.buf, lowerASCIIRune(c))
				continue
			}
			if c != ':' {
				return false // no scheme
			}
			ps.scheme = string(ps.buf)
			ps.buf = ps.buf[:0]
			_, ps.special = specialPorts[ps.scheme]
			switch {
			case ps.scheme == "file":
				st = stFile
			case ps.special:
				st = stSpecialAuthoritySlashes
			case ps.remainingStartsWith("/"):
				st = stPathOrAuthority
				ps.p++
			default:
				ps.opaquePath = true
				st = stOpaquePath
			}

		case stSpecialAuthoritySlashes:
			if c == '/' && ps.remainingStartsWith("/") {
				st = stSpecialAuthorityIgnoreSlashes
				ps.p++
			} else {
				st = stSpecialAuthorityIgnoreSlashes
				ps.p--
			}

		case stPathOrAuthority:
			if c == '/' {
				st = stAuthority
			} else {
				st = stPath
				ps.p--
			}

		case stSpecialAuthorityIgnoreSlashes:
			if c != '/' && c != '\\' {
				st = stAuthority
				ps.p--
			}

		case stAuthority:
			switch {
			case c == '@':
				if atSignSeen {
					ps.buf = append([]rune("%40"), ps.buf...)
				}
				atSignSeen = true
				for _, r := range ps.buf {
					if r == ':' && !passwordTokenSeen {
						passwordTokenSeen = true
						continue
					}
					if passwordTokenSeen {
						appendEncoded(&ps.password, r, userinfoSet)
					} else {
						appendEncoded(&ps.username, r, userinfoSet)
					}
				}
				ps.buf = ps.buf[:0]
			case c == eof || c == '/' || c == '?' || c == '#' || ps.special && c == '\\':
				if atSignSeen && len(ps.buf) == 0 {
					return false // host missing
				}
				ps.p -= len(ps.buf) + 1
				ps.buf = ps.buf[:0]
				st = stHost
			default:
				ps.buf = append(ps.buf, c)
			}

		case stHost:
			switch {
			case c == ':' && !insideBrackets:
				if len(ps.buf) == 0 {
					return false // host missing
				}
				h, ok := parseHost(ps.buf, !ps.special)
				if !ok {
					return false
				}
				ps.hasHost, ps.host = true, h
				ps.buf = ps.buf[:0]
				st = stPort
			case c == eof || c == '/' || c == '?' || c == '#' || ps.special && c == '\\':
				ps.p--
				if ps.special && len(ps.buf) == 0 {
					return false // host missing
				}
				h, ok := parseHost(ps.buf, !ps.special)
				if !ok {
					return false
				}
				ps.hasHost, ps.host = true, h
				ps.buf = ps.buf[:0]
				st = stPathStart
			default:
				if c == '[' {
					insideBrackets = true
				} else if c == ']' {
					insideBrackets = false
				}
				ps.buf = append(ps.buf, c)
			}

		case stPort:
			switch {
			case isASCIIDigit(c):
				ps.buf = append(ps.buf, c)
			case c == eof || c == '/' || c == '?' || c == '#' || ps.special && c == '\\':
				if len(ps.buf) != 0 {
					port, ok := parsePort(ps.buf)
					if !ok {
						return false // port out of range
					}
					if def, ok := specialPorts[ps.scheme]; ok && def == strconv.Itoa(port) {
						ps.port = -1
					} else {
						ps.port = port
					}
					ps.buf = ps.buf[:0]
				}
				st = stPathStart
				ps.p--
			default:
				return false // invalid port
			}

		case stFile:
			ps.hasHost, ps.host = true, ""
			if c == '/' || c == '\\' {
				st = stFileSlash
			} else {
				st = stPath
				ps.p--
			}

		case stFileSlash:
			if c == '/' || c == '\\' {
				st = stFileHost
			} else {
				st = stPath
				ps.p--
			}

		case stFileHost:
			switch c {
			case eof, '/', '\\', '?', '#':
				ps.p--
				switch {
				case isWindowsDriveLetter(ps.buf):
					// The Windows drive letter quirk: buf is kept and becomes
					// the first path segment.
					st = stPath
				case len(ps.buf) == 0:
					ps.hasHost, ps.host = true, ""
					st = stPathStart
				default:
					h, ok := parseHost(ps.buf, false)
					if !ok {
						return false
					}
					if h == "localhost" {
						h = ""
					}
					ps.hasHost, ps.host = true, h
					ps.buf = ps.buf[:0]
					st = stPathStart
				}
			default:
				ps.buf = append(ps.buf, c)
			}

		case stPathStart:
			switch {
			case ps.special:
				st = stPath
				if c != '/' && c != '\\' {
					ps.p--
				}
			case c == '?':
				ps.hasQuery = true
				st = stQuery
			case c == '#':
				ps.hasFrag = true
				st = stFragment
			case c != eof:
				st = stPath
				if c != '/' {
					ps.p--
				}
			}

		case stPath:
			if c == eof || c == '/' || ps.special && c == '\\' || c == '?' || c == '#' {
				seg := string(ps.buf)
				slash := c == '/' || ps.special && c == '\\'
				switch {
				case isDoubleDot(seg):
					ps.shortenPath()
					if !slash {
						ps.path = append(ps.path, "")
					}
				case isSingleDot(seg):
					if !slash {
						ps.path = append(ps.path, "")
					}
				default:
					if ps.scheme == "file" && len(ps.path) == 0 && isWindowsDriveLetter(ps.buf) {
						seg = string(ps.buf[0]) + ":"
					}
					ps.path = append(ps.path, seg)
				}
				ps.buf = ps.buf[:0]
				if c == '?' {
					ps.hasQuery = true
					st = stQuery
				} else if c == '#' {
					ps.hasFrag = true
					st = stFragment
				}
			} else {
				ps.buf = appendEncodedRunes(ps.buf, c, pathSet)
			}

		case stOpaquePath:
			switch c {
			case '?':
				ps.hasQuery = true
				st = stQuery
			case '#':
				ps.hasFrag = true
				st = stFragment
			case ' ':
				if ps.remainingStartsWith("?") || ps.remainingStartsWith("#") {
					ps.opaque.WriteString("%20")
				} else {
					ps.opaque.WriteByte(' ')
				}
			case eof:
			default:
				appendEncoded(&ps.opaque, c, c0ControlSet)
			}

		case stQuery:
			if c == '#' || c == eof {
				set := querySet
				if ps.special {
					set = specialQuerySet
				}
				for _, r := range ps.buf {
					appendEncoded(&ps.query, r, set)
				}
				ps.buf = ps.buf[:0]
				if c == '#' {
					ps.hasFrag = true
					st = stFragment
				}
			} else {
				ps.buf = append(ps.buf, c)
			}

		case stFragment:
			if c != eof {
				appendEncoded(&ps.frag, c, fragmentSet)
			}
		}
		if ps.p >= len(ps.in) {
			return true
		}
	}
}

// parsePort parses the ASCII digits of a port; it fails above 65535.
func parsePort(digits []rune) (int, bool) {
	n := 0
	for _, r := range digits {
		n = n*10 + int(r-'0')
		if n > 65535 {
			return 0, false
		}
	}
	return n, true
}

func (ps *parser) shortenPath() {
	if ps.scheme == "file" && len(ps.path) == 1 && isNormalizedWindowsDriveLetter(ps.path[0]) {
		return
	}
	if len(ps.path) > 0 {
		ps.path = ps.path[:len(ps.path)-1]
	}
}

func isSingleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func (ps *parser) result() *URL {
	u := &URL{
		Scheme:      ps.scheme,
		Username:    ps.username.String(),
		Password:    ps.password.String(),
		hasHost:     ps.hasHost,
		opaquePath:  ps.opaquePath,
		hasQuery:    ps.hasQuery,
		query:       ps.query.String(),
		hasFragment: ps.hasFrag,
		fragment:    ps.frag.String(),
	}
	if ps.hasHost {
		u.Hostname = ps.host
		u.Host = ps.host
		if ps.port >= 0 {
			u.Port = strconv.Itoa(ps.port)
			u.Host += ":" + u.Port
		}
	}
	if ps.opaquePath {
		u.Pathname = ps.opaque.String()
	} else {
		var b strings.Builder
		for _, seg := range ps.path {
			b.WriteByte('/')
			b.WriteString(seg)
		}
		u.Pathname = b.String()
	}
	if u.query != "" {
		u.Search = "?" + u.query
	}
	if u.fragment != "" {
		u.Hash = "#" + u.fragment
	}
	return u
}

// appendEncodedRunes appends r to buf, UTF-8 percent-encoded when it is in set.
func appendEncodedRunes(buf []rune, r rune, set func(rune) bool) []rune {
	if !set(r) {
		return append(buf, r)
	}
	var tmp [utf8.UTFMax]byte
	n := utf8.EncodeRune(tmp[:], r)
	for _, b := range tmp[:n] {
		buf = append(buf, '%', rune(upperHex[b>>4]), rune(upperHex[b&15]))
	}
	return buf
}

// ParseOrigin returns the scheme, host name and port of s as Parse does
// (Port "" for the scheme's default). A URL of the common shape,
// scheme://host[:port] and then a path, a query or nothing, with an http,
// https, ws or wss scheme in lower case and a host of lower-case ASCII
// letters, digits, dots and hyphens, is read without the parser: a scan
// wants these three of every remote server's URL, and the parser works on
// runes, which the common shape does not need. Anything
// else goes through Parse (FuzzParseOrigin holds the two to each other).
func ParseOrigin(s string) (scheme, hostname, port string, err error) {
	if scheme, hostname, port, ok := simpleOrigin(s); ok {
		return scheme, hostname, port, nil
	}
	u, err := Parse(s)
	if err != nil {
		return "", "", "", err
	}
	return u.Scheme, u.Hostname, u.Port, nil
}

// simpleOrigin is ParseOrigin's shortcut; false leaves s to the parser.
func simpleOrigin(s string) (scheme, hostname, port string, ok bool) {
	colon := strings.Index(s, "://")
	scheme = s[:max(colon, 0)]
	defaultPort, known := "", false
	switch scheme {
	case "http", "ws":
		defaultPort, known = "80", true
	case "https", "wss":
		defaultPort, known = "443", true
	}
	if !known {
		return "", "", "", false
	}
	rest := s[colon+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, after := rest[:end], rest[end:]
	for i := 0; i < len(after); i++ {
		// Tabs and newlines are removed anywhere and spaces and controls
		// trimmed at the ends before parsing; a backslash is a slash.
		if c := after[i]; c <= ' ' || c == '\\' || c == 0x7f {
			return "", "", "", false
		}
	}
	hostname, portText, hasPort := strings.Cut(authority, ":")
	if !plainDomain(hostname) {
		return "", "", "", false
	}
	if hasPort {
		n, ok := portNumber(portText)
		if !ok {
			return "", "", "", false
		}
		if port = strconv.Itoa(n); port == defaultPort {
			port = ""
		}
	}
	return scheme, hostname, port, true
}

// plainDomain reports a host the parser would keep as it is: labels of
// lower-case ASCII letters, digits and hyphens, none empty, none an ACE
// label (which IDNA checks), and not ending in what the parser reads as
// an IPv4 number.
func plainDomain(h string) bool {
	if h == "" {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return !hasACELabel(h) && !endsInANumber(h)
}

// portNumber reads a port of one to five digits, at most 65535.
func portNumber(s string) (int, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n <= 65535
}
