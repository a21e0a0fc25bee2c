package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// plantedMarker is in every secret planted in testdata/secrets.
var plantedMarker = regexp.MustCompile(`PLNT\d\d`)

// TestSecretParity: the redactor and MCPG-C001 are one decision. Every
// secret planted in testdata/secrets — in every client's format and scope:
// env, headers, args (docker -e NAME=value, --flag value), URLs (userinfo,
// query), Codex's bearer_token and http_headers (also in an entry Codex
// rejects), Zed's legacy command object, Continue's requestOptions,
// OpenCode's environment, Claude Code's local scope in ~/.claude.json —
// gives exactly one MCPG-C001, and no output format shows any of them.
func TestSecretParity(t *testing.T) {
	home := stageSecrets(t)
	project := filepath.Join(home, "src", "app")
	res, err := runner.Run(context.Background(), runner.Options{
		Scan: scanner.Options{
			Home: home, Project: project, GOOS: "linux",
			ManagedDir: filepath.Join(home, "no-managed"),
			LookupEnv:  func(string) (string, bool) { return "", false },
		},
		Meta: runner.Meta{Version: "test", GeneratedAt: "2026-01-01T00:00:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// client/server: "field key" of each expected finding.
	want := map[string][]string{
		"claude-code/github":   {"args GITHUB_PERSONAL_ACCESS_TOKEN"},
		"claude-code/api":      {"headers Authorization"},
		"claude-code/db":       {"args userinfo"},
		"claude-code/local":    {"args api-key", "env SLACK_BOT_TOKEN"},
		"cursor/search":        {"url api_key"},
		"cursor/llm":           {"env OPENAI_API_KEY"},
		"vscode/vs":            {"headers X-Api-Key"},
		"windsurf/wind":        {"url userinfo"},
		"gemini-cli/gem":       {"headers Authorization"},
		"gemini-cli/lab":       {"env GITLAB_TOKEN"},
		"codex/figma":          {"headers Authorization"},
		"codex/linear":         {"headers X-Api-Key"},
		"codex/both":           {"headers Authorization"},
		"codex/stdio":          {"env NOTION_TOKEN"},
		"zed/legacy":           {"env API_TOKEN"},
		"zed/remote":           {"headers Authorization"},
		"continue/cont":        {"env API_KEY"},
		"continue/contremote":  {"headers Authorization"},
		"opencode/oc":          {"env API_KEY"},
		"opencode/ocr":         {"headers Authorization"},
		"claude-desktop/brave": {"env BRAVE_API_KEY"},
		"claude-code/safe":     nil,
	}
	byID := map[string]reports.Server{}
	for _, s := range res.Report.Servers {
		byID[s.ID] = s
	}
	got := map[string][]string{}
	for _, f := range res.Report.Findings {
		if f.Rule != "MCPG-C001" {
			continue
		}
		s := byID[f.ServerID]
		k := s.Client + "/" + s.Name
		got[k] = append(got[k], fmt.Sprintf("%v %v", f.Evidence["field"], f.Evidence["key"]))
	}
	for k, w := range want {
		g := got[k]
		sort.Strings(g)
		sort.Strings(w)
		if strings.Join(g, ",") != strings.Join(w, ",") {
			t.Errorf("%s: MCPG-C001 on %q, want %q", k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected MCPG-C001 on %q", k, g)
		}
	}
	planted := plantedIn(t, home)
	if n := countC001(res.Report); n != len(planted) {
		t.Errorf("%d MCPG-C001 findings for %d planted secrets %v", n, len(planted), planted)
	}
	for _, f := range reports.Formats() {
		var buf bytes.Buffer
		if err := reports.Render(&buf, f, res.Report, reports.Options{WorkDir: project}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if m := plantedMarker.Find(buf.Bytes()); m != nil {
			t.Errorf("the %s report shows planted secret %s:\n%s", f, m, lineContaining(buf.String(), string(m)))
		}
	}
}

func countC001(r *reports.Report) int {
	n := 0
	for _, f := range r.Findings {
		if f.Rule == "MCPG-C001" {
			n++
		}
	}
	return n
}

// stageSecrets copies testdata/secrets/home to a temporary home, with the
// project path recorded in .claude.json made real.
func stageSecrets(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	src := filepath.Join("testdata", "secrets", "home")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(home, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		data = bytes.ReplaceAll(data, []byte("@HOME@"), []byte(filepath.ToSlash(home)))
		return os.WriteFile(dst, data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return home
}

// plantedIn lists the distinct planted markers in the files under dir.
func plantedIn(t *testing.T, dir string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		for _, m := range plantedMarker.FindAll(data, -1) {
			seen[string(m)] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for m := range seen {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

func lineContaining(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
