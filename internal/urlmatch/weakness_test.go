package urlmatch

import (
	"slices"
	"testing"
)

func TestWeaknesses(t *testing.T) {
	tests := []struct {
		pattern string
		want    []WeaknessKind
	}{
		// §11.3, row by row.
		{"https://*.acme.example/*", []WeaknessKind{HostWildcardAnyPort, LegacyBypass}},
		{"https://mcp.acme.example*", []WeaknessKind{HostWildcardAnyPort, GluedWildcard, NoPath, LegacyBypass}},
		{"https://*acme.example/*", []WeaknessKind{HostWildcardAnyPort, GluedWildcard, LegacyBypass}},
		{"https://mcp.acme.example", []WeaknessKind{NoPath}},
		{"*://mcp.acme.example/*", []WeaknessKind{SchemeWildcard}},
		{"*", []WeaknessKind{AllowAll}},
		{"https://*", []WeaknessKind{AllowAll}},
		{"ws://*", []WeaknessKind{AllowAll}},
		{"https://svc@mcp.acme.example/*", []WeaknessKind{Userinfo}},
		{"http://localhost:*/*", []WeaknessKind{LegacyBypass}},
		// More.
		{"*://*/*", []WeaknessKind{AllowAll, SchemeWildcard}},
		{"https://*:*", []WeaknessKind{AllowAll}},
		{"https://*/mcp", []WeaknessKind{AnyHost}},
		{"https://*.acme.example:443/*", []WeaknessKind{HostWildcardAnyPort, LegacyBypass}},
		{"https://*.acme.example:8443/mcp/*", []WeaknessKind{LegacyBypass}},
		{"https://*.com/*", []WeaknessKind{HostWildcardAnyPort, PublicSuffixWildcard, LegacyBypass}},
		{"https://*.github.io:443/mcp", []WeaknessKind{HostWildcardAnyPort, PublicSuffixWildcard, LegacyBypass}},
		{"http://127.0.0.*:8080/*", []WeaknessKind{GluedWildcard, LegacyBypass}},
		{"https://mcp.acme.example/?", []WeaknessKind{NoPath}},
		{"https://mcp.acme.example/#x", []WeaknessKind{NoPath}},
		{"https://mcp.acme.example:*", []WeaknessKind{NoPath, LegacyBypass}},
		// Narrow patterns.
		{"https://mcp.acme.example/", nil},
		{"https://mcp.acme.example/mcp", nil},
		{"https://mcp.acme.example/mcp/*", nil},
		// A ":*" port is a legacy hole like localhost:* (":1@evil.test").
		{"https://mcp.acme.example:*/mcp", []WeaknessKind{LegacyBypass}},
		// Unparseable or never matching: P003, not P005.
		{"mcp.acme.example/*", nil},
		{"*.acme.example", nil},
		{"http*://mcp.acme.example/*", nil},
	}
	for _, tt := range tests {
		ws := Weaknesses(tt.pattern)
		var got []WeaknessKind
		for _, w := range ws {
			got = append(got, w.Kind)
			if w.Detail == "" {
				t.Errorf("Weaknesses(%q): %s has no detail", tt.pattern, w.Kind)
			}
			switch {
			case w.Example == "":
				t.Errorf("Weaknesses(%q): %s has no example", tt.pattern, w.Kind)
			case w.Kind == LegacyBypass:
				if !LegacyMatch(tt.pattern, w.Example) || Match(tt.pattern, w.Example) {
					t.Errorf("Weaknesses(%q): legacy example %q is not a legacy-only match", tt.pattern, w.Example)
				}
			case !Match(tt.pattern, w.Example):
				t.Errorf("Weaknesses(%q): %s example %q does not match", tt.pattern, w.Kind, w.Example)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Weaknesses(%q) = %v, want %v", tt.pattern, got, tt.want)
		}
	}
}

func TestLegacyMatch(t *testing.T) {
	tests := []struct {
		pattern, url string
		want         bool
	}{
		// §8.4.
		{"https://*.acme.example/*", "https://evil.test/.acme.example/x", true},
		{"https://*.acme.example/*", "https://evil.test?.acme.example/", true},
		{"http://localhost:*/*", "http://localhost:1@evil.test/mcp", true},
		{"https://mcp.acme.example/*", "https://MCP.acme.example/x", false},
		{"https://mcp.acme.example/*", "https://mcp.acme.example:443/x", false},
		{"https://mcp.acme.example/*", "https://mcp.acme.example", false},
		{"https://*", "https://a\nb", false},
		{"https://*\n*", "https://a\nb", true},
	}
	for _, tt := range tests {
		if got := LegacyMatch(tt.pattern, tt.url); got != tt.want {
			t.Errorf("LegacyMatch(%q, %q) = %v, want %v", tt.pattern, tt.url, got, tt.want)
		}
	}
}
