package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
)

// introspectMachine is a home whose Cursor config runs the test binary as
// an MCP server (TestMain's testServer) offering one tool with a hidden
// zero-width space, and a project whose .mcp.json server Claude Code has
// not approved.
func introspectMachine(t *testing.T) (env environment, args []string, project string) {
	t.Helper()
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	self, _ := json.Marshal(os.Args[0])
	tools, _ := json.Marshal(`[{"name":"lookup_order","description":"Look up an order.\u200b"}]`)
	writeFile(t, home, ".cursor/mcp.json", `{"mcpServers": {"orders": {"command": `+string(self)+`, "args": ["-test.run=^$"],
		"env": {"MCPGUARD_TEST_SERVER": "1", "MCPGUARD_TEST_TOOLS": `+string(tools)+`}}}}`)
	writeFile(t, project, ".mcp.json", `{"mcpServers": {"unapproved": {"command": `+string(self)+`, "args": ["-test.run=^$"]}}}`)
	if err := os.MkdirAll(filepath.Join(dir, "managed"), 0o755); err != nil {
		t.Fatal(err)
	}
	return testEnv(project, home, nil), []string{"--home", home, "--managed-dir", filepath.Join(dir, "managed"), "--project", project, "--introspect"}, project
}

func TestScanIntrospect(t *testing.T) {
	env, args, _ := introspectMachine(t)
	rep, stderr, code := scanJSON(t, env, append(args, "--fail-on", "never")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	byName := map[string]reports.Server{}
	for _, s := range rep.Servers {
		byName[s.Name] = s
	}
	orders, unapproved := byName["orders"], byName["unapproved"]
	if in := orders.Introspection; in == nil || in.Status != reports.IntrospectionOK || len(in.Tools) != 1 || in.Tools[0].Name != "lookup_order" ||
		in.ServerInfo == nil || in.ServerInfo.Name != "test" {
		t.Fatalf("orders: %+v", orders.Introspection)
	}
	if in := unapproved.Introspection; in == nil || in.Status != reports.IntrospectionSkipped || !strings.Contains(in.Reason, "not approved") {
		t.Fatalf("an unapproved project server is not started: %+v", unapproved.Introspection)
	}
	var hidden reports.Finding
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, "MCPG-U") && f.ServerID == orders.ID {
			hidden = f
		}
	}
	if hidden.ID == "" || hidden.Evidence["introspection_pointer"] != "/tools/0/description" || hidden.Location.Path != orders.Source.Path {
		t.Fatalf("the hidden character is a finding of the server: %+v", rep.Findings)
	}
	linked := false
	for _, id := range orders.FindingIDs {
		linked = linked || id == hidden.ID
	}
	if !linked {
		t.Error("the server lists the introspection finding among its finding_ids")
	}

	// Every format carries the finding and the introspection.
	for _, c := range []struct{ format, want string }{
		{"text", "/tools/0/description"},
		{"markdown", "/tools/0/description"},
		{"csv", "/tools/0/description"},
		{"html", "/tools/0/description"},
		{"junit", hidden.Rule},
		{"sarif", hidden.Rule},
	} {
		out, stderr, code := runCLI(t, env, append([]string{"scan", "--format", c.format, "--fail-on", "never"}, args...)...)
		if code != exitOK || !strings.Contains(out, c.want) {
			t.Errorf("%s (exit %d, %s): want %q in\n%s", c.format, code, stderr, c.want, out)
		}
		if c.format == "sarif" {
			decodeSARIF(t, out)
		}
	}
	out, _, _ := runCLI(t, env, append([]string{"scan", "--fail-on", "never"}, args...)...)
	if !strings.Contains(out, "INTROSPECTION") || !strings.Contains(out, "lookup_order") && !strings.Contains(out, "orders") {
		t.Errorf("text output lists the introspection:\n%s", out)
	}
}

func TestScanIntrospectPathMode(t *testing.T) {
	env, _, project := introspectMachine(t)
	mcp := filepath.Join(project, ".mcp.json")
	rep, _, _ := scanJSON(t, env, "--introspect", mcp)
	if in := rep.Servers[0].Introspection; in == nil || in.Status != reports.IntrospectionSkipped || !strings.Contains(in.Reason, "--introspect-untrusted") {
		t.Fatalf("path mode starts nothing by default: %+v", rep.Servers[0].Introspection)
	}
	t.Setenv("MCPGUARD_TEST_SERVER", "1")
	t.Setenv("MCPGUARD_TEST_TOOLS", `[]`)
	rep, _, _ = scanJSON(t, env, "--introspect", "--introspect-untrusted", mcp)
	if in := rep.Servers[0].Introspection; in == nil || in.Status != reports.IntrospectionOK {
		t.Fatalf("--introspect-untrusted starts it: %+v", rep.Servers[0].Introspection)
	}
}

func TestScanIntrospectFlags(t *testing.T) {
	env := testEnv(t.TempDir(), t.TempDir(), nil)
	for _, args := range [][]string{
		{"scan", "--pins", "p.json", "."},
		{"scan", "--introspect-timeout", "5s", "."},
		{"scan", "--introspect", "--introspect-jobs", "0", "."},
		{"scan", "--introspect", "--introspect-timeout", "0s", "."},
	} {
		if _, stderr, code := runCLI(t, env, args...); code != exitError || stderr == "" {
			t.Errorf("%v: want exit 2 with a message, got %d %q", args, code, stderr)
		}
	}
}
