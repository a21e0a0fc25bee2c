package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/reports"
)

// Client talks to a daemon's API on its unix socket. It believes only a
// server that runs as root or as the calling user (the socket's peer
// credentials, SO_PEERCRED or LOCAL_PEERCRED): anyone who can create a
// socket at that path could otherwise serve a report of their choosing.
type Client struct {
	socket string
	http   *http.Client
	// trust is a uid believed besides root and the caller (Trust).
	trust int
}

// NoDaemonError reports that nothing serves the socket: it does not exist,
// or nobody listens on it.
type NoDaemonError struct {
	Socket string
	Err    error
}

func (e *NoDaemonError) Error() string { return "no mcpguard daemon at " + e.Socket }
func (e *NoDaemonError) Unwrap() error { return e.Err }

// UntrustedDaemonError reports a socket served by a process that is
// neither root nor the calling user.
type UntrustedDaemonError struct {
	Socket string
	UID    int
}

func (e *UntrustedDaemonError) Error() string {
	return fmt.Sprintf("the socket %s is served by %s, neither root nor you: not believing it (a user's own daemon or the system's never runs as someone else)", e.Socket, describeUID(e.UID))
}

// NewClient returns a client of the daemon listening on socket.
func NewClient(socket string) *Client {
	c := &Client{socket: socket, trust: -1}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, "unix", socket)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
					return nil, &NoDaemonError{Socket: socket, Err: err}
				}
				return nil, err
			}
			if p, ok := peerOf(conn); ok && p.uid != 0 && p.uid != os.Geteuid() && p.uid != c.trust {
				conn.Close()
				return nil, &UntrustedDaemonError{Socket: socket, UID: p.uid}
			}
			return conn, nil
		},
		DisableCompression: true,
	}
	c.http = &http.Client{Transport: tr}
	return c
}

// Trust makes c believe a daemon that runs as uid too: root reading a
// daemon it started as another user. It returns c.
func (c *Client) Trust(uid int) *Client {
	c.trust = uid
	return c
}

func (c *Client) get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://mcpguard"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var nd *NoDaemonError
		var ud *UntrustedDaemonError
		switch {
		case errors.As(err, &nd):
			return nil, nd
		case errors.As(err, &ud):
			return nil, ud
		case errors.Is(err, fs.ErrPermission):
			return nil, fmt.Errorf("daemon at %s: permission denied (the socket is open to root and the daemon's user only, and to every user when the daemon runs with --all-users)", c.socket)
		}
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, fmt.Errorf("daemon at %s: %w", c.socket, op.Err)
		}
		return nil, fmt.Errorf("daemon at %s: %w", c.socket, err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, fmt.Errorf("daemon at %s: %s: %s", c.socket, resp.Status, body)
	}
	return resp, nil
}

// Report returns the daemon's current report.
func (c *Client) Report(ctx context.Context) (*reports.Report, error) {
	resp, err := c.get(ctx, "/v1/report")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var rep reports.Report
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		return nil, fmt.Errorf("daemon at %s: report: %w", c.socket, err)
	}
	return &rep, nil
}

// Status returns the daemon's status.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	resp, err := c.get(ctx, "/v1/status")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var st Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("daemon at %s: status: %w", c.socket, err)
	}
	return &st, nil
}

// Events calls fn with every event after since; with follow it waits for
// new ones until ctx ends or the daemon stops. It returns the number of the
// last event seen, from which a later call resumes.
func (c *Client) Events(ctx context.Context, since int64, follow bool, fn func(events.Event, []byte) error) (int64, error) {
	return c.Stream(ctx, since, follow, nil, fn)
}

// Stream is Events, calling connected (when not nil) once the daemon
// answered, before the first event.
func (c *Client) Stream(ctx context.Context, since int64, follow bool, connected func(), fn func(events.Event, []byte) error) (int64, error) {
	path := "/v1/events?since=" + strconv.FormatInt(since, 10)
	if follow {
		path += "&follow=1"
	}
	resp, err := c.get(ctx, path)
	if err != nil {
		return since, err
	}
	defer resp.Body.Close()
	if connected != nil {
		connected()
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e events.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return since, fmt.Errorf("daemon at %s: event: %w", c.socket, err)
		}
		since = e.Seq
		if err := fn(e, sc.Bytes()); err != nil {
			return since, err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return since, fmt.Errorf("daemon at %s: events: %w", c.socket, err)
	}
	return since, nil
}
