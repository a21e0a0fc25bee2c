//go:build unix

package mcpio

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestChildRelaysAndReportsExitCode(t *testing.T) {
	dir := t.TempDir()
	c, err := StartChild(ChildOptions{Argv: []string{"sh", "-c", `read line; echo "$line $(pwd)"; exit 3`}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stdout().Close()
	if _, err := io.WriteString(c.Stdin(), "hello\n"); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(c.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got := strings.TrimSpace(string(out)); got != "hello "+real && got != "hello "+dir {
		t.Errorf("output %q, want hello %s", got, dir)
	}
	if code := c.ExitCode(); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
}

func TestStartChildErrors(t *testing.T) {
	for _, argv := range [][]string{nil, {""}, {filepath.Join(t.TempDir(), "missing")}} {
		if _, err := StartChild(ChildOptions{Argv: argv}); err == nil {
			t.Errorf("StartChild(%q) succeeded", argv)
		}
	}
}

// TestShutdownEscalates: a server that ignores its closed stdin and SIGTERM
// is killed after two grace periods.
func TestShutdownEscalates(t *testing.T) {
	c, err := StartChild(ChildOptions{Argv: []string{"sh", "-c", `trap "" TERM; echo ready; while :; do sleep 1; done`}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stdout().Close()
	waitLine(t, c.Stdout())
	c.Shutdown(context.Background(), 50*time.Millisecond)
	select {
	case <-c.Done():
	default:
		t.Fatal("Shutdown returned before the server exited")
	}
	if code := c.ExitCode(); code != 128+int(syscall.SIGKILL) {
		t.Errorf("exit code %d, want %d (SIGKILL)", code, 128+int(syscall.SIGKILL))
	}
}

// TestKillGroupReapsGrandchild: a process the server started that ignores
// SIGTERM outlives the server's exit; KillGroup leaves nothing behind.
func TestKillGroupReapsGrandchild(t *testing.T) {
	c, err := StartChild(ChildOptions{Argv: []string{"sh", "-c", `(trap "" TERM; exec sleep 60) & echo $!; exit 0`}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stdout().Close()
	pid, err := strconv.Atoi(waitLine(t, c.Stdout()))
	if err != nil {
		t.Fatal(err)
	}
	c.Shutdown(context.Background(), 50*time.Millisecond)
	if !alive(pid) {
		t.Fatalf("grandchild %d gone before KillGroup: the test proves nothing", pid)
	}
	c.KillGroup()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still running after KillGroup", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitLine(t *testing.T, r io.Reader) string {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return strings.TrimSpace(line)
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no procfs: kill(0) is all we know
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}
