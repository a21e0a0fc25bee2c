package scanner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// stageClient copies testdata/clients/<dir> into a temporary directory,
// replacing @ROOT@ in every file by that directory (trust tables and
// ~/.claude.json project lists need absolute paths), and returns it.
func stageClient(t *testing.T, dir string) string {
	t.Helper()
	root := t.TempDir()
	src := filepath.Join(testdataDir(t), "clients", dir)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		data = bytes.ReplaceAll(data, []byte("@ROOT@"), []byte(filepath.ToSlash(root)))
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// plantedSecret marks every secret value planted in testdata/clients: no
// report may contain it.
const plantedSecret = "PLANTEDSECRET"

type clientCase struct {
	name  string            // golden testdata/golden/clients-<name>.json
	dir   string            // testdata/clients/<dir>
	goos  string            // "" = linux
	env   map[string]string // @ROOT@ is replaced by the staged directory
	paths []string          // path mode, relative to the staged directory
}

var clientCases = []clientCase{
	{name: "claude-desktop", dir: "claude-desktop"},
	// Extensions in the macOS, Windows and Linux layouts; the macOS one was
	// packed with the real @anthropic-ai/mcpb CLI (2.1.2) and unzipped.
	{name: "claude-desktop-extensions", dir: "claude-desktop-extensions"},
	{name: "cursor", dir: "cursor", env: map[string]string{"API_KEY": "set", "MY_SERVICE_TOKEN": "set"}},
	{name: "vscode", dir: "vscode"},
	{name: "windsurf", dir: "windsurf", env: map[string]string{"GITHUB_TOKEN": "set"}},
	{name: "gemini", dir: "gemini", env: map[string]string{
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH": "@ROOT@/system/gemini-cli/settings.json", "GITHUB_PAT": "set", "HOME": "/home/dev"}},
	{name: "codex", dir: "codex"},
	{name: "codex-paths", dir: "codex", paths: []string{"project", "untrusted/.codex/config.toml", "home/.codex/config.toml"}},
	{name: "codex-windows", dir: "codex-windows", goos: "windows", env: map[string]string{
		"CODEX_HOME": "@ROOT@/codexhome", "ProgramData": "@ROOT@/ProgramData"}},
	{name: "zed", dir: "zed"},
	{name: "cline", dir: "cline"},
	{name: "continue", dir: "continue"},
	{name: "junie", dir: "junie"},
	{name: "others", dir: "others", env: map[string]string{"OPENCODE_TOKEN": "set"}},
	{name: "windows-home", dir: "windows-home", goos: "windows", env: map[string]string{"ProgramData": "@ROOT@/ProgramData"}},
	{name: "macos-home", dir: "macos-home", goos: "darwin"},
	{name: "errors", dir: "errors"},
}

// runClientCase scans a staged client tree: the whole machine (home/ as the
// home directory, project/ as the current project) or the given paths.
func runClientCase(t *testing.T, tc clientCase) []byte {
	t.Helper()
	root := stageClient(t, tc.dir)
	env := map[string]string{}
	for k, v := range tc.env {
		env[k] = strings.ReplaceAll(v, "@ROOT@", filepath.ToSlash(root))
	}
	opts := scanner.Options{
		Home:      filepath.Join(root, "home"),
		Project:   filepath.Join(root, "project"),
		GOOS:      tc.goos,
		LookupEnv: envOf(env),
	}
	for _, p := range tc.paths {
		opts.Paths = append(opts.Paths, filepath.Join(root, filepath.FromSlash(p)))
	}
	return scanReport(t, opts, map[string]string{root: "$ROOT"})
}

// TestClients checks one golden report per client format (docs/clients.md):
// the fixtures of shared/fixtures/configs at their real places plus wrong
// types, invalid entries, disabled servers, remote entries without a type,
// secrets, every variable dialect, Windows and macOS home layouts, and
// TOML/YAML syntax errors.
func TestClients(t *testing.T) {
	for _, tc := range clientCases {
		t.Run(tc.name, func(t *testing.T) {
			got := runClientCase(t, tc)
			if bytes.Contains(got, []byte(plantedSecret)) {
				t.Errorf("report leaks a planted secret:\n%s", lineWith(got, plantedSecret))
			}
			checkGolden(t, "clients-"+tc.name+".json", stableIDs(got)) // project ids hash the staging root
		})
	}
}

// TestClientGoldensHoldNoSecret scans the committed golden files themselves.
func TestClientGoldensHoldNoSecret(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "clients-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no client goldens")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(plantedSecret)) {
			t.Errorf("%s holds a planted secret:\n%s", f, lineWith(data, plantedSecret))
		}
	}
}

func lineWith(data []byte, s string) string {
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestClientSyntaxErrors pins the exact positions of TOML and YAML errors.
func TestClientSyntaxErrors(t *testing.T) {
	got := runClientCase(t, clientCase{dir: "errors"})
	var rep struct {
		Errors []struct {
			Path    string `json:"path"`
			Line    int    `json:"line"`
			Column  int    `json:"column"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(got, &rep); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		path      string
		line, col int
		message   string
	}{
		{"$ROOT/home/.codex/config.toml", 3, 16, "invalid TOML: array is incomplete"},
		{"$ROOT/home/.continue/config.yaml", 5, 4, "invalid YAML: did not find expected '-' indicator"},
		{"$ROOT/project/.codex/config.toml", 3, 1, "invalid TOML: key command is already defined"},
		{"$ROOT/project/.continue/mcpServers/bomb.yaml", 4, 17, "aliases expand to more than"},
		{"$ROOT/project/.continue/mcpServers/dup.yaml", 4, 5, `invalid YAML: duplicate key "command"`},
		{"$ROOT/project/.continue/mcpServers/quote.yaml", 2, 11, "invalid YAML: found unexpected end of stream"},
		{"$ROOT/project/.continue/mcpServers/tab.yaml", 3, 1, "invalid YAML: found a tab character that violates indentation"},
		{"$ROOT/project/.continue/mcpServers/utf8.yaml", 3, 16, "invalid UTF-8"},
	}
	for _, w := range want {
		found := false
		for _, e := range rep.Errors {
			if e.Path != w.path || !strings.Contains(e.Message, w.message) {
				continue
			}
			found = true
			if w.line != 0 && (e.Line != w.line || e.Column != w.col) {
				t.Errorf("%s: %q at %d:%d, want %d:%d", w.path, e.Message, e.Line, e.Column, w.line, w.col)
			}
		}
		if !found {
			t.Errorf("no error %q for %s in %+v", w.message, w.path, rep.Errors)
		}
	}
}

// TestClientIDsStable checks that server ids are a function of what each
// server is, not of where its tree is: the same home staged twice gives the
// same ids to every per-user server, a project at another root is another
// project, and in path mode the files of a git repository keep their ids in
// another clone (a committed baseline depends on it).
func TestClientIDsStable(t *testing.T) {
	idsOf := func(t *testing.T, opts scanner.Options) map[string]string {
		t.Helper()
		opts.LookupEnv, opts.GOOS = emptyEnv, "linux"
		res, err := scanner.Scan(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, s := range res.Servers {
			out[s.Client+"/"+s.Scope+"/"+s.Name] = s.ID
		}
		if len(out) == 0 {
			t.Fatal("no servers")
		}
		return out
	}
	t.Run("machine", func(t *testing.T) {
		a, b := stageClient(t, "codex"), stageClient(t, "codex")
		ia := idsOf(t, scanner.Options{Home: filepath.Join(a, "home"), Project: filepath.Join(a, "project")})
		ib := idsOf(t, scanner.Options{Home: filepath.Join(b, "home"), Project: filepath.Join(b, "project")})
		users, projects := 0, 0
		for k, id := range ia {
			switch {
			case strings.Contains(k, "/user/"):
				users++
				if ib[k] != id {
					t.Errorf("%s: %s in one home, %s in the other", k, id, ib[k])
				}
			case strings.Contains(k, "/project/"):
				projects++
				if ib[k] == id {
					t.Errorf("%s: two projects at different roots share the id %s", k, id)
				}
			}
		}
		if users == 0 || projects == 0 {
			t.Fatalf("want user and project servers: %v", ia)
		}
	})
	t.Run("path-mode-clone", func(t *testing.T) {
		a, b := stageClient(t, "codex"), stageClient(t, "codex")
		for _, root := range []string{a, b} {
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		ia := idsOf(t, scanner.Options{Paths: []string{filepath.Join(a, "project")}})
		// The other clone, named by a file in it and by a relative path.
		ib := idsOf(t, scanner.Options{Paths: []string{filepath.Join(b, "project", ".codex", "config.toml")}})
		if len(ia) != len(ib) {
			t.Fatalf("%v\n%v", ia, ib)
		}
		for k, id := range ia {
			if ib[k] != id {
				t.Errorf("%s: %s in one clone, %s in the other", k, id, ib[k])
			}
		}
	})
}

// TestProjectIsHome checks that a project that is the home directory does not
// report the user's own files a second time as project files, in a machine
// scan and in a path scan of the home directory.
func TestProjectIsHome(t *testing.T) {
	root := stageClient(t, "codex")
	home := filepath.Join(root, "home")
	for _, paths := range [][]string{nil, {home}, {filepath.Join(home, ".codex", "config.toml")}} {
		res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, Project: home, Paths: paths, LookupEnv: emptyEnv, GOOS: "linux"})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		user := filepath.Join(home, ".codex", "config.toml")
		for _, s := range res.Servers {
			if s.Project == home {
				t.Errorf("paths %v: %s %s is a project server of the home directory", paths, s.Client, s.Name)
			}
			if s.Source.Path != user {
				continue
			}
			n++
			if s.Scope != scanner.ScopeUser {
				t.Errorf("paths %v: %s is %s scope", paths, s.Name, s.Scope)
			}
		}
		if n != 2 {
			t.Errorf("paths %v: %d Codex servers, want the 2 of the user config", paths, n)
		}
	}
}

// TestPathModeJudgesCommittedText: in path mode a ${VAR} without a default
// is a note that the server needs the variable at run time, and the whole
// report is the same whether mcpguard's environment has the variable (a
// laptop) or not (a CI runner); a machine scan keeps MCPG-C007, a warning,
// for what is unset where the client starts.
func TestPathModeJudgesCommittedText(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "project")
	write := func(rel, data string) {
		p := filepath.Join(project, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".mcp.json", `{"mcpServers": {"a": {"command": "node", "args": ["${TOOLS}/a.js"]}, "b": {"type": "http", "url": "${HOST:-https://b.example}/mcp"}}}`)
	write(".cursor/mcp.json", `{"mcpServers": {"c": {"command": "node", "args": ["c.js"], "env": {"KEY": "${env:API_KEY}"}}}}`)
	laptop := envOf(map[string]string{"TOOLS": "/opt/tools", "API_KEY": "set", "HOST": "https://elsewhere.example"})
	scan := func(opts scanner.Options) []byte {
		opts.GOOS = "linux"
		return scanReport(t, opts, map[string]string{root: "$ROOT"})
	}
	ci, dev := scan(scanner.Options{Paths: []string{project}}), scan(scanner.Options{Paths: []string{project}, LookupEnv: laptop})
	if !bytes.Equal(ci, dev) {
		t.Errorf("path mode depends on the environment:\n%s", diffLines(string(ci), string(dev)))
	}
	var rep reports.Report
	if err := json.Unmarshal(ci, &rep); err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, f := range rep.Findings {
		if f.Rule == "MCPG-C007" {
			notes[f.Message] = string(f.Severity)
		}
	}
	want := map[string]string{
		`server "a" needs TOOLS at run time: the file gives no default`:   "note",
		`server "c" needs API_KEY at run time: the file gives no default`: "note",
	}
	if !reflect.DeepEqual(notes, want) {
		t.Errorf("path mode C007 %v, want %v", notes, want)
	}

	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	count := func(opts scanner.Options) map[reports.Severity]int {
		t.Helper()
		res, err := scanner.Scan(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		n := map[reports.Severity]int{}
		for _, f := range res.Findings {
			if f.Rule == "MCPG-C007" {
				n[f.Severity]++
			}
		}
		return n
	}
	machine := scanner.Options{Home: home, Project: project, GOOS: "linux", LookupEnv: emptyEnv}
	if n := count(machine); n[reports.SeverityWarning] != 2 || n[reports.SeverityNote] != 0 {
		t.Errorf("machine scan without the variables: C007 %v, want 2 warnings", n)
	}
	machine.LookupEnv = laptop
	if n := count(machine); len(n) != 0 {
		t.Errorf("machine scan with the variables set: C007 %v, want none", n)
	}
}
