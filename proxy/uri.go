package proxy

import (
	"strings"

	"github.com/mcpguard/mcpguard/toolcheck"
)

// A server finds the resource a resources/read names through a URL
// parser: the TypeScript SDK looks up new URL(uri).toString(), the Python
// SDK str(AnyUrl(uri)), hand-written handlers often a file path made of
// the uri. "FILE:///srv/a", "file:///srv/./a", "file://localhost/srv/a"
// and "file:///srv/a#x" are then all "file:///srv/a", and a read of any of
// them gets the resource the proxy withheld as "file:///srv/a". canonURI
// is the form such parsers agree on, or coarser: the proxy compares
// withheld uris in it, so a coarser form refuses more, never less.

// twinKey is how two items' identifiers are compared for "the same
// item": resources' uris as URL parsers read them, query kept (a query
// names another resource to the SDKs); other identifiers as they are.
func twinKey(kind toolcheck.ItemKind, id string) string {
	if kind == toolcheck.KindResource {
		return canonURI(id, true)
	}
	return id
}

// specialScheme reports whether a scheme is one of the WHATWG URL
// standard's special schemes, whose parsers read a backslash as a slash,
// drop a default port and give an empty path "/", and its default port.
func specialScheme(scheme string) (port string, ok bool) {
	switch scheme {
	case "http", "ws":
		return "80", true
	case "https", "wss":
		return "443", true
	case "ftp":
		return "21", true
	case "file":
		return "", true
	}
	return "", false
}

// canonURI returns uri as URL parsers read it: tabs and newlines removed,
// surrounding spaces and control characters trimmed, scheme and host in
// lower case, the fragment dropped, every percent-escape decoded, dot
// segments removed, and for the special schemes backslashes as slashes,
// no default port, "file://localhost/" as "file:///". The query is kept
// when keepQuery is set, and dropped otherwise (a handler that makes a
// file path of the uri ignores it).
func canonURI(uri string, keepQuery bool) string {
	uri = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, uri)
	uri = strings.TrimFunc(uri, func(r rune) bool { return r <= ' ' })
	if i := strings.IndexByte(uri, '#'); i >= 0 {
		uri = uri[:i]
	}
	query := ""
	if i := strings.IndexByte(uri, '?'); i >= 0 {
		uri, query = uri[:i], uri[i:]
	}
	if !keepQuery {
		query = ""
	}
	scheme, rest := "", uri
	if i := strings.IndexByte(uri, ':'); i > 0 && isScheme(uri[:i]) {
		scheme, rest = strings.ToLower(uri[:i]), uri[i+1:]
	}
	port, special := specialScheme(scheme)
	if special {
		rest = strings.ReplaceAll(rest, `\`, "/")
	}
	var b strings.Builder
	if scheme != "" {
		b.WriteString(scheme)
		b.WriteByte(':')
	}
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		path := ""
		if j := strings.IndexByte(auth, '/'); j >= 0 {
			auth, path = auth[:j], auth[j:]
		}
		auth = strings.ToLower(percentDecode(auth))
		if special {
			if port != "" {
				auth = strings.TrimSuffix(auth, ":"+port)
			}
			if scheme == "file" && auth == "localhost" {
				auth = ""
			}
			if path == "" {
				path = "/"
			}
		}
		rest = path
		b.WriteString("//")
		b.WriteString(auth)
	}
	b.WriteString(removeDotSegments(percentDecode(rest)))
	b.WriteString(query)
	return b.String()
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// percentDecode decodes every %XX escape, leaving a malformed one as it
// is.
func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if h, l := unhex(s[i+1]), unhex(s[i+2]); h >= 0 && l >= 0 {
				b.WriteByte(byte(h<<4 | l))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// removeDotSegments removes "." and ".." segments from a path (RFC 3986
// section 5.2.4).
func removeDotSegments(path string) string {
	if !strings.Contains(path, ".") {
		return path
	}
	segs := strings.Split(path, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 || (len(out) == 1 && out[0] != "") {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return strings.Join(out, "/")
}
