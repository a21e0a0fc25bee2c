//go:build unix

package proxy

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Red team (issue 42 part 3): "when the proxy exits for any reason, the
// group gets SIGTERM, then SIGKILL": ways the proxy exits without it.

// TestRedteamProxyHarness is not a test: run by TestRedteamBrokenStdout in
// a process of its own, it is a proxy on the process's real stdin and
// stdout (fd 0 and 1), as `mcpguard proxy -- SERVER` is.
func TestRedteamProxyHarness(t *testing.T) {
	if os.Getenv("MCPGUARD_RT_HARNESS") == "" {
		t.Skip("run by TestRedteamBrokenStdout")
	}
	os.Setenv("MCPGUARD_FAKE_SERVER", "fork-term-proof")
	exit, err := RunStdio(context.Background(), []string{os.Args[0], "-test.run=^$"}, os.Stdin, os.Stdout, os.Stderr, Options{Grace: 200 * time.Millisecond})
	fmt.Fprintf(os.Stderr, "harness: proxy returned %+v %v\n", exit, err)
	os.Exit(0)
}

// TestRedteamBrokenStdout: the client stops reading (it crashed, or its
// reader did) and the server then writes. The proxy's write to fd 1 gets
// EPIPE, and Go's runtime ends a program that writes to a broken fd 1 or
// 2 with SIGPIPE unless it handles the signal: the proxy dies on the spot,
// the parent-death signal ends the server only, and the SIGTERM-proof
// grandchild in its group lives on.
func TestRedteamBrokenStdout(t *testing.T) {
	pidfile := t.TempDir() + "/pid"
	cmd := exec.Command(os.Args[0], "-test.run=^TestRedteamProxyHarness$")
	cmd.Env = append(os.Environ(), "MCPGUARD_RT_HARNESS=1", "MCPGUARD_FAKE_PIDFILE="+pidfile)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("ping: %q %v", line, err)
	}
	b, _ := os.ReadFile(pidfile)
	pid, err := strconv.Atoi(string(b))
	if err != nil || !alive(pid) {
		t.Fatalf("grandchild %q not running: the test proves nothing", b)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	out.Close() // the client no longer reads
	fmt.Fprintln(in, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	err = cmd.Wait()
	in.Close()
	if outlives(pid) {
		t.Errorf("the proxy ended (%v) and the grandchild %d in the server's group outlived it", err, pid)
	}
}
