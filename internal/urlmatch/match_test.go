package urlmatch

import (
	"strings"
	"testing"
)

// TestMatchDocExamples is the table of docs/claude-code.md §8.2, row by row.
func TestMatchDocExamples(t *testing.T) {
	tests := []struct {
		pattern, url string
		want         bool
		why          string
	}{
		{"https://mcp.acme.example/*", "https://mcp.acme.example", true, "no path means /"},
		{"https://mcp.acme.example/*", "HTTPS://MCP.ACME.EXAMPLE:443/a?b=1#frag", true, "case, default port, * covers the query, fragment ignored"},
		{"https://mcp.acme.example/*", "https://mcp.acme.example./a", true, "trailing dot"},
		{"https://mcp.acme.example/*", "https://alice:pw@mcp.acme.example/a", true, "userinfo ignored"},
		{"https://mcp.acme.example/*", "https://mcp.acme.example:8443/a", false, "literal host, so the port must match"},
		{"https://mcp.acme.example/*", "http://mcp.acme.example/a", false, "scheme"},
		{"https://mcp.acme.example/*", "wss://mcp.acme.example/a", false, "scheme"},
		{"https://mcp.acme.example/*", "https://eu.mcp.acme.example/a", false, "no implicit subdomains"},
		{"https://*.acme.example/*", "https://a.b.acme.example/x", true, "* crosses dots"},
		{"https://*.acme.example/*", "https://acme.example/x", false, "apex"},
		{"https://*.acme.example/*", "https://evilacme.example/x", false, "the literal .acme.example is required"},
		{"https://*.acme.example/*", "https://a.acme.example.evil.test/x", false, "the host must end in the literal part"},
		{"https://*.acme.example/*", "https://x.acme.example:9000/x", true, "a host wildcard implies any port (P005)"},
		{"https://*.acme.example/*", "https://evil.test/.acme.example/x", false, "the host is parsed"},
		{"https://mcp.acme.example*", "https://mcp.acme.example.evil.test:4443/anything", true, "glued * crosses into another domain, any port, any path"},
		{"https://mcp.acme.example*", "https://mcp.acme.example-evil.test/", true, "same"},
		{"https://mcp.acme.example", "https://mcp.acme.example/admin?x=1", true, "no path means any path"},
		{"https://mcp.acme.example/", "https://mcp.acme.example", true, "root only"},
		{"https://mcp.acme.example/", "https://mcp.acme.example/?x=1", false, "root only, no query"},
		{"https://mcp.acme.example/v1", "https://mcp.acme.example/v1/", false, "exact path"},
		{"https://mcp.acme.example/v1", "https://mcp.acme.example/x/../v1", true, ".. resolved"},
		{"https://mcp.acme.example/v1", "https://mcp.acme.example/%76%31", false, "escapes are not decoded"},
		{"https://mcp.acme.example/V1/*", "https://mcp.acme.example/v1/x", false, "the path is case-sensitive"},
		{"https://mcp.acme.example/a b", "https://mcp.acme.example/a%20b", true, "the space becomes %20"},
		{"https://mcp.acme.example/a%20b", "https://mcp.acme.example/a%20B", false, "escapes keep their case"},
		{"https://mcp.acme.example/mcp?key=*", "https://mcp.acme.example/mcp?v=2&key=k", false, "query order"},
		{"https://mcp.acme.example/mcp?key=*", "https://mcp.acme.example/mcp", false, "the query is required"},
		{"https://mcp.acme.example/mcp*", "https://mcp.acme.example/mcp/sub?x=1", true, "* crosses / and ?"},
		{"https://mcp.acme.example/a*b", "https://mcp.acme.example/a:8443b", true, "* crosses :"},
		{"https://*.*.acme.example/*/mcp*", "https://a.b.acme.example/mcp", false, "/*/mcp needs two slashes"},
		{"https://mcp.acme.example:*/mcp", "https://mcp.acme.example/mcp", true, ":* includes the default port"},
		{"https://mcp.acme.example:*/mcp", "https://mcp.acme.example:8443/other", false, "the path is still checked"},
		{"https://mcp.acme.example:8443/*", "https://mcp.acme.example/x", false, "explicit port"},
		{"http://mcp.acme.example:80/*", "http://mcp.acme.example/x", true, "default port"},
		{"*://mcp.acme.example/*", "ws://mcp.acme.example/x", true, "scheme wildcard"},
		{"*://mcp.acme.example/*", "https://mcp.acme.example:444/x", false, "the host has no *, so the port is literal"},
		{"https://*", "https://10.0.0.7:7000/x", true, "any https host, port and path"},
		{"ws://*", "ws://any.acme.example/x", true, ""},
		{"*", "https://anything.example/x", true, "any remote URL"},
		{"*", "ws://anything.example:1/x", true, "any remote URL"},
		{"*", "not a url", true, "P == \"*\" is decided before S is parsed"},
		{"mcp.acme.example/*", "https://mcp.acme.example/x", false, "unparseable, never matches"},
		{"*.acme.example", "https://a.acme.example/", false, "unparseable"},
		{"https//mcp.acme.example/*", "https://mcp.acme.example/x", false, "malformed"},
		{"http://127.0.0.1:*/*", "http://localhost:3000/", false, "no DNS or alias"},
		{"http://[::1]:3000/*", "http://[0:0:0::1]:3000/x", true, "IPv6 normalised"},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.url); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v (%s)", tt.pattern, tt.url, got, tt.want, tt.why)
		}
		if tt.pattern != "*" {
			if got := Compile(tt.pattern).Match(tt.url); got != tt.want {
				t.Errorf("Compile(%q).Match(%q) = %v, want %v", tt.pattern, tt.url, got, tt.want)
			}
		}
	}
}

// TestMatchDetails covers the finer points of §8.1 and of Claude Code's
// implementation (placeholder tokens, the ":*" fallback, the segment
// fallback, ACE labels).
func TestMatchDetails(t *testing.T) {
	tests := []struct {
		pattern, url string
		want         bool
	}{
		// Schemes.
		{"HTTPS://mcp.acme.example/*", "https://mcp.acme.example/x", true},
		{"http*://mcp.acme.example/*", "http://mcp.acme.example/x", false},
		{"http*://mcp.acme.example/*", "https://mcp.acme.example/x", false},
		{"*s://mcp.acme.example/*", "https://mcp.acme.example/x", false},
		{"*://mcp.acme.example/*", "https://mcp.acme.example/x", true},
		{"*://mcp.acme.example/*", "wss://mcp.acme.example/x", true},
		{"*://MCP.Acme.Example/*", "https://mcp.acme.example/x", true},
		// A "*" scheme makes the pattern non-special: its port is never
		// dropped, so an explicit default port no longer equals no port.
		{"*://mcp.acme.example:443/*", "https://mcp.acme.example/x", false},
		{"*://mcp.acme.example:443/*", "https://mcp.acme.example:443/x", false},
		{"*://mcp.acme.example:8443/*", "https://mcp.acme.example:8443/x", true},
		{"*://mcp.acme.example/a/../b", "https://mcp.acme.example/b", true},
		// Hosts.
		{"https://MCP.ACME.EXAMPLE./*", "https://mcp.acme.example/x", true},
		{"https://mcp.acme.example/*", "https://mcp.acme.example../x", false},
		{"https://*.acme.example/*", "https://x.acme.example./x", true},
		{"https://ex%61mple.com/*", "https://example.com/x", true},
		{"https://bücher.example/*", "https://xn--bcher-kva.example/x", true},
		{"https://xn--bcher-kva.example/*", "https://BÜCHER.example/x", true},
		{"https://ｅxample.com/*", "https://example.com/", true},
		{"https://*.bücher.example/*", "https://a.xn--bcher-kva.example/x", true},
		{"https://xn--*.example/*", "https://xn--bcher-kva.example/x", true},
		{"https://XN--*.example/*", "https://xn--bcher-kva.example/x", true},
		{"http://127.0.0.1/*", "http://0x7f.1/x", true},
		{"http://127.0.0.1/*", "http://2130706433/x", true},
		{"http://127.0.0.1/*", "http://0177.0.0.1/x", true},
		{"http://0x7f.1/*", "http://127.0.0.1/x", true},
		{"http://[::ffff:7f00:1]/*", "http://[::FFFF:127.0.0.1]/x", true},
		{"http://127.0.0.*/*", "http://127.0.0.1/x", true},
		{"http://127.0.0.*/*", "http://127.0.0.evil.test/x", true},
		{"http://[::1]/*", "http://127.0.0.1/x", false},
		// Ports.
		{"https://*.acme.example:443/*", "https://x.acme.example:9000/x", true},
		{"https://*.acme.example:8443/*", "https://x.acme.example:9000/x", false},
		{"https://*.acme.example:8443/*", "https://x.acme.example:8443/x", true},
		{"https://mcp.acme.example:*", "https://mcp.acme.example:1/any?thing", true},
		{"https://mcp.acme.example:*/", "https://mcp.acme.example:1/x", false},
		{"https://mcp.acme.example:*?", "https://mcp.acme.example:1/x", true},
		{"https://u:*@mcp.acme.example:*/*", "https://mcp.acme.example:9/x", true},
		{"https://mcp.acme.example:0/*", "https://mcp.acme.example:0/x", true},
		// Paths and queries.
		{"https://mcp.acme.example?", "https://mcp.acme.example/admin?x", true},
		{"https://mcp.acme.example/?", "https://mcp.acme.example/admin?x", true},
		{"https://mcp.acme.example/#", "https://mcp.acme.example/admin", true},
		{"https://mcp.acme.example/#frag", "https://mcp.acme.example/admin", true},
		// Tabs and newlines are removed from the entry before matching, so
		// this is the root-only pattern (oracle-confirmed).
		{"https://mcp.acme.example/\t", "https://mcp.acme.example/admin", false},
		{"https://mcp.acme.example/\n", "https://mcp.acme.example/", true},
		{"*\t", "https://mcp.acme.example/", true},
		{"https://*.acme.exa\tmple:*9/", "https://a.acme.example:8089/", true},
		{"https://mcp.acme.example/?*", "https://mcp.acme.example/?x", true},
		{"https://mcp.acme.example/?*", "https://mcp.acme.example/", false},
		{"https://mcp.acme.example/mcp?", "https://mcp.acme.example/mcp?", true},
		{"https://mcp.acme.example/mcp?", "https://mcp.acme.example/mcp", true},
		{"https://mcp.acme.example/mcp", "https://mcp.acme.example/mcp?", true},
		{"https://mcp.acme.example/mcp", "https://mcp.acme.example/mcp?a", false},
		{"https://mcp.acme.example/a/%2e%2e/b", "https://mcp.acme.example/b", true},
		{"https://mcp.acme.example/a\\b", "https://mcp.acme.example/a/b", true},
		{"https://mcp.acme.example/it's?it's", "https://mcp.acme.example/it's?it%27s", true},
		{"https://mcp.acme.example/*/mcp", "https://mcp.acme.example/a/b/mcp", true},
		{"https://mcp.acme.example/*xn--*", "https://mcp.acme.example/axn--b", true},
		// Userinfo and fragments.
		{"https://svc@mcp.acme.example/*", "https://mcp.acme.example/x", true},
		{"https://svc:pw@mcp.acme.example/*", "https://other@mcp.acme.example/x", true},
		{"https://mcp.acme.example/x#a", "https://mcp.acme.example/x#b", true},
		// Unparseable patterns use the segment fallback.
		{"https://[*]/x", "https://[::1]/x", true},
		{"https://[*]/*", "https://[::1]/x/y", false},
		{"https://*.acme.example:*9/", "https://a.acme.example:8089/", true},
		{"https://*.acme.example:*9/", "https://a.acme.example:8088/", false},
		{"https://mcp.acme.example:99999/*", "https://mcp.acme.example/x", false},
		{"//mcp.acme.example/*", "https://mcp.acme.example/x", false},
		// Unparseable server URLs never match (except "*").
		{"https://*/*", "https://mcp.acme.example:99999/", false},
		{"https://*", "mcp.acme.example", false},
		{"*", "mcp.acme.example", true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.url); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.url, got, tt.want)
		}
	}
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"*", "anything/at?all:#", true},
		{"a*", "a", true},
		{"a*a", "a", false},
		{"a*a", "aa", true},
		{"a*b*c", "abc", true},
		{"a*b*c", "acb", false},
		{"a*b*c", "a.b/c?b:c", true},
		{"*ab*ab*", "abab", true},
		{"*ab*ab*", "aba", false},
		{"*aab", "aaab", true},
		{"**", "x", true},
		{"a**b", "ab", true},
		{"A*", "a", false},
		{"*.acme.example", "evilacme.example", false},
	}
	for _, tt := range tests {
		if got := Glob(tt.pat, tt.s); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pat, tt.s, got, tt.want)
		}
	}
}

// TestGlobLinear checks that a hostile pattern stays fast: a backtracking
// glob would need exponential time here.
func TestGlobLinear(t *testing.T) {
	pat := strings.Repeat("a*", 2000) + "b"
	s := strings.Repeat("a", 20000)
	if Glob(pat, s) {
		t.Fatal("unexpected match")
	}
	if !Glob(pat, s+"b") {
		t.Fatal("expected a match")
	}
	long := "https://" + strings.Repeat("*a", 3000) + ".example/" + strings.Repeat("*/", 3000)
	_ = Match(long, "https://"+strings.Repeat("a", 5000)+".example/"+strings.Repeat("x/", 4000))
}

// unparseable reports whether pattern is not "*" and does not parse as a
// URL, even with its "*" replaced by a placeholder and a ":*" port read as
// any port: [Match] then compares it segment by segment with the server URL.
// Scheme-less patterns such as "mcp.acme.example/*" are unparseable.
func unparseable(pattern string) bool {
	pattern = stripTabsAndNewlines(pattern)
	return pattern != "*" && compile(pattern).url == nil
}

func TestUnparseableAndNeverMatches(t *testing.T) {
	tests := []struct {
		pattern     string
		unparseable bool
		never       bool
	}{
		{"*", false, false},
		{"https://*", false, false},
		{"https://mcp.acme.example/*", false, false},
		{"https://mcp.acme.example:*/*", false, false},
		{"mcp.acme.example/*", true, true},
		{"*.acme.example", true, true},
		{"*.acme.example/*/*", true, true},
		{"https//mcp.acme.example/*", true, true},
		{"https://mcp.acme.example:99999/*", true, false},
		{"https://[*]/x", true, false},
		{"https://*.acme.example:*9/", true, false},
		{"HTTPS://[*]/x", true, true},
		{"http*://mcp.acme.example/*", false, true},
		{"*s://mcp.acme.example/*", false, true},
		{"*://mcp.acme.example/*", false, false},
		{"", true, true},
	}
	for _, tt := range tests {
		if got := unparseable(tt.pattern); got != tt.unparseable {
			t.Errorf("unparseable(%q) = %v, want %v", tt.pattern, got, tt.unparseable)
		}
		if got := NeverMatches(tt.pattern); got != tt.never {
			t.Errorf("NeverMatches(%q) = %v, want %v", tt.pattern, got, tt.never)
		}
	}
}
