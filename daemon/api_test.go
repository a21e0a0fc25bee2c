package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
)

// rawRequest sends req on a new connection to socket and returns the
// status line of the answer ("" when the connection closed unanswered).
func rawRequest(t *testing.T, socket, req string) string {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		return ""
	}
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// TestAPILimits: the API refuses what is over its limits with a clear
// status, and says so in the status (api-limit): event streams and
// connections per user, silent and idle connections, large headers, a
// body. In this process the peer is the daemon's own user, so the trusted
// limits are the ones set low.
func TestAPILimits(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}}}`)
	lim := APILimits{TrustedStreams: 2, TrustedConns: 4, HeaderTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, MaxHeaderBytes: 1024}
	c, stop := runInProcess(t, Options{Home: home, GOOS: "linux", APILimits: lim})
	defer stop()
	socket := c.socket
	if st, err := c.Status(context.Background()); err != nil || len(st.Degraded) != 0 {
		t.Fatalf("status %v, %+v", err, st)
	}

	// Event streams: two, the third refused.
	ctx, cancel := context.WithCancel(context.Background())
	var open atomic.Int32
	for range 2 {
		go func() {
			_, _ = NewClient(socket).Stream(ctx, 0, true, func() { open.Add(1) }, func(events.Event, []byte) error { return nil })
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); open.Load() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the streams did not open")
		}
	}
	_, err := NewClient(socket).Events(context.Background(), 0, true, func(events.Event, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "2 event streams") {
		t.Errorf("a third stream: %v, want 429 naming the limit", err)
	}
	// Connections: the two streams hold two of four.
	var held []net.Conn
	for range 2 {
		conn, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, conn)
	}
	time.Sleep(50 * time.Millisecond)
	if got := rawRequest(t, socket, "GET /v1/status HTTP/1.1\r\nHost: mcpguard\r\n\r\n"); !strings.Contains(got, "429") {
		t.Errorf("a fifth connection: %q, want 429", got)
	}
	// Silent connections are closed after HeaderTimeout, which frees them.
	for _, conn := range held {
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Errorf("a silent connection: %v, want it closed by the daemon", err)
		}
		conn.Close()
	}
	cancel()
	var st *Status
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, err = c.Status(context.Background()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status after the connections went: %v", err)
		}
	}
	found := false
	for _, d := range st.Degraded {
		found = found || d.Kind == "api-limit"
	}
	if !found || st.API.Refused < 2 {
		t.Errorf("after refusals the status says %+v, %+v", st.Degraded, st.API)
	}
	// The streams' connections go as their clients notice the cancel.
	for deadline := time.Now().Add(10 * time.Second); st.API.Connections > 1 || st.API.Streams > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("connections left: %+v", st.API)
		}
		if st, err = c.Status(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// Headers over the limit; a body.
	big := "GET /v1/status HTTP/1.1\r\nHost: mcpguard\r\nX-Big: " + strings.Repeat("x", 8192) + "\r\n\r\n"
	if got := rawRequest(t, socket, big); !strings.Contains(got, "431") {
		t.Errorf("large headers: %q, want 431", got)
	}
	if got := rawRequest(t, socket, "GET /v1/status HTTP/1.1\r\nHost: mcpguard\r\nContent-Length: 5\r\n\r\nhello"); !strings.Contains(got, "413") {
		t.Errorf("a body: %q, want 413", got)
	}
	// A kept-alive connection that waits is closed after IdleTimeout.
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /healthz HTTP/1.1\r\nHost: mcpguard\r\n\r\n")
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Errorf("an idle kept-alive connection: %v, want it closed", err)
	}
}

// TestScanFailureRetried: a scan that fails (here the user list cannot be
// read: the landed daemon's "open /etc/passwd: too many open files") left
// the inventory stale without a word until the next change. Now the status
// says scan-failed, a scan-failed event is written once, and the scan is
// retried with backoff until it works, with no further change needed.
func TestScanFailureRetried(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "ana")
	file := filepath.Join(home, ".cursor", "mcp.json")
	write(t, file, `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}}}`)
	var failing atomic.Bool
	users := func() ([]User, error) {
		if failing.Load() {
			return nil, errors.New("open /etc/passwd: too many open files")
		}
		return []User{{Name: "ana", UID: 1000, Home: home}}, nil
	}
	c, stop := runInProcess(t, Options{AllUsers: true, GOOS: "linux", Users: users, ScanRetry: 50 * time.Millisecond})
	defer stop()
	waitEvents(t, c, 0, "server-added", "a")
	st, _ := c.Status(context.Background())
	failing.Store(true)
	write(t, file, `{"mcpServers": {"a": {"command": "node", "args": ["a.js"]}, "b": {"command": "node", "args": ["b.js"]}}}`)
	evs := waitEvents(t, c, st.EventSeq, "scan-failed", "")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if st, _ = c.Status(context.Background()); len(st.Degraded) > 0 && st.Degraded[0].Kind == "scan-failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("degraded %+v, want scan-failed", st.Degraded)
		}
	}
	time.Sleep(300 * time.Millisecond) // several retries, all failing
	failing.Store(false)
	waitEvents(t, c, evs[len(evs)-1].Seq, "server-added", "b")
	n := 0
	for _, e := range waitEvents(t, c, 0, "server-added", "b") {
		if e.Kind == "scan-failed" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d scan-failed events for one run of failures, want 1", n)
	}
	if st, _ = c.Status(context.Background()); len(st.Degraded) != 0 {
		t.Errorf("still degraded after the scan worked: %+v", st.Degraded)
	}
}
