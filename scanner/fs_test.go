package scanner_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// recordingFS serves the machine's files, or an override, and records
// every path a scan asked about.
type recordingFS struct {
	cfgfile.OS
	mu       sync.Mutex
	asked    map[string]bool
	override map[string][]byte
}

func (r *recordingFS) note(p string) {
	r.mu.Lock()
	r.asked[p] = true
	r.mu.Unlock()
}

func (r *recordingFS) ReadFile(p string) ([]byte, bool, *reports.FileError) {
	r.note(p)
	if data, ok := r.override[p]; ok {
		return data, true, nil
	}
	return r.OS.ReadFile(p)
}

func (r *recordingFS) ReadDir(p string) ([]fs.DirEntry, error) { r.note(p); return r.OS.ReadDir(p) }
func (r *recordingFS) Stat(p string) (fs.FileInfo, error)      { r.note(p); return r.OS.Stat(p) }
func (r *recordingFS) Lstat(p string) (fs.FileInfo, error)     { r.note(p); return r.OS.Lstat(p) }

// TestEveryReadGoesThroughFS: every file a whole-machine scan reports as a
// source was read through Options.FS, and a file that exists only in the
// FS is scanned as if it were on disk.
func TestEveryReadGoesThroughFS(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join("..", "testdata", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(demo, "home")
	virtual := filepath.Join(home, ".kiro", "settings", "mcp.json")
	rec := &recordingFS{asked: map[string]bool{}, override: map[string][]byte{
		virtual: []byte(`{"mcpServers": {"only-in-memory": {"command": "node", "args": ["server.js"]}}}`),
	}}
	res, err := scanner.Scan(context.Background(), scanner.Options{
		Home: home, ManagedDir: filepath.Join(demo, "managed"), Project: filepath.Join(demo, "project"),
		GOOS: "linux", FS: rec, Policy: testEngine(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) < 5 {
		t.Fatalf("only %d sources: the demo machine did not scan", len(res.Sources))
	}
	for _, src := range res.Sources {
		if !rec.asked[src.Path] {
			t.Errorf("source %s was not read through Options.FS", src.Path)
		}
	}
	found := false
	for _, s := range res.Servers {
		if s.Name == "only-in-memory" && s.Source.Path == virtual {
			found = true
		}
	}
	if !found {
		t.Errorf("the server of %s, served by the FS only, was not scanned", virtual)
	}
}

// osByAnotherName is the machine's file system under a type of its own:
// the scanner lists a project to skip the client files it does not hold
// only on cfgfile.OS itself (the daemon's FS watches a listed directory
// whole), so a scan through it tries every location.
type osByAnotherName struct{ cfgfile.OS }

// TestProjectProbeFindsEveryFile: a project that holds a file at every
// location clients read from one (and folders whose names differ only in
// case), and a home with per-user files of each system's layout and one
// that COPILOT_HOME moves out of it, yield the same sources and servers
// whether the scanner skips the locations its listings rule out or tries
// each.
func TestProjectProbeFindsEveryFile(t *testing.T) {
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	files := map[string]string{
		".cursor/mcp.json":                 `{"mcpServers": {"cursor-s": {"command": "npx", "args": ["a"]}}}`,
		".vscode/mcp.json":                 `{"servers": {"vscode-s": {"command": "npx", "args": ["b"]}}}`,
		".vscode/settings.json":            `{"mcp": {"servers": {"vscode-settings-s": {"command": "npx"}}}}`,
		".gemini/settings.json":            `{"mcpServers": {"gemini-s": {"command": "npx"}}}`,
		".zed/settings.json":               `{"context_servers": {"zed-s": {"command": "npx"}}}`,
		".junie/mcp/mcp.json":              `{"mcpServers": {"junie-s": {"command": "npx"}}}`,
		".Kiro/settings/mcp.json":          `{"mcpServers": {"kiro-upper-s": {"command": "npx"}}}`,
		".roo/mcp.json":                    `{"mcpServers": {"roo-s": {"command": "npx"}}}`,
		".kilocode/mcp.json":               `{"mcpServers": {"kilo-s": {"command": "npx"}}}`,
		".continue/mcpServers/a.json":      `{"mcpServers": {"continue-s": {"command": "npx"}}}`,
		".continue/mcpServers/b.yaml":      "name: b\nmcpServers:\n  - name: continue-yaml-s\n    command: npx\n",
		"opencode.json":                    `{"mcp": {"opencode-s": {"type": "local", "command": ["npx"]}}}`,
		".codex/config.toml":               "[mcp_servers.codex-s]\ncommand = \"npx\"\n",
		".mcp.json":                        `{"mcpServers": {"claude-s": {"command": "npx"}}}`,
		"src/.cursor/mcp.json":             `{"mcpServers": {"nested-s": {"command": "npx"}}}`,
		"README.md":                        "not a config",
		".kiro-not-a-client/settings.json": `{}`,
	}
	inHome := map[string]string{
		"Library/Application Support/Claude/claude_desktop_config.json":                             `{"mcpServers": {"desktop-mac-s": {"command": "npx"}}}`,
		".config/Claude/claude_desktop_config.json":                                                 `{"mcpServers": {"desktop-linux-s": {"command": "npx"}}}`,
		"AppData/Roaming/Code/User/mcp.json":                                                        `{"servers": {"code-windows-s": {"command": "npx"}}}`,
		".codeium/windsurf/mcp_config.json":                                                         `{"mcpServers": {"windsurf-s": {"command": "npx"}}}`,
		".gemini/extensions/x/gemini-extension.json":                                                `{"mcpServers": {"extension-s": {"command": "npx"}}}`,
		".continue/config.yaml":                                                                     "mcpServers:\n  - name: continue-user-s\n    command: npx\n",
		".config/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json": `{"mcpServers": {"cline-s": {"command": "npx"}}}`,
		"../copilot/mcp-config.json":                                                                `{"mcpServers": {"copilot-moved-s": {"command": "npx"}}}`,
	}
	for rel, content := range inHome {
		files["../home/"+rel] = content
	}
	for rel, content := range files {
		p := filepath.Join(project, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	scan := func(fsys cfgfile.FS) *scanner.Result {
		res, err := scanner.Scan(context.Background(), scanner.Options{
			Home: home, ManagedDir: filepath.Join(root, "managed"), Project: project,
			GOOS: "linux", FS: fsys, Policy: testEngine(t),
			LookupEnv: func(k string) (string, bool) {
				if k == "COPILOT_HOME" {
					return filepath.Join(root, "copilot"), true
				}
				return "", false
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	probed, tried := scan(cfgfile.OS{}), scan(osByAnotherName{})
	describe := func(res *scanner.Result) (sources, servers []string) {
		for _, s := range res.Sources {
			sources = append(sources, s.Path+" "+s.Kind+" "+s.Error)
		}
		for _, s := range res.Servers {
			servers = append(servers, s.Name+" "+s.Source.Path+" "+string(s.Status))
		}
		slices.Sort(sources)
		slices.Sort(servers)
		return sources, servers
	}
	ps, pv := describe(probed)
	ts, tv := describe(tried)
	if !slices.Equal(ps, ts) || !slices.Equal(pv, tv) {
		t.Fatalf("probed: %q %q\ntried: %q %q", ps, pv, ts, tv)
	}
	// Each client's project file was read (the Kiro folder in upper case is
	// not .kiro on this file system, with or without the probe).
	if len(ps) < 20 {
		t.Errorf("%d sources: %q", len(ps), ps)
	}
}

// TestOtherProjectsLeaveUserServers: a project other than the main one
// merges its servers with copies of the user servers (userEntries), which
// its local servers shadow and to which its unapproved project servers
// yield; none of that reaches the user servers the report keeps, whose
// status and details are the main project's.
func TestOtherProjectsLeaveUserServers(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	p := func(name string) string { return filepath.Join(root, name) }
	files := map[string]string{
		filepath.Join(home, ".claude.json"): `{
  "mcpServers": {
    "a": {"command": "npx", "args": ["-y", "a@1.0.0"]},
    "b": {"type": "http", "url": "https://b.example/mcp"},
    "bad": {"type": "http"},
    "c": {"command": "uvx", "args": ["c"]},
    "e": {"type": "http", "url": "https://e.example/mcp", "oauth": {"clientId": "x"}}
  },
  "projects": {
    "` + p("p0") + `": {"mcpServers": {}},
    "` + p("p1") + `": {"hasTrustDialogAccepted": true, "mcpServers": {"a": {"command": "node", "args": ["a.js"]}, "e": {"type": "sse", "url": "https://e2.example/sse"}}, "disabledMcpServers": ["c"]},
    "` + p("p2") + `": {"mcpServers": {"c": {"command": "pipx", "args": ["run", "c"]}}}
  }
}`,
		filepath.Join(p("p1"), ".mcp.json"): `{"mcpServers": {"b": {"command": "npx", "args": ["b"]}, "d": {"command": "npx", "args": ["d"]}}}`,
		filepath.Join(p("p2"), ".mcp.json"): `{"mcpServers": {"a": {"command": "npx", "args": ["a2"]}}}`,
	}
	for path, data := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, Project: p("p0"), GOOS: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ status, shadowedBy string }
	wants := map[string]want{
		"user a": {"active", ""}, "user b": {"active", ""}, "user c": {"active", ""}, "user bad": {"invalid", ""},
		"user e": {"active", ""}, "local e": {"active", ""}, "local a": {"active", ""}, "project b": {"shadowed", "user"}, "project d": {"pending-approval", ""},
		"local c": {"active", ""}, "project a": {"shadowed", "user"},
	}
	for _, s := range res.Servers {
		key := s.Scope + " " + s.Name
		w, ok := wants[key]
		if !ok {
			t.Errorf("unexpected server %s", key)
			continue
		}
		delete(wants, key)
		by, _ := s.Details["shadowed_by"].(string)
		if string(s.Status) != w.status || by != w.shadowedBy {
			t.Errorf("%s: status %s, shadowed by %q; want %s, %q", key, s.Status, by, w.status, w.shadowedBy)
		}
		if s.Scope == scanner.ScopeUser && len(s.Details) > 0 {
			if _, ok := s.Details["shadowed_because"]; ok {
				t.Errorf("%s: another project's shadowing reached the kept server: %v", key, s.Details)
			}
		}
	}
	for key := range wants {
		t.Errorf("missing server %s", key)
	}
}
