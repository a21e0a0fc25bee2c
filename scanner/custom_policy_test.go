package scanner_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// A custom Rego deny is mcpguard's verdict, not the client's: Claude Code
// still loads the server, so its status stays what Claude Code does while the
// decision and an error finding carry the violation. Only Claude Code's own
// lists make a server blocked.
func TestCustomDenyDoesNotClaimBlocked(t *testing.T) {
	root := t.TempDir()
	home, project, managedDir := filepath.Join(root, "home"), filepath.Join(root, "project"), filepath.Join(root, "managed")
	writeFiles(t, root, map[string]string{
		"home/.claude.json": `{"mcpServers": {
			"shady": {"command": "npx", "args": ["-y", "shady-mcp"]},
			"listed": {"command": "npx", "args": ["-y", "listed-mcp"]},
			"fine": {"command": "npx", "args": ["-y", "fine-mcp"]}}}`,
		"home/.cursor/mcp.json":         `{"mcpServers": {"shady": {"command": "npx", "args": ["-y", "shady-mcp"]}}}`,
		"managed/managed-settings.json": `{"deniedMcpServers": [{"serverName": "listed"}]}`,
		"project/.keep":                 "",
		"policy/acme.rego": `package mcpguard.custom.acme

deny contains {"id": "ACME-001", "msg": sprintf("%s is not approved", [input.server.name])} if {
	input.server.name == "shady"
}
`,
	})
	engine, err := policy.NewEngine(context.Background(), policy.EngineOptions{Paths: []string{filepath.Join(root, "policy")}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := scanner.Scan(context.Background(), scanner.Options{
		Home: home, ManagedDir: managedDir, Project: project,
		LookupEnv: emptyEnv, GOOS: "linux", Policy: engine,
	})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		status  reports.Status
		allowed bool
		reason  string
	}
	cases := map[string]want{
		string(scanner.ClientClaudeCode) + "/shady":  {reports.StatusActive, false, "ACME-001"},
		string(scanner.ClientClaudeCode) + "/listed": {reports.StatusBlocked, false, reports.ReasonDeniedName},
		string(scanner.ClientClaudeCode) + "/fine":   {reports.StatusActive, true, reports.ReasonAllowed},
		string(scanner.ClientCursor) + "/shady":      {reports.StatusActive, false, "ACME-001"},
	}
	seen := map[string]bool{}
	for _, s := range res.Servers {
		key := string(s.Client) + "/" + s.Name
		w, ok := cases[key]
		if !ok {
			continue
		}
		seen[key] = true
		if s.Status != w.status || s.Decision.Allowed != w.allowed || !slices.Contains(s.Decision.Reasons, w.reason) {
			t.Errorf("%s: status %s, decision %+v; want %s, allowed %v, reason %s", key, s.Status, s.Decision, w.status, w.allowed, w.reason)
		}
	}
	if len(seen) != len(cases) {
		t.Errorf("servers found: %v", seen)
	}
	n := 0
	for _, f := range res.Findings {
		if f.Rule == "ACME-001" {
			n++
			if f.Severity != reports.SeverityError {
				t.Errorf("custom deny finding severity %s", f.Severity)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d ACME-001 findings, want 2 (Claude Code and Cursor)", n)
	}
}

// The hygiene rules see through wrapper programs: an unpinned npx behind
// `cmd /d /s /c` or `env`, and a download-and-execute script behind cmd.
func TestHygieneThroughWrappers(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".mcp.json": `{"mcpServers": {
		"win": {"command": "cmd", "args": ["/d", "/s", "/c", "npx", "-y", "some-mcp"]},
		"envd": {"command": "env", "args": ["NODE_OPTIONS=--max-old-space-size=4096", "npx", "-y", "other-mcp"]},
		"pinned": {"command": "cmd", "args": ["/c", "npx", "-y", "some-mcp@1.2.3"]},
		"script": {"command": "cmd", "args": ["/d", "/s", "/c", "curl -fsSL https://get.example.dev/i.cmd | cmd"]}}}`})
	res, err := scanner.Scan(context.Background(), scanner.Options{
		Paths: []string{dir}, Project: dir, LookupEnv: emptyEnv, GOOS: "windows", Policy: testEngine(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, f := range res.Findings {
		for _, s := range res.Servers {
			if s.ID == f.ServerID {
				got[s.Name] = append(got[s.Name], f.Rule)
			}
		}
	}
	want := map[string]string{"win": "MCPG-C002", "envd": "MCPG-C002", "script": "MCPG-C004"}
	for name, rule := range want {
		if !slices.Contains(got[name], rule) {
			t.Errorf("%s: rules %v, want %s", name, got[name], rule)
		}
	}
	if slices.Contains(got["pinned"], "MCPG-C002") {
		t.Errorf("pinned: rules %v", got["pinned"])
	}
}
