package introspect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/internal/mcpio"
)

// errAuthRequired is a remote server that answered 401: it wants an OAuth
// login, which introspection never starts.
type errAuthRequired struct {
	// metadata is the protected-resource metadata URL (RFC 9728): from the
	// WWW-Authenticate header, or the well-known default.
	metadata string
}

func (e *errAuthRequired) Error() string { return "authorization required" }

// httpConn speaks MCP's Streamable HTTP transport, or, with sse set, the
// legacy HTTP+SSE transport (a GET event stream that names the endpoint
// to POST messages to).
type httpConn struct {
	client  *http.Client
	url     *url.URL
	headers map[string]string
	sse     bool

	ctx    context.Context // ends every request and stream when cancelled
	cancel context.CancelFunc
	inbox  chan []byte
	failed chan error // the first stream failure
	fail   sync.Once
	bodies sync.WaitGroup
	total  atomic.Int64
	max    int64

	mu        sync.Mutex
	sessionID string
	version   string
	endpoint  *url.URL // legacy SSE: where messages are posted
}

// newHTTPClient returns the client of one scan: redirects stay on the
// origin they start from, since the configured headers carry credentials.
func newHTTPClient() *http.Client {
	return &http.Client{
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if !sameOrigin(req.URL, via[0].URL) {
				return fmt.Errorf("redirect to another origin (%s) refused", req.URL.Host)
			}
			return nil
		},
	}
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// dialHTTP prepares a remote session; for the legacy SSE transport it
// opens the event stream and waits for the endpoint event.
func dialHTTP(ctx context.Context, client *http.Client, t *target, maxOutput int64) (*httpConn, error) {
	u, err := url.Parse(t.url)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &httpConn{client: client, url: u, headers: t.headers, sse: t.transport == "sse", ctx: cctx, cancel: cancel,
		inbox: make(chan []byte, 16), failed: make(chan error, 1), max: maxOutput}
	if !c.sse {
		return c, nil
	}
	req, err := c.request(http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, withoutURL(err)
	}
	if err := c.status(resp); err != nil {
		resp.Body.Close()
		cancel()
		return nil, err
	}
	endpoint := make(chan *url.URL, 1)
	c.bodies.Add(1)
	go func() {
		defer c.bodies.Done()
		defer resp.Body.Close()
		c.readEvents(resp.Body, endpoint)
	}()
	select {
	case ep := <-endpoint:
		c.mu.Lock()
		c.endpoint = ep
		c.mu.Unlock()
		return c, nil
	case err := <-c.failed:
		c.close(ctx)
		return nil, err
	case <-ctx.Done():
		c.close(ctx)
		return nil, ctx.Err()
	}
}

func (c *httpConn) setVersion(v string) {
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
}

// request builds a request with the configured headers and the session's.
func (c *httpConn) request(method string, u *url.URL, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(c.ctx, method, u.String(), r)
	if err != nil {
		return nil, err
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	c.mu.Lock()
	if c.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", c.sessionID)
	}
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	c.mu.Unlock()
	return req, nil
}

// status turns a response status into an error: 401 asks for a login.
func (c *httpConn) status(resp *http.Response) error {
	if resp.StatusCode == http.StatusUnauthorized {
		return &errAuthRequired{metadata: resourceMetadata(resp, c.url)}
	}
	if resp.StatusCode/100 != 2 {
		return &httpStatusError{code: resp.StatusCode, status: resp.Status}
	}
	return nil
}

// httpStatusError is a response that is neither success nor 401.
type httpStatusError struct {
	code   int
	status string
}

func (e *httpStatusError) Error() string { return "HTTP " + e.status }

// legacyOnly reports an initialize POST refused as the MCP specification's
// backwards-compatibility section describes a server that speaks only the
// older HTTP+SSE transport: 400, 404 or 405.
func legacyOnly(err error) bool {
	var se *httpStatusError
	return errors.As(err, &se) && (se.code == http.StatusBadRequest || se.code == http.StatusNotFound || se.code == http.StatusMethodNotAllowed)
}

func (c *httpConn) send(ctx context.Context, msg []byte) error {
	u := c.url
	if c.sse {
		c.mu.Lock()
		u = c.endpoint
		c.mu.Unlock()
	}
	req, err := c.request(http.MethodPost, u, msg)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if req.Header.Get("MCP-Protocol-Version") >= modernVersion {
		// The 2026-07-28 revision routes by these headers.
		if env, ok := mcpio.ParseEnvelope(msg); ok && env.Method != "" {
			req.Header.Set("Mcp-Method", env.Method)
		}
	}
	stop := context.AfterFunc(ctx, c.cancel)
	defer stop()
	resp, err := c.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return withoutURL(err)
	}
	if err := c.status(resp); err != nil {
		resp.Body.Close()
		return err
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && !c.sse {
		c.mu.Lock()
		c.sessionID = id
		c.mu.Unlock()
	}
	if c.sse || resp.StatusCode == http.StatusAccepted {
		// Legacy SSE answers on the event stream; 202 acknowledges a
		// notification or response.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		return nil
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	c.bodies.Add(1)
	go func() {
		defer c.bodies.Done()
		defer resp.Body.Close()
		switch media {
		case "text/event-stream":
			c.readEvents(resp.Body, nil)
		default:
			data, err := io.ReadAll(io.LimitReader(resp.Body, c.max-c.total.Load()+1))
			if err != nil {
				c.failWith(err)
				return
			}
			if c.total.Add(int64(len(data))) > c.max {
				c.failWith(errOutputLimit)
				return
			}
			if len(bytes.TrimSpace(data)) > 0 {
				c.deliver(data)
			}
		}
	}()
	return nil
}

// readEvents delivers the messages of an event stream; with endpoint set
// (legacy SSE), the endpoint event is resolved against the stream's URL and
// sent there.
func (c *httpConn) readEvents(body io.Reader, endpoint chan<- *url.URL) {
	er := mcpio.NewEventReader(body, int(c.max))
	for {
		ev, err := er.Next()
		if err != nil {
			if errors.Is(err, mcpio.ErrFrameTooLarge) {
				err = errOutputLimit
			}
			if errors.Is(err, io.EOF) && endpoint == nil {
				return // a POST's stream ends after its response
			}
			if errors.Is(err, io.EOF) {
				err = errors.New("the server closed its event stream")
			}
			c.failWith(err)
			return
		}
		if c.total.Add(int64(len(ev.Data))) > c.max {
			c.failWith(errOutputLimit)
			return
		}
		switch {
		case ev.Name == "endpoint" && endpoint != nil:
			ep, err := c.url.Parse(strings.TrimSpace(string(ev.Data)))
			if err != nil || !sameOrigin(ep, c.url) {
				// The transport's messages carry the configured headers:
				// never to another origin.
				c.failWith(fmt.Errorf("the server's message endpoint is not on its own origin"))
				return
			}
			select {
			case endpoint <- ep:
			default:
			}
		case ev.Name == "message":
			c.deliver(ev.Data)
		}
	}
}

func (c *httpConn) deliver(msg []byte) {
	if mcpio.IsBatch(msg) {
		if values, ok := batchItems(msg); ok {
			for _, v := range values {
				c.deliver(v)
			}
			return
		}
	}
	select {
	case c.inbox <- bytes.Clone(msg):
	case <-c.ctx.Done():
	}
}

func (c *httpConn) failWith(err error) {
	c.fail.Do(func() { c.failed <- err })
}

func (c *httpConn) next(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.inbox:
		return m, nil
	case err := <-c.failed:
		c.failed <- err // keep it for the next call
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// close ends the session: a Streamable HTTP session is deleted, as the
// specification asks of a client that is done with it.
func (c *httpConn) close(ctx context.Context) {
	c.mu.Lock()
	id := c.sessionID
	c.mu.Unlock()
	if id != "" {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultGrace)
		if req, err := c.request(http.MethodDelete, c.url, nil); err == nil {
			if resp, err := c.client.Do(req.WithContext(dctx)); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
	c.cancel()
	go func() {
		for range c.inbox {
		}
	}()
	c.bodies.Wait()
	close(c.inbox)
}

// withoutURL drops the request URL from a transport error: the URL may
// carry a credential, and the report names the server anyway.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// resourceMetadata finds the protected-resource metadata URL of a 401:
// the resource_metadata parameter of WWW-Authenticate, or the well-known
// location RFC 9728 defines for the server's URL.
func resourceMetadata(resp *http.Response, u *url.URL) string {
	for _, h := range resp.Header.Values("WWW-Authenticate") {
		if i := strings.Index(h, "resource_metadata="); i >= 0 {
			v := h[i+len("resource_metadata="):]
			if strings.HasPrefix(v, `"`) {
				if end := strings.IndexByte(v[1:], '"'); end >= 0 {
					return v[1 : end+1]
				}
			}
			if end := strings.IndexAny(v, ", "); end >= 0 {
				v = v[:end]
			}
			return v
		}
	}
	wk := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")}
	return wk.String()
}

// batchItems splits a JSON array into its raw elements.
func batchItems(msg []byte) ([]json.RawMessage, bool) {
	var items []json.RawMessage
	if err := json.Unmarshal(msg, &items); err != nil {
		return nil, false
	}
	return items, true
}
