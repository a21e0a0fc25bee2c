package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"

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
	h := &httpProxy{relay: r, max: max}
	h.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = u.Host
			// The path the client asked for is the upstream's MCP endpoint when
			// the upstream URL has none of its own.
			if u.Path != "" && u.Path != "/" {
				pr.Out.URL.Path = u.Path
				pr.Out.URL.RawPath = u.RawPath
			}
		},
		FlushInterval:  -1, // SSE events must reach the client at once
		ModifyResponse: h.modifyResponse,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "mcpguard: upstream: "+err.Error(), http.StatusBadGateway)
		},
	}
	return h, nil
}

type httpProxy struct {
	relay *relay
	rp    *httputil.ReverseProxy
	max   int
}

func (h *httpProxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	session := req.Header.Get("Mcp-Session-Id")
	if req.Method == http.MethodPost && req.Body != nil {
		body, err := io.ReadAll(io.LimitReader(req.Body, int64(h.max)+1))
		req.Body.Close()
		if err != nil {
			http.Error(w, "mcpguard: read request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) > h.max {
			http.Error(w, "mcpguard: request larger than the limit", http.StatusRequestEntityTooLarge)
			return
		}
		forward, reply := h.relay.fromClient(session, body)
		if forward == nil {
			// Every message was refused: answer for the server.
			w.Header().Set("Content-Type", "application/json")
			if session != "" {
				w.Header().Set("Mcp-Session-Id", session)
			}
			w.Write(reply)
			return
		}
		if reply != nil {
			// Part of a batch was refused; the rest goes on and the refusals
			// join the response.
			req = req.WithContext(withReply(req.Context(), reply))
		}
		req.Body = io.NopCloser(bytes.NewReader(forward))
		req.ContentLength = int64(len(forward))
		req.Header.Set("Content-Length", strconv.Itoa(len(forward)))
	}
	h.rp.ServeHTTP(w, req)
}

// modifyResponse inspects what the server sends back: a JSON body whole, an
// event stream event by event.
func (h *httpProxy) modifyResponse(resp *http.Response) error {
	// Requests were recorded under the session they were sent in; a session id
	// the response assigns (initialize) is for the requests that follow.
	session := resp.Request.Header.Get("Mcp-Session-Id")
	reply := replyFrom(resp.Request.Context())
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.max)+1))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("read upstream response: %w", err)
		}
		if len(body) > h.max {
			return errors.New("upstream response larger than the limit")
		}
		out := h.relay.fromServer(session, body)
		if reply != nil {
			out = mergeBatch(out, reply)
		}
		resp.Body = io.NopCloser(bytes.NewReader(out))
		resp.ContentLength = int64(len(out))
		resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	case "text/event-stream":
		pr, pw := io.Pipe()
		src := resp.Body
		go func() {
			err := h.rewriteEvents(session, src, pw)
			if err == nil && reply != nil {
				_, err = fmt.Fprintf(pw, "data: %s\n\n", bytes.TrimSuffix(reply, []byte("\n")))
			}
			src.Close()
			pw.CloseWithError(err)
		}()
		resp.Body = pr
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return nil
}

// rewriteEvents copies an SSE stream, passing each event's data (one JSON-RPC
// message) through the relay; an event the relay does not change is copied
// byte for byte.
func (h *httpProxy) rewriteEvents(session string, src io.Reader, dst io.Writer) error {
	var event bytes.Buffer // the raw event text
	var data bytes.Buffer  // its data lines joined
	hasData := false
	flush := func() error {
		if event.Len() == 0 {
			return nil
		}
		out := event.Bytes()
		if hasData {
			msg := bytes.TrimSuffix(data.Bytes(), []byte("\n"))
			if rewritten := h.relay.fromServer(session, msg); !bytes.Equal(rewritten, msg) {
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
	for {
		line, err := fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return flush()
			}
			return err
		}
		event.Write(line)
		trimmed := mcpio.TrimFrame(line)
		if len(trimmed) == 0 {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		if v, ok := bytes.CutPrefix(trimmed, []byte("data:")); ok {
			data.Write(bytes.TrimPrefix(v, []byte(" ")))
			data.WriteByte('\n')
			hasData = true
		}
	}
}

// rebuildEvent keeps an event's other fields (id, event, retry) and replaces
// its data lines with one line holding msg.
func rebuildEvent(event, msg []byte) []byte {
	var out bytes.Buffer
	wroteData := false
	for _, line := range bytes.SplitAfter(event, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("data:")) {
			if !wroteData {
				out.WriteString("data: ")
				out.Write(msg)
				out.WriteByte('\n')
				wroteData = true
			}
			continue
		}
		out.Write(line)
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
