package scanner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// writeFiles creates files (relative path -> content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goodCursor is a valid file that must be reported whatever else is broken.
const goodCursor = `{"mcpServers": {"ok": {"command": "node", "args": ["s.js"]}}}`

// TestHostileInput checks that every kind of bad input becomes an errors[]
// entry with a position, never a panic, and that the other files are still
// reported.
func TestHostileInput(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, home string) // breaks something under home
		path    string                          // relative to home: the file the error names
		line    int
		col     int
		message string
	}{
		{
			name: "malformed JSON",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".claude.json": "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"echo\",}\n  }\n}"})
			},
			path: ".claude.json", line: 3, col: 29, message: "trailing comma",
		},
		{
			name: "malformed JSONC",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".config/zed/settings.json": "// zed\n{\n  \"context_servers\": {\n    \"a\": { /* unterminated\n"})
			},
			path: ".config/zed/settings.json", line: 4, col: 12, message: "unterminated block comment",
		},
		{
			name: "invalid UTF-8",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".claude.json": "{\"mcpServers\": {\"x\": {\"command\": \"e\xffcho\"}}}"})
			},
			path: ".claude.json", line: 1, col: 36, message: "invalid UTF-8",
		},
		{
			name: "directory where a file should be",
			setup: func(t *testing.T, home string) {
				if err := os.MkdirAll(filepath.Join(home, ".claude.json"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			path: ".claude.json", message: "is a directory",
		},
		{
			name: "symlink loop",
			setup: func(t *testing.T, home string) {
				p := filepath.Join(home, ".claude.json")
				if err := os.Symlink(p, p); err != nil {
					t.Fatal(err)
				}
			},
			path: ".claude.json", message: "symlink loop",
		},
		{
			name: "huge file",
			setup: func(t *testing.T, home string) {
				p := filepath.Join(home, ".claude.json")
				f, err := os.Create(p)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if err := f.Truncate(100 << 20); err != nil { // sparse: cheap
					t.Fatal(err)
				}
			},
			path: ".claude.json", message: "over the 64 MiB limit",
		},
		{
			name: "unreadable file",
			setup: func(t *testing.T, home string) {
				if os.Geteuid() == 0 {
					t.Skip("root reads files whatever their mode")
				}
				writeFiles(t, home, map[string]string{".claude.json": "{}"})
				if err := os.Chmod(filepath.Join(home, ".claude.json"), 0); err != nil {
					t.Fatal(err)
				}
			},
			path: ".claude.json", message: "permission denied",
		},
		{
			name: "FIFO where a file should be",
			setup: func(t *testing.T, home string) {
				if err := mkfifo(filepath.Join(home, ".claude.json")); err != nil {
					t.Skip("no mkfifo:", err)
				}
			},
			path: ".claude.json", message: "not a regular file",
		},
		{
			name:  "top level not an object",
			setup: func(t *testing.T, home string) { writeFiles(t, home, map[string]string{".claude.json": "[1, 2]"}) },
			path:  ".claude.json", line: 1, col: 1, message: "must hold a JSON object",
		},
		{
			name:  "empty file",
			setup: func(t *testing.T, home string) { writeFiles(t, home, map[string]string{".claude.json": ""}) },
			path:  ".claude.json", line: 1, col: 1, message: "empty",
		},
		{
			name: "deep nesting",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".claude.json": strings.Repeat("[", 100000)})
			},
			path: ".claude.json", line: 1, col: 513, message: "nesting deeper",
		},
		{
			name: "an array past the element limit",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".claude.json": `{"mcpServers": {"x": {"command": "npx", "args": [` +
					strings.Repeat(`"a",`, 100001) + `"a"]}}}`})
			},
			path: ".claude.json", line: 1, col: 49, message: "array of more than 100000 elements",
		},
		{
			name: "an entry with too many arguments",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".claude.json": `{"mcpServers": {"x": {"command": "npx", "args": [` +
					strings.Repeat(`"a",`, scanner.MaxEntryValues) + `"a"]}}}`})
			},
			path: ".claude.json", line: 1, col: 17, message: `server "x" refused: the entry holds more than 10000 values`,
		},
		{
			name: "a huge command",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".kiro/settings/mcp.json": `{"mcpServers": {"x": {"command": "` +
					strings.Repeat("n", scanner.MaxStringBytes+1) + `"}}}`})
			},
			path: ".kiro/settings/mcp.json", line: 1, col: 17, message: `server "x" refused: a string of the entry is 262145 bytes`,
		},
		{
			name: "a TOML array past the element limit",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".codex/config.toml": "[mcp_servers.x]\ncommand = \"npx\"\nargs = [" +
					strings.Repeat(`"a",`, 100001) + `"a"]` + "\n"})
			},
			path: ".codex/config.toml", line: 3, col: 8, message: "more than 100000 elements",
		},
		{
			name: "a YAML file of absurd length",
			setup: func(t *testing.T, home string) {
				writeFiles(t, home, map[string]string{".continue/config.yaml": "mcpServers:\n  - name: x\n    command: npx\n    args: [" +
					strings.Repeat("a, ", 200001) + "a]\n"})
			},
			path: ".continue/config.yaml", line: 4, message: "more than 200000 lines and flow items",
		},
		{
			name: "too many servers in one file",
			setup: func(t *testing.T, home string) {
				var b strings.Builder
				b.WriteString(`{"mcpServers": {`)
				for i := 0; i <= scanner.MaxServersPerFile; i++ {
					if i > 0 {
						b.WriteString(",")
					}
					fmt.Fprintf(&b, `"s%d": {"command": "node"}`, i)
				}
				b.WriteString("}}")
				writeFiles(t, home, map[string]string{".claude.json": b.String()})
			},
			path: ".claude.json", line: 1, col: 2, message: "over the limit of 10000",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			writeFiles(t, home, map[string]string{".cursor/mcp.json": goodCursor})
			tc.setup(t, home)
			res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, LookupEnv: emptyEnv})
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(home, filepath.FromSlash(tc.path))
			var found *reports.FileError
			for i, e := range res.Errors {
				if e.Path == want {
					found = &res.Errors[i]
				}
			}
			if found == nil {
				t.Fatalf("no error for %s; errors = %+v", tc.path, res.Errors)
			}
			if !strings.Contains(found.Message, tc.message) || found.Line != tc.line || (found.Column != tc.col && tc.col != 0) {
				t.Errorf("error = %s, want %d:%d containing %q", found.Error(), tc.line, tc.col, tc.message)
			}
			if !hasServer(res, "cursor", "ok") {
				t.Error("the valid Cursor file was not reported")
			}
		})
	}
}

// TestWrongTypes checks entries of the wrong shape: they are reported as
// invalid or with C006, never silently dropped, and the valid ones still load.
func TestWrongTypes(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".claude.json": `{"mcpServers": {
  "args-not-array": {"command": "npx", "args": "-y pkg"},
  "env-not-object": {"command": "npx", "env": ["A=1"]},
  "entry-a-string": "npx -y pkg",
  "good": {"command": "true"}
}}`,
		".cursor/mcp.json":                  `{"mcpServers": [{"command": "npx"}]}`,
		".codeium/windsurf/mcp_config.json": `{"mcpServers": {"w": {"command": 42}}}`,
	})
	res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, LookupEnv: emptyEnv})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"args-not-array", "env-not-object", "entry-a-string"} {
		s := findServer(res, "claude-code", name)
		if s == nil || s.Status != reports.StatusInvalid {
			t.Errorf("%s: want invalid, got %+v", name, s)
		}
	}
	if s := findServer(res, "claude-code", "good"); s == nil || s.Status != reports.StatusActive {
		t.Errorf("good: %+v", s)
	}
	if s := findServer(res, "windsurf", "w"); s == nil || s.Status != reports.StatusInvalid {
		t.Errorf("windsurf w: %+v", s)
	}
	if !hasFinding(res, "MCPG-C006", filepath.Join(home, ".cursor", "mcp.json")) {
		t.Error("mcpServers as a list: no C006")
	}
	if len(res.Errors) != 0 {
		t.Errorf("wrong types are findings, not errors: %+v", res.Errors)
	}
}

func findServer(res *scanner.Result, client, name string) *scanner.Server {
	for _, s := range res.Servers {
		if s.Client == client && s.Name == name {
			return s
		}
	}
	return nil
}

func hasServer(res *scanner.Result, client, name string) bool {
	return findServer(res, client, name) != nil
}

func hasFinding(res *scanner.Result, rule, path string) bool {
	for _, f := range res.Findings {
		if f.Rule == rule && f.Location.Path == path {
			return true
		}
	}
	return false
}

func writeAbs(tb testing.TB, p, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestDuplicateKeys: a key written twice is a C008 warning naming both
// positions, and the value the client uses (the last) is what is judged.
func TestDuplicateKeys(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".mcp.json": "{\"mcpServers\": {\n  \"a\": {\"command\": \"safe\"},\n  \"a\": {\"command\": \"evil\", \"env\": {\"K\": \"1\", \"K\": \"2\"}}\n}}"})
	res, err := scanner.Scan(context.Background(), scanner.Options{Paths: []string{dir}, LookupEnv: emptyEnv})
	if err != nil {
		t.Fatal(err)
	}
	var dups []reports.Finding
	for _, f := range res.Findings {
		if f.Rule == "MCPG-C008" {
			dups = append(dups, f)
		}
	}
	if len(dups) != 2 {
		t.Fatalf("%d C008 findings, want 2 (the server and its env key): %+v", len(dups), dups)
	}
	f := dups[0]
	if f.Location.Line != 2 || f.Location.Pointer != "/mcpServers/a" || !strings.Contains(f.Message, "2:3, 3:3") || f.Evidence["used"] != "3:3" {
		t.Errorf("finding %+v", f)
	}
	for _, s := range res.Servers {
		if s.Name == "a" && s.Command != "evil" {
			t.Errorf("judged command %q, want the last value, evil", s.Command)
		}
	}
}
