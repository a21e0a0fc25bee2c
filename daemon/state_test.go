package daemon

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestSecretHasher: one HMAC reused for every value of every server gives
// each value the hash a fresh HMAC gives it, whatever was hashed before.
func TestSecretHasher(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	fresh := func(parts ...string) string {
		h := hmac.New(sha256.New, key)
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		return hex.EncodeToString(h.Sum(nil)[:16])
	}
	servers := []*scanner.Server{
		{Command: "npx", Args: []string{"-y", "a"}, URL: "https://x/mcp?token=abc",
			Env: map[string]string{"TOKEN": "s3cret", "EMPTY": ""}, Headers: map[string]string{"Authorization": "Bearer t"}},
		{Command: "uvx"},
		{Command: "npx", Args: []string{"-y", "a"}, Env: map[string]string{"TOKEN": "other"}},
	}
	sh := newSecretHasher(key)
	for round := range 2 {
		for i, s := range servers {
			want := map[string]string{"args": fresh(append([]string{"args", s.Command}, s.Args...)...)}
			if s.URL != "" {
				want["url"] = fresh("url", s.URL)
			}
			for k, v := range s.Env {
				want["env:"+k] = fresh("env", k, v)
			}
			for k, v := range s.Headers {
				want["header:"+k] = fresh("header", k, v)
			}
			got := sh.server(s)
			if len(got) != len(want) {
				t.Fatalf("round %d, server %d: %v, want %v", round, i, got, want)
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("round %d, server %d, %s: %s, want %s", round, i, k, got[k], v)
				}
			}
		}
	}
}

// TestStateMarshal: the state written with the report's own writer reads
// back as the state encoding/json writes does, with and without secrets
// and a report.
func TestStateMarshal(t *testing.T) {
	rep := &reports.Report{Schema: reports.Schema, Tool: reports.Tool{Name: "mcpguard", Version: "1"}, GeneratedAt: "2026-11-27T00:00:00Z",
		Host:    reports.Host{Hostname: "h", OS: "linux", User: "u"},
		Policy:  reports.PolicyInfo{Sources: []reports.PolicySource{{Path: "/p.rego", Kind: "rego", Active: true}}, Revision: "r"},
		Servers: []reports.Server{server("s-1", "a<b>\u2028", reports.StatusActive), server("s-2", "b\xff", reports.StatusBlocked)},
		Findings: []reports.Finding{{ID: "f-1", Rule: "MCPG-X", Severity: reports.SeverityWarning, Message: "m & n",
			ServerID: "s-1", Evidence: map[string]any{"n": 1, "l": []any{"x", 2.5, nil}}}},
		Errors:  []reports.FileError{{Path: "/e.json", Line: 1, Column: 2, Message: "bad"}},
		Sources: []reports.Source{{Path: "/s.json", Client: "cursor", Kind: "mcp-config"}},
		Summary: reports.Summary{Servers: 2, ByStatus: map[string]int{"active": 1, "blocked": 1}}}
	for name, st := range map[string]*state{
		"full":      {Schema: StateSchema, Seq: 42, Report: rep, Secrets: map[string]map[string]string{"s-1": {"args": "00ff", "env:T": "abcd"}}},
		"no secret": {Schema: StateSchema, Seq: 1, Report: rep},
		"empty":     {Schema: StateSchema},
	} {
		got, err := st.marshal()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: %v in %s", name, err, got)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s\nwant %s", name, got, want)
		}
	}
}
