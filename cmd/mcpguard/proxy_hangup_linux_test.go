package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProxyHangupEndsTheGroup: the real binary gets SIGHUP (the terminal
// or the client's session closed) or SIGQUIT while its server runs. Their
// default would kill the proxy on the spot, and a SIGTERM-proof process
// of the server's group, or one that left it with setsid, would live on
// (PPID 1). Handled, the proxy ends the group; as the subreaper it ends
// the setsid'd one too.
func TestProxyHangupEndsTheGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpguard")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	server := filepath.Join(dir, "server.sh")
	script := `trap '' TERM
(trap '' TERM; exec sleep 300) & echo $! > "$1/group.pid"
setsid sleep 300 & echo $! > "$1/setsid.pid"
while read l; do echo '{"jsonrpc":"2.0","id":1,"result":{}}'; done
`
	if err := os.WriteFile(server, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			run := t.TempDir()
			cmd := exec.Command(bin, "proxy", "--no-pins", "--grace", "200ms", "--", "bash", server, run)
			cmd.Env = append(os.Environ(), "HOME="+run, "XDG_CONFIG_HOME="+run, "XDG_STATE_HOME="+run)
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			cmd.Stderr = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w := waitAsync(cmd)
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-w.done
			})
			fmt.Fprintln(in, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil {
				t.Fatalf("ping: %q %v", line, err)
			}
			var pids []int
			for _, name := range []string{"group.pid", "setsid.pid"} {
				var pid int
				for i := 0; i < 500 && pid == 0; i++ { // written before the ping is answered
					b, _ := os.ReadFile(filepath.Join(run, name))
					pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
					if pid == 0 {
						time.Sleep(10 * time.Millisecond)
					}
				}
				if pid == 0 || syscall.Kill(pid, 0) != nil {
					t.Fatalf("%s: no process: the test proves nothing", name)
				}
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
				pids = append(pids, pid)
			}
			_ = cmd.Process.Signal(sig)
			select {
			case <-w.done:
			case <-time.After(30 * time.Second):
				t.Fatalf("the proxy did not end on %v", sig)
			}
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Errorf("the proxy died of %v instead of ending the session", ws.Signal())
			}
			for _, pid := range pids {
				if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(b[strings.LastIndexByte(string(b), ')'):]), " Z ") {
					t.Errorf("process %d of the server outlived the proxy: %s", pid, b)
				}
			}
		})
	}
}
