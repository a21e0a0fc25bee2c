package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/reports"
)

// TestInterruptsReal sends SIGINT to the real binary. A scan that only
// reads and prints dies of it at once, as it did before it started; a scan
// that starts servers has armed its handlers, stops them and still writes
// its report.
func TestInterruptsReal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpguard")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	mcpJSON := writeFile(t, dir, "project/.mcp.json", `{"mcpServers": {"a": {"command": "npx", "args": ["-y", "a"]}}}`)

	t.Run("plain scan ends at once", func(t *testing.T) {
		// The ignore file is a FIFO that nobody writes: the scan waits in
		// open(2) until the signal comes, well past where the handlers
		// would have been installed.
		fifo := filepath.Join(t.TempDir(), "ignore")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "scan", "--format", "json", "--ignore-file", fifo, mcpJSON)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w := waitAsync(cmd)
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-w.done
		})
		waitForWchan(t, cmd.Process.Pid, "wait_for_partner", w.done)
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-w.done:
			err := w.err
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !exit.Sys().(syscall.WaitStatus).Signaled() || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
				t.Fatalf("the scan ended with %v, not by the signal", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the scan is still running 10 s after SIGINT: it caught the signal")
		}
	})

	t.Run("introspection stops its servers", func(t *testing.T) {
		home, pidFile := filepath.Join(dir, "home"), filepath.Join(dir, "server.pid")
		script, _ := json.Marshal("echo $$ > " + pidFile + "; exec sleep 300")
		writeFile(t, home, ".cursor/mcp.json", `{"mcpServers": {"silent": {"command": "sh", "args": ["-c", `+string(script)+`]}}}`)
		if err := os.MkdirAll(filepath.Join(dir, "managed"), 0o755); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, "scan", "--introspect", "--format", "json", "--fail-on", "never",
			"--home", home, "--managed-dir", filepath.Join(dir, "managed"), "--project", filepath.Dir(mcpJSON))
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w := waitAsync(cmd)
		server := 0
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			<-w.done
			if server > 0 {
				_ = syscall.Kill(server, syscall.SIGKILL)
			}
		})
		deadline := time.Now().Add(20 * time.Second)
		for server == 0 && time.Now().Before(deadline) {
			b, _ := os.ReadFile(pidFile)
			if s := strings.TrimSpace(string(b)); strings.HasSuffix(string(b), "\n") {
				server, _ = strconv.Atoi(s)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if server == 0 {
			t.Fatalf("the server did not start: %s", stderr.String())
		}
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-w.done:
			if w.err != nil {
				t.Fatalf("the scan ended with %v: %s", w.err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the scan is still running 10 s after SIGINT")
		}
		for !gone(server) {
			if time.Now().After(deadline) {
				t.Fatalf("server %d is still running after the scan stopped", server)
			}
			time.Sleep(10 * time.Millisecond)
		}
		var rep reports.Report
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Servers) == 0 {
			t.Fatalf("no report after the interrupt (%v): %s", err, stdout.String())
		}
	})
}

// waited is a command's Wait, running: err is set once done is closed.
type waited struct {
	done chan struct{}
	err  error
}

func waitAsync(cmd *exec.Cmd) *waited {
	w := &waited{done: make(chan struct{})}
	go func() {
		w.err = cmd.Wait()
		close(w.done)
	}()
	return w
}

// waitForWchan waits until one of pid's threads sleeps in the kernel
// function named want.
func waitForWchan(t *testing.T, pid int, want string, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatalf("the process ended before waiting in %s", want)
		default:
		}
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
		for _, task := range tasks {
			if b, _ := os.ReadFile(task); string(b) == want {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d never waited in %s", pid, want)
}

// gone reports whether pid has exited (a zombie counts).
func gone(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	// "pid (comm) state ...": the state follows the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}
