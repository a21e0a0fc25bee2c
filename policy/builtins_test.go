package policy

import (
	"fmt"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/mcpguard/mcpguard/internal/urlmatch"
)

// TestURLMatchParsesOnce: mcpguard.url_match, which keeps the URLs it has
// parsed, answers as urlmatch does, for URLs seen again, URLs that do not
// parse, and after its cache has started again.
func TestURLMatchParsesOnce(t *testing.T) {
	var match topdown.BuiltinFunc
	for _, b := range builtins() {
		if b.decl.Name == "mcpguard.url_match" {
			match = b.fn
		}
	}
	call := func(pattern, url string) bool {
		var out *ast.Term
		err := match(topdown.BuiltinContext{}, []*ast.Term{ast.StringTerm(pattern), ast.StringTerm(url)}, func(t *ast.Term) error {
			out = t
			return nil
		})
		if err != nil || out == nil {
			t.Fatalf("url_match(%q, %q): %v, %v", pattern, url, out, err)
		}
		return bool(out.Value.(ast.Boolean))
	}
	patterns := []string{"*", "https://*.acme.example/*", "https://mcp.acme.example:8443/*", "http://localhost:*/*", "*://*/api/*"}
	urls := []string{"https://a.acme.example/x", "https://MCP.acme.example:8443/mcp", "http://localhost:3000/mcp",
		"https://evil.example/api/x", "not a url", "", "http://[::1", "https://a.acme.example./x"}
	for range 2 { // the second round reads the URLs parsed in the first
		for _, p := range patterns {
			for _, u := range urls {
				if got, want := call(p, u), urlmatch.Compile(p).Match(u); got != want {
					t.Errorf("url_match(%q, %q) = %v, want %v", p, u, got, want)
				}
			}
		}
	}
	for i := range urlCacheSize + 10 {
		u := fmt.Sprintf("https://h%d.acme.example/x", i)
		if !call(patterns[1], u) || call(patterns[2], u) {
			t.Fatalf("url %d (%s) after %d others", i, u, i)
		}
	}
}
