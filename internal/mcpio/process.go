package mcpio

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

// ChildOptions say how to start an MCP server.
type ChildOptions struct {
	// Argv is the command line; Argv[0] is looked up in PATH.
	Argv []string
	// Env is the environment; nil means the current process's.
	Env []string
	// Dir is the working directory; "" means the current one.
	Dir string
	// Stderr receives the server's standard error; nil discards it.
	Stderr io.Writer
	// Subreaper makes this process, on Linux, the reaper of the server's
	// orphaned descendants (PR_SET_CHILD_SUBREAPER, process-wide from
	// then on): one that left the server's group and session (setsid, a
	// daemon's double fork) becomes this process's child when its parent
	// exits, and EndGroup ends it too. Elsewhere it does nothing.
	Subreaper bool
}

// Child is a running MCP server process with pipes to its stdin and
// stdout. Shutdown may be called concurrently with reads of Stdout.
type Child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	done   chan struct{} // closed when the process has exited
	// orphans finds the server's descendants reparented to this process
	// (ChildOptions.Subreaper, Linux); nil otherwise.
	orphans func() []int
}

// StartChild starts a server. It runs in its own process group so that
// signals reach the processes it starts (npx runs node, uvx runs python),
// and on Linux the kernel kills it if this process dies first.
func StartChild(opts ChildOptions) (*Child, error) {
	argv := opts.Argv
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("no server command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = opts.Env
	cmd.Dir = opts.Dir
	cmd.Stderr = opts.Stderr
	setProcessGroup(cmd)
	if opts.Subreaper {
		becomeSubreaper()
	}
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
		stdin.Close()
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	c := &Child{cmd: cmd, stdin: stdin, stdout: stdout, done: make(chan struct{})}
	if opts.Subreaper {
		c.orphans = orphansOf(cmd.Process.Pid)
	}
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// Stdin is the server's standard input.
func (c *Child) Stdin() io.WriteCloser { return c.stdin }

// Stdout is the server's standard output; the caller closes it when done.
func (c *Child) Stdout() io.ReadCloser { return c.stdout }

// Done is closed when the server process has exited.
func (c *Child) Done() <-chan struct{} { return c.done }

// Shutdown follows the MCP specification's stdio shutdown: close the
// server's stdin and wait for it to exit; if it does not within grace, send
// SIGTERM to its process group; if it still does not, SIGKILL. When ctx ends
// meanwhile — this process itself is being terminated, as clients do
// shortly after closing stdin — SIGTERM is sent at once: we may be killed
// next, and the server must not outlive us.
func (c *Child) Shutdown(ctx context.Context, grace time.Duration) {
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
	if c.WaitFor(grace) {
		return
	}
	signalGroup(c.cmd, syscall.SIGKILL)
	<-c.done
}

// EndGroup ends what is left of the server's process group after the
// server itself has exited (it waits for that): the processes it started
// get SIGTERM, and SIGKILL after grace when any of them is still there. A
// process that left the group (setsid, a daemon that double-forks) cannot
// be found this way; with ChildOptions.Subreaper on Linux it is ended
// too, once reparented to this process.
func (c *Child) EndGroup(grace time.Duration) {
	<-c.done
	c.endGroup(grace)
	if c.orphans != nil {
		endOrphans(c.orphans, grace)
	}
}

func (c *Child) endGroup(grace time.Duration) {
	if !groupAlive(c.cmd) {
		return
	}
	signalGroup(c.cmd, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for groupAlive(c.cmd) {
		select {
		case <-t.C:
			signalGroup(c.cmd, syscall.SIGKILL)
			return
		case <-tick.C:
		}
	}
}

// KillGroup sends SIGKILL to whatever is left of the server's process
// group: processes it started that outlive it (a grandchild that ignores
// SIGTERM). Call it after Shutdown when nothing may be left behind.
func (c *Child) KillGroup() { signalGroup(c.cmd, syscall.SIGKILL) }

// WaitFor waits up to d for the server to exit and reports whether it did.
func (c *Child) WaitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		return true
	case <-t.C:
		return false
	}
}

// ExitCode waits for the server and returns its exit status as a shell
// reports it: its code, or 128 plus the signal that ended it.
func (c *Child) ExitCode() int {
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
