package scanner_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// fuzzClientFile writes data to rel under a project directory next to a home
// whose Codex config trusts that project and whose Gemini trust file trusts
// it, scans the project in path mode, and checks the properties every parser
// must keep: no panic; every server has an id, a status and a position in the
// fuzzed file; every error names a path and a position inside the file; the
// result is bounded by the input size; the report renders as JSON.
func fuzzClientFile(t *testing.T, rel string, data []byte) {
	fuzzScan(t, rel, data, false)
}

// fuzzScan is fuzzClientFile; explicit names the fuzzed file itself on the
// command line instead of its project directory.
func fuzzScan(t *testing.T, rel string, data []byte, explicit bool) {
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	writeAbs(t, filepath.Join(home, ".codex", "config.toml"), "[projects.\""+filepath.ToSlash(project)+"\"]\ntrust_level = \"trusted\"\n")
	writeAbs(t, filepath.Join(home, ".gemini", "trustedFolders.json"), `{"`+filepath.ToSlash(project)+`": "TRUST_FOLDER"}`)
	target := filepath.Join(project, filepath.FromSlash(rel))
	writeAbs(t, target, string(data))
	paths := []string{project}
	if explicit {
		paths = []string{target}
	}
	res, err := scanner.Scan(context.Background(), scanner.Options{
		Home: home, Project: project, Paths: paths, LookupEnv: emptyEnv,
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	if limit := 2*len(data) + 16; len(res.Servers) > limit || len(res.Findings) > 8*limit {
		t.Fatalf("%d servers and %d findings from %d bytes", len(res.Servers), len(res.Findings), len(data))
	}
	for _, s := range res.Servers {
		if s.Status == "" || s.ID == "" || s.Client == "" || s.Transport == "" {
			t.Fatalf("server without status, id, client or transport: %+v", s)
		}
		if s.Source.Path == target && (s.Source.Line < 1 || s.Source.Column < 1 || s.Source.Line > lines) {
			t.Fatalf("server %q at %d:%d outside the %d-line file", s.Name, s.Source.Line, s.Source.Column, lines)
		}
	}
	for _, e := range res.Errors {
		if e.Path == "" || e.Message == "" {
			t.Fatalf("error without path or message: %+v", e)
		}
		if e.Path == target && (e.Line < 0 || e.Column < 0 || e.Line > lines || (e.Line > 0) != (e.Column > 0)) {
			t.Fatalf("error at %d:%d outside the %d-line file: %s", e.Line, e.Column, lines, e.Message)
		}
	}
	var buf bytes.Buffer
	rep := runner.BuildReport(res, runner.Meta{Version: "fuzz", GeneratedAt: "2026-01-01T00:00:00Z"}, nil)
	if err := reports.WriteJSON(&buf, rep); err != nil {
		t.Fatalf("report does not render: %v", err)
	}
}

func addSeeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

// FuzzCodexTOML fuzzes the TOML reader and the Codex handler (.codex/config.toml).
func FuzzCodexTOML(f *testing.F) {
	addSeeds(f,
		"[mcp_servers.a]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\nenv = { K = \"v\" }\nenv_vars = [\"A\"]\n",
		"[mcp_servers.r]\nurl = \"https://x.example/mcp\"\nhttp_headers = { \"X\" = \"y\" }\nenv_http_headers = { \"Y\" = \"V\" }\nbearer_token_env_var = \"T\"\n[mcp_servers.r.tools.t]\napproval_mode = \"approve\"\n",
		"[[mcp_servers]]\ncommand = 1\n", "mcp_servers = []\n", "[mcp_servers]\na = 1\n", "[mcp_servers.\"é\"]\nstartup_timeout_sec = inf\ntool_timeout_sec = nan\n",
		"a.b.c = 1979-05-27T07:32:00Z\n[x]\n", "[mcp_servers.a]\ncommand = \"x\"\ncommand = \"y\"\n", "[mcp_servers.a\n", "",
	)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzClientFile(t, ".codex/config.toml", data) })
}

// FuzzContinueYAML fuzzes the YAML reader and the Continue block handler.
func FuzzContinueYAML(f *testing.F) {
	addSeeds(f,
		"mcpServers:\n  - name: a\n    command: npx\n    args: [\"-y\", x]\n    env: {K: v}\n",
		"mcpServers:\n  - name: r\n    type: streamable-http\n    url: https://x.example/mcp\n    requestOptions:\n      headers: {A: b}\n      verifySsl: false\n",
		"name: p\ncommand: npx\n", "mcpServers: {a: {command: x}}\n", "mcpServers:\n  - uses: a/b\n  - 1\n  - [x]\n",
		"a: &a [*a]\n", "a: &a {b: 1}\nmcpServers: [*a, *a]\n", "mcpServers:\n  - name: \"x\n", "\t- x", "? [a]\n: b\n", "",
		"mcpServers:\n  - name: a\n    connectionTimeout: .inf\n    command: x\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzClientFile(t, ".continue/mcpServers/f.yaml", data) })
}

// FuzzVSCodeSettings fuzzes the JSONC reader through VS Code's settings.json
// (legacy mcp.servers and mcp.inputs).
func FuzzVSCodeSettings(f *testing.F) {
	addSeeds(f,
		`{"mcp": {"inputs": [{"id": "k", "type": "promptString"}], "servers": {"a": {"command": "x", "env": {"K": "${input:k}"}}}}}`,
		"// c\n{\"chat.mcp.access\": \"none\", \"mcp\": {\"servers\": {\"a\": {\"type\": \"http\", \"url\": \"${input:missing}\",},},}}",
		`{"mcp": []}`, `{"mcp": {"servers": []}}`, `[1]`, `{"mcp": {"inputs": "x", "servers": {"a": 1}}}`, "",
	)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzClientFile(t, ".vscode/settings.json", data) })
}

// FuzzZedSettings fuzzes Zed's context_servers, including the legacy and
// extension shapes.
func FuzzZedSettings(f *testing.F) {
	addSeeds(f,
		`{"context_servers": {"a": {"command": "x", "args": ["y"], "enabled": false}}}`,
		`{"context_servers": {"l": {"source": "custom", "command": {"path": "uv", "args": ["run"], "env": {}}}, "e": {"source": "extension", "settings": {}}}}`,
		`{"context_servers": {"r": {"url": "https://x", "headers": {"A": "b"}}, "n": null, "c": {"command": {"path": 1}}}}`,
		`{"context_servers": []}`, "/* */ {", "",
	)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzClientFile(t, ".zed/settings.json", data) })
}

// FuzzOpenCode fuzzes opencode's "mcp" block (argv commands).
func FuzzOpenCode(f *testing.F) {
	addSeeds(f,
		`{"mcp": {"a": {"type": "local", "command": ["npx", "-y", "x"], "environment": {"K": "{env:V}"}}}}`,
		`{"mcp": {"r": {"type": "remote", "url": "https://x", "enabled": false}, "b": {"type": "local", "command": []}, "c": {"command": [1, 2]}}}`,
		`{"mcp": []}`, `{"mcp": {"a": 1}}`, "",
	)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzClientFile(t, "opencode.json", data) })
}

// FuzzGenericServers fuzzes the "object of named servers" parser through a
// file given by path that no client claims (sniffed by its root key), and
// through Gemini CLI's project settings (allowlists, trust).
func FuzzGenericServers(f *testing.F) {
	addSeeds(f,
		`{"mcpServers": {"a": {"command": "x", "args": ["y"], "env": {"K": "v"}}, "r": {"url": "https://x", "type": "sse"}}}`,
		`{"servers": {"a": {"type": "stdio", "command": "x"}}}`, `{"context_servers": {"a": {"command": "x"}}}`,
		`{"mcp": {"allowed": ["a"], "excluded": ["b"]}, "mcpServers": {"a": {"httpUrl": "https://x"}, "b": {"tcp": "h:1"}, "c": {"url": 1}}}`,
		`{"mcpServers": []}`, `{"mcpServers": {"a": "x", "b": {"type": 7}}}`, "",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzClientFile(t, ".gemini/settings.json", data)
		fuzzScan(t, "custom-mcp.json", data, true)
	})
}
