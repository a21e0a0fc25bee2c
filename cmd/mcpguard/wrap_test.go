package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/wrapargv"
	"github.com/mcpguard/mcpguard/wrap"
)

// wrapMachine is a home with every client wrap supports, a project that
// ~/.claude.json knows, and a fake mcpguard executable.
type wrapMachine struct {
	root, home, project, managed, exe string
	files                             map[string]string // path -> original content
}

func newWrapMachine(t *testing.T) *wrapMachine {
	t.Helper()
	root := t.TempDir()
	m := &wrapMachine{root: root, home: filepath.Join(root, "home"), project: filepath.Join(root, "project"),
		managed: filepath.Join(root, "managed"), exe: filepath.Join(root, "bin", "mcpguard"), files: map[string]string{}}
	add := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		m.files[p] = content
	}
	projectKey, _ := json.Marshal(m.project)
	add("home/.claude.json", `{
  "numStartups": 3,
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github@1.0.0"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
    "docs": {"type": "http", "url": "https://docs.example.com/mcp"}
  },
  "projects": {
    `+string(projectKey)+`: {
      "hasTrustDialogAccepted": true,
      "mcpServers": {"db": {"command": "db-mcp"}}
    }
  }
}
`)
	add("project/.mcp.json", "{\n  \"mcpServers\": {\n    \"fs\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@modelcontextprotocol/server-filesystem@1.0.0\", \".\"]\n    }\n  }\n}\n")
	add("home/.config/Claude/claude_desktop_config.json", "{\r\n  \"mcpServers\": {\r\n    \"time\": {\r\n      \"command\": \"uvx\",\r\n      \"args\": [\r\n        \"mcp-server-time\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n")
	add("home/.cursor/mcp.json", "{\n  // Cursor\n  \"mcpServers\": {\n    \"local\": {\"command\": \"python\", \"args\": [\"${workspaceFolder}/srv.py\"],},\n    \"remote\": {\"url\": \"https://api.example.com/mcp\"},\n  },\n}\n")
	add("project/.cursor/mcp.json", `{"mcpServers": {"pc": {"command": "node", "args": ["pc.js"]}}}`)
	add("home/.config/Code/User/mcp.json", "{\n\t\"servers\": {\n\t\t\"mem\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"npx\",\n\t\t\t\"args\": [\"-y\", \"@modelcontextprotocol/server-memory@1.0.0\"]\n\t\t}\n\t}\n}\n")
	add("project/.vscode/mcp.json", `{"inputs": [], "servers": {"pv": {"command": "node", "args": ["pv.js"]}, "ctx": {"type": "http", "url": "https://ctx.example.com/mcp"}}}`)
	add("home/.codeium/windsurf/mcp_config.json", `{"mcpServers": {"ws": {"command": "uvx", "args": ["ws-mcp"], "disabled": true}, "wr": {"serverUrl": "https://w.example.com/mcp"}}}`)
	for p, c := range m.files {
		writeWrapFile(t, p, c)
	}
	writeWrapFile(t, m.exe, "#!/bin/sh\n")
	if err := os.Chmod(m.exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(m.managed, 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

func writeWrapFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (m *wrapMachine) args(cmd string, extra ...string) []string {
	a := []string{cmd, "--home", m.home, "--project", m.project, "--managed-dir", m.managed}
	if cmd == "wrap" {
		a = append(a, "--mcpguard", m.exe)
	}
	return append(a, extra...)
}

func (m *wrapMachine) env() environment { return testEnv(m.project, m.home, nil) }

// wrappedNames returns the --name of every wrapped entry in a file.
func wrappedNames(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, _, err := jsonc.Parse(data, jsonc.Options{JSONC: true})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var names []string
	var walk func(v *jsonc.Value)
	walk = func(v *jsonc.Value) {
		if v == nil || v.Kind != jsonc.Object {
			return
		}
		if c := v.Get("command"); c.IsString() {
			args, _ := v.Get("args").StringSlice()
			if w, ok := wrapargv.Split(c.Str, args); ok {
				names = append(names, w.Name())
			}
		}
		for _, mem := range v.Members {
			walk(mem.Value)
		}
	}
	walk(root)
	slices.Sort(names)
	return names
}

func TestWrapUnwrapMachine(t *testing.T) {
	m := newWrapMachine(t)
	env := m.env()

	// Dry run: a diff, nothing written.
	out, stderr, code := runCLI(t, env, m.args("wrap", "--dry-run")...)
	if code != exitOK {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "+        \"--name\",") && !strings.Contains(out, `"--name", "claude-code/project/fs@`) {
		t.Errorf("dry run shows no diff:\n%s", out)
	}
	if !strings.Contains(out, "(dry run: nothing written)") {
		t.Errorf("dry run output:\n%s", out)
	}
	for p, c := range m.files {
		if got, _ := os.ReadFile(p); string(got) != c {
			t.Errorf("dry run wrote %s", p)
		}
	}

	// Wrap.
	out, stderr, code = runCLI(t, env, m.args("wrap")...)
	if code != exitOK {
		t.Fatalf("wrap: exit %d: %s\n%s", code, stderr, out)
	}
	// The backups: in the state directory, one per file, never beside it.
	backups := filepath.Join(m.home, ".local", "state", "mcpguard", "backups")
	want := map[string][]string{
		"home/.claude.json": {"claude-code/local/db@" + m.project, "claude-code/user/github"},
		"project/.mcp.json": {"claude-code/project/fs@" + m.project},
		"home/.config/Claude/claude_desktop_config.json": {"claude-desktop/user/time"},
		"home/.cursor/mcp.json":                          {"cursor/user/local"},
		"project/.cursor/mcp.json":                       {"cursor/project/pc@" + m.project},
		"home/.config/Code/User/mcp.json":                {"vscode/user/mem"},
		"project/.vscode/mcp.json":                       {"vscode/project/pv@" + m.project},
		"home/.codeium/windsurf/mcp_config.json":         {"windsurf/user/ws"},
	}
	for rel, names := range want {
		p := filepath.Join(m.root, filepath.FromSlash(rel))
		if got := wrappedNames(t, p); !slices.Equal(got, names) {
			t.Errorf("%s: wrapped %v, want %v", rel, got, names)
		}
		backup := wrap.BackupFile(backups, p)
		if b, err := os.ReadFile(backup); err != nil || string(b) != m.files[p] {
			t.Errorf("%s: backup %v", rel, err)
		}
		if !strings.Contains(out, backup) {
			t.Errorf("the output does not name the backup of %s", rel)
		}
	}
	if !strings.Contains(out, "docs (user): remote (url) server: not wrapped") {
		t.Errorf("remote servers are not reported as not wrapped:\n%s", out)
	}
	if !strings.Contains(out, "mcpguard wrap: 9 servers wrapped, 4 skipped, 8 files changed") {
		t.Errorf("summary:\n%s", out)
	}
	wrapped := map[string]string{}
	for p := range m.files {
		b, _ := os.ReadFile(p)
		wrapped[p] = string(b)
	}

	// Idempotent: a second wrap changes nothing and writes no backup.
	out, _, code = runCLI(t, env, m.args("wrap")...)
	if code != exitOK || !strings.Contains(out, "0 servers wrapped") {
		t.Errorf("second wrap: exit %d\n%s", code, out)
	}
	for p, c := range wrapped {
		if b, _ := os.ReadFile(p); string(b) != c {
			t.Errorf("second wrap changed %s", p)
		}
		if matches, _ := filepath.Glob(p + ".mcpguard*"); len(matches) != 0 {
			t.Errorf("a backup beside the file: %v", matches)
		}
	}
	if entries, _ := os.ReadDir(backups); len(entries) != len(want) {
		t.Errorf("%d backups for %d files", len(entries), len(want))
	}

	// The scanner sees through the wrappers.
	out, stderr, _ = runCLI(t, env, "scan", "--home", m.home, "--project", m.project, "--managed-dir", m.managed, "--format", "json")
	var rep struct {
		Servers []struct {
			Name, Client, Command string
			Args                  []string
			Details               map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("scan: %v\n%s", err, stderr)
	}
	seen := 0
	for _, s := range rep.Servers {
		if s.Name == "github" && s.Client == "claude-code" {
			seen++
			wb, _ := s.Details["wrapped_by"].(map[string]any)
			if s.Command != "npx" || len(s.Args) != 2 || wb["command"] != m.exe {
				t.Errorf("github: %q %q %v", s.Command, s.Args, s.Details)
			}
		}
	}
	if seen != 1 {
		t.Errorf("github seen %d times", seen)
	}

	// Unwrap restores every byte.
	out, stderr, code = runCLI(t, env, m.args("unwrap")...)
	if code != exitOK {
		t.Fatalf("unwrap: exit %d: %s\n%s", code, stderr, out)
	}
	for p, c := range m.files {
		if b, _ := os.ReadFile(p); string(b) != c {
			t.Errorf("unwrap did not restore %s:\n%s", p, b)
		}
	}
	if !strings.Contains(out, "9 servers unwrapped") {
		t.Errorf("unwrap output:\n%s", out)
	}
}

func TestWrapSelection(t *testing.T) {
	m := newWrapMachine(t)
	env := m.env()
	claude := filepath.Join(m.home, ".claude.json")
	cursor := filepath.Join(m.home, ".cursor", "mcp.json")

	_, stderr, code := runCLI(t, env, m.args("wrap", "--client", "claude-code", "--server", "github")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := wrappedNames(t, claude); !slices.Equal(got, []string{"claude-code/user/github"}) {
		t.Errorf("--server: %v", got)
	}
	if got := wrappedNames(t, cursor); len(got) != 0 {
		t.Errorf("--client: cursor wrapped %v", got)
	}

	// PATH: only that file (a directory: its project files).
	_, stderr, code = runCLI(t, env, m.args("wrap", cursor)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := wrappedNames(t, cursor); len(got) != 1 || len(wrappedNames(t, filepath.Join(m.project, ".mcp.json"))) != 0 {
		t.Errorf("PATH: cursor %v", got)
	}
	_, stderr, code = runCLI(t, env, m.args("wrap", m.project)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, rel := range []string{".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"} {
		if len(wrappedNames(t, filepath.Join(m.project, filepath.FromSlash(rel)))) != 1 {
			t.Errorf("directory PATH: %s not wrapped", rel)
		}
	}
	if got := wrappedNames(t, claude); len(got) != 1 {
		t.Errorf("directory PATH touched ~/.claude.json: %v", got)
	}

	// JSON output.
	out, _, code := runCLI(t, env, m.args("unwrap", "--format", "json", cursor)...)
	var doc struct {
		Mode  string
		Files []struct {
			Path    string
			Changed bool
			Backup  string
			Servers []struct{ Name, Action, Reason string }
		}
		Summary struct {
			Unwrapped, Skipped int
			FilesChanged       int `json:"files_changed"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitOK {
		t.Fatalf("json: %v exit %d\n%s", err, code, out)
	}
	if doc.Mode != "unwrap" || len(doc.Files) != 1 || doc.Files[0].Path != cursor || doc.Summary.Unwrapped != 1 || doc.Summary.Skipped != 1 || doc.Summary.FilesChanged != 1 {
		t.Errorf("json: %+v", doc)
	}
	if b, _ := os.ReadFile(cursor); string(b) != m.files[cursor] {
		t.Error("cursor not restored")
	}
}

func TestWrapErrors(t *testing.T) {
	m := newWrapMachine(t)
	env := m.env()
	broken := filepath.Join(m.home, ".cursor", "mcp.json")
	writeWrapFile(t, broken, "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",,}\n  }\n}\n")
	out, stderr, code := runCLI(t, env, m.args("wrap")...)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	if !strings.Contains(stderr, broken+":3:") {
		t.Errorf("stderr does not name path:line:col: %s", stderr)
	}
	if b, _ := os.ReadFile(broken); !strings.Contains(string(b), `"command": "x",,`) {
		t.Error("the broken file was changed")
	}
	if len(wrappedNames(t, filepath.Join(m.home, ".claude.json"))) != 2 {
		t.Errorf("the other files were not wrapped:\n%s", out)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown client", m.args("wrap", "--client", "zed"), `unknown client "zed"`},
		{"bad format", m.args("wrap", "--format", "sarif"), "invalid format"},
		{"not mcpguard", []string{"wrap", "--home", m.home, "--managed-dir", m.managed, "--mcpguard", "/bin/sh"}, "not named mcpguard"},
		{"missing executable", []string{"wrap", "--home", m.home, "--managed-dir", m.managed, "--mcpguard", filepath.Join(m.root, "nope", "mcpguard")}, "--mcpguard"},
		{"not a config", m.args("wrap", filepath.Join(m.root, "bin", "mcpguard")), "not a configuration file"},
		{"missing path", m.args("unwrap", filepath.Join(m.root, "nope.json")), "nope.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, env, tc.args...)
			if code != exitError || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr, tc.want)
			}
		})
	}
}

// A managed allowlist of serverCommand entries refuses wrapped servers:
// wrap says so before writing, with the entry the policy owners must add.
func TestWrapAllowlistWarning(t *testing.T) {
	m := newWrapMachine(t)
	writeWrapFile(t, filepath.Join(m.managed, "managed-settings.json"),
		`{"allowedMcpServers": [{"serverCommand": ["npx", "-y", "@modelcontextprotocol/server-github@1.0.0"]}, {"serverCommand": ["db-mcp"]}]}`)
	_, stderr, code := runCLI(t, m.env(), m.args("wrap", "--client", "claude-code", "--dry-run")...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		`{"serverCommand":["` + m.exe + `","proxy","--name","claude-code/user/github","--","npx","-y","@modelcontextprotocol/server-github@1.0.0"]}`,
		`{"serverCommand":["` + m.exe + `","proxy","--name","claude-code/local/db@` + m.project + `","--wrapped-without-args","--","db-mcp"]}`,
		"[MCPG-P008]",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
}
