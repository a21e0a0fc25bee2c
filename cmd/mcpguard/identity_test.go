package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/reports"
)

var (
	builtOnce sync.Once
	builtPath string
	builtErr  error
)

// testBinary builds mcpguard once, as README's Install section does
// (CGO_ENABLED=0, -trimpath), for the tests that run it as a process
// (another working directory, a daemon) or read the binary.
func testBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no binary")
	}
	builtOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpguard-id-")
		if err != nil {
			builtErr = err
			return
		}
		builtPath = filepath.Join(dir, "mcpguard")
		cmd := exec.Command("go", "build", "-trimpath", "-o", builtPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			builtErr = err
			builtPath = string(out)
		}
	})
	if builtErr != nil {
		t.Fatalf("build mcpguard: %v\n%s", builtErr, builtPath)
	}
	return builtPath
}

// identityMachine is a home with Claude Code user, local and project
// servers, a managed directory, Cursor and VS Code servers, and an
// intended policy beside them.
func identityMachine(t *testing.T) (root, home, managedDir, project, intended string) {
	t.Helper()
	root, err := os.MkdirTemp("", "mgid-") // short: the daemon's socket lives here
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, managedDir = filepath.Join(root, "home"), filepath.Join(root, "managed")
	project = filepath.Join(home, "src", "app")
	writeFile(t, home, ".claude.json", `{
  "mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}, "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.8.21"]}},
  "projects": {"`+project+`": {"mcpServers": {"db": {"command": "uvx", "args": ["pg-mcp==1.0"]}}, "enabledMcpjsonServers": ["docs"]}}
}`)
	writeFile(t, project, ".mcp.json", `{"mcpServers": {"docs": {"type": "http", "url": "https://docs.acme.example/mcp"}, "jira": {"type": "sse", "url": "https://jira.acme.example/sse"}}}`)
	writeFile(t, home, ".cursor/mcp.json", `{"mcpServers": {"linear": {"url": "https://mcp.linear.app/sse"}}}`)
	writeFile(t, project, ".vscode/mcp.json", `{"servers": {"sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp"}}}`)
	writeFile(t, managedDir, "managed-settings.json", `{"deniedMcpServers": [{"serverName": "fs"}]}`)
	intended = writeFile(t, root, "org.json", `{"allowedMcpServers": [{"serverUrl": "https://*.acme.example:443/*"}, {"serverName": "fs"}], "deniedMcpServers": [{"serverName": "github"}]}`)
	return root, home, managedDir, project, intended
}

// identityOf is what must agree between two reports of one machine.
type identityOf struct {
	Servers  []serverIdentity
	Findings []string
	Revision string
}

type serverIdentity struct {
	ID, Name, Client, Scope string
	Status                  reports.Status
	Decision                reports.Decision
	Change                  string
}

func identity(t *testing.T, out []byte) identityOf {
	t.Helper()
	var rep reports.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	reports.SortServers(rep.Servers)
	var id identityOf
	for _, s := range rep.Servers {
		change, _ := s.Details["intended_change"].(string)
		id.Servers = append(id.Servers, serverIdentity{s.ID, s.Name, s.Client, s.Scope, s.Status, s.Decision, change})
	}
	for _, f := range rep.Findings {
		id.Findings = append(id.Findings, f.ID)
	}
	id.Revision = rep.Policy.Revision
	return id
}

// TestIdentityFromAnyDirectory: the same machine scanned from the project,
// the home, / and an unrelated directory, and the daemon's report of it
// (started from yet another directory, read with status), give the same
// ids, statuses, decisions, finding ids and policy revision.
func TestIdentityFromAnyDirectory(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the daemon needs a unix socket")
	}
	bin := testBinary(t)
	root, home, managedDir, project, intended := identityMachine(t)
	elsewhere := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_STATE_HOME=" + root, "XDG_RUNTIME_DIR=" + root}
	common := []string{"--home", home, "--managed-dir", managedDir, "--project", project, "--policy", intended}
	run := func(dir string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
			t.Fatalf("%v in %s: %v\n%s", args, dir, err, stderr.String())
		}
		return out
	}
	scanArgs := append([]string{"scan", "--format", "json", "--fail-on", "never"}, common...)
	want := identity(t, run(project, scanArgs...))
	if len(want.Servers) < 6 || len(want.Findings) == 0 {
		t.Fatalf("the machine is too small: %+v", want)
	}
	changes := 0
	for _, s := range want.Servers {
		if s.Change != "" {
			changes++
		}
	}
	if changes < 2 {
		t.Fatalf("the intended policy changes nothing in Claude Code: %+v", want.Servers)
	}
	for _, dir := range []string{home, "/", elsewhere} {
		if got := identity(t, run(dir, scanArgs...)); !reflect.DeepEqual(got, want) {
			t.Errorf("scan from %s differs from scan from the project:\n got %+v\nwant %+v", dir, got, want)
		}
	}

	socket := filepath.Join(root, "d.sock")
	daemonArgs := append([]string{"daemon", "--state-dir", filepath.Join(root, "state"), "--socket", socket,
		"--events", filepath.Join(root, "events.jsonl"), "--resync", "1h"}, common...)
	d := exec.Command(bin, daemonArgs...)
	d.Dir, d.Env = elsewhere, env
	var dErr bytes.Buffer
	d.Stderr = &dErr
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- d.Wait() }()
	defer func() {
		_ = d.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = d.Process.Kill()
			<-exited
		}
	}()
	var got identityOf
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, bin, "status", "--socket", socket, "--format", "json", "--fail-on", "never")
		cmd.Dir, cmd.Env = "/", env
		out, err := cmd.Output()
		cancel()
		if err == nil {
			got = identity(t, out)
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("daemon exited: %v\n%s", err, dErr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("status: %v\n%s", err, dErr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the daemon's report differs from scan's:\n got %+v\nwant %+v", got, want)
	}
}
