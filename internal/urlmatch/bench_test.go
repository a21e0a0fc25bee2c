package urlmatch

import (
	neturl "net/url"
	"strings"
	"testing"
)

var benchSink bool

func BenchmarkMatch(b *testing.B) {
	cases := []struct{ name, pattern, url string }{
		{"literal", "https://mcp.acme.example/mcp", "https://mcp.acme.example/mcp"},
		{"host-wildcard", "https://*.acme.example/*", "https://eu.mcp.acme.example:8443/v1/mcp?x=1"},
		{"scheme-wildcard", "*://mcp.acme.example/*", "wss://mcp.acme.example/ws"},
		{"port-fallback", "https://mcp.acme.example:*/mcp", "https://mcp.acme.example:8443/mcp"},
		{"unparseable", "*.acme.example", "https://a.acme.example/"},
		{"idn", "https://*.bücher.example/*", "https://a.xn--bcher-kva.example/x"},
		{"lone-star", "*", "https://anything.example/"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink = Match(c.pattern, c.url)
			}
		})
	}
}

// BenchmarkPatternMatch is the compiled form: one pattern, many URLs.
func BenchmarkPatternMatch(b *testing.B) {
	p := Compile("https://*.acme.example/*")
	u, _ := Parse("https://eu.mcp.acme.example:8443/v1/mcp?x=1")
	b.Run("string", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = p.Match("https://eu.mcp.acme.example:8443/v1/mcp?x=1")
		}
	})
	b.Run("parsed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = p.MatchURL(u)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Parse("HTTPS://alice@MCP.Acme.Example:443/a/../v1/mcp?x=1#f")
	}
}

// BenchmarkMatchHostile measures a pathological glob: many stars against a
// long string that almost matches.
func BenchmarkMatchHostile(b *testing.B) {
	pattern := "https://h.example/" + strings.Repeat("a*", 200) + "b"
	url := "https://h.example/" + strings.Repeat("a", 4000)
	b.ReportAllocs()
	for b.Loop() {
		benchSink = Match(pattern, url)
	}
}

func BenchmarkUnsafeAllowEntry(b *testing.B) {
	look := func(name string) (string, bool) { return "mcp.acme.example:8443", name == "HOST" }
	b.ReportAllocs()
	for b.Loop() {
		benchSink, _ = UnsafeAllowEntry("https://${HOST}/mcp/*", look)
	}
}

// BenchmarkNetURLParse is the baseline for BenchmarkParse (SPEC §7 compares
// ratios): Go's RFC 3986 parser on the same input.
func BenchmarkNetURLParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = neturl.Parse("HTTPS://alice@MCP.Acme.Example:443/a/../v1/mcp?x=1#f")
	}
}
