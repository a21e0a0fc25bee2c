//go:build linux

package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/internal/events"
)

// These tests play a local user and a faulty machine against the daemon,
// each as issue 43 found the landed daemon failing: planted state
// directories and files, a follow flood, a full disk, a rotated event
// file, a fake daemon on the socket, and users' privacy with --all-users.

// startFails runs the daemon with args and returns its exit code and
// stderr; it fails the test when the daemon is still running after 10s.
func (h *harness) startFails(args ...string) (int, string) {
	h.t.Helper()
	cmd := exec.Command(binary, append([]string{"daemon", "--home", h.home, "--managed-dir", h.managed, "--resync", "1h"}, args...)...)
	cmd.Dir, cmd.Env = h.cwd, h.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			h.t.Errorf("the daemon hung at start; it stopped only at SIGTERM\n%s", stderr.String())
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			h.t.Errorf("the daemon hung at start and ignored SIGTERM\n%s", stderr.String())
		}
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func mustWrite(t *testing.T, p, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDaemonRefusesPlantedStateDir: another user's directory, in a sticky
// world-writable one as /tmp is (the help text's own --state-dir /tmp/mg),
// with daemon.lock and events.jsonl symlinked to root-only files. The root
// daemon refuses it, exit 2, and both files are untouched; so is a
// directory writable by everyone, a socket directory of another user's,
// and a symlinked file in the daemon's own directory. A path that does not
// exist yet is fine: the daemon makes it 0700.
func TestDaemonRefusesPlantedStateDir(t *testing.T) {
	h := newHarness(t)
	if err := os.Chmod(h.root, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(h.root, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	bob := newAccount(t, filepath.Join(h.root, "bob"))
	secret1, secret2 := filepath.Join(h.root, "root-only-1"), filepath.Join(h.root, "root-only-2")
	mustWrite(t, secret1, "root secret one\n", 0o600)
	mustWrite(t, secret2, "root secret two\n", 0o600)
	planted := filepath.Join(tmp, "mg")
	for _, argv := range [][]string{
		{"mkdir", "-m", "0755", planted},
		{"ln", "-s", secret1, filepath.Join(planted, "daemon.lock")},
		{"ln", "-s", secret2, filepath.Join(planted, "events.jsonl")},
		{"mkdir", "-m", "0755", filepath.Join(tmp, "bobsock")},
	} {
		if out, err := bob.as(argv...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", argv, err, out)
		}
	}
	check := func(name string, wantInErr string, args ...string) {
		t.Helper()
		code, stderr := h.startFails(args...)
		if code != 2 || !strings.Contains(stderr, wantInErr) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s", name, code, wantInErr, stderr)
		}
		if got := mustRead(t, secret1) + mustRead(t, secret2); got != "root secret one\nroot secret two\n" {
			t.Fatalf("%s: a root-only file was written through a planted symlink: %q", name, got)
		}
		if strings.Contains(stderr, "root secret") {
			t.Errorf("%s: a file's contents reached the log", name)
		}
	}
	check("another user's state directory", "owned by uid "+strconv.Itoa(bob.uid),
		"--state-dir", planted, "--socket", filepath.Join(h.root, "s1.sock"))
	open := filepath.Join(h.root, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(open, 0o777)
	check("a state directory everyone may write", "writable by other users", "--state-dir", open, "--socket", filepath.Join(h.root, "s2.sock"))
	check("another user's socket directory", "owned by uid "+strconv.Itoa(bob.uid),
		"--state-dir", filepath.Join(h.root, "st3"), "--socket", filepath.Join(tmp, "bobsock", "d.sock"))
	check("an event file in another user's directory", "owned by uid "+strconv.Itoa(bob.uid),
		"--state-dir", filepath.Join(h.root, "st4"), "--socket", filepath.Join(h.root, "s4.sock"), "--events", filepath.Join(planted, "events.jsonl"))
	own := filepath.Join(h.root, "own")
	if err := os.Mkdir(own, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret2, filepath.Join(own, "events.jsonl")); err != nil {
		t.Fatal(err)
	}
	check("a symlinked event file", "symbolic link", "--state-dir", own, "--socket", filepath.Join(h.root, "s5.sock"))

	// Made by the daemon itself, in the sticky directory: fine, and 0700.
	fresh := filepath.Join(tmp, "fresh", "mg")
	h.state, h.socket, h.evs = fresh, filepath.Join(fresh, "d.sock"), filepath.Join(fresh, "events.jsonl")
	h.client = daemon.NewClient(h.socket)
	h.start()
	for _, d := range []string{filepath.Dir(fresh), fresh} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s made with %v, %v; want 0700", d, fi.Mode(), err)
		}
	}
	h.stop()
}

// TestDaemonRefusesSpecialStateFiles: state.json as a FIFO (the daemon
// blocked at start and ignored SIGTERM), as a symlink to a secret (it was
// read, moved aside and its first byte shown in daemon-start), a key or
// lock file that is not a regular file: each is refused at once, exit 2,
// without reading it. A corrupt regular state file is moved aside, and the
// note says so without quoting it.
func TestDaemonRefusesSpecialStateFiles(t *testing.T) {
	h := newHarness(t)
	secret := filepath.Join(h.root, "shadow")
	mustWrite(t, secret, "Sroot:$6$secrethash:19000:0:99999:7:::\n", 0o600)
	for _, tc := range []struct {
		name, file string
		make       func(p string) error
	}{
		{"state FIFO", "state.json", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"state symlink", "state.json", func(p string) error { return os.Symlink(secret, p) }},
		{"key FIFO", "state.key", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"lock symlink", "daemon.lock", func(p string) error { return os.Symlink(secret, p) }},
		{"lock FIFO", "daemon.lock", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
	} {
		state := filepath.Join(h.root, "st-"+strings.ReplaceAll(tc.name, " ", "-"))
		if err := os.Mkdir(state, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := tc.make(filepath.Join(state, tc.file)); err != nil {
			t.Fatal(err)
		}
		code, stderr := h.startFails("--state-dir", state, "--socket", filepath.Join(state, "d.sock"))
		if code != 2 || !strings.Contains(stderr, tc.file) || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s: exit %d, want 2 naming %s as not a regular file\n%s", tc.name, code, tc.file, stderr)
		}
		if strings.Contains(stderr, "secrethash") || strings.Contains(stderr, "'S'") {
			t.Errorf("%s: the file's contents reached the log:\n%s", tc.name, stderr)
		}
		if fi, err := os.Lstat(filepath.Join(state, tc.file)); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s: the file was moved or replaced: %v %v", tc.name, fi, err)
		}
	}
	if got := mustRead(t, secret); !strings.HasPrefix(got, "Sroot:") {
		t.Fatalf("the secret changed: %q", got)
	}

	// A corrupt regular file: moved aside, said so, never quoted.
	mustWrite(t, filepath.Join(h.state, "state.json"), "Secret-token-ghp_x{", 0o600)
	if err := os.Chmod(h.state, 0o700); err != nil {
		t.Fatal(err)
	}
	h.start()
	evs := h.waitFor(0, "daemon-start")
	note, _ := evs[0].Details["state_note"].(string)
	if note == "" || strings.Contains(note, "'S'") || strings.Contains(note, "Secret") {
		t.Errorf("state_note %q: want a note that does not quote the file", note)
	}
	h.stop()
}

// TestDaemonRefusesAnImplausibleSeq: a state whose event number is near
// 2^63 (it wrapped to negative numbers, and since=0 returned one line) is
// refused, and so is an event file holding one.
func TestDaemonRefusesAnImplausibleSeq(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.waitFor(0, "server-added:a")
	h.stop()
	statePath := filepath.Join(h.state, "state.json")
	var st map[string]any
	if err := json.Unmarshal([]byte(mustRead(t, statePath)), &st); err != nil {
		t.Fatal(err)
	}
	good := mustRead(t, statePath)
	st["seq"] = json.Number("9223372036854775000")
	data, _ := json.Marshal(st)
	mustWrite(t, statePath, string(data), 0o600)
	code, stderr := h.startFails("--state-dir", h.state, "--socket", h.socket, "--events", h.evs)
	if code != 2 || !strings.Contains(stderr, "9223372036854775000") {
		t.Errorf("implausible state seq: exit %d, want 2 naming the number\n%s", code, stderr)
	}
	mustWrite(t, statePath, good, 0o600)
	f, err := os.OpenFile(h.evs, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"schema":"mcpguard/event/v1","seq":9223372036854775807,"time":"2026-01-01T00:00:00Z","source":"daemon","kind":"x","message":""}`+"\n")
	f.Close()
	code, stderr = h.startFails("--state-dir", h.state, "--socket", h.socket, "--events", h.evs)
	if code != 2 || !strings.Contains(stderr, "9223372036854775807") {
		t.Errorf("implausible event file seq: exit %d, want 2 naming the number\n%s", code, stderr)
	}
}

// TestDaemonSharedEventFileRefused: two daemons with different state
// directories on one event file numbered events twice; the second refuses.
func TestDaemonSharedEventFileRefused(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.waitFor(0, "server-added:a")
	code, stderr := h.startFails("--state-dir", filepath.Join(h.root, "other"), "--socket", filepath.Join(h.root, "o.sock"), "--events", h.evs)
	if code != 2 || !strings.Contains(stderr, "another mcpguard daemon writes this event file") {
		t.Errorf("second daemon on one event file: exit %d\n%s", code, stderr)
	}
	h.stop()
}

// fileEvents reads the daemon's events from files, in order, failing on a
// line that is not a whole event.
func fileEvents(t *testing.T, paths ...string) []events.Event {
	t.Helper()
	var out []events.Event
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			t.Errorf("%s does not end with a whole line: %q", p, tail(data))
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e events.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Schema != events.Schema {
				t.Errorf("%s: a torn or foreign line: %q", p, sc.Text())
				continue
			}
			out = append(out, e)
		}
	}
	return out
}

func tail(b []byte) []byte {
	if len(b) > 80 {
		return b[len(b)-80:]
	}
	return b
}

// checkComplete checks that evs are numbered from first without a gap or a
// repeat, but for ranges an events-dropped event accounts for.
func checkComplete(t *testing.T, evs []events.Event, first int64) {
	t.Helper()
	next := first
	for _, e := range evs {
		if e.Kind == "events-dropped" {
			from, _ := e.Details["first"].(float64)
			to, _ := e.Details["last"].(float64)
			if int64(from) != next || int64(to) != e.Seq-1 {
				t.Errorf("events-dropped #%d names #%v-#%v, want #%d-#%d", e.Seq, from, to, next, e.Seq-1)
			}
			next = e.Seq
		}
		if e.Seq != next {
			t.Errorf("event #%d (%s) where #%d was due", e.Seq, e.Kind, next)
		}
		next = e.Seq + 1
	}
}

// TestDaemonFullDisk: on a full disk the landed daemon tore a line (an
// event cut mid-string joined to a later one), lost events for good, and
// said healthy after the first write that worked. Now the events wait in
// memory, the status stays degraded until every one is written, and the
// file has them all, whole and in order, once there is room again — with
// no further change needed to write them.
func TestDaemonFullDisk(t *testing.T) {
	h := newHarness(t)
	evDir := filepath.Join(h.root, "evfs")
	daemon.MountTmpfs(t, evDir, "256k")
	h.evs = filepath.Join(evDir, "events.jsonl")
	h.start()
	h.waitFor(0, "server-added:gh")
	filler, err := daemon.FillUp(evDir)
	if err != nil {
		t.Fatal(err)
	}
	n := h.seq()
	// Each edit adds a server with long arguments: its event does not fit
	// in what is left of the file's last block.
	long := strings.Repeat("a", 3000)
	servers := `"a": {"command": "npx", "args": ["-y", "pkg-a@1.0.0"]}`
	for i := 0; i < 5; i++ {
		servers += fmt.Sprintf(`, "s%d": {"command": "node", "args": ["%s%d"]}`, i, long, i)
		h.write(".cursor/mcp.json", `{"mcpServers": {`+servers+`}}`)
		h.waitFor(n, fmt.Sprintf("server-added:s%d", i))
	}
	st, err := h.client.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !degraded(st, "events-unwritable") {
		t.Fatalf("a full disk and the status says %+v", st.Degraded)
	}
	// Nothing torn so far.
	fileEvents(t, h.evs)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	// Written without another change, by the daemon's own retry.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err = h.client.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !degraded(st, "events-unwritable") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still degraded 30s after the disk has room: %+v", st.Degraded)
		}
		time.Sleep(100 * time.Millisecond)
	}
	evs := fileEvents(t, h.evs)
	checkComplete(t, evs, 1)
	if last := evs[len(evs)-1].Seq; last != st.EventSeq {
		t.Errorf("the file ends at #%d, the daemon at #%d", last, st.EventSeq)
	}
	h.stop()
	checkComplete(t, fileEvents(t, h.evs), 1)
}

func degraded(st *daemon.Status, kind string) bool {
	for _, d := range st.Degraded {
		if d.Kind == kind {
			return true
		}
	}
	return false
}

// TestDaemonEventFileRotation: a rotated (renamed: logrotate's create) or
// deleted event file was written on in the old inode forever. Now the
// daemon writes to a file at the path again; after copytruncate it goes on
// in the truncated file. No event is lost or torn across the three.
func TestDaemonEventFileRotation(t *testing.T) {
	h := newHarness(t)
	h.start()
	h.waitFor(0, "server-added:gh")
	var rotated []string
	edit := func(i int) {
		t.Helper()
		n := h.seq()
		h.write(".cursor/mcp.json", fmt.Sprintf(`{"mcpServers": {"a": {"command": "npx", "args": ["-y", "pkg-a@1.0.%d"]}}}`, i))
		h.waitFor(n, "server-changed:a")
	}
	edit(1)
	// logrotate create: rename, and a new file made by logrotate.
	r1 := h.evs + ".1"
	if err := os.Rename(h.evs, r1); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, h.evs, "", 0o600)
	rotated = append(rotated, r1)
	edit(2)
	// Deleted outright.
	r2 := h.evs + ".2"
	if err := os.Rename(h.evs, r2); err != nil {
		t.Fatal(err)
	}
	rotated = append(rotated, r2)
	edit(3)
	if _, err := os.Stat(h.evs); err != nil {
		t.Fatalf("no event file after it was removed and an event came: %v", err)
	}
	// copytruncate: copy, then truncate in place.
	r3 := h.evs + ".3"
	mustWrite(t, r3, mustRead(t, h.evs), 0o600)
	if err := os.Truncate(h.evs, 0); err != nil {
		t.Fatal(err)
	}
	rotated = append(rotated, r3)
	edit(4)
	h.stop()
	all := fileEvents(t, append(rotated, h.evs)...)
	checkComplete(t, all, 1)
	if data := mustRead(t, h.evs); strings.Contains(data, "\x00") {
		t.Error("copytruncate left a hole of NUL bytes")
	}
	if len(fileEvents(t, h.evs)) == 0 {
		t.Error("nothing written after copytruncate")
	}
}
