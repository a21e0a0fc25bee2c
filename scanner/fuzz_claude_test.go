package scanner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/scanner"
)

// FuzzClaudeFiles feeds arbitrary bytes to every file Claude Code's resolution
// reads (selected by which): ~/.claude.json, .mcp.json, a project settings file,
// managed-settings.json, a drop-in and managed-mcp.json. The property: no panic,
// every server has a status, and every error names a path.
func FuzzClaudeFiles(f *testing.F) {
	seeds := []string{
		`{"mcpServers":{"a":{"command":"true"},"b":{"type":"http","url":"https://x.example/mcp"}}}`,
		`{"mcpServers":{"7":{"command":"x"},"__proto__":{"command":"y"},"u":{"url":"https://u"}},"projects":{"/p":{"hasTrustDialogAccepted":true}}}`,
		`{"allowedMcpServers":[{"serverName":"a"}],"managedMcpServers":{"m":{"type":"http","url":"https://m.example"}},"strictPluginOnlyCustomization":true}`,
		`{"enabledMcpjsonServers":["a"],"disabledMcpjsonServers":["b.c"],"enableAllProjectMcpServers":true}`,
		`{"mcpServers":{"w":{"command":"/x/mcpguard","args":["proxy","--name","n","--","npx","${Y}"]},"v":{"command":"MCPGUARD.EXE","args":["proxy","--"]}},"allowedMcpServers":[{"serverCommand":["npx","y"]}],"deniedMcpServers":[{"serverCommand":["npx","y"]}]}`,
		`{"mcpServers":{}}`, `[]`, `{`, "",
	}
	for _, s := range seeds {
		for which := uint8(0); which < 6; which++ {
			f.Add([]byte(s), which)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		root := t.TempDir()
		home, managedDir, project := filepath.Join(root, "home"), filepath.Join(root, "managed"), filepath.Join(root, "project")
		base := map[string]string{
			filepath.Join(home, ".claude.json"):                `{"mcpServers":{"u":{"command":"true"}},"projects":{"` + project + `":{"hasTrustDialogAccepted":true,"mcpServers":{"l":{"command":"true"}}}}}`,
			filepath.Join(project, ".mcp.json"):                `{"mcpServers":{"p":{"command":"true"},"u":{"command":"true"}}}`,
			filepath.Join(project, ".claude", "settings.json"): `{"enabledMcpjsonServers":["p"]}`,
			filepath.Join(managedDir, "managed-settings.json"): `{"managedMcpServers":{"m":{"type":"http","url":"https://m.example/mcp"}}}`,
		}
		targets := []string{
			filepath.Join(home, ".claude.json"),
			filepath.Join(project, ".mcp.json"),
			filepath.Join(project, ".claude", "settings.json"),
			filepath.Join(managedDir, "managed-settings.json"),
			filepath.Join(managedDir, "managed-settings.d", "10-x.json"),
			filepath.Join(managedDir, "managed-mcp.json"),
		}
		for p, c := range base {
			writeAbs(t, p, c)
		}
		if err := os.WriteFile(targets[int(which)%len(targets)], data, 0o644); err != nil {
			// managed-settings.d may not exist yet.
			writeAbs(t, targets[int(which)%len(targets)], string(data))
		}
		res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, ManagedDir: managedDir, Project: project, LookupEnv: emptyEnv})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Servers {
			if s.Status == "" || s.ID == "" {
				t.Fatalf("server without status or id: %+v", s)
			}
		}
		for _, e := range res.Errors {
			if e.Path == "" || e.Message == "" {
				t.Fatalf("error without path or message: %+v", e)
			}
		}
	})
}
