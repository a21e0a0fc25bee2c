//go:build linux

package daemon_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/reports"
)

// allUsersHarness is a root daemon with --all-users in a mount namespace
// whose password file lists root (an empty home) and the given accounts,
// and whose /home is the test's: the machine's own users are not watched.
func allUsersHarness(t *testing.T, names ...string) (*harness, []account) {
	t.Helper()
	needNamespace(t)
	h := newHarness(t)
	if err := os.Chmod(h.root, 0o755); err != nil {
		t.Fatal(err)
	}
	homes := filepath.Join(h.root, "homes")
	if err := os.MkdirAll(homes, 0o755); err != nil {
		t.Fatal(err)
	}
	var accts []account
	for _, n := range names {
		a := newAccount(t, filepath.Join(homes, n))
		accts = append(accts, a)
	}
	h.ns = &namespace{passwd: passwdWith(t, h.root, accts...), home: homes}
	h.extra = []string{"--all-users"}
	return h, accts
}

// statusAs runs `mcpguard status` as a and returns its stdout, stderr and
// exit code; it is stopped after 20s.
func statusAs(t *testing.T, a account, socket string, args ...string) (string, string, int) {
	t.Helper()
	cmd := a.as(append([]string{binary, "status", "--socket", socket}, args...)...)
	cmd.WaitDelay = time.Second
	cmd.Env = []string{"HOME=" + a.home, "PATH=" + os.Getenv("PATH")}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(20*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	_ = cmd.Wait()
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestDaemonAllUsersPrivacy: with --all-users, user B saw user A's
// file-error events (they carried no user) and A's project paths outside
// her home in sources[]. Now every event and source is attributed to its
// user and B sees only hers and the machine's; her --info counts her own
// servers; root's table says whose each server is.
func TestDaemonAllUsersPrivacy(t *testing.T) {
	h, accts := allUsersHarness(t, "ana", "bob")
	ana, bob := accts[0], accts[1]
	proj := filepath.Join(h.root, "srv", "anaproj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chown(proj, ana.uid, ana.gid)
	mustWrite(t, filepath.Join(proj, ".mcp.json"), `{"mcpServers": {"anaproj-srv": {"command": "node", "args": ["secret-project.js"]}}}`, 0o644)
	ana.write(t, ".claude.json", fmt.Sprintf(`{"projects": {%q: {"mcpServers": {"ana-local": {"command": "node", "args": ["l.js"]}}, "enabledMcpjsonServers": ["anaproj-srv"]}}}`, proj))
	ana.write(t, ".codeium/windsurf/mcp_config.json", `{"mcpServers": {"ana-w": {"command": "node", "args": ["w.js"]}}}`)
	ana.write(t, ".cursor/mcp.json", `{"mcpServers": {"ana-broken": `)
	bob.write(t, ".cursor/mcp.json", `{"mcpServers": {"bob-srv": {"command": "node", "args": ["b.js"]}}}`)
	mustWrite(t, filepath.Join(h.managed, "managed-mcp.json"), `{"mcpServers": {"corp": {"type": "http", "url": "https://mcp.corp.example/mcp"}}}`, 0o644)
	h.start()
	all := h.waitFor(0, "server-added:bob-srv", "server-added:ana-w", "server-added:anaproj-srv", "server-added:corp", "file-error")
	for _, e := range all {
		if e.Kind == "file-error" && strings.HasPrefix(e.Path, ana.home) && e.User != ana.name {
			t.Errorf("root's file-error event for ana's file names user %q", e.User)
		}
	}
	secretOf := []string{ana.home, proj, "ana-", "anaproj"}
	leaks := func(what, text string) {
		t.Helper()
		for _, s := range secretOf {
			if strings.Contains(text, s) {
				t.Errorf("bob's %s shows ana's %q:\n%s", what, s, text)
			}
		}
	}

	// bob's report.
	out, errOut, code := statusAs(t, bob, h.socket, "--format", "json", "--fail-on", "never")
	if code != 0 {
		t.Fatalf("bob's status: exit %d\n%s", code, errOut)
	}
	leaks("report", out)
	var rep reports.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range rep.Servers {
		names[s.Name] = true
	}
	if !names["bob-srv"] || !names["corp"] || len(rep.Servers) != 2 {
		t.Errorf("bob sees servers %v, want bob-srv and corp", names)
	}

	// bob's events.
	ev := helperCmd(t, bob, "events", "MCPGUARD_TEST_SOCKET="+h.socket)
	evOut, err := ev.Output()
	if err != nil {
		t.Fatalf("bob's events: %v", err)
	}
	leaks("events", string(evOut))
	for _, line := range strings.Split(strings.TrimSpace(string(evOut)), "\n") {
		var e events.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("bob's event %q: %v", line, err)
		}
		if e.User != "" && e.User != bob.name {
			t.Errorf("bob sees an event of %s: %s %s", e.User, e.Kind, e.Server)
		}
	}

	// bob's --info counts bob's inventory.
	out, errOut, _ = statusAs(t, bob, h.socket, "--info", "--format", "json")
	var st daemon.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("bob's --info: %v\n%s%s", err, out, errOut)
	}
	if st.Servers != len(rep.Servers) || st.Errors != 0 || st.User != bob.name {
		t.Errorf("bob's --info: %d servers, %d errors for user %q; want %d, 0, %s", st.Servers, st.Errors, st.User, len(rep.Servers), bob.name)
	}
	leaks("--info", out)

	// root's table names the user of each server.
	cmd := exec.Command(binary, "status", "--socket", h.socket, "--fail-on", "never")
	cmd.Env = h.env()
	table, _ := cmd.Output()
	header := ""
	for _, line := range strings.Split(string(table), "\n") {
		if strings.Contains(line, "CLIENT") {
			header = line
		}
		if strings.Contains(line, "bob-srv") && !strings.HasPrefix(line, bob.name+" ") {
			t.Errorf("root's row for bob-srv does not start with its user: %q", line)
		}
	}
	if !strings.HasPrefix(header, "USER ") {
		t.Errorf("root's table has no USER column:\n%s", table)
	}
	h.stop()
}

// TestDaemonAllUsersFromUserDatabase: users were read from /etc/passwd
// only, so that accounts of LDAP, SSSD or a directory service were not
// watched. Here an account only the OS's user database knows (a systemd
// user record, served through NSS; like SSSD it is not enumerated), whose
// home is in /home, is watched; and --users watches the accounts it names,
// looked up the same way.
func TestDaemonAllUsersFromUserDatabase(t *testing.T) {
	needNamespace(t)
	if data, err := os.ReadFile("/etc/nsswitch.conf"); err != nil || !strings.Contains(string(data), "systemd") {
		t.Skip("the user database has no systemd source (nss-systemd) here")
	}
	h := newHarness(t)
	if err := os.Chmod(h.root, 0o755); err != nil {
		t.Fatal(err)
	}
	uid := 61000 + rand.IntN(3000)
	if out, err := exec.Command("getent", "passwd", fmt.Sprint(uid)).Output(); err == nil && len(out) > 0 {
		t.Skipf("uid %d is taken", uid)
	}
	name := fmt.Sprintf("mgnss%d", uid)
	homes := filepath.Join(h.root, "homes")
	home := filepath.Join(homes, name)
	if err := os.MkdirAll(filepath.Join(home, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"dir-srv": {"command": "node", "args": ["d.js"]}}}`, 0o644)
	for _, p := range []string{home, filepath.Join(home, ".cursor"), filepath.Join(home, ".cursor", "mcp.json")} {
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	userdb := filepath.Join(h.root, "userdb")
	record := fmt.Sprintf(`{"userName": %q, "uid": %d, "gid": %d, "homeDirectory": "/home/%s", "shell": "/bin/bash", "disposition": "regular"}`, name, uid, uid, name)
	mustWrite(t, filepath.Join(userdb, name+".user"), record, 0o644)
	// The lookup by uid goes through UID.user (systemd's userdb layout).
	if err := os.Symlink(name+".user", filepath.Join(userdb, fmt.Sprint(uid)+".user")); err != nil {
		t.Fatal(err)
	}
	ns := &namespace{passwd: passwdWith(t, h.root), home: homes, userdb: userdb}
	argv := ns.wrap([]string{"getent", "passwd", fmt.Sprint(uid)})
	probe := exec.Command(argv[0], argv[1:]...)
	if out, err := probe.Output(); err != nil || !strings.HasPrefix(string(out), name+":") {
		t.Skipf("nss-systemd does not serve /run/userdb records here: %v %q", err, out)
	}
	h.ns = ns
	h.extra = []string{"--all-users"}
	h.start()
	evs := h.waitFor(0, "server-added:dir-srv")
	for _, e := range evs {
		if e.Kind == "server-added" && e.Server == "dir-srv" && e.User != name {
			t.Errorf("dir-srv belongs to %q, want %s", e.User, name)
		}
	}
	h.stop()

	// --users: this account only (root is not watched).
	h.extra = []string{"--all-users", "--users", name}
	h.start()
	st, err := h.client.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Users != 1 {
		t.Errorf("--users %s: %d users watched, want 1", name, st.Users)
	}
	h.stop()
	h.extra = []string{"--all-users", "--users", "no-such-user-mg"}
	h.state = filepath.Join(h.root, "state2")
	argv = ns.wrap(append([]string{binary, "daemon", "--state-dir", h.state, "--socket", filepath.Join(h.root, "x.sock")}, h.extra...))
	cmd := exec.Command(argv[0], argv[1:]...)
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "no-such-user-mg") {
		t.Errorf("--users with an unknown user: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
	}
}

// daemonFDs counts the daemon process's open descriptors.
func daemonFDs(t *testing.T, pid int) int {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	return len(entries)
}

// startFlood runs the flood helper as a: follows event streams and idle
// silent connections, held for hold at most, or until the test ends. It
// returns the helper's account of what the daemon answered.
func startFlood(t *testing.T, a account, socket string, follows, idle int, hold time.Duration) string {
	t.Helper()
	flood := helperCmd(t, a, "flood", "MCPGUARD_TEST_SOCKET="+socket, fmt.Sprintf("MCPGUARD_TEST_FOLLOWS=%d", follows),
		fmt.Sprintf("MCPGUARD_TEST_IDLE=%d", idle), "MCPGUARD_TEST_HOLD="+hold.String())
	stdin, err := flood.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := flood.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	flood.Stderr = os.Stderr
	if err := flood.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = flood.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("flood: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return line
}

// TestDaemonFollowFloodFromAnotherUser: one user holding thousands of
// event streams and silent connections made the landed daemon hold
// hundreds of MB and run out of descriptors, report another user's new
// server minutes late, and say healthy. Now each user gets a few
// connections and streams, the rest are refused with 429, the status says
// api-limit, and another user's change is reported as usual.
func TestDaemonFollowFloodFromAnotherUser(t *testing.T) {
	h, accts := allUsersHarness(t, "ana", "eve")
	ana, eve := accts[0], accts[1]
	ana.write(t, ".cursor/mcp.json", `{"mcpServers": {"ana-1": {"command": "node", "args": ["1.js"]}}}`)
	h.start()
	h.waitFor(0, "server-added:ana-1")
	before := daemonFDs(t, h.cmd.Process.Pid)

	line := startFlood(t, eve, h.socket, 400, 400, time.Minute)
	var streams, refused, failed, idle int
	if _, err := fmt.Sscanf(line, "streams=%d refused=%d failed=%d idle=%d", &streams, &refused, &failed, &idle); err != nil {
		t.Fatalf("flood said %q", line)
	}
	t.Logf("flood: %s", strings.TrimSpace(line))
	if streams > 16 || refused == 0 {
		t.Errorf("one user got %d event streams and %d refusals", streams, refused)
	}
	if fds := daemonFDs(t, h.cmd.Process.Pid); fds > before+64 {
		t.Errorf("the daemon holds %d descriptors under the flood (%d before)", fds, before)
	}
	// Another user's change is seen as usual; root is served.
	n := h.seq()
	ana.write(t, ".cursor/mcp.json", `{"mcpServers": {"ana-1": {"command": "node", "args": ["1.js"]}, "ana-2": {"command": "node", "args": ["2.js"]}}}`)
	h.waitFor(n, "server-added:ana-2")
	st, err := h.client.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !degraded(st, "api-limit") {
		t.Errorf("under a flood the status says %+v", st.Degraded)
	}
	// The flooder is told why, once her burst of connections has been
	// turned away (a burst gets a few answers at once, the rest are closed
	// unanswered).
	time.Sleep(time.Second)
	_, errOut, code := statusAs(t, eve, h.socket, "--follow")
	if code != 2 || !strings.Contains(errOut, "limit") {
		t.Errorf("eve's own follow under her flood: exit %d, %q", code, errOut)
	}
	h.stop()
}

// TestStatusRefusesAnotherUsersDaemon: with a socket in a directory another
// user controls, that user can serve a daemon there; root's status believed
// it. Now status checks the server's peer credentials first.
func TestStatusRefusesAnotherUsersDaemon(t *testing.T) {
	h := newHarness(t)
	if err := os.Chmod(h.root, 0o755); err != nil {
		t.Fatal(err)
	}
	bob := newAccount(t, filepath.Join(h.root, "bob"))
	socket := filepath.Join(bob.home, "run", "d.sock")
	fake := bob.as(binary, "daemon", "--home", bob.home, "--managed-dir", filepath.Join(bob.home, "managed"),
		"--state-dir", filepath.Join(bob.home, "state"), "--socket", socket, "--resync", "1h")
	fake.Env = []string{"HOME=" + bob.home, "PATH=" + os.Getenv("PATH")}
	var fakeErr strings.Builder
	fake.Stderr = &fakeErr
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = fake.Process.Kill(); _ = fake.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Lstat(socket); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("bob's daemon did not start:\n%s", fakeErr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// bob's socket is 0600 in his 0700 directory: as he would open it to
	// fool root.
	_ = os.Chmod(filepath.Dir(socket), 0o755)
	_ = os.Chmod(socket, 0o666)
	for _, args := range [][]string{{}, {"--info"}, {"--follow"}, {"--follow", "--since", "0"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, append([]string{"status", "--socket", socket}, args...)...)
		cmd.Env = h.env()
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "neither root nor you") {
			t.Errorf("root's status %v on bob's daemon: exit %d\n%s", args, cmd.ProcessState.ExitCode(), out)
		}
	}
	// bob may of course ask his own daemon.
	if _, errOut, code := statusAs(t, bob, socket, "--info"); code != 0 {
		t.Errorf("bob's status of his own daemon: exit %d %s", code, errOut)
	}
}
