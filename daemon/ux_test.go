package daemon_test

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The operator's view: what the daemon says at start, and what status
// says when there is no daemon, when it goes away and comes back, and
// about itself.

// TestDaemonLogsOneLineAtStart: nothing was logged at start; now one info
// line says what runs, where and on what.
func TestDaemonLogsOneLineAtStart(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.waitFor(0, "server-added:gh")
	time.Sleep(200 * time.Millisecond)
	h.stop()
	var info []string
	for _, line := range strings.Split(h.stderr.String(), "\n") {
		if strings.Contains(line, "level=INFO") {
			info = append(info, line)
		}
	}
	if len(info) != 1 {
		t.Fatalf("%d info lines at start, want 1:\n%s", len(info), strings.Join(info, "\n"))
	}
	for _, want := range []string{"version=", "socket=" + h.socket, "state_dir=" + h.state, "events=" + h.evs, "servers=3", "policy_revision="} {
		if !strings.Contains(info[0], want) {
			t.Errorf("the start line %q lacks %q", info[0], want)
		}
	}
}

// TestStatusWithoutDaemon: status printed a raw Go dial error; now it
// says there is no daemon at the socket and how to start one, exit 2 —
// for a socket that does not exist and for one nobody listens on.
func TestStatusWithoutDaemon(t *testing.T) {
	h := newHarness(t)
	stale := filepath.Join(h.root, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	for _, socket := range []string{filepath.Join(h.root, "missing.sock"), stale} {
		for _, args := range [][]string{{}, {"--info"}, {"--follow"}} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, append([]string{"status", "--socket", socket}, args...)...)
			cmd.Env = h.env()
			out, _ := cmd.CombinedOutput()
			want := "no mcpguard daemon at " + socket + " (start it with "
			if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), want) || strings.Contains(string(out), "dial unix") {
				t.Errorf("status %v at %s: exit %d\n%s", args, socket, cmd.ProcessState.ExitCode(), out)
			}
		}
	}
}

// TestStatusFollowReconnects: --follow repeated the error every second
// while the daemon was away; now it says once that it lost the daemon,
// retries less and less often, says once that it is back, and resumes
// after the last event it printed.
func TestStatusFollowReconnects(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.waitFor(0, "server-added:gh")
	follow := exec.Command(binary, "status", "--socket", h.socket, "--follow", "--format", "json")
	follow.Env = h.env()
	var out, errb syncBuffer
	follow.Stdout, follow.Stderr = &out, &errb
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = follow.Process.Kill(); _ = follow.Wait() }()
	time.Sleep(300 * time.Millisecond)
	h.stop()
	time.Sleep(4 * time.Second) // several retries
	h.write(".cursor/mcp.json", `{"mcpServers": {"back": {"command": "node", "args": ["back.js"]}}}`)
	h.start()
	deadline := time.Now().Add(40 * time.Second)
	for !strings.Contains(out.String(), `"server":"back"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no event after the daemon came back:\n%s\nstderr:\n%s", out.String(), errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = follow.Process.Signal(syscall.SIGTERM)
	_ = follow.Wait()
	msgs := errb.String()
	if n := strings.Count(msgs, "lost the daemon"); n != 1 {
		t.Errorf("%d messages about the lost daemon, want 1:\n%s", n, msgs)
	}
	if n := strings.Count(msgs, "is back"); n != 1 {
		t.Errorf("%d messages about its return, want 1:\n%s", n, msgs)
	}
	if strings.Count(msgs, "\n") != 2 {
		t.Errorf("stderr while the daemon was away:\n%s", msgs)
	}
	// What happened while it was away (the daemon-stop, its next start)
	// is printed too: nothing is skipped.
	for _, kind := range []string{`"kind":"daemon-stop"`, `"kind":"daemon-start"`} {
		if !strings.Contains(out.String(), kind) {
			t.Errorf("the follower missed %s", kind)
		}
	}
	h.stop()
}

// TestStatusInfoShowsSocket: --info names the socket it talks to.
func TestStatusInfoShowsSocket(t *testing.T) {
	h := newHarness(t)
	h.start()
	cmd := exec.Command(binary, "status", "--socket", h.socket, "--info")
	cmd.Env = h.env()
	out, _ := cmd.Output()
	if !strings.Contains(string(out), "  socket: "+h.socket+"\n") {
		t.Errorf("--info does not show the socket:\n%s", out)
	}
	h.stop()
}
