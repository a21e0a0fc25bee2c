package scanner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/benchdata"
	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
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
	opts, root := policedMachine(t, 60)
	got := scanReport(t, opts, map[string]string{root: "$ROOT", strings.ReplaceAll(filepath.ToSlash(root), "/", "~1"): "$ROOT"})
	checkGolden(t, "generated-machine.json", stableIDs(got))
}

// policedMachine writes a generated machine of 1.1 n servers under a
// managed policy with an allowlist of every entry kind and a denylist, and
// returns the options that scan it with the shipped policies, and its root.
func policedMachine(t *testing.T, n int) (scanner.Options, string) {
	t.Helper()
	root := t.TempDir()
	home, managed, project, err := benchdata.WriteMachine(root, n)
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
	return scanner.Options{Home: home, ManagedDir: managed, Project: project, Policy: testEngine(t)}, root
}

// TestLargeMachineOnEveryProcessor: the steps that run on every processor
// for a large machine (the ids of servers and findings, building and
// writing the report) give the report one processor gives, byte for byte:
// the policed machine of 330 servers scanned under GOMAXPROCS 1 and 4.
func TestLargeMachineOnEveryProcessor(t *testing.T) {
	opts, _ := policedMachine(t, 300)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one := scanReport(t, opts, nil)
	runtime.GOMAXPROCS(4)
	every := scanReport(t, opts, nil)
	if string(one) != string(every) {
		t.Fatalf("the report differs on four processors:\n%s", diffLines(string(one), string(every)))
	}
	if n := strings.Count(string(one), `"rule": "MCPG-`); n < 300 {
		t.Fatalf("%d findings: the machine is too small to take the parallel paths", n)
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

// cancelOnRead cancels a scan when it reads a given file, and records what
// the scan reads.
type cancelOnRead struct {
	cfgfile.OS
	path   string
	cancel context.CancelFunc
	mu     sync.Mutex
	read   []string
}

func (c *cancelOnRead) ReadFile(path string) ([]byte, bool, *reports.FileError) {
	c.mu.Lock()
	c.read = append(c.read, path)
	c.mu.Unlock()
	if path == c.path {
		c.cancel()
	}
	return c.OS.ReadFile(path)
}

// TestScanCancelledBetweenProjects cancels a machine scan while one
// project's verdicts are being judged on the workers and the next project
// is read: the scan reports the cancellation and leaves no worker behind.
func TestScanCancelledBetweenProjects(t *testing.T) {
	root := t.TempDir()
	home, managed, project, err := benchdata.WriteMachine(root, 60)
	if err != nil {
		t.Fatal(err)
	}
	engine := testEngine(t)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fs := &cancelOnRead{path: filepath.Join(root, "src", "app2", ".mcp.json"), cancel: cancel}
	_, err = scanner.Scan(ctx, scanner.Options{Home: home, ManagedDir: managed, Project: project,
		Policy: engine, FS: fs, LookupEnv: emptyEnv, GOOS: "linux"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Scan: %v, want context.Canceled", err)
	}
	if ctx.Err() == nil {
		t.Fatal("the scan never read the third project's .mcp.json")
	}
	for _, p := range fs.read {
		if strings.Contains(p, "app3") {
			t.Errorf("read %s after the cancellation", p)
		}
	}
	// A worker that has returned may not have exited yet.
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the scan, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPolicyErrorsWhileReadingProjects fails the policy for every stdio
// server of a machine: the workers record the errors while the scan reads
// the next project and the other clients' files, and each failing server is
// reported blocked, once.
func TestPolicyErrorsWhileReadingProjects(t *testing.T) {
	root := t.TempDir()
	home, managed, project, err := benchdata.WriteMachine(root, 60)
	if err != nil {
		t.Fatal(err)
	}
	// Findings about files, recorded while the workers judge the project
	// before: a fourth project's servers that are not an object, and a
	// Cursor file's.
	for _, f := range []string{filepath.Join(root, "src", "app3", ".mcp.json"), filepath.Join(home, ".cursor", "mcp.json")} {
		if err := os.WriteFile(f, []byte(`{"mcpServers": []}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Two values for one complete rule: a conflict OPA reports only when
	// it evaluates the rule, for a stdio server.
	engine, err := policy.NewEngine(context.Background(), policy.EngineOptions{Modules: map[string]string{"conflict.rego": `package mcpguard.custom.org
conflict := 1 if input.server.transport == "stdio"
conflict := 2 if input.server.transport == "stdio"
deny contains "conflict" if conflict == 1
`}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, ManagedDir: managed, Project: project,
		Policy: engine, LookupEnv: emptyEnv, GOOS: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, s := range res.Servers {
		if s.Transport == scanner.TransportStdio && slices.Equal(s.Decision.Reasons, []string{"POLICY_ERROR"}) {
			failed++
		}
	}
	var errs int
	for _, e := range res.Errors {
		if strings.Contains(e.Message, "policy evaluation failed") {
			errs++
		}
	}
	if failed == 0 || errs != failed {
		t.Errorf("%d stdio servers failed closed, %d policy errors", failed, errs)
	}
	c006 := 0
	for _, f := range res.Findings {
		if f.Rule == "MCPG-C006" && f.ServerID == "" {
			c006++
		}
	}
	if c006 != 2 {
		t.Errorf("%d findings about files, want 2", c006)
	}
}
