package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/reports"
)

// Client talks to a daemon's API on its unix socket.
type Client struct {
	socket string
	http   *http.Client
}

// NewClient returns a client of the daemon listening on socket.
func NewClient(socket string) *Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		DisableCompression: true,
	}
	return &Client{socket: socket, http: &http.Client{Transport: tr}}
}

func (c *Client) get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://mcpguard"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
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
	path := "/v1/events?since=" + strconv.FormatInt(since, 10)
	if follow {
		path += "&follow=1"
	}
	resp, err := c.get(ctx, path)
	if err != nil {
		return since, err
	}
	defer resp.Body.Close()
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
