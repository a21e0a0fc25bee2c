package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
)

// TestIntrospectEverything introspects the real server-everything over
// all three transports, configured in Claude Code's user scope, through
// the mcpguard binary: what the official TypeScript SDK server offers is
// read, analysed and reported, and nothing is left running.
func TestIntrospectEverything(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	home, managed := filepath.Join(dir, "home"), filepath.Join(dir, "managed")
	stdioUp, httpUp, sseUp := h.everything(stdio), h.everything(streamable), h.everything(legacySSE)
	cfg := map[string]any{"mcpServers": map[string]any{
		"every-stdio": map[string]any{"command": stdioUp.argv[0], "args": stdioUp.argv[1:]},
		"every-http":  map[string]any{"type": "http", "url": httpUp.url},
		"every-sse":   map[string]any{"type": "sse", "url": sseUp.url},
	}}
	data, _ := json.Marshal(cfg)
	for _, d := range []string{home, managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	pinFile := filepath.Join(dir, "pins.json")
	cmd := exec.CommandContext(h.ctx, mcpguardBin, "scan", "--introspect", "--pins", pinFile, "--format", "json", "--fail-on", "never",
		"--home", home, "--managed-dir", managed, "--project", dir)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scan --introspect: %v\n%s", err, stderr.String())
	}
	var rep reports.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Servers) != 3 {
		t.Fatalf("want 3 servers, got %d", len(rep.Servers))
	}
	for _, s := range rep.Servers {
		in := s.Introspection
		if in == nil || in.Status != reports.IntrospectionOK {
			t.Errorf("%s: %+v", s.Name, in)
			continue
		}
		if in.ServerInfo == nil || !strings.Contains(in.ServerInfo.Name, "everything") || in.ProtocolVersion == "" {
			t.Errorf("%s: serverInfo %+v, version %q", s.Name, in.ServerInfo, in.ProtocolVersion)
		}
		names := map[string]bool{}
		for _, tool := range in.Tools {
			names[tool.Name] = true
		}
		if !names["echo"] || len(in.Tools) < 5 || len(in.Prompts) == 0 || len(in.Resources) == 0 {
			t.Errorf("%s: %d tools (echo: %v), %d prompts, %d resources", s.Name, len(in.Tools), names["echo"], len(in.Prompts), len(in.Resources))
		}
	}
	pinned, err := os.ReadFile(pinFile)
	if err != nil || !bytes.Contains(pinned, []byte(`"echo"`)) {
		t.Errorf("the tools are pinned: %v\n%s", err, pinned)
	}
}

// TestIntrospectEras introspects the SDK 2.x server of the 2026-07-28
// revision only (stdio and Streamable HTTP: it refuses initialize) and the
// same server speaking both revisions: what each offers is read and
// analysed, the poisoned tools are found, and the report says which
// revision was spoken.
func TestIntrospectEras(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	home, managed := filepath.Join(dir, "home"), filepath.Join(dir, "managed")
	modernStdio, modernHTTP, both := h.modern(stdio, false), h.modern(streamable, false), h.modern(stdio, true)
	cfg := map[string]any{"mcpServers": map[string]any{
		"modern-stdio": map[string]any{"command": modernStdio.argv[0], "args": modernStdio.argv[1:]},
		"modern-http":  map[string]any{"type": "http", "url": modernHTTP.url},
		"both-stdio":   map[string]any{"command": both.argv[0], "args": both.argv[1:]},
	}}
	data, _ := json.Marshal(cfg)
	for _, d := range []string{home, managed} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(h.ctx, mcpguardBin, "scan", "--introspect", "--format", "json", "--fail-on", "never",
		"--home", home, "--managed-dir", managed, "--project", dir)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scan --introspect: %v\n%s", err, stderr.String())
	}
	var rep reports.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	wantVersion := map[string]string{"modern-stdio": "2026-07-28", "modern-http": "2026-07-28", "both-stdio": "2025-11-25"}
	for _, s := range rep.Servers {
		in := s.Introspection
		if in == nil || in.Status != reports.IntrospectionOK {
			t.Errorf("%s: %+v", s.Name, in)
			continue
		}
		if in.ProtocolVersion != wantVersion[s.Name] || in.ServerInfo == nil || in.ServerInfo.Name != "mcpguard-e2e-modern" || in.Instructions != instructionsVisible {
			t.Errorf("%s: version %q, serverInfo %+v, instructions %q", s.Name, in.ProtocolVersion, in.ServerInfo, in.Instructions)
		}
		if len(in.Tools) != 10 {
			t.Errorf("%s: %d tools, want the hostile server's 10", s.Name, len(in.Tools))
		}
		poisoned := false
		for _, f := range rep.Findings {
			if f.ServerID == s.ID && f.Rule == "MCPG-T001" && f.Evidence["tool"] == "send_feedback" {
				poisoned = true
			}
		}
		if !poisoned {
			t.Errorf("%s: no MCPG-T001 for send_feedback", s.Name)
		}
	}
	if len(rep.Servers) != 3 {
		t.Errorf("want 3 servers, got %d", len(rep.Servers))
	}
}
