package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/schematest"
	"github.com/mcpguard/mcpguard/reports"
)

// toolsFixtures is the shared threat fixture directory of the scanner.
const toolsFixtures = "../../toolcheck/testdata/tools/"

// runToolsCLI runs mcpguard in-process with stdin.
func runToolsCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := testEnv(".", "/nonexistent-home", nil)
	code := runContext(context.Background(), args, streams{in: strings.NewReader(stdin), out: &out, err: &errb}, env)
	return out.String(), errb.String(), code
}

func TestToolsGoldens(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
		code   int
	}{
		{"tools-poisoning.text", []string{"tools", toolsFixtures + "mcpshield-bad-server.tools-list.json", toolsFixtures + "tags-ascii-smuggling.tools-list.json"}, exitFindings},
		{"tools-poisoning.json", []string{"tools", "--format", "json", toolsFixtures + "mcpshield-bad-server.tools-list.json", toolsFixtures + "tags-ascii-smuggling.tools-list.json"}, exitFindings},
		{"tools-annotations.text", []string{"tools", toolsFixtures + "annotations-tokensave-issue94.tools-list.json", toolsFixtures + "tob-ansi-test-server.tools-list.json", toolsFixtures + "paulbutler-vs-emoji.tools-list.json"}, exitFindings},
		{"tools-real.text", []string{"tools", "--fail-on", "warning", toolsFixtures + "real/filesystem.json", toolsFixtures + "real/memory.json", toolsFixtures + "real/sequential-thinking.json"}, exitOK},
		{"tools-ide.text", []string{"tools", "--name", "ide", "testdata/tools-ide.input.json"}, exitFindings},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			out, stderr, code := runToolsCLI(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
			if strings.HasSuffix(tc.golden, ".json") {
				v, err := schematest.New("report-v1", reports.SchemaJSON)
				if err != nil {
					t.Fatal(err)
				}
				if err := v.Validate([]byte(out)); err != nil {
					t.Error(err)
				}
			}
			golden(t, tc.golden, out)
		})
	}
}

func TestToolsExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return writeFile(t, dir, name, content) }
	clean := write("clean.json", `{"tools": [{"name": "get_weather", "description": "Get the weather."}]}`)
	warn := write("warn.json", `[{"name": "readFile"}]`)
	note := write("note.json", `[{"name": "read_file"}]`)
	broken := write("broken.json", "{\"tools\": [\n  {\"name\": \"x\",}\n]}")
	notTools := write("other.json", `{"mcpServers": {}}`)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"clean", []string{"tools", clean}, exitOK},
		{"warning below --fail-on error", []string{"tools", warn}, exitOK},
		{"warning at --fail-on warning", []string{"tools", "--fail-on", "warning", warn}, exitFindings},
		{"note at --fail-on note", []string{"tools", "--fail-on", "note", note}, exitFindings},
		{"--fail-on never", []string{"tools", "--fail-on", "never", toolsFixtures + "invariant-direct-poisoning.tools-list.json"}, exitOK},
		{"poisoned", []string{"tools", toolsFixtures + "invariant-direct-poisoning.tools-list.json"}, exitFindings},
		{"malformed", []string{"tools", broken, clean}, exitError},
		{"not a tools list", []string{"tools", notTools}, exitError},
		{"missing file", []string{"tools", filepath.Join(dir, "nope.json")}, exitError},
		{"no file", []string{"tools"}, exitError},
		{"bad format", []string{"tools", "--format", "yaml", clean}, exitError},
		{"bad fail-on", []string{"tools", "--fail-on", "fatal", clean}, exitError},
		{"sanitize two files", []string{"tools", "--sanitize", clean, warn}, exitError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runToolsCLI(t, "", tc.args...)
			if code != tc.want {
				t.Errorf("exit %d, want %d; stdout %q stderr %q", code, tc.want, out, stderr)
			}
		})
	}
	// SARIF records the exit code the process returns.
	out, _, code := runToolsCLI(t, "", "tools", "--format", "sarif", toolsFixtures+"invariant-direct-poisoning.tools-list.json")
	if code != exitFindings || !strings.Contains(out, `"exitCode": 1`) || !strings.Contains(out, `"executionSuccessful": true`) {
		t.Errorf("SARIF invocation does not record exit %d:\n%s", code, out)
	}
	_, stderr, _ := runToolsCLI(t, "", "tools", broken)
	if want := broken + ":2:16: invalid JSON"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q does not name %q", stderr, want)
	}
}

func TestToolsStdinAndSanitize(t *testing.T) {
	data, err := os.ReadFile(toolsFixtures + "tags-ascii-smuggling.tools-list.json")
	if err != nil {
		t.Fatal(err)
	}
	out, _, code := runToolsCLI(t, string(data), "tools", "--format", "json", "-")
	if code != exitFindings || !strings.Contains(out, `"path": "<stdin>"`) || !strings.Contains(out, `"pointer": "/result/tools/0/description"`) {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, _, code = runToolsCLI(t, string(data), "tools", "--sanitize", "--fail-on", "never", "-")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if strings.ContainsRune(out, 0xE0049) || !strings.Contains(out, `"description": "This skill formats JSON files."`) {
		t.Errorf("tags survived sanitizing:\n%s", out)
	}
	// Nothing else changed: removing the tags from the input gives the output.
	var b strings.Builder
	for _, r := range string(data) {
		if r < 0xE0000 || r > 0xE007F {
			b.WriteRune(r)
		}
	}
	if out != b.String() {
		t.Errorf("sanitize changed more than the tags:\n%s", out)
	}
	dir := t.TempDir()
	outPath := filepath.Join(dir, "clean.json")
	stdout, _, code := runToolsCLI(t, "", "tools", "--sanitize", "--output", outPath, toolsFixtures+"tob-ansi-test-server.tools-list.json")
	got, err := os.ReadFile(outPath)
	if code != exitFindings || stdout != "" || err != nil || strings.Contains(string(got), `\u001b`) {
		t.Errorf("exit %d stdout %q err %v:\n%s", code, stdout, err, got)
	}
}

func TestToolsCustomPolicy(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string { return writeFile(t, dir, name, content) }
	write("policy/acme.rego", `package mcpguard.custom.acme

tool_deny contains {"id": "ACME-T01", "msg": sprintf("tool %s asks for credentials", [input.tool.name])} if {
	contains(lower(input.tool.description), "password")
}

tool_warn contains {"id": "ACME-T02", "msg": sprintf("tool on server %s has no annotations", [input.server.name])} if {
	not input.tool.annotations
}

# A server rule in the same package does not judge tools.
deny contains {"id": "ACME-S01", "msg": "never"} if true
`)
	tools := write("acme.json", `{"tools": [
  {"name": "login", "description": "Log in with the user's password.", "annotations": {"readOnlyHint": false}},
  {"name": "get_time", "description": "Current time."}
]}`)
	out, stderr, code := runToolsCLI(t, "", "tools", "--format", "json", "--policy", filepath.Join(dir, "policy"), tools)
	if code != exitFindings {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{`"rule": "ACME-T01"`, `"pointer": "/tools/0"`, `tool login asks for credentials`, `"rule": "ACME-T02"`, `tool on server acme has no annotations`} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ACME-S01") || strings.Count(out, `"rule": "ACME-T02"`) != 1 {
		t.Errorf("wrong custom findings:\n%s", out)
	}
	broken := write("broken/bad.rego", "package mcpguard.custom.bad\n\ntool_deny contains x if {\n")
	_, stderr, code = runToolsCLI(t, "", "tools", "--policy", broken, tools)
	if code != exitError || !strings.Contains(stderr, broken+":") || strings.Count(stderr, broken) != 1 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
