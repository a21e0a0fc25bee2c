package scanner_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/oracle"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestOracleCorpus runs every case of testdata/oracle — inputs recorded with
// the real Claude Code CLI (internal/oracle) — through the scanner and compares
// the status of every definition, the findings the CLI's diagnostics show, and
// the `claude mcp list` order. The corpus's own consistency with the recorded
// CLI answers is checked in internal/oracle.
func TestOracleCorpus(t *testing.T) {
	eachOracleCase(t, func(t *testing.T, c *oracle.Case) {
		res, project := scanCase(t, c)
		checkCase(t, c, res, project)
	})
}

// eachOracleCase runs fn on every case of the oracle corpus, each a subtest.
func eachOracleCase(t *testing.T, fn func(t *testing.T, c *oracle.Case)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "oracle", "cases", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no oracle cases: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			c, err := oracle.LoadCase(f)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, c)
		})
	}
}

// scanCase lays the case out and scans it with the shipped policies.
func scanCase(t *testing.T, c *oracle.Case) (*scanner.Result, string) {
	t.Helper()
	opts := layoutCase(t, c)
	opts.Policy = testEngine(t)
	res, err := scanner.Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, opts.Project
}

// layoutCase lays the case out like the oracle does (home and project inside
// the parent folder), rewriting the oracle's fixed paths to the temporary
// tree, and returns the options that scan it (without a policy engine).
func layoutCase(t *testing.T, c *oracle.Case) scanner.Options {
	t.Helper()
	root := t.TempDir()
	rewrite := strings.NewReplacer(oracle.ParentDir, root, oracle.ManagedDir, filepath.Join(root, "managed"))
	for _, f := range c.ConfigFiles() {
		tree, rel, _ := strings.Cut(f.Name, "/")
		dir := filepath.Join(root, tree)
		if tree == oracle.TreeParent {
			dir = root
		}
		writeAbs(t, filepath.Join(dir, filepath.FromSlash(rel)), rewrite.Replace(string(f.Data)))
	}
	for _, tree := range c.Git {
		dir := filepath.Join(root, tree)
		if tree == oracle.TreeParent {
			dir = root
		}
		if err := os.MkdirAll(filepath.Join(dir, ".git", "refs", "heads"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeAbs(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	}
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home, "PATH": root + "/bin", "TERM": "dumb", "LANG": "C.UTF-8"}
	for _, kv := range c.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = rewrite.Replace(v)
	}
	return scanner.Options{
		Home: home, ManagedDir: filepath.Join(root, "managed"), Project: project,
		LookupEnv: envOf(env), GOOS: "linux",
	}
}

func checkCase(t *testing.T, c *oracle.Case, res *scanner.Result, project string) {
	t.Helper()
	var got, want []string
	for _, s := range res.Servers {
		if s.Client != scanner.ClientClaudeCode || (s.Project != "" && s.Project != project) {
			continue
		}
		got = append(got, strings.Join([]string{s.Scope, oracle.QuoteName(s.Name), string(s.Status)}, " "))
	}
	byKey := map[string][]*scanner.Server{}
	for _, s := range res.Servers {
		if s.Client == scanner.ClientClaudeCode && (s.Project == "" || s.Project == project) {
			k := s.Scope + " " + s.Name
			byKey[k] = append(byKey[k], s)
		}
	}
	for _, w := range c.Want {
		want = append(want, strings.Join([]string{w.Scope, oracle.QuoteName(w.Name), w.Status}, " "))
		if len(w.Reasons) == 0 {
			continue
		}
		matched := false
		for _, s := range byKey[w.Scope+" "+w.Name] {
			if string(s.Status) == w.Status && slices.Equal(s.Decision.Reasons, w.Reasons) {
				matched = true
			}
		}
		if !matched {
			var have []string
			for _, s := range byKey[w.Scope+" "+w.Name] {
				have = append(have, string(s.Status)+" "+strings.Join(s.Decision.Reasons, ","))
			}
			t.Errorf("%s %s: want %s %s, have %v", w.Scope, w.Name, w.Status, strings.Join(w.Reasons, ","), have)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("statuses differ\n  want: %s\n  got:  %s", strings.Join(want, " | "), strings.Join(got, " | "))
	}
	for _, f := range c.Findings {
		if !hasCaseFinding(res, f, project) {
			t.Errorf("missing finding %s %s %s", f.Rule, f.Scope, f.Name)
		}
	}
	if c.Order != nil {
		var order []string
		for _, s := range res.Servers {
			if s.Client == scanner.ClientClaudeCode && s.Scope != scanner.ScopeIDE && (s.Project == "" || s.Project == project) &&
				(s.Status == reports.StatusActive || s.Status == reports.StatusPendingApproval || s.Status == reports.StatusDisabled) {
				order = append(order, s.Name)
			}
		}
		if !slices.Equal(order, c.Order) {
			t.Errorf("mcp list order = %q, want %q", order, c.Order)
		}
	}
}

func hasCaseFinding(res *scanner.Result, f oracle.Finding, project string) bool {
	servers := map[string]*scanner.Server{}
	for _, s := range res.Servers {
		servers[s.ID] = s
	}
	for _, got := range res.Findings {
		if got.Rule != f.Rule {
			continue
		}
		if f.Name == "" {
			return true
		}
		if s := servers[got.ServerID]; s != nil && s.Name == f.Name && s.Scope == f.Scope && (s.Project == "" || s.Project == project) {
			return true
		}
	}
	return false
}
