package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// child is the MCP server process.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's error, set before done closes
}

// startChild starts argv with pipes for stdin and stdout; its stderr is
// shared with ours. The server runs in its own process group so that signals
// reach the processes it starts (npx runs node, uvx runs python).
func startChild(argv []string, env []string, stderr io.Writer) (*child, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("no server command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = stderr
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	// Not StdoutPipe: Wait closes that pipe as soon as the process exits, and
	// the responses still in it would be lost. With a pipe of our own, the
	// server's last words are read until every writer (the server and the
	// processes it started) has closed it.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	cmd.Stdout = stdoutW
	err = cmd.Start()
	stdoutW.Close() // the child has its copy
	if err != nil {
		stdout.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	c := &child{cmd: cmd, stdin: stdin, stdout: stdout, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// shutdown follows the MCP specification's stdio shutdown: close the server's
// stdin and wait for it to exit; if it does not within grace, send SIGTERM;
// if it still does not, SIGKILL. When ctx ends meanwhile — the proxy itself
// is being terminated, as clients do shortly after closing stdin — SIGTERM is
// sent at once: the proxy may be killed next, and the server must not
// outlive it.
func (c *child) shutdown(ctx context.Context, grace time.Duration) {
	_ = c.stdin.Close()
	t := time.NewTimer(grace)
	select {
	case <-c.done:
		t.Stop()
		return
	case <-ctx.Done():
		t.Stop()
	case <-t.C:
	}
	signalGroup(c.cmd, syscall.SIGTERM)
	if c.waitFor(grace) {
		return
	}
	signalGroup(c.cmd, syscall.SIGKILL)
	<-c.done
}

func (c *child) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		return true
	case <-t.C:
		return false
	}
}

// exitCode is the server's exit status as a shell reports it: its code, or
// 128 plus the signal that ended it.
func (c *child) exitCode() int {
	<-c.done
	st := c.cmd.ProcessState
	if st == nil {
		return 1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// environ returns the proxy's own environment for the server: the proxy runs
// in the server's place, so the client's environment passes through.
func environ() []string { return os.Environ() }
