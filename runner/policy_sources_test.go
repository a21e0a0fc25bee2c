package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestPolicySourcesNameEveryRule: a report names every source that judged
// it — the shipped rules, each custom Rego file and each --policy JSON
// file, with digests of their contents — and its revision changes with any
// of them, never with where the files are.
func TestPolicySourcesNameEveryRule(t *testing.T) {
	rules := func(dir, deny string) []string {
		t.Helper()
		write := func(name, data string) string {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		write("rego/a.rego", "package mcpguard.custom.a\n\ndeny contains \"no\" if { input.server.name == \""+deny+"\" }\n")
		write("rego/b.rego", "package mcpguard.custom.b\n\nwarn contains \"w\" if { input.server.name == \"w\" }\n")
		return []string{filepath.Join(dir, "rego"), write("org.json", `{"deniedMcpServers": [{"serverName": "x"}]}`)}
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"mcpServers": {"x": {"command": "node"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(policies []string) reports.PolicyInfo {
		t.Helper()
		res, err := runner.Run(context.Background(), runner.Options{Scan: scanner.Options{Home: home, GOOS: "linux"}, Policies: policies,
			Meta: runner.Meta{Version: "v9.9.9"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Report.Policy
	}
	a := run(rules(t.TempDir(), "y"))
	kinds := map[string]int{}
	for _, s := range a.Sources {
		kinds[s.Kind]++
		if !strings.HasPrefix(s.Digest, "sha256:") || len(s.Digest) != len("sha256:")+64 {
			t.Errorf("%s %s: digest %q", s.Kind, s.Path, s.Digest)
		}
		if s.Kind == reports.KindShippedRules && (s.Path != "builtin:mcpguard" || s.Version != "v9.9.9") {
			t.Errorf("shipped rules: %+v", s)
		}
	}
	if kinds[reports.KindShippedRules] != 1 || kinds[reports.KindRego] != 2 || kinds["policy-file"] != 1 {
		t.Errorf("sources by kind %v, want the shipped rules, two Rego files, one policy file", kinds)
	}
	if b := run(rules(t.TempDir(), "y")); b.Revision != a.Revision {
		t.Errorf("the same policy elsewhere has another revision: %s, %s", a.Revision, b.Revision)
	}
	if c := run(rules(t.TempDir(), "z")); c.Revision == a.Revision {
		t.Error("a changed Rego rule keeps the revision")
	}
	if d := run(nil); d.Revision == a.Revision || len(d.Sources) != 1 || d.Sources[0].Kind != reports.KindShippedRules {
		t.Errorf("without --policy: %+v", d)
	}
}
