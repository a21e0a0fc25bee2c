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
