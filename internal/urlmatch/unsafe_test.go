package urlmatch

import (
	"strings"
	"testing"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// TestUnsafeAllowEntryDocTable is the table of docs/claude-code.md §3.4.
func TestUnsafeAllowEntryDocTable(t *testing.T) {
	tests := []struct {
		entry  string
		env    []string
		unsafe bool
	}{
		{"https://${HOST}/*", []string{"HOST=mcp.acme.example"}, false},
		{"https://${HOST}/*", []string{"HOST=mcp.acme.example:8443"}, false},
		{"https://${LABEL}.acme.example/*", []string{"LABEL=eu"}, false},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=v1/v2"}, false},
		{"${SCHEME}://mcp.acme.example/*", []string{"SCHEME=https"}, false},
		{"https://${HOST}/*", []string{"HOST=evil.test/x?"}, true},
		{"https://${HOST}/*", []string{"HOST=svc@mcp.acme.example"}, true},
		{"https://${LABEL}.acme.example/*", []string{"LABEL=*"}, true},
		{"${URL}", []string{"URL=https://mcp.acme.example/mcp"}, true},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=../admin"}, true},
	}
	for _, tt := range tests {
		got, reason := UnsafeAllowEntry(tt.entry, env(tt.env...))
		if got != tt.unsafe {
			t.Errorf("UnsafeAllowEntry(%q, %v) = %v (%s), want %v", tt.entry, tt.env, got, reason, tt.unsafe)
		}
		if got && reason == "" {
			t.Errorf("UnsafeAllowEntry(%q, %v): no reason", tt.entry, tt.env)
		}
	}
}

// TestUnsafeAllowEntryDetails covers each check of Claude Code's
// implementation, including cases the oracle confirmed (oracle_urls.txt).
func TestUnsafeAllowEntryDetails(t *testing.T) {
	tests := []struct {
		entry  string
		env    []string
		unsafe bool
		reason string // a substring of the reason
	}{
		// Only set variables take part.
		{"https://${HOST}/*", nil, false, ""},
		{"https://${HOST:-evil.test/x?}/*", nil, false, ""},
		{"https://${H:-mcp.acme.example}/*", nil, false, ""},
		{"https://mcp.acme.example/*", nil, false, ""},
		{"mcp.acme.example/*", nil, false, ""}, // unparseable, but nothing expanded
		// 1. Wildcards.
		{"https://${LABEL}.acme.example/*", []string{"LABEL=%2a"}, true, "wildcard"},
		{"https://${LABEL}.acme.example/*", []string{"LABEL=%2A"}, true, "wildcard"},
		{"https://${LABEL}.acme.example/*", []string{"LABEL=＊"}, true, "wildcard"},
		{"https://${LABEL}.acme.example/*", []string{"LABEL=%EF%BC%8A"}, true, "wildcard"},
		{"https://${LABEL}.acme.example/*", []string{"LABEL=x%252a"}, true, ""}, // "%2a" as text
		{"https://api.acme.example/${P}", []string{"P=a*b"}, true, "wildcard"},
		{"https://api.acme.example/${P}", []string{"P=%E0%A4%A"}, false, ""}, // malformed escape: not a wildcard
		// 2. Position.
		{"https://${HOST}/*", []string{"HOST=svc@mcp.acme.example"}, true, "authority"},
		{"https://${HOST}/*", []string{"HOST=mcp.acme.example "}, true, "authority"},
		{"https://${HOST}/*", []string{"HOST=mcp.acme.example\u00a0"}, true, "authority"},
		{"https://${USER}@mcp.acme.example/*", []string{"USER=svc"}, false, ""},
		{"https://${HOST}:${PORT}/*", []string{"HOST=mcp.acme.example", "PORT=8443"}, false, ""},
		{"https://${HOST}:${PORT}/*", []string{"HOST=mcp.acme.example", "PORT=8443/"}, true, "authority"},
		{"${SCHEME}://mcp.acme.example/*", []string{"SCHEME=https:"}, true, "scheme"},
		{"${SCHEME}://mcp.acme.example/*", []string{"SCHEME=wss"}, false, ""},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=a@b"}, false, ""},
		// 3. Parse comparison.
		{"https://${HOST}/*", []string{"HOST=127.0.0.1:9"}, true, "parses differently"},
		{"https://${HOST}/*", []string{"HOST=[::1]:9"}, false, ""},
		{"https://${HOST}/*", []string{"HOST=10.1.2.3"}, false, ""},
		{"https://${HOST}/*", []string{"HOST=MCP.ACME.EXAMPLE"}, false, ""},
		{"https://${HOST}/*", []string{"HOST=bücher.example"}, false, ""},
		{"https://${HOST}/*", []string{"HOST="}, true, "wildcard into the host"}, // "https:///*": the path "*" becomes the host
		{"https://h.example:${PORT}/*", []string{"PORT=99999"}, true, ""},
		{"${URL}", []string{"URL=https://mcp.acme.example/mcp"}, true, ""},
		{"https://mcp.acme.example/x?${Q}", []string{"Q=a=1"}, false, ""},
		// 4. Other value checks.
		{"https://mcp.acme.example/${Q}", []string{"Q=a#b"}, true, "fragment"},
		{"https://mcp.acme.example/${Q}#x", []string{"Q=a#b"}, true, "? or #"},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=a?b"}, true, "query"},
		{"https://api.acme.example/${PREFIX}/*?x", []string{"PREFIX=a?b"}, true, "? or #"},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=."}, true, "segment"},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=x/%2E%2e"}, true, "segment"},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=x\\.."}, true, "segment"},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=a%2fb"}, false, ""},
		{"https://api.acme.example/${PREFIX}/*", []string{"PREFIX=..."}, false, ""},
		{"https://h.example/a/../b$", nil, true, "segment"},
		{"https://h.example/a/../b", nil, false, ""},
		{"https://h.example/a/../b?$", nil, true, "segment"},
		{"https://h.example/b?x=/../$", nil, false, ""},
		// Trailing dots.
		{"https://${HOST}/*", []string{"HOST=mcp.acme.example."}, false, ""},
		{"https://${HOST}/*", []string{"HOST=mcp.acme.example%2e"}, true, "trailing dot"},
		// Tabs and newlines are removed first.
		{"https://${HO\tST}/*", []string{"HOST=evil.test/x?"}, true, "authority"},
	}
	for _, tt := range tests {
		got, reason := UnsafeAllowEntry(tt.entry, env(tt.env...))
		if got != tt.unsafe || !strings.Contains(reason, tt.reason) {
			t.Errorf("UnsafeAllowEntry(%q, %q) = %v, %q; want %v, %q", tt.entry, tt.env, got, reason, tt.unsafe, tt.reason)
		}
	}
}

func TestStandIn(t *testing.T) {
	tests := map[string]string{
		"8443":              "0",
		"10.1.2.3":          "0.0.0.0",
		"mcp.acme.example":  standInWord,
		"mcp.acme.example.": standInWord + ".",
		"10.1.2.3..":        "0.0.0.0..",
		"::1":               "::",
		"fe80::1%eth0":      standInWord,
		"127.0.0.1:9":       "::",
		"...":               standInWord,
		"":                  standInWord,
		"1.":                "0.",
		"1..2":              standInWord,
	}
	for in, want := range tests {
		if got := standIn(in); got != want {
			t.Errorf("standIn(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandEntry(t *testing.T) {
	look := env("HOST=mcp.acme.example", "EMPTY=")
	tests := map[string]string{
		"https://${HOST}/*":               "https://mcp.acme.example/*",
		"https://${HO\tST}/*":             "https://mcp.acme.example/*",
		"https://${MISSING}/*":            "https://${MISSING}/*",
		"https://${MISSING:-d.example}/*": "https://d.example/*",
		"https://x${EMPTY:-d}.example/":   "https://x.example/",
		"https://h/\n":                    "https://h/",
	}
	for in, want := range tests {
		if got := ExpandEntry(in, look); got != want {
			t.Errorf("ExpandEntry(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ExpandEntry("https://${HOST}/\t", nil); got != "https://${HOST}/" {
		t.Errorf("ExpandEntry with nil lookup = %q", got)
	}
}

func TestDecodeURIComponent(t *testing.T) {
	tests := []struct {
		in, out string
		ok      bool
	}{
		{"abc", "abc", true},
		{"%2a", "*", true},
		{"%EF%BC%8A", "＊", true},
		{"%", "", false},
		{"%2", "", false},
		{"%zz", "", false},
		{"%C3", "", false},
		{"%C3%28", "", false},
		{"%C0%AF", "", false},    // overlong
		{"%ED%A0%80", "", false}, // surrogate
		{"%F4%90%80%80", "", false},
		{"%F0%9F%98%80", "😀", true},
	}
	for _, tt := range tests {
		got, ok := decodeURIComponent(tt.in)
		if got != tt.out || ok != tt.ok {
			t.Errorf("decodeURIComponent(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.out, tt.ok)
		}
	}
}
