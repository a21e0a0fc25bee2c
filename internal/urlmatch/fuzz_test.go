package urlmatch

import (
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that Href is a fixed point:
// parsing it again gives the same URL.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"https://mcp.acme.example/x", "HTTPS://MCP.ACME.EXAMPLE:443/a?b=1#frag", "http://0x7f.1/",
		"http://[::FFFF:127.0.0.1]/", "https://bücher.example/", "https://evil.test\\@mcp/", "foo:/.//p",
		"file:///C|/x/..", "a: b ?c", "https://h/%2e%2e/x", "zzwildcard0zz://h:443/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		href := u.Href()
		v, err := Parse(href)
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse", s, href)
		}
		if *v != *u {
			t.Fatalf("Parse(%q) = %+v\nParse(%q) = %+v", s, *u, href, *v)
		}
	})
}

// FuzzMatch checks that the matcher and its helpers never panic, that Compile
// agrees with Match, and that a URL without "*" matches itself.
func FuzzMatch(f *testing.F) {
	for _, c := range [][2]string{
		{"https://*.acme.example/*", "https://a.b.acme.example:9000/x?y"},
		{"https://mcp.acme.example*", "https://mcp.acme.example.evil.test/"},
		{"*://mcp.acme.example:443/*", "https://mcp.acme.example/"},
		{"https://mcp.acme.example:*/mcp", "https://mcp.acme.example/mcp"},
		{"https://[*]:9/x", "https://[::1]:9/x"},
		{"https://xn--*.example/*", "https://xn--bcher-kva.example/"},
		{"mcp.acme.example/*", "https://mcp.acme.example/x"},
		{"https://${HOST}/*", "https://evil.test/x?/y"},
		{"*", "ws://h/"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pattern, url string) {
		got := Match(pattern, url)
		if c := Compile(pattern).Match(url); c != got {
			t.Fatalf("Match(%q, %q) = %v, Compile().Match = %v", pattern, url, got, c)
		}
		_ = NeverMatches(pattern)
		_ = LegacyMatch(pattern, url)
		for _, w := range Weaknesses(pattern) {
			if w.Example != "" && w.Kind != LegacyBypass && !Match(pattern, w.Example) {
				t.Fatalf("Weaknesses(%q): example %q of %s does not match", pattern, w.Example, w.Kind)
			}
		}
		_, _ = UnsafeAllowEntry(pattern, func(name string) (string, bool) { return url, name != "UNSET" })
		if u, err := Parse(url); err == nil {
			href := u.Href()
			if !strings.Contains(href, "*") && !Match(href, url) {
				t.Fatalf("Match(%q, %q) = false: a URL must match its own serialisation", href, url)
			}
		}
	})
}

// FuzzParseOrigin: where ParseOrigin reads a URL without the parser
// (simpleOrigin), the parser accepts it and gives the same scheme, host
// name and port.
func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{
		"https://mcp.acme.example/mcp", "http://localhost:8080/sse", "wss://h:0443", "ws://h:80/x?y#z", "https://a-b.c",
		"https://h:65536/", "https://h:/", "https://127.0.0.1/", "https://h.0x1f/", "https://xn--bcher-kva.example/",
		"https://h./", "https://.h/", "https://u@h/", "https://h\t/", "https://h/a b", "https://h\\x", "http:///h",
		"https://H/", "HTTPS://h/", " https://h/", "https://h/ ", "https://h/\x7f", "https://h:00080/", "ftp://h/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		scheme, host, port, ok := simpleOrigin(s)
		if !ok {
			return
		}
		u, err := Parse(s)
		if err != nil {
			t.Fatalf("%q: read as %s %s %q, and the parser refuses it", s, scheme, host, port)
		}
		if u.Scheme != scheme || u.Hostname != host || u.Port != port {
			t.Fatalf("%q: read as %s %s %q, parsed %s %s %q", s, scheme, host, port, u.Scheme, u.Hostname, u.Port)
		}
	})
}

// TestParseOrigin: the shortcut and the parser give the same answers,
// errors included, on the shapes servers' URLs take.
func TestParseOrigin(t *testing.T) {
	for _, s := range []string{
		"https://mcp.acme.example/mcp", "http://localhost:8080/sse", "https://mcp.example:443", "http://[::1]:9000/sse",
		"https://MCP.Example/x", "https://127.1/", "https://h:99999/", "not a url", "", "https://bücher.example/",
	} {
		scheme, host, port, err := ParseOrigin(s)
		u, perr := Parse(s)
		if (err != nil) != (perr != nil) {
			t.Errorf("%q: error %v, the parser's %v", s, err, perr)
			continue
		}
		if perr == nil && (u.Scheme != scheme || u.Hostname != host || u.Port != port) {
			t.Errorf("%q: %s %s %q, parsed %s %s %q", s, scheme, host, port, u.Scheme, u.Hostname, u.Port)
		}
	}
	if _, _, _, ok := simpleOrigin("https://mcp.acme.example:8443/mcp"); !ok {
		t.Error("the common shape went to the parser")
	}
}
