package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/schematest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// hostile is a value with everything a renderer must survive: quotes, markup
// and entity characters, Markdown syntax, a mention, line breaks, ANSI
// escapes, a bidi override, non-ASCII, and a leading '=' for spreadsheets.
const hostile = "=HYPERLINK(\"http://x\")|\"q\" 'a' <b>&amp;</b> `tick` *s* _u_ [l](https://x) ![i](y) @team #1 ~~d~~\\\nline2\r\x1b[31mred\x1b[0m \u202eRTL\u202c 日本語 é\x00\x7f"

const workDir = "/home/dev/project"

// hostileReport is a fixed report (no scan) for the format goldens.
func hostileReport() *Report {
	long := strings.Repeat("long value ", 80)
	r := &Report{
		Schema:      Schema,
		Tool:        Tool{Name: "mcpguard", Version: "v1.2.3"},
		GeneratedAt: "2026-01-01T00:00:00Z",
		Host:        Host{Hostname: "host<&>", OS: "linux", User: "dev"},
		Policy:      PolicyInfo{Sources: []PolicySource{{Path: "/etc/claude-code/managed-settings.json", Kind: "managed-settings", Active: true}}, Revision: "0123456789abcdef"},
		Servers: []Server{
			{
				ID: "s-00000000000000a1", Name: "evil " + hostile, Client: "claude-code", Scope: "project", Project: workDir,
				Transport: "stdio", Command: "npx", Args: []string{"-y", "pkg"}, URL: "", EnvKeys: []string{}, HeaderKeys: []string{},
				Source: Location{Path: workDir + "/.mcp.json", Pointer: "/mcpServers/evil ~1x", Line: 3, Column: 5},
				Status: "blocked", Decision: Decision{Allowed: false, Reasons: []string{"DENIED_NAME"}},
				FindingIDs: []string{"f-00000000000000f1", "f-00000000000000f2", "f-00000000000000f6"},
			},
			{
				ID: "s-00000000000000a2", Name: "=cmd|' /C calc'!A0", Client: "cursor", Scope: "user", Project: "",
				Transport: "http", URL: "https://REDACTED@mcp.example/x?q=1&r=<2>", Args: []string{}, EnvKeys: []string{}, HeaderKeys: []string{"Authorization"},
				Source: Location{Path: "/home/dev/.cursor/mcp.json", Pointer: "/mcpServers/=cmd|' ~1C calc'!A0", Line: 2, Column: 5},
				Status: "active", Decision: Decision{Allowed: true, Reasons: []string{"ALLOWED"}},
				FindingIDs: []string{"f-00000000000000f3", "f-00000000000000f4", "f-00000000000000f8"},
				Introspection: &Introspection{Status: IntrospectionOK, ServerInfo: &IntrospectedInfo{Name: "srv " + hostile, Version: "@1"},
					ProtocolVersion: "2025-06-18", Instructions: "=instructions " + hostile, DurationMS: 1234,
					Tools:   []IntrospectedTool{{Name: "=tool " + hostile, Description: "-desc " + hostile}},
					Prompts: []IntrospectedPrompt{{Name: "p"}}, Resources: []IntrospectedResource{{Name: "r", URI: "file:///r"}}},
			},
			{
				ID: "s-00000000000000a3", Name: "clean", Client: "claude-code", Scope: "project", Project: workDir,
				Transport: "stdio", Command: "node", Args: []string{"server.js"}, EnvKeys: []string{}, HeaderKeys: []string{},
				Source: Location{Path: workDir + "/.mcp.json", Pointer: "/mcpServers/clean", Line: 9, Column: 5},
				Status: "active", Decision: Decision{Allowed: true, Reasons: []string{"ALLOWED"}}, FindingIDs: []string{},
				Introspection: &Introspection{Status: IntrospectionError, Reason: "authorization required", ResourceMetadata: "https://auth.example/<x>", Tools: []IntrospectedTool{}},
			},
			{
				ID: "s-00000000000000a4", Name: "spaced", Client: "vscode", Scope: "project", Project: workDir,
				Transport: "http", URL: "https://ok.example/mcp", Args: []string{}, EnvKeys: []string{}, HeaderKeys: []string{},
				Source: Location{Path: workDir + "/dir with space/#weird:name.json", Pointer: "/servers/spaced", Line: 1, Column: 1},
				Status: "active", Decision: Decision{Allowed: true, Reasons: []string{"ALLOWED"}}, FindingIDs: []string{"f-00000000000000f7"},
			},
		},
		Findings: []Finding{
			{ID: "f-00000000000000f1", Rule: "MCPG-P001", Severity: SeverityError, Category: "policy",
				Message: "server \"evil " + hostile + "\" is denied", ServerID: "s-00000000000000a1",
				Location: Location{Path: workDir + "/.mcp.json", Pointer: "/mcpServers/evil ~1x", Line: 3, Column: 5},
				Evidence: map[string]any{"reasons": []any{"DENIED_NAME"}, "raw": hostile}},
			{ID: "f-00000000000000f2", Rule: "MCPG-C002", Severity: SeverityWarning, Category: "config",
				Message: "-unpinned launcher " + long, ServerID: "s-00000000000000a1",
				Location: Location{Path: workDir + "/.mcp.json", Pointer: "/mcpServers/evil ~1x", Line: 3, Column: 5}},
			{ID: "f-00000000000000f3", Rule: "MCPG-C001", Severity: SeverityError, Category: "config",
				Message: "+plaintext secret in header Authorization", ServerID: "s-00000000000000a2",
				Location:   Location{Path: "/home/dev/.cursor/mcp.json", Pointer: "/mcpServers/=cmd|' ~1C calc'!A0/headers/Authorization", Line: 4, Column: 7},
				Evidence:   map[string]any{"field": "headers", "key": "Authorization", "kind": "bearer-token"},
				Suppressed: &Suppression{Kind: SuppressedByIgnore, Justification: "@security reviewed <2026-01> \"demo\" token\x1b[2J", Path: workDir + "/.mcpguardignore", Line: 2, Column: 1}},
			{ID: "f-00000000000000f4", Rule: "acme.no_remote", Severity: SeverityError, Category: "custom",
				Message: "@remote servers need approval", ServerID: "s-00000000000000a2",
				Location:   Location{Path: "/home/dev/.cursor/mcp.json", Pointer: "/mcpServers/=cmd|' ~1C calc'!A0", Line: 2, Column: 5},
				Suppressed: &Suppression{Kind: SuppressedByBaseline, Justification: "accepted in the baseline report mcpguard-baseline.json", Path: workDir + "/mcpguard-baseline.json"}},
			{ID: "f-00000000000000f5", Rule: "MCPG-P005", Severity: SeverityWarning, Category: "policy",
				Message:  "allow serverUrl \"https://*.acme.example/*\" is broader than it looks",
				Location: Location{Path: "/etc/claude-code/managed-settings.json", Pointer: "/allowedMcpServers/0/serverUrl", Line: 4, Column: 5},
				Evidence: map[string]any{"example": "https://evil.test/.acme.example/x"}},
			{ID: "f-00000000000000f6", Rule: "MCPG-U001", Severity: SeverityError, Category: "unicode",
				Message: "hidden text in the server name: " + hostile, ServerID: "s-00000000000000a1",
				Location: Location{Path: workDir + "/.mcp.json", Pointer: "/mcpServers/evil ~1x", Line: 3, Column: 10},
				Evidence: map[string]any{"decoded": "ignore previous instructions </failure><x>"}},
			{ID: "f-00000000000000f7", Rule: "MCPG-C005", Severity: SeverityNote, Category: "config",
				Message: "@sse deprecated", ServerID: "s-00000000000000a4",
				Location: Location{Path: workDir + "/dir with space/#weird:name.json", Pointer: "/servers/spaced", Line: 1, Column: 1}},
			{ID: "f-00000000000000f8", Rule: "MCPG-U003", Severity: SeverityWarning, Category: "unicode",
				Message: "tool \"=tool\": zero-width characters (U+200B)", ServerID: "s-00000000000000a2",
				Location: Location{Path: "/home/dev/.cursor/mcp.json", Pointer: "/mcpServers/=cmd|' ~1C calc'!A0", Line: 2, Column: 5},
				Evidence: map[string]any{"introspection_pointer": "/tools/0/description", "tool": "=tool " + hostile, "source": "introspection"}},
		},
		Errors: []FileError{
			{Path: workDir + "/broken.json", Line: 2, Column: 7, Message: "invalid JSON: unexpected \"<&>\"\nin " + hostile},
			{Path: "/home/dev/.config/Code/User/mcp.json", Message: "permission denied"},
		},
		Sources: []Source{{Path: workDir + "/.mcp.json", Client: "claude-code", Kind: "mcp-config", Scope: "project"}},
	}
	r.Summary = Summarize(r)
	return r
}

func hostileOptions() Options {
	return Options{
		FailOn:  SeverityError.Rank(),
		WorkDir: workDir,
		Invocation: &Invocation{
			ExitCode:            2,
			ExitCodeDescription: "2 unreadable or malformed inputs (errors[])",
			Notifications:       []Notification{{Level: "note", Message: "stale ignore entry: MCPG-C003 matches no finding; remove it", Path: ".mcpguardignore", Line: 5, Column: 1}},
		},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (go test ./reports -update creates it): %v", err)
	}
	norm := func(b []byte) string { return strings.ReplaceAll(string(b), "\r\n", "\n") }
	if norm(got) != norm(want) {
		t.Errorf("%s differs from the golden file (go test ./reports -update to accept); got:\n%s", name, got)
	}
}

func render(t *testing.T, f Format, r *Report, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, f, r, opts); err != nil {
		t.Fatalf("render %s: %v", f, err)
	}
	return buf.Bytes()
}

var goldenNames = map[Format]string{
	FormatText:      "hostile.txt",
	FormatJSON:      "hostile.json",
	FormatSARIF:     "hostile.sarif",
	FormatJUnit:     "hostile.junit.xml",
	FormatMarkdown:  "hostile.md",
	FormatCSV:       "hostile.csv",
	FormatCycloneDX: "hostile.cdx.json",
	FormatHTML:      "hostile.html",
}

func TestGoldens(t *testing.T) {
	for _, f := range Formats() {
		name, ok := goldenNames[f]
		if !ok {
			t.Fatalf("format %s has no golden", f)
		}
		t.Run(string(f), func(t *testing.T) {
			golden(t, name, render(t, f, hostileReport(), hostileOptions()))
		})
	}
}

func TestJSONMatchesReportSchema(t *testing.T) {
	v, err := schematest.New("report-v1", SchemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(render(t, FormatJSON, hostileReport(), hostileOptions())); err != nil {
		t.Error(err)
	}
	var back Report
	if err := json.Unmarshal(render(t, FormatJSON, hostileReport(), Options{}), &back); err != nil {
		t.Fatal(err)
	}
	if s := back.Findings[2].Suppressed; s == nil || s.Kind != SuppressedByIgnore || s.Line != 2 {
		t.Errorf("suppression did not round-trip: %+v", s)
	}
	if back.Summary.Suppressed == nil || back.Summary.Suppressed.Error != 2 {
		t.Errorf("summary.suppressed = %+v", back.Summary.Suppressed)
	}
}

func sarifValidator(t *testing.T) *schematest.Validator {
	t.Helper()
	schema, err := os.ReadFile(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := schematest.New("https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json", schema)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSARIF(t *testing.T) {
	v := sarifValidator(t)
	empty := &Report{Schema: Schema, Tool: Tool{Name: "mcpguard", Version: "dev+0123456789ab"}, Findings: []Finding{}}
	empty.Summary = Summarize(empty)
	cases := []struct {
		name string
		r    *Report
		opts Options
	}{
		{"hostile", hostileReport(), hostileOptions()},
		{"no invocation", hostileReport(), Options{}},
		{"empty", empty, Options{Invocation: &Invocation{ExitCode: 0, ExitCodeDescription: "ok"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, FormatSARIF, tc.r, tc.opts)
			if err := v.Validate(out); err != nil {
				t.Fatalf("not valid SARIF 2.1.0: %v", err)
			}
			var log sarifLog
			if err := json.Unmarshal(out, &log); err != nil {
				t.Fatal(err)
			}
			run := log.Runs[0]
			if run.Results == nil || run.Tool.Driver.Rules == nil {
				t.Fatal("results or rules is null")
			}
			if bytes.Contains(out, []byte(": null")) {
				t.Error("SARIF holds a null")
			}
			if len(run.Results) != len(tc.r.Findings) {
				t.Errorf("%d results for %d findings", len(run.Results), len(tc.r.Findings))
			}
			for i, res := range run.Results {
				f := tc.r.Findings[i]
				if rule := run.Tool.Driver.Rules[res.RuleIndex]; rule.ID != res.RuleID || res.RuleID != f.Rule {
					t.Errorf("result %d: ruleIndex %d names %s, ruleId %s, finding rule %s", i, res.RuleIndex, rule.ID, res.RuleID, f.Rule)
				}
				if res.PartialFingerprints[sarifFingerprintKey] != f.ID {
					t.Errorf("result %d: fingerprint %v", i, res.PartialFingerprints)
				}
				if (f.Suppressed != nil) != (len(res.Suppressions) == 1) {
					t.Errorf("result %d: suppressions %v for %v", i, res.Suppressions, f.Suppressed)
				}
			}
			if n := len(run.Tool.Driver.Rules); n < len(Catalog()) {
				t.Errorf("%d rules, want every catalog rule", n)
			}
			if inv := tc.opts.Invocation; inv != nil {
				if len(run.Invocations) != 1 || run.Invocations[0].ExitCode != inv.ExitCode || run.Invocations[0].ExecutionSuccessful != (inv.ExitCode != 2) {
					t.Errorf("invocations = %+v", run.Invocations)
				}
			} else if len(run.Invocations) != 0 {
				t.Errorf("invocations without Options.Invocation: %+v", run.Invocations)
			}
		})
	}
}

func TestSARIFRulesHaveHelp(t *testing.T) {
	for _, r := range Catalog() {
		h := helpFor(r)
		if h.Name == "" || h.Description == "" || h.Fix == "" {
			t.Errorf("%s: no complete help entry", r.ID)
		}
		if strings.ContainsAny(h.Name, " -.") {
			t.Errorf("%s: name %q is not an identifier", r.ID, h.Name)
		}
	}
	if h := helpFor(Rule{ID: "acme.pinned"}); h.Description == "" || h.Category != CategoryCustom {
		t.Errorf("custom rule help: %+v", h)
	}
}

func TestArtifactURIs(t *testing.T) {
	tests := []struct{ path, uri, base string }{
		{workDir + "/.mcp.json", ".mcp.json", sarifSrcRoot},
		{workDir + "/dir with space/#weird:name.json", "dir%20with%20space/%23weird:name.json", sarifSrcRoot},
		{workDir + "/a:b/c.json", "./a:b/c.json", sarifSrcRoot},
		{"/home/dev/.cursor/mcp.json", "file:///home/dev/.cursor/mcp.json", ""},
		{"/home/dev/é ü.json", "file:///home/dev/%C3%A9%20%C3%BC.json", ""},
		{".mcpguardignore", ".mcpguardignore", sarifSrcRoot},
	}
	for _, tc := range tests {
		got := artifactLocation(workDir, filepath.FromSlash(tc.path))
		if got.URI != tc.uri || got.URIBaseID != tc.base {
			t.Errorf("artifactLocation(%q) = %+v, want %q %q", tc.path, got, tc.uri, tc.base)
		}
	}
}

func TestJUnitParsesBack(t *testing.T) {
	out := render(t, FormatJUnit, hostileReport(), hostileOptions())
	var doc junitTestsuites
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	tests, failures, errs := 0, 0, 0
	for _, s := range doc.Suites {
		f, e := 0, 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				f++
			}
			if c.Error != nil {
				e++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e {
			t.Errorf("suite %s: tests %d failures %d errors %d, counted %d %d %d", s.Name, s.Tests, s.Failures, s.Errors, len(s.Cases), f, e)
		}
		tests, failures, errs = tests+s.Tests, failures+s.Failures, errs+s.Errors
	}
	if doc.Tests != tests || doc.Failures != failures || doc.Errors != errs {
		t.Errorf("testsuites counts %d/%d/%d, suites add up to %d/%d/%d", doc.Tests, doc.Failures, doc.Errors, tests, failures, errs)
	}
	// Unsuppressed errors at or above --fail-on fail: P001 and U001 on the
	// hostile server. The suppressed C001 and the baseline custom finding do
	// not, nor do the warning and the note.
	if failures != 1 || errs != 2 {
		t.Errorf("failures %d errors %d, want 1 and 2", failures, errs)
	}
	var evil *junitTestcase
	for _, s := range doc.Suites {
		for i, c := range s.Cases {
			if strings.HasPrefix(c.Name, "project/evil ") {
				evil = &s.Cases[i]
			}
		}
	}
	if evil == nil || evil.Failure == nil {
		t.Fatalf("no failing testcase for the hostile server: %+v", doc)
	}
	if evil.Name != oneLine("project/evil "+hostile) {
		t.Errorf("hostile name did not round-trip: %q", evil.Name)
	}
	if !strings.Contains(evil.Failure.Text, "MCPG-U001") || strings.Contains(evil.Failure.Text, "MCPG-C002") {
		t.Errorf("failure text %q", evil.Failure.Text)
	}
	if !strings.Contains(evil.SystemOut, "MCPG-C002") {
		t.Errorf("system-out %q lacks the warning", evil.SystemOut)
	}
	if bytes.ContainsAny(out, "\x1b\x00\u202e") {
		t.Error("control or bidi characters reached the XML")
	}
	// With --fail-on warning the warning fails too.
	opts := hostileOptions()
	opts.FailOn = SeverityWarning.Rank()
	doc = junitTestsuites{}
	if err := xml.Unmarshal(render(t, FormatJUnit, hostileReport(), opts), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Failures != 3 {
		t.Errorf("--fail-on warning: %d failures, want 3 (the hostile server, the introspected one and the managed file)", doc.Failures)
	}
}

func TestCSVParsesBack(t *testing.T) {
	out := render(t, FormatCSV, hostileReport(), hostileOptions())
	if !bytes.HasSuffix(out, []byte("\r\n")) || bytes.Count(out, []byte("\r\n")) != len(hostileReport().Findings)+1 {
		t.Errorf("want one CRLF-terminated line per record")
	}
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(hostileReport().Findings)+1 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, row := range rows {
		if len(row) != len(csvHeader) {
			t.Errorf("row %d has %d cells", i, len(row))
		}
		for j, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("row %d cell %d starts with a formula character: %q", i, j, cell)
			}
			if strings.ContainsAny(cell, "\n\x1b\x00") {
				t.Errorf("row %d cell %d holds a raw control character: %q", i, j, cell)
			}
		}
	}
	if got := rows[1][4]; !strings.HasPrefix(got, `server "evil =HYPERLINK("http://x")|"q"`) {
		t.Errorf("message cell = %q", got)
	}
	if got := rows[3][10]; got != "'=cmd|' /C calc'!A0" {
		t.Errorf("server name cell = %q", got)
	}
}

func TestMarkdownIsInert(t *testing.T) {
	out := string(render(t, FormatMarkdown, hostileReport(), hostileOptions()))
	for _, bad := range []string{"\x1b", "\u202e", "\x00", "\n line2"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown contains %q", bad)
		}
	}
	// Outside code spans and backslash escapes, nothing hostile is active.
	active := markdownActive(out)
	for _, bad := range []string{"<b>", "</", "](", "![", "@team", "@security", "&amp;", "~~", "*s*", "_u_"} {
		if strings.Contains(active, bad) {
			t.Errorf("markdown has active %q", bad)
		}
	}
	// Every table row has the same number of unescaped cell separators as its header.
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| Severity | Rule | Location | Server | Message |") {
			continue
		}
		if strings.HasPrefix(line, "| error ") || strings.HasPrefix(line, "| warning ") || strings.HasPrefix(line, "| note ") {
			if n := cellCount(line); n != 5 && n != 6 {
				t.Errorf("row has %d cells: %s", n, line)
			}
		}
	}
}

// markdownActive returns the text of a Markdown document that Markdown
// interprets: code span contents and backslash-escaped characters are
// replaced by spaces. The report's own markup (links to rules.md, <details>)
// is removed first.
func markdownActive(doc string) string {
	for _, own := range []string{"<details>", "</details>", "<summary>", "</summary>", "<code>", "</code>", "<sub>", "</sub>"} {
		doc = strings.ReplaceAll(doc, own, " ")
	}
	for _, r := range Catalog() {
		doc = strings.ReplaceAll(doc, "]("+r.HelpURI()+")", "] ")
	}
	var b strings.Builder
	for i := 0; i < len(doc); {
		switch c := doc[i]; {
		case c == '\\' && i+1 < len(doc):
			b.WriteString("  ")
			i += 2
		case c == '`':
			n := 0
			for i+n < len(doc) && doc[i+n] == '`' {
				n++
			}
			fence := strings.Repeat("`", n)
			end := -1
			for j := i + n; j < len(doc); {
				k := strings.Index(doc[j:], fence)
				if k < 0 {
					break
				}
				k += j
				if (k+n == len(doc) || doc[k+n] != '`') && (k == 0 || doc[k-1] != '`') {
					end = k
					break
				}
				j = k + 1
			}
			if end < 0 {
				b.WriteString(fence)
				i += n
				continue
			}
			b.WriteString(" ")
			i = end + n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// cellCount counts GFM table cells: '|' not preceded by a backslash.
func cellCount(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' {
			i++
			continue
		}
		if line[i] == '|' {
			n++
		}
	}
	return n - 1
}

func TestMarkdownCode(t *testing.T) {
	tests := map[string]string{
		"plain":    "`plain`",
		"a`b":      "``a`b``",
		"`x":       "`` `x ``",
		"a|b":      "`a\\|b`",
		"x``y":     "```x``y```",
		"":         "",
		" both ":   "`  both  `",
		"nl\nx":    "`nl\\x0ax`",
		"<b>&</b>": "`<b>&</b>`",
	}
	for in, want := range tests {
		if got := markdownCode(in); got != want {
			t.Errorf("markdownCode(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVisiblePrintableASCII: visible returns printable ASCII unchanged
// without looking at its runes; the general case agrees on every such
// character.
func TestVisiblePrintableASCII(t *testing.T) {
	for c := 0x20; c <= 0x7e; c++ {
		if s := string(rune(c)); visibleRunes(s) != s {
			t.Errorf("%q shows as %q", s, visibleRunes(s))
		}
	}
	for s, want := range map[string]string{"\x1f": `\u{001F}`, "\x7f": `\u{007F}`, "a\u200bb": `a\u{200B}b`, "é": "é"} {
		if visible(s) != want {
			t.Errorf("%q shows as %q, want %q", s, visible(s), want)
		}
	}
}

// TestOneLinePrintableASCII: the shortcut for printable ASCII is what the
// general case gives.
func TestOneLinePrintableASCII(t *testing.T) {
	for c := 0x20; c <= 0x7e; c++ {
		s := string(rune(c)) + "x"
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(r)
		}
		if oneLine(s) != b.String() {
			t.Errorf("%q: %q", s, oneLine(s))
		}
	}
	for s, want := range map[string]string{"a\nb": `a\x0ab`, "\x7f": `\x7f`, "a\u202eb": `a\u202eb`, "é": "é"} {
		if oneLine(s) != want {
			t.Errorf("%q: %q, want %q", s, oneLine(s), want)
		}
	}
}
