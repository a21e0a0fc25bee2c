package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/schematest"
	"github.com/mcpguard/mcpguard/reports"
)

var update = flag.Bool("update", false, "rewrite golden files")

// repoRoot is the absolute path of the repository.
func repoRoot(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// testEnv is a machine-independent environment.
func testEnv(cwd, home string, vars map[string]string) environment {
	return environment{
		lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		getwd:     func() (string, error) { return cwd, nil },
		home:      func() (string, error) { return home, nil },
		hostname:  func() (string, error) { return "host", nil },
		username:  func() string { return "dev" },
		now:       func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
		goos:      "linux",
		version:   "test",
		isTTY:     func(any) bool { return false },
	}
}

// runCLI runs mcpguard in-process and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, env environment, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runContext(context.Background(), args, streams{in: strings.NewReader(""), out: &out, err: &errb}, env)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (go test ./cmd/mcpguard -update creates it): %v", err)
	}
	if got != strings.ReplaceAll(string(want), "\r\n", "\n") {
		t.Errorf("%s differs from the golden file (go test ./cmd/mcpguard -update to accept); got:\n%s", name, got)
	}
}

// TestScanDemo scans the bundled demo machine exactly as README's first
// command does and compares the report with goldens.
func TestScanDemo(t *testing.T) {
	root := repoRoot(t)
	demo := filepath.Join(root, "testdata", "demo")
	env := testEnv(root, "/nonexistent-home", nil)
	args := []string{"scan", "--home", filepath.Join(demo, "home"), "--managed-dir", filepath.Join(demo, "managed"), "--project", filepath.Join(demo, "project")}
	for _, format := range []string{"json", "text"} {
		out, stderr, code := runCLI(t, env, append(args, "--format", format)...)
		if code != exitOK && code != exitFindings {
			t.Fatalf("%s: exit %d, stderr %s", format, code, stderr)
		}
		out = strings.ReplaceAll(out, root, "$REPO")
		if format == "json" {
			v, err := schematest.New("report-v1", reports.SchemaJSON)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.Validate([]byte(out)); err != nil {
				t.Error(err)
			}
			if strings.Contains(out, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(out, "0b7c5e1e-5a51") {
				t.Error("a secret value reached the report")
			}
		}
		golden(t, "demo."+format, out)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clean := write("clean/.mcp.json", `{"mcpServers": {"a": {"command": "node", "args": ["s.js"]}}}`)
	warn := write("warn/.mcp.json", `{"mcpServers": {"a": {"url": "https://x.example/mcp"}}}`)
	broken := write("broken/.mcp.json", `{"mcpServers": `)
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"clean file", []string{"scan", clean}, exitOK},
		{"warning below --fail-on error", []string{"scan", warn}, exitOK},
		{"warning at --fail-on warning", []string{"scan", "--fail-on", "warning", warn}, exitFindings},
		{"--fail-on never", []string{"scan", "--fail-on", "never", warn}, exitOK},
		{"malformed input", []string{"scan", broken, clean}, exitError},
		{"missing path", []string{"scan", filepath.Join(dir, "nope.json")}, exitError},
		{"unknown flag", []string{"scan", "--nope"}, exitError},
		{"bad format", []string{"scan", "--format", "yaml", clean}, exitError},
		{"bad fail-on", []string{"scan", "--fail-on", "fatal", clean}, exitError},
		{"unknown command", []string{"scna"}, exitError},
		{"version", []string{"version"}, exitOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, env, tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stdout %q stderr %q", code, tc.want, out, stderr)
			}
		})
	}
}

func TestMalformedInputNamesPosition(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(p, []byte("{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"echo\",}\n  }\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, testEnv(dir, dir, nil), "scan", "--format", "json", p)
	if code != exitError {
		t.Fatalf("exit %d", code)
	}
	if want := p + ":3:29: invalid JSON: trailing comma"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not contain %q", stderr, want)
	}
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(p, []byte(`{"mcpServers": {"a": {"command": "node"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(dir, "report.json")
	stdout, _, code := runCLI(t, testEnv(dir, dir, nil), "scan", "--format", "json", "--output", outPath, p)
	if code != exitOK || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"schema": "mcpguard/report/v1"`) {
		t.Errorf("report file: %s", data)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".mcpguard-report-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
