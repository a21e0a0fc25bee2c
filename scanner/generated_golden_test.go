package scanner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestGeneratedMachineGolden pins the whole report of a generated machine —
// every server's status, verdict and reasons, every finding and its
// message — so that no optimisation of discovery, inputs, policy
// evaluation or rendering changes a result unnoticed (issue 18). The
// managed policy has an allowlist of every entry kind and a denylist, so
// that allowed, denied and not-allowlisted servers of every transport are
// in it.
func TestGeneratedMachineGolden(t *testing.T) {
	root := t.TempDir()
	home, managed, project, err := benchdata.WriteMachine(root, 60)
	if err != nil {
		t.Fatal(err)
	}
	policy := `{
  "allowedMcpServers": [
    {"serverName": "srv-1"},
    {"serverName": "srv-5"},
    {"serverCommand": ["npx", "-y", "@acme/server-8@1.2.8", "--root", "/srv/data/8"]},
    {"serverUrl": "https://mcp1*.acme.example/*"},
    {"serverUrl": "https://sse3.acme.example/sse"}
  ],
  "deniedMcpServers": [
    {"serverName": "srv-3"},
    {"serverCommand": ["uvx", "acme-tool-6==0.6.0"]},
    {"serverUrl": "https://mcp2*.acme.example/*"}
  ]
}
`
	if err := os.WriteFile(filepath.Join(managed, "managed-settings.json"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	large := 0 // the hook changes nothing the report says
	got := scanReport(t, scanner.Options{Home: home, ManagedDir: managed, Project: project, WorkDir: root, Policy: testEngine(t), LargeScan: func() { large++ }},
		map[string]string{root: "$ROOT", strings.ReplaceAll(filepath.ToSlash(root), "/", "~1"): "$ROOT"})
	checkGolden(t, "generated-machine.json", stableIDs(got))
	if large != 1 {
		t.Errorf("LargeScan called %d times on a 60-server machine, want once", large)
	}
}

// TestLargeScanThreshold: the hook runs once on a machine whose scan judges
// LargeScanServers servers or more, never on a smaller one.
func TestLargeScanThreshold(t *testing.T) {
	for _, n := range []int{20, 200} {
		root := t.TempDir()
		home, managed, project, err := benchdata.WriteMachine(root, n)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, ManagedDir: managed, Project: project, WorkDir: root,
			Policy: testEngine(t), GOOS: "linux", LookupEnv: emptyEnv, LargeScan: func() { calls++ }})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if len(res.Servers) >= scanner.LargeScanServers {
			want = 1
		}
		if calls != want {
			t.Errorf("%d servers: LargeScan called %d times, want %d", len(res.Servers), calls, want)
		}
		if n == 20 && want != 0 || n == 200 && want != 1 {
			t.Errorf("a %d-server machine has %d servers: the test no longer tells", n, len(res.Servers))
		}
	}
}

// stableIDs numbers the server and finding ids in order of first
// appearance: the ids of local-scope servers hash a JSON pointer that holds
// the temporary directory's path. References between them are kept.
func stableIDs(report []byte) []byte {
	seen := map[string]string{}
	return regexp.MustCompile(`"[sf]-[0-9a-f]{16}"`).ReplaceAllFunc(report, func(id []byte) []byte {
		k := string(id)
		if _, ok := seen[k]; !ok {
			seen[k] = fmt.Sprintf(`"%c-%016d"`, k[1], len(seen))
		}
		return []byte(seen[k])
	})
}
