package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/mcpio"
)

// defaultMaxBody bounds one HTTP request or JSON response body.
const defaultMaxBody = 64 << 20

// NewHTTP returns a handler that proxies MCP's Streamable HTTP transport to
// upstream: POST bodies are inspected like stdio frames (a call to a withheld
// tool is answered without reaching the server), JSON and text/event-stream
// responses are inspected message by message, and the GET stream, DELETE,
// Mcp-Session-Id and authentication headers pass through.
func NewHTTP(upstream string, opts Options) (http.Handler, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("upstream %q: want an http or https URL", upstream)
	}
	r := newRelay(io.Discard, opts)
	max := opts.MaxMessage
	if max <= 0 {
		max = defaultMaxBody
	}
	h := &httpProxy{relay: r, max: max, listener: opts.Listener}
	h.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			// The upstream sees its own name, as a direct client sends it;
			// the caller's Host was checked by admit. (Rewrite drops any
			// X-Forwarded-* the caller sent.)
			pr.Out.Host = u.Host
			if !h.listener.ForwardCredentials || h.listener.Token != "" {
				for _, k := range credentialHeaders {
					if k == "Authorization" && h.listener.ForwardCredentials {
						continue // the listen token is deleted below
					}
					pr.Out.Header.Del(k)
				}
			}
			if h.listener.Token != "" {
				pr.Out.Header.Del("Authorization") // the proxy's own token
			}
			// Ask for an identity or gzip body (which Go's transport
			// decodes): a body compressed otherwise cannot be inspected.
			pr.Out.Header.Del("Accept-Encoding")
			// The path the client asked for is the upstream's MCP endpoint when
			// the upstream URL has none of its own.
			if u.Path != "" && u.Path != "/" {
				pr.Out.URL.Path = u.Path
				pr.Out.URL.RawPath = u.RawPath
			}
		},
		FlushInterval:  -1, // SSE events must reach the client at once
		ModifyResponse: h.modifyResponse,
		ErrorHandler: func(w http.ResponseWriter, req *http.Request, err error) {
			h.release(req.Context())
			http.Error(w, "mcpguard: upstream: "+err.Error(), http.StatusBadGateway)
		},
	}
	return h, nil
}

type httpProxy struct {
	relay *relay
	rp    *httputil.ReverseProxy
	max   int
	posts atomic.Uint64 // numbers the POSTs: each has its own route
	// listener says who may use the listener (http_admit.go).
	listener ListenerOptions
	// refusals bounds the reports of refused requests (http_admit.go).
	refusals refusalLimiter
}

// routeFor is where the ids of one HTTP request are recorded: the client's
// requests in a POST are answered on that POST's body, so they are matched
// there, and under the session too (a GET stream resumed after a broken
// POST stream delivers them, and servers that answer on the GET stream
// exist). Without a session id (stateless servers, the 2026-07-28 revision)
// only the POST's body can answer. The server's requests are answered by
// later POSTs of the session.
func (h *httpProxy) routeFor(req *http.Request) route {
	session := req.Header.Get("Mcp-Session-Id")
	rt := route{back: "s" + session, session: session, stateless: session == ""}
	if req.Method == http.MethodPost {
		rt.calls = "p" + strconv.FormatUint(h.posts.Add(1), 10)
		if session != "" {
			rt.also = "s" + session
		}
		rt.recorded = new([]*pendingRequest)
		return rt
	}
	rt.calls = "-" // a GET stream without a session answers nothing
	if session != "" {
		rt.calls = "s" + session
	}
	return rt
}

// release forgets, when a POST's response has ended, the requests it
// carried that its body did not answer: they stay open under the session
// only.
func (h *httpProxy) release(ctx context.Context) {
	c := callFrom(ctx)
	if c == nil || c.route.recorded == nil {
		return
	}
	r := h.relay
	var lost []*callRecord
	r.mu.Lock()
	for _, p := range *c.route.recorded {
		r.calls.release(p, c.route.calls)
		if len(p.keys) == 0 && p.call != nil && !p.settled {
			lost = append(lost, p.call)
		}
	}
	*c.route.recorded = nil
	r.mu.Unlock()
	for _, call := range lost {
		r.called(call, outcomeUnanswered, nil, 0, "", "")
	}
}

func (h *httpProxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if rf := h.admit(req); rf != nil {
		h.refuse(w, req, rf)
		return
	}
	if req.Method == http.MethodOptions {
		preflight(w, req) // admit let only an allowed origin's through
		return
	}
	session := req.Header.Get("Mcp-Session-Id")
	rt := h.routeFor(req)
	call := &httpCall{route: rt}
	req = req.WithContext(withCall(req.Context(), call))
	if req.Method == http.MethodPost && req.Body != nil {
		body, err := io.ReadAll(io.LimitReader(req.Body, int64(h.max)+1))
		req.Body.Close()
		if err != nil {
			http.Error(w, "mcpguard: read request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) > h.max {
			// Each POST is a session of its own in this respect: the
			// listener goes on.
			reply, _ := h.relay.tooLarge(rt, "client", body[:min(len(body), 64<<10)], h.max, false)
			if reply == nil {
				http.Error(w, fmt.Sprintf("mcpguard: the request is larger than the proxy's limit of %d bytes (--max-message)", h.max), http.StatusRequestEntityTooLarge)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			w.Write(reply)
			return
		}
		if why := headerMismatch(req.Header, body); why != "" && h.relay.opts.Enforce {
			// A server or gateway that routes by the header would run
			// another method or tool than the one the proxy checked.
			h.relay.refuseClient(body, nil, why)
			http.Error(w, "mcpguard: "+why, http.StatusBadRequest)
			return
		}
		forward, reply := h.relay.fromClient(rt, body)
		if forward == nil {
			if reply == nil {
				// Refused without an id to answer to (unparsable, or a response
				// to no open server request).
				http.Error(w, "mcpguard: request refused: it could not be parsed, or it answers no open request of the server", http.StatusBadRequest)
				return
			}
			// Every message was refused: answer for the server.
			w.Header().Set("Content-Type", "application/json")
			if session != "" {
				w.Header().Set("Mcp-Session-Id", session)
			}
			w.Write(reply)
			return
		}
		// Part of a batch may have been refused; the rest goes on and the
		// refusals join the response.
		call.reply = reply
		req.Body = io.NopCloser(bytes.NewReader(forward))
		req.ContentLength = int64(len(forward))
		req.Header.Set("Content-Length", strconv.Itoa(len(forward)))
	}
	h.rp.ServeHTTP(w, req)
}

// modifyResponse inspects what the server sends back: a JSON body whole, an
// event stream event by event.
func (h *httpProxy) modifyResponse(resp *http.Response) error {
	if !h.listener.ForwardCredentials {
		// A cookie of the upstream's would be stored for the proxy's
		// address, and sent back by every page of it.
		resp.Header.Del("Set-Cookie")
	}
	if origin := resp.Request.Header.Get("Origin"); origin != "" {
		// admit let only an allowed origin through: its page may read
		// the answer and the session id.
		resp.Header.Set("Access-Control-Allow-Origin", origin)
		resp.Header.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
		resp.Header.Add("Vary", "Origin")
	}
	// Requests were recorded under the route of the request they were sent
	// in; a session id the response assigns (initialize) is for the
	// requests that follow.
	ctx := resp.Request.Context()
	if session := resp.Request.Header.Get("Mcp-Session-Id"); session != "" {
		// A session ends with the DELETE the server accepts, or when the
		// server answers 404 for it (it forgot the session): its
		// listings' pages go with it.
		if (resp.Request.Method == http.MethodDelete && resp.StatusCode >= 200 && resp.StatusCode < 300) || resp.StatusCode == http.StatusNotFound {
			h.relay.sessionEnded(session)
		}
	}
	call := callFrom(ctx)
	var rt route
	var reply []byte
	if call != nil {
		rt, reply = call.route, call.reply
	}
	rt.answer = h.answerer(resp.Request)
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// A client follows a redirect (fetch, httpx, Go's http.Client
		// resend a 307's or 308's body) to wherever it points: around the
		// proxy, whose analysis never sees what comes from there.
		why := fmt.Sprintf("the upstream answered %d (a redirect to %q): a client would follow it around the proxy", resp.StatusCode, clip(resp.Header.Get("Location")))
		if err := h.refuseResponse(why, "redirect"); err != nil {
			h.release(ctx)
			return err
		}
	}
	cts := resp.Header.Values("Content-Type")
	kind := bodyKind(strings.Join(cts, ", "))
	if why := ambiguousKind(cts); why != "" {
		if err := h.refuseResponse(why, "content-type"); err != nil {
			h.release(ctx)
			return err
		}
	}
	if kind != "" {
		if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
			// Clients decode it; the proxy cannot inspect it.
			return fmt.Errorf("upstream response in Content-Encoding %q cannot be inspected", ce)
		}
	}
	switch kind {
	case "json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.max)+1))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("read upstream response: %w", err)
		}
		if len(body) > h.max {
			reply, _ := h.relay.tooLarge(rt, "server", body[:min(len(body), 64<<10)], h.max, false)
			h.release(ctx)
			if reply == nil {
				return fmt.Errorf("the upstream's response is larger than the proxy's limit of %d bytes (--max-message)", h.max)
			}
			// The client's request is answered: with the error.
			body = reply
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			return nil
		}
		out := h.relay.fromServer(rt, body)
		h.release(ctx)
		if out == nil && reply == nil {
			return errors.New("upstream response could not be analysed")
		}
		if reply != nil {
			out = mergeBatch(out, reply)
		}
		resp.Body = io.NopCloser(bytes.NewReader(out))
		resp.ContentLength = int64(len(out))
		resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	case "sse":
		pr, pw := io.Pipe()
		src := resp.Body
		go func() {
			err := h.rewriteEvents(rt, src, pw)
			h.release(ctx)
			if err == nil && reply != nil {
				_, err = fmt.Fprintf(pw, "data: %s\n\n", bytes.TrimSuffix(reply, []byte("\n")))
			}
			src.Close()
			pw.CloseWithError(err)
		}()
		resp.Body = pr
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	default:
		h.release(ctx)
	}
	return nil
}

// answerTimeout bounds the POST that carries the proxy's own answer to a
// server request.
const answerTimeout = 30 * time.Second

// answerer returns how the proxy answers a server request that arrived
// on the response to out (the request the proxy sent upstream): a POST
// of the JSON-RPC response to the same endpoint, with the session, the
// protocol version and the credentials out carried (what a client's own
// response would carry). The upstream's answer to it is read and
// discarded.
func (h *httpProxy) answerer(out *http.Request) func(frame []byte) {
	target := out.URL.String()
	hdr := http.Header{}
	keys := append([]string{"Mcp-Session-Id", "Mcp-Protocol-Version"}, credentialHeaders[:]...)
	for _, k := range keys {
		if v := out.Header.Values(k); len(v) > 0 {
			hdr[k] = slices.Clone(v)
		}
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Accept", "application/json, text/event-stream")
	return func(frame []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(frame))
		if err != nil {
			h.relay.opts.Logger.Warn("answer to a server request not sent", "err", err)
			return
		}
		req.Header = hdr.Clone()
		resp, err := h.transport().RoundTrip(req)
		if err != nil {
			h.relay.opts.Logger.Warn("answer to a server request not sent", "err", err)
			return
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, int64(h.max)))
		resp.Body.Close()
	}
}

// transport is the reverse proxy's, the default one when it has none.
func (h *httpProxy) transport() http.RoundTripper {
	if h.rp.Transport != nil {
		return h.rp.Transport
	}
	return http.DefaultTransport
}

// refuseResponse refuses an upstream response whose body must not reach
// the client (enforce mode): the error makes the reverse proxy answer 502.
// In monitor mode it only reports, and the response goes on.
func (h *httpProxy) refuseResponse(why, reason string) error {
	r := h.relay
	if !r.opts.Enforce {
		r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning",
			Message: "monitor mode: forwarded an upstream response that enforce mode refuses: " + why,
			Details: map[string]any{"direction": "server", "reason": reason}})
		return nil
	}
	r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused an upstream response: " + why,
		Details: map[string]any{"direction": "server", "reason": reason, "answered": false}})
	r.opts.Logger.Warn("upstream response refused", "why", why)
	return errors.New(why)
}

// ambiguousKind says why clients may read a response body differently: a
// Content-Type that names both an event stream and JSON (TypeScript reads
// an event stream, Python's startswith("application/json") and Go's
// media-type parse read JSON), several Content-Type headers (joined by some
// clients, the first taken by others). A header naming one kind in a parameter of another media
// type ("text/plain; x=text/event-stream") is read as that kind by the
// clients that read it at all, and inspected so.
func ambiguousKind(cts []string) string {
	if len(cts) == 0 {
		return ""
	}
	all := strings.Join(cts, ", ")
	kind := bodyKind(all)
	if kind == "" {
		return ""
	}
	lower := strings.ToLower(all)
	switch {
	case len(cts) > 1:
		return fmt.Sprintf("the upstream's response has %d Content-Type headers (%q)", len(cts), clip(all))
	case kind == "sse" && (strings.Contains(lower, "application/json") || strings.Contains(lower, "+json")):
		return fmt.Sprintf("the upstream's Content-Type %q names both an event stream and JSON", clip(all))
	}
	return ""
}

// bodyKind says how a client reads a response body: "sse", "json" or ""
// (not at all). The TypeScript SDK looks for the media types anywhere in
// the header (event stream first), so the proxy does too: a header such as
// "text/plain; x=text/event-stream" must not pass uninspected.
func bodyKind(contentType string) string {
	ct := strings.ToLower(contentType)
	switch {
	case strings.Contains(ct, "text/event-stream"):
		return "sse"
	case strings.Contains(ct, "application/json"), strings.Contains(ct, "+json"):
		return "json"
	}
	return ""
}

// rewriteEvents copies an SSE stream, passing each event's data (one JSON-RPC
// message) through the relay; an event the relay does not change is copied
// byte for byte, one it refuses is left out. Lines end as the SSE
// specification has them (CRLF, LF or a lone CR), a leading BOM is
// skipped, and a field line without a colon is a field with an empty
// value, as every event-stream parser reads them.
func (h *httpProxy) rewriteEvents(rt route, src io.Reader, dst io.Writer) error {
	var event bytes.Buffer // the raw event text
	var data bytes.Buffer  // its data lines joined
	hasData := false
	// Until an event with data has come, the events of a POST's stream
	// that carried requests are held: a body with no data event is no event
	// stream, and a client reading it otherwise (as JSON) must not get it.
	hold := h.pending(rt)
	var held bytes.Buffer
	flush := func() error {
		if event.Len() == 0 {
			return nil
		}
		out := event.Bytes()
		if hold && !hasData {
			held.Write(out)
			event.Reset()
			data.Reset()
			return nil
		}
		if hold {
			hold = false
			if _, err := dst.Write(held.Bytes()); err != nil {
				return err
			}
			held = bytes.Buffer{}
		}
		if hasData {
			msg := bytes.TrimSuffix(data.Bytes(), []byte("\n"))
			rewritten := h.relay.fromServer(rt, msg)
			switch {
			case rewritten == nil:
				out = nil
			case !bytes.Equal(rewritten, msg):
				out = rebuildEvent(event.Bytes(), bytes.TrimSuffix(rewritten, []byte("\n")))
			}
		}
		_, err := dst.Write(out)
		event.Reset()
		data.Reset()
		hasData = false
		return err
	}
	fr := mcpio.NewFrameReader(src, h.max)
	first := true
	for {
		chunk, err := fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if err := flush(); err != nil || !hold {
					return err
				}
				return h.noEvents(rt, held.Bytes(), dst)
			}
			if errors.Is(err, mcpio.ErrFrameTooLarge) {
				prefix := fr.Prefix()
				if _, data, ok := bytes.Cut(prefix, []byte("data:")); ok {
					prefix = bytes.TrimLeft(data, " ")
				}
				return h.eventTooLarge(rt, prefix, dst)
			}
			return err
		}
		if first {
			first = false
			chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf"))
		}
		for _, line := range mcpio.SSELines(chunk) {
			event.Write(line)
			field := bytes.TrimRight(line, "\r\n")
			if len(field) == 0 {
				if err := flush(); err != nil {
					return err
				}
				continue
			}
			if field[0] == ':' {
				continue // a comment
			}
			name, value, found := bytes.Cut(field, []byte(":"))
			if found {
				value = bytes.TrimPrefix(value, []byte(" "))
			}
			if string(name) == "data" {
				data.Write(value)
				data.WriteByte('\n')
				hasData = true
			}
		}
		// --max-message bounds a message, not a line: an event built from
		// many lines (data or comments), or held events, are bounded too.
		if event.Len()+held.Len() > h.max || data.Len() > h.max {
			return h.eventTooLarge(rt, data.Bytes(), dst)
		}
	}
}

// eventTooLarge ends an event stream whose event is over --max-message:
// the client's request it answers gets the error when its id came first,
// and the client then sees the stream cut, as on a network error.
func (h *httpProxy) eventTooLarge(rt route, prefix []byte, dst io.Writer) error {
	reply, end := h.relay.tooLarge(rt, "server", prefix, h.max, false)
	if reply != nil {
		fmt.Fprintf(dst, "data: %s\n\n", bytes.TrimSuffix(reply, []byte("\n")))
	}
	return end
}

// pending reports whether the HTTP request of route rt carried requests.
func (h *httpProxy) pending(rt route) bool {
	if rt.recorded == nil {
		return false
	}
	h.relay.mu.Lock()
	defer h.relay.mu.Unlock()
	return len(*rt.recorded) > 0
}

// noEvents handles a POST's event stream that ended with no event holding
// data while requests were pending: in enforce mode its text is dropped and
// the requests it should have answered get an error; in monitor mode it
// goes on, reported.
func (h *httpProxy) noEvents(rt route, held []byte, dst io.Writer) error {
	const why = "the upstream's event stream ended with no event holding a message"
	r := h.relay
	if !r.opts.Enforce {
		if len(held) > 0 {
			r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning",
				Message: "monitor mode: forwarded an upstream response that enforce mode refuses: " + why,
				Details: map[string]any{"direction": "server", "reason": "no-events"}})
		}
		_, err := dst.Write(held)
		return err
	}
	var open []*pendingRequest
	r.mu.Lock()
	for _, p := range *rt.recorded {
		if !p.settled && p.id != nil {
			if q, _ := r.calls.settle(rt.calls, p.id); q == p {
				open = append(open, p)
			}
		}
	}
	r.mu.Unlock()
	if len(open) == 0 && len(held) == 0 {
		return nil
	}
	r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused an upstream response: " + why,
		Details: map[string]any{"direction": "server", "reason": "no-events", "answered": len(open) > 0}})
	r.opts.Logger.Warn("upstream response refused", "why", why, "answered", len(open))
	for _, p := range open {
		r.called(p.call, outcomeRefused, nil, CodeNotAnalysed, "", why)
		reply := errorResponse(p.id, CodeNotAnalysed, "mcpguard: "+why, nil)
		if _, err := fmt.Fprintf(dst, "data: %s\n\n", reply); err != nil {
			return err
		}
	}
	return nil
}

// rebuildEvent keeps an event's other fields (id, event, retry, comments)
// and replaces its data lines with one line holding msg; lines end in LF.
func rebuildEvent(event, msg []byte) []byte {
	var out bytes.Buffer
	wroteData := false
	for _, line := range mcpio.SSELines(event) {
		field := bytes.TrimRight(line, "\r\n")
		name, _, _ := bytes.Cut(field, []byte(":"))
		if len(field) > 0 && field[0] != ':' && string(name) == "data" {
			if !wroteData {
				out.WriteString("data: ")
				out.Write(msg)
				out.WriteByte('\n')
				wroteData = true
			}
			continue
		}
		out.Write(field)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// mergeBatch appends refusal responses to a JSON response: both become one
// batch array.
func mergeBatch(resp, reply []byte) []byte {
	a := bytes.TrimSpace(resp)
	b := bytes.TrimSpace(reply)
	unwrap := func(x []byte) []byte {
		if len(x) > 1 && x[0] == '[' && x[len(x)-1] == ']' {
			return bytes.TrimSpace(x[1 : len(x)-1])
		}
		return x
	}
	a, b = unwrap(a), unwrap(b)
	var out bytes.Buffer
	out.WriteByte('[')
	out.Write(a)
	if len(a) > 0 && len(b) > 0 {
		out.WriteByte(',')
	}
	out.Write(b)
	out.WriteByte(']')
	return out.Bytes()
}
