package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/fleetpolicy/opaplugins"

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
		about:     "mcpguard test (go test)",
		isTTY:     func(any) bool { return false },
		euid:      func() int { return 1000 },
		// The tests link OPA's plugins and run --opa-config in process;
		// TestOPAHelper covers the default build running mcpguard-opa.
		startFleet: opaplugins.StartControl,
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
	// Line ends are normalized on both sides: a checkout may convert them,
	// and CSV writes CRLF (RFC 4180).
	if strings.ReplaceAll(got, "\r\n", "\n") != strings.ReplaceAll(string(want), "\r\n", "\n") {
		t.Errorf("%s differs from the golden file (go test ./cmd/mcpguard -update to accept); got:\n%s", name, got)
	}
}

// TestScanDemo scans the bundled demo machine exactly as README's first
// command does and compares the report with goldens.
func TestScanDemo(t *testing.T) {
	// A copy of the demo with the modes of a fresh clone (git keeps only the
	// executable bit; umask 022): the report notices file modes, and the
	// goldens must not depend on how this checkout was made.
	root := t.TempDir()
	demo := filepath.Join(root, "testdata", "demo")
	copyTree(t, filepath.Join(repoRoot(t), "testdata", "demo"), demo)
	env := testEnv(root, "/nonexistent-home", nil)
	args := []string{"scan", "--home", filepath.Join(demo, "home"), "--managed-dir", filepath.Join(demo, "managed"), "--project", filepath.Join(demo, "project")}
	goldenName := map[string]string{"json": "demo.json", "text": "demo.text", "sarif": "demo.sarif", "junit": "demo.junit.xml", "markdown": "demo.md", "csv": "demo.csv", "cyclonedx": "demo.cdx.json", "html": "demo.html"}
	for _, f := range reports.Formats() {
		format := string(f)
		out, stderr, code := runCLI(t, env, append(args, "--format", format)...)
		if code != exitOK && code != exitFindings {
			t.Fatalf("%s: exit %d, stderr %s", format, code, stderr)
		}
		if format == "sarif" {
			if inv := decodeSARIF(t, out).Runs[0].Invocations[0]; inv.ExitCode != code {
				t.Errorf("sarif records exit %d, the process exits %d", inv.ExitCode, code)
			}
		}
		out = strings.ReplaceAll(out, root, "$REPO")
		if strings.Contains(out, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(out, "0b7c5e1e-5a51") {
			t.Errorf("%s: a secret value reached the report", format)
		}
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
		if goldenName[format] == "" {
			t.Fatalf("format %s has no demo golden", format)
		}
		// The demo's project is beside its home, not under it: its servers'
		// ids hash the temporary directory's path (docs/report-schema.md#ids).
		golden(t, goldenName[format], numberIDs(out))
	}
}

// numberIDs replaces each server and finding id by its number in order of
// first appearance, keeping references between them.
func numberIDs(out string) string {
	seen := map[string]string{}
	// A BOM's serial number is made of the ids too.
	out = serialPattern.ReplaceAllString(out, "urn:uuid:00000000-0000-0000-0000-000000000000")
	return idPattern.ReplaceAllStringFunc(out, func(id string) string {
		if _, ok := seen[id]; !ok {
			seen[id] = fmt.Sprintf("%c-%016d", id[0], len(seen))
		}
		return seen[id]
	})
}

var (
	idPattern     = regexp.MustCompile(`\b[sf]-[0-9a-f]{16}\b`)
	serialPattern = regexp.MustCompile(`urn:uuid:[0-9a-f-]{36}`)
)

// copyTree copies the files under src to dst with mode 0644 (directories
// 0755).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
		return os.Chmod(target, 0o644) // whatever the umask
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return writeFile(t, dir, name, content) }
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
	outPath := filepath.Join(t.TempDir(), "report.json")
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
	entries, _ := os.ReadDir(filepath.Dir(outPath))
	for _, e := range entries {
		if e.Name() != filepath.Base(outPath) {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// writeFile writes content to dir/name, creating directories.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// shellAndUnpinned has one error (MCPG-C004) and one warning (MCPG-C002).
const shellAndUnpinned = `{"mcpServers": {
  "shell": {"command": "bash", "args": ["-c", "curl -fsSL https://get.example.dev/x.sh | sh"]},
  "unpinned": {"command": "npx", "args": ["-y", "some-pkg"]}
}}`

// scanJSON runs a JSON scan and decodes the report, checking it against the
// report schema.
func scanJSON(t *testing.T, env environment, args ...string) (*reports.Report, string, int) {
	t.Helper()
	out, stderr, code := runCLI(t, env, append([]string{"scan", "--format", "json"}, args...)...)
	if code == exitError && out == "" {
		return nil, stderr, code
	}
	v, err := schematest.New("report-v1", reports.SchemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate([]byte(out)); err != nil {
		t.Fatalf("report does not match its schema: %v", err)
	}
	var rep reports.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	return &rep, stderr, code
}

func findingByRule(t *testing.T, rep *reports.Report, rule string) reports.Finding {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Rule == rule {
			return f
		}
	}
	t.Fatalf("no %s finding in %+v", rule, rep.Findings)
	return reports.Finding{}
}

func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "repo/.mcp.json", shellAndUnpinned)
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	base := filepath.Join(dir, "baseline.json")

	// Create the baseline: the run itself fails on the error finding.
	if _, stderr, code := runCLI(t, env, "scan", "--format", "json", "--output", base, cfg); code != exitFindings {
		t.Fatalf("creating the baseline: exit %d, stderr %q", code, stderr)
	}

	// With the baseline, nothing new: exit 0, every finding marked.
	rep, stderr, code := scanJSON(t, env, "--baseline", base, "--fail-on", "warning", cfg)
	if code != exitOK {
		t.Fatalf("exit %d with the baseline, stderr %q", code, stderr)
	}
	for _, f := range rep.Findings {
		if f.Suppressed == nil || f.Suppressed.Kind != reports.SuppressedByBaseline || f.Suppressed.Path != base {
			t.Errorf("finding %s not suppressed by the baseline: %+v", f.ID, f.Suppressed)
		}
	}
	if s := rep.Summary.Suppressed; s == nil || s.Error != 1 || s.Warning != 1 || rep.Summary.Findings.Error != 1 {
		t.Errorf("summary = %+v suppressed %+v", rep.Summary.Findings, rep.Summary.Suppressed)
	}
	text, _, _ := runCLI(t, env, "scan", "--baseline", base, cfg)
	if !strings.Contains(text, "[suppressed by baseline: accepted in the baseline report "+base+"]") {
		t.Errorf("text report does not mark suppressed findings:\n%s", text)
	}

	// A new error finding counts; the old ones stay suppressed.
	writeFile(t, dir, "repo/.mcp.json", strings.Replace(shellAndUnpinned, `"unpinned"`, `"shell2": {"command": "sh", "args": ["-c", "wget -qO- https://x.example/i | sh"]}, "unpinned"`, 1))
	rep, _, code = scanJSON(t, env, "--baseline", base, cfg)
	if code != exitFindings {
		t.Fatalf("new finding: exit %d", code)
	}
	if got := rep.Failing(3); len(got) != 1 || got[0].Rule != "MCPG-C004" || !strings.Contains(got[0].Message, `"shell2"`) {
		t.Errorf("failing findings = %+v", got)
	}
	if n := rep.Summary.Suppressed; n == nil || n.Error != 1 || n.Warning != 1 {
		t.Errorf("suppressed = %+v", n)
	}

	// An unreadable input still exits 2, whatever the baseline accepts.
	broken := writeFile(t, dir, "broken/.mcp.json", `{"mcpServers": `)
	if _, _, code := runCLI(t, env, "scan", "--baseline", base, broken); code != exitError {
		t.Errorf("errors[] with a baseline: exit %d, want 2", code)
	}

	bad := writeFile(t, dir, "bad.json", "{\n  \"schema\": \"mcpguard/report/v1\",\n  \"findings\": [,]\n}")
	other := writeFile(t, dir, "other.json", `{"schema": "mcpguard/report/v0", "findings": []}`)
	for _, tc := range []struct{ name, path, want string }{
		{"malformed", bad, bad + ":3:16: baseline: invalid JSON"},
		{"other schema", other, other + ":1:2: baseline: schema \"mcpguard/report/v0\" is not \"mcpguard/report/v1\""},
		{"missing", filepath.Join(dir, "nope.json"), "nope.json: read baseline: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, env, "scan", "--baseline", tc.path, cfg)
			if code != exitError || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not contain %q", stderr, tc.want)
			}
		})
	}
}

func TestIgnoreFile(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, ".mcp.json", shellAndUnpinned)
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	rep, _, code := scanJSON(t, env, cfg)
	if code != exitFindings {
		t.Fatalf("exit %d without an ignore file", code)
	}
	shell := findingByRule(t, rep, "MCPG-C004")
	ignore := filepath.Join(dir, ".mcpguardignore")

	t.Run("finding id in the working directory's file", func(t *testing.T) {
		writeFile(t, dir, ".mcpguardignore", "# accepted\n"+shell.ID+"  # @sec reviewed: the installer is ours\n")
		rep, stderr, code := scanJSON(t, env, cfg)
		if code != exitOK || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		got := findingByRule(t, rep, "MCPG-C004").Suppressed
		want := &reports.Suppression{Kind: reports.SuppressedByIgnore, Justification: "@sec reviewed: the installer is ours", Path: ignore, Line: 2, Column: 1}
		if got == nil || *got != *want {
			t.Errorf("suppressed = %+v, want %+v", got, want)
		}
		if findingByRule(t, rep, "MCPG-C002").Suppressed != nil {
			t.Error("the warning is suppressed too")
		}
		// The warning still fails --fail-on warning.
		if _, _, code := runCLI(t, env, "scan", "--fail-on", "warning", cfg); code != exitFindings {
			t.Errorf("--fail-on warning: exit %d", code)
		}
	})

	t.Run("rule and glob", func(t *testing.T) {
		writeFile(t, dir, ".mcpguardignore", "MCPG-C004 .mcp.json # ours\nMCPG-C002 /.mcp.json # pinned by the lock file\n")
		rep, stderr, code := scanJSON(t, env, "--fail-on", "note", cfg)
		if code != exitOK || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if s := rep.Summary.Suppressed; s == nil || s.Error != 1 || s.Warning != 1 {
			t.Errorf("suppressed = %+v", s)
		}
	})

	t.Run("ignore wins over the baseline", func(t *testing.T) {
		base := filepath.Join(t.TempDir(), "base.json")
		runCLI(t, env, "scan", "--format", "json", "--output", base, cfg)
		writeFile(t, dir, ".mcpguardignore", shell.ID+" # reviewed\n")
		rep, _, code := scanJSON(t, env, "--baseline", base, cfg)
		if code != exitOK {
			t.Fatalf("exit %d", code)
		}
		if s := findingByRule(t, rep, "MCPG-C004").Suppressed; s.Kind != reports.SuppressedByIgnore {
			t.Errorf("C004 suppressed by %s", s.Kind)
		}
		if s := findingByRule(t, rep, "MCPG-C002").Suppressed; s.Kind != reports.SuppressedByBaseline {
			t.Errorf("C002 suppressed by %s", s.Kind)
		}
	})

	t.Run("stale entries", func(t *testing.T) {
		writeFile(t, dir, ".mcpguardignore", shell.ID+" # reviewed\n"+
			"f-0123456789abcdef # gone\n"+
			"MCPG-C003 .mcp.json # no such finding here\n"+
			"MCPG-C003 other/*.json # not scanned, so not judged\n")
		out, stderr, code := runCLI(t, env, "scan", "--format", "sarif", cfg)
		if code != exitOK {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		want := "mcpguard: .mcpguardignore:2:1: note: stale ignore entry: f-0123456789abcdef matches no finding; remove it\n" +
			"mcpguard: .mcpguardignore:3:1: note: stale ignore entry: MCPG-C003 matches no finding; remove it\n"
		if stderr != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
		}
		log := decodeSARIF(t, out)
		notes := log.Runs[0].Invocations[0].ToolExecutionNotifications
		if len(notes) != 2 || notes[0].Level != "note" || notes[0].Locations[0].PhysicalLocation.Region.StartLine != 2 {
			t.Errorf("notifications = %+v", notes)
		}
	})

	t.Run("malformed entries", func(t *testing.T) {
		writeFile(t, dir, ".mcpguardignore", "# accepted\n"+shell.ID+"\nMCPG-C999 # typo\n")
		out, stderr, code := runCLI(t, env, "scan", cfg)
		if code != exitError || out != "" {
			t.Fatalf("exit %d, stdout %q", code, out)
		}
		want := "mcpguard: .mcpguardignore:2:19: missing reason: add \"# why this is accepted\" after " + shell.ID + "\n" +
			"mcpguard: .mcpguardignore:3:1: unknown rule \"MCPG-C999\": mcpguard's rule ids are MCPG-P001 and the like (docs/rules.md)\n"
		if stderr != want {
			t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
		}
	})

	t.Run("--ignore-file", func(t *testing.T) {
		writeFile(t, dir, ".mcpguardignore", "broken line without reason\n")
		other := writeFile(t, dir, "ci/ignore", shell.ID+" # reviewed\n")
		if _, stderr, code := runCLI(t, env, "scan", "--ignore-file", other, cfg); code != exitOK {
			t.Errorf("--ignore-file: exit %d, stderr %q", code, stderr)
		}
		if _, stderr, code := runCLI(t, env, "scan", "--ignore-file", "", cfg); code != exitFindings {
			t.Errorf("--ignore-file \"\": exit %d, stderr %q", code, stderr)
		}
		_, stderr, code := runCLI(t, env, "scan", "--ignore-file", filepath.Join(dir, "nope"), cfg)
		if code != exitError || !strings.Contains(stderr, "nope: read ignore file: no such file or directory") {
			t.Errorf("missing --ignore-file: exit %d, stderr %q", code, stderr)
		}
	})
}

type sarifOut struct {
	Runs []struct {
		Invocations []struct {
			ExecutionSuccessful        bool   `json:"executionSuccessful"`
			ExitCode                   int    `json:"exitCode"`
			ExitCodeDescription        string `json:"exitCodeDescription"`
			ToolExecutionNotifications []struct {
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine   int `json:"startLine"`
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []struct {
			RuleID       string            `json:"ruleId"`
			Suppressions []json.RawMessage `json:"suppressions"`
		} `json:"results"`
	} `json:"runs"`
}

var sarifSchema struct {
	once sync.Once
	v    *schematest.Validator
	err  error
}

// decodeSARIF validates a SARIF log against the OASIS schema and decodes it.
func decodeSARIF(t *testing.T, out string) sarifOut {
	t.Helper()
	sarifSchema.once.Do(func() {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), "reports", "testdata", "sarif-schema-2.1.0.json"))
		if err != nil {
			sarifSchema.err = err
			return
		}
		sarifSchema.v, sarifSchema.err = schematest.New("https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json", data)
	})
	if sarifSchema.err != nil {
		t.Fatal(sarifSchema.err)
	}
	if err := sarifSchema.v.Validate([]byte(out)); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v", err)
	}
	var log sarifOut
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("want one run with one invocation: %s", out)
	}
	return log
}

// TestSARIFInvocationExitCode checks that the exit code recorded in SARIF is
// the process exit code, for each of 0, 1 and 2.
func TestSARIFInvocationExitCode(t *testing.T) {
	dir := t.TempDir()
	clean := writeFile(t, dir, "clean/.mcp.json", `{"mcpServers": {"a": {"command": "node", "args": ["s.js"]}}}`)
	bad := writeFile(t, dir, "bad/.mcp.json", shellAndUnpinned)
	broken := writeFile(t, dir, "broken/.mcp.json", "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"echo\",}\n  }\n}")
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	tests := []struct {
		name    string
		args    []string
		code    int
		success bool
		desc    string
	}{
		{"clean", []string{clean}, exitOK, true, "no unsuppressed finding at or above --fail-on error"},
		{"findings", []string{bad}, exitFindings, true, "1 unsuppressed finding at or above --fail-on error"},
		{"findings at warning", []string{"--fail-on", "warning", bad}, exitFindings, true, "2 unsuppressed findings at or above --fail-on warning"},
		{"--fail-on never", []string{"--fail-on", "never", bad}, exitOK, true, "no finding fails the run (--fail-on never)"},
		{"malformed input", []string{broken, bad}, exitError, false, "1 unreadable or malformed input (errors[])"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, env, append([]string{"scan", "--format", "sarif"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			inv := decodeSARIF(t, out).Runs[0].Invocations[0]
			if inv.ExitCode != code || inv.ExecutionSuccessful != tc.success || inv.ExitCodeDescription != tc.desc {
				t.Errorf("invocation = exit %d, successful %v, %q", inv.ExitCode, inv.ExecutionSuccessful, inv.ExitCodeDescription)
			}
			if tc.code == exitError {
				n := inv.ToolExecutionNotifications
				if len(n) != 1 || n[0].Level != "error" || n[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "broken/.mcp.json" ||
					n[0].Locations[0].PhysicalLocation.ArtifactLocation.URIBaseID != "%SRCROOT%" ||
					n[0].Locations[0].PhysicalLocation.Region.StartLine != 3 || n[0].Locations[0].PhysicalLocation.Region.StartColumn != 29 {
					t.Errorf("notifications = %+v", n)
				}
			}
		})
	}

	// The same holds for a report written with --output.
	outPath := filepath.Join(dir, "mcpguard.sarif")
	if _, _, code := runCLI(t, env, "scan", "--format", "sarif", "--output", outPath, bad); code != exitFindings {
		t.Fatalf("--output: exit %d", code)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	if inv := decodeSARIF(t, string(data)).Runs[0].Invocations[0]; inv.ExitCode != exitFindings {
		t.Errorf("--output: recorded exit %d", inv.ExitCode)
	}
}

// TestJUnitAndCSVParse checks the CI formats of a real scan parse back.
func TestJUnitAndCSVParse(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, ".mcp.json", shellAndUnpinned)
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	out, _, code := runCLI(t, env, "scan", "--format", "junit", cfg)
	if code != exitFindings {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 2 || doc.Failures != 1 || len(doc.Suites) != 1 || doc.Suites[0].Name != ".mcp.json" ||
		doc.Suites[0].Cases[0].Name != "project/shell" || doc.Suites[0].Cases[0].Failure == nil || doc.Suites[0].Cases[0].Failure.Type != "MCPG-C004" {
		t.Errorf("junit = %+v", doc)
	}
	out, _, _ = runCLI(t, env, "scan", "--format", "csv", cfg)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0][0] != "id" || rows[1][1] != "MCPG-C004" || rows[1][10] != "shell" {
		t.Errorf("csv = %q", rows)
	}
}

// TestPreCommitHooks checks .pre-commit-hooks.yaml against the CLI: each
// hook's entry is a real command, and the scan hook's files pattern (a
// Python regex, here compiled as RE2, which accepts the same syntax for it)
// selects SPEC §4's pre-commit set and nothing else.
// TestInstallAllIsMcpguardAlone: `go install ./...` at the repository root,
// which the pre-commit hook runs (language: golang), builds one command,
// mcpguard: the benchmark programs are a module of their own (bench/go.mod)
// and the table generators are go:build ignore files.
func TestInstallAllIsMcpguardAlone(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{if eq .Name \"main\"}}{{.ImportPath}}{{end}}", "./...")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if got := strings.Fields(string(out)); len(got) != 1 || got[0] != "github.com/mcpguard/mcpguard/cmd/mcpguard" {
		t.Errorf("go install ./... would install %v, want mcpguard alone", got)
	}
}

func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hooks := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
		k, v, ok := strings.Cut(line, ": ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v = strings.Trim(v, `'"`)
		if k == "id" {
			cur = map[string]string{}
			hooks[v] = cur
		}
		if cur != nil {
			cur[k] = v
		}
	}
	for id, wantEntry := range map[string]string{"mcpguard-scan": "mcpguard scan", "mcpguard-policy-test": "mcpguard policy test"} {
		h := hooks[id]
		if h == nil || h["entry"] != wantEntry || h["language"] != "golang" {
			t.Fatalf("hook %s = %v", id, h)
		}
		args := append(strings.Fields(strings.TrimPrefix(wantEntry, "mcpguard ")), "--help")
		if _, stderr, code := runCLI(t, testEnv(t.TempDir(), t.TempDir(), nil), args...); code != exitOK {
			t.Errorf("%s: exit %d, %s", wantEntry, code, stderr)
		}
	}
	if hooks["mcpguard-scan"]["pass_filenames"] != "true" || hooks["mcpguard-policy-test"]["pass_filenames"] != "false" {
		t.Errorf("pass_filenames: %v", hooks)
	}
	files := regexp.MustCompile(hooks["mcpguard-scan"]["files"])
	for _, p := range []string{".mcp.json", "sub/dir/.mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".claude/settings.json",
		".claude/settings.local.json", ".gemini/settings.json", ".codex/config.toml", ".zed/settings.json",
		"claude_desktop_config.json", ".codeium/windsurf/mcp_config.json"} {
		if !files.MatchString(p) {
			t.Errorf("files pattern misses %s", p)
		}
	}
	for _, p := range []string{"package.json", "settings.json", "mymcp.json", ".claude/settings.json.bak", "docs/mcp.json.md", ".codex/config.json"} {
		if files.MatchString(p) {
			t.Errorf("files pattern selects %s", p)
		}
	}
}
