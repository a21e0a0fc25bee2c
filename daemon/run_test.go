package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
)

// runInProcess starts Run in this process (so that -race sees the loop and
// the API together) and returns a client and a stop function that checks a
// clean exit.
func runInProcess(t testing.TB, opts Options) (*Client, func()) {
	t.Helper()
	root, err := os.MkdirTemp("", "mgr-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if opts.StateDir == "" {
		opts.StateDir = filepath.Join(root, "state")
	}
	opts.Socket = filepath.Join(root, "d.sock")
	opts.Events = filepath.Join(root, "events.jsonl")
	opts.Debounce, opts.Resync = 20*time.Millisecond, time.Hour
	ready := make(chan struct{})
	opts.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, opts) }()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Run: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("daemon not ready")
	}
	return NewClient(opts.Socket), func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after cancel")
		}
		if _, err := os.Lstat(opts.Socket); err == nil {
			t.Error("socket left behind")
		}
	}
}

func waitEvents(t testing.TB, c *Client, since int64, kind, server string) []events.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var evs []events.Event
		if _, err := c.Events(context.Background(), since, false, func(e events.Event, _ []byte) error {
			evs = append(evs, e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.Kind == kind && (server == "" || e.Server == server) {
				return evs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event for %q", kind, server)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunInProcess(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}}}`)
	c, stop := runInProcess(t, Options{Home: home, GOOS: "linux"})
	defer stop()
	waitEvents(t, c, 0, "server-added", "a")

	// A follower sees the next event as it happens.
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan events.Event, 16)
	fctx, fcancel := context.WithCancel(context.Background())
	defer fcancel()
	go c.Events(fctx, st.EventSeq, true, func(e events.Event, _ []byte) error { got <- e; return nil })
	write(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}}}`)
	select {
	case e := <-got:
		if e.Kind != "server-added" || e.Server != "b" {
			t.Errorf("followed %s %s, want server-added b", e.Kind, e.Server)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower saw nothing")
	}
	rep, err := c.Report(context.Background())
	if err != nil || len(rep.Servers) != 2 {
		t.Fatalf("report: %v, %+v", err, rep)
	}
}

// TestRunAllUsers: every user's servers, each owned, ids distinct.
func TestRunAllUsers(t *testing.T) {
	root := t.TempDir()
	var users []User
	for i, name := range []string{"ana", "bob"} {
		home := filepath.Join(root, name)
		write(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "gh@1.0.0"]}}}`)
		users = append(users, User{Name: name, UID: 1000 + i, Home: home})
	}
	c, stop := runInProcess(t, Options{AllUsers: true, GOOS: "linux", Users: func() ([]User, error) { return users, nil }})
	defer stop()
	rep, err := c.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]bool{}
	ids := map[string]bool{}
	for _, s := range rep.Servers {
		owners[s.User] = true
		ids[s.ID] = true
	}
	if !owners["ana"] || !owners["bob"] || len(ids) != 2 {
		t.Errorf("servers %+v", rep.Servers)
	}
	// A change in one home is that user's event.
	st, _ := c.Status(context.Background())
	write(t, filepath.Join(root, "bob", ".cursor", "mcp.json"), `{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "gh@1.0.0"]}, "x": {"command": "node", "args": ["x.js"]}}}`)
	for _, e := range waitEvents(t, c, st.EventSeq, "server-added", "x") {
		if e.Kind == "server-added" && e.User != "bob" {
			t.Errorf("event for bob's server names user %q", e.User)
		}
	}
	if st, _ := c.Status(context.Background()); st.Users != 2 {
		t.Errorf("status users %d, want 2", st.Users)
	}
}

// TestStartRefusesAnInvalidPolicy: with no last good policy, the daemon
// does not start rather than allow what the policy would deny.
func TestStartRefusesAnInvalidPolicy(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "p.rego")
	write(t, bad, "package mcpguard.custom.x\n\ndeny contains x if {\n")
	err := Run(context.Background(), Options{Home: dir, StateDir: filepath.Join(dir, "state"), Policies: []string{bad}})
	if err == nil {
		t.Fatal("started with a policy that does not compile")
	}
	badJSON := filepath.Join(dir, "p.json")
	write(t, badJSON, `{"allowedMcpServers": [`)
	if err := Run(context.Background(), Options{Home: dir, StateDir: filepath.Join(dir, "state"), Policies: []string{badJSON}}); err == nil {
		t.Fatal("started with a JSON policy that does not parse")
	}
}

// TestCorruptStateIsMovedAside: an unreadable state file does not stop the
// daemon; it is kept aside and the start says so.
func TestCorruptStateIsMovedAside(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(t.TempDir(), "state")
	write(t, filepath.Join(state, stateFile), "{not json")
	c, stop := runInProcess(t, Options{Home: home, StateDir: state, GOOS: "linux"})
	defer stop()
	evs := waitEvents(t, c, 0, "daemon-start", "")
	if evs[0].Details["state_note"] == nil {
		t.Errorf("daemon-start does not mention the corrupt state: %+v", evs[0].Details)
	}
	matches, _ := filepath.Glob(filepath.Join(state, stateFile+".corrupt-*"))
	if len(matches) != 1 {
		t.Errorf("corrupt state not kept aside: %v", matches)
	}
}

// TestMemoryReleasedWhenQuiet: the daemon returns unused memory once after
// start and once after each scan, when quiet for ReleaseAfter, and does no
// such work while nothing changes.
func TestMemoryReleasedWhenQuiet(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, ".cursor", "mcp.json")
	write(t, file, `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}}}`)
	const quiet = 100 * time.Millisecond
	c, stop := runInProcess(t, Options{Home: home, GOOS: "linux", ReleaseAfter: quiet})
	defer stop()
	released := func(after string) string {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			st, err := c.Status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if m := st.Memory; m.ReleasedAt != "" && m.ReleasedAt != after {
				if m.HeldBytes == 0 || m.HeapBytes == 0 || m.HeapBytes > m.HeldBytes {
					t.Fatalf("memory status %+v", m)
				}
				return m.ReleasedAt
			}
			if time.Now().After(deadline) {
				t.Fatalf("no release after %q", after)
			}
		}
	}
	first := released("")
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	write(t, file, `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}}}`)
	waitEvents(t, c, st.EventSeq, "server-added", "b")
	second := released(first)
	// Idle: no change, no scan, no release.
	time.Sleep(5 * quiet)
	if st, err = c.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st.Memory.ReleasedAt != second {
		t.Fatalf("released again while idle: %s after %s", st.Memory.ReleasedAt, second)
	}
}
