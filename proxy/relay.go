package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/mcpio"
)

// Inspector applies mcpguard's checks to the messages the proxy decodes. It
// is called concurrently (HTTP sessions, both directions) and must be safe
// for that.
type Inspector interface {
	// Initialize inspects the result of an initialize response (raw JSON) and
	// returns the result to forward: the same slice when nothing changes.
	Initialize(result []byte) []byte
	// ToolsList inspects the result of a tools/list response and returns the
	// result to forward. paged is true when the request carried a cursor
	// (a later page of a paginated listing).
	ToolsList(result []byte, paged bool) []byte
	// ListChanged is told that the server announced a changed tool list.
	ListChanged()
	// Withheld reports whether calls to the tool must be refused, and why.
	Withheld(tool string) (Withheld, bool)
}

// Withheld explains why a tool was withheld from the client.
type Withheld struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// passThrough inspects nothing.
type passThrough struct{}

func (passThrough) Initialize(r []byte) []byte        { return r }
func (passThrough) ToolsList(r []byte, _ bool) []byte { return r }
func (passThrough) ListChanged()                      {}
func (passThrough) Withheld(string) (Withheld, bool)  { return Withheld{}, false }

// CodeWithheld is the JSON-RPC error code of a call to a withheld tool
// (implementation-defined server error range).
const CodeWithheld = -32001

// Options configure a proxy.
type Options struct {
	// Inspector checks tool lists; nil forwards everything (monitor without
	// checks).
	Inspector Inspector
	// Enforce refuses calls to withheld tools; off, the proxy only reports.
	Enforce bool
	// Events receives one event per enforcement action; nil discards them.
	Events *events.Log
	// Grace is how long shutdown waits at each step (default 5s).
	Grace time.Duration
	// MaxMessage caps one message in bytes; 0 means no cap.
	MaxMessage int
}

// pendingRequest is a request whose response the proxy inspects.
type pendingRequest struct {
	method string
	paged  bool // tools/list with a cursor
}

// relay moves messages between a client and a server.
type relay struct {
	opts Options

	wmu    sync.Mutex // serializes writes to the client
	client io.Writer

	mu      sync.Mutex
	pending map[string]pendingRequest // session and request id -> request, for responses to inspect
}

func newRelay(client io.Writer, opts Options) *relay {
	if opts.Inspector == nil {
		opts.Inspector = passThrough{}
	}
	if opts.Grace <= 0 {
		opts.Grace = 5 * time.Second
	}
	return &relay{opts: opts, client: client, pending: map[string]pendingRequest{}}
}

// toClient writes one frame to the client.
func (r *relay) toClient(frame []byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	_, err := r.client.Write(frame)
	return err
}

// fromClient decides about one client frame: forward returns the bytes to
// send to the server (nil: not forwarded), and reply what to answer the
// client directly.
//
// session separates request ids of different clients (HTTP sessions); stdio
// has one, "".
func (r *relay) fromClient(session string, frame []byte) (forward, reply []byte) {
	if mcpio.IsBatch(frame) {
		return r.fromClientBatch(session, frame)
	}
	env, ok := mcpio.ParseEnvelope(frame)
	if !ok {
		return frame, nil
	}
	if denied := r.request(session, &env); denied != nil {
		return nil, append(denied, '\n')
	}
	return frame, nil
}

// request records a request the proxy will inspect the response to and
// returns an error response when the request must not reach the server.
func (r *relay) request(session string, env *mcpio.Envelope) []byte {
	if !env.IsRequest() {
		return nil
	}
	switch env.Method {
	case "tools/list", "initialize":
		var p struct {
			Cursor *string `json:"cursor"`
		}
		_ = json.Unmarshal(env.Params, &p) // absent or malformed params: the first page
		r.mu.Lock()
		r.pending[session+"\x00"+mcpio.IDKey(env.ID)] = pendingRequest{method: env.Method, paged: p.Cursor != nil}
		r.mu.Unlock()
	case "tools/call":
		name, ok := callName(env.Params)
		if !ok {
			return nil
		}
		w, withheld := r.opts.Inspector.Withheld(name)
		if !withheld {
			return nil
		}
		if !r.opts.Enforce {
			r.opts.Events.Emit(events.Event{Kind: "call-allowed-monitor", Tool: name, Rule: w.Rule,
				Message: "monitor mode: forwarded a call to a tool that enforce mode withholds: " + w.Message})
			return nil
		}
		r.opts.Events.Emit(events.Event{Kind: "call-refused", Tool: name, Rule: w.Rule, Message: w.Message})
		return errorResponse(env.ID, CodeWithheld, fmt.Sprintf("mcpguard withheld tool %q: %s", name, w.Message),
			map[string]any{"tool": name, "rule": w.Rule})
	}
	return nil
}

// callName returns params.name of a tools/call as the server reads it: the
// member spelled exactly "name" (encoding/json's struct decoding would also
// take "NAME", letting {"name": "evil", "NAME": "x"} pass as "x"), the last
// one when repeated.
func callName(params []byte) (string, bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(params, &members) != nil {
		return "", false
	}
	var name string
	if json.Unmarshal(members["name"], &name) != nil {
		return "", false
	}
	return name, true
}

// fromClientBatch handles a JSON-RPC batch: it is forwarded as one frame
// unless an element must be refused, in which case the refused elements are
// answered and the rest forwarded as a batch.
func (r *relay) fromClientBatch(session string, frame []byte) (forward, reply []byte) {
	var elems []json.RawMessage
	if json.Unmarshal(frame, &elems) != nil {
		return frame, nil
	}
	var keep, replies []json.RawMessage
	for _, e := range elems {
		env, ok := mcpio.ParseEnvelope(e)
		if !ok {
			keep = append(keep, e)
			continue
		}
		if denied := r.request(session, &env); denied != nil {
			replies = append(replies, denied)
			continue
		}
		keep = append(keep, e)
	}
	if len(replies) == 0 {
		return frame, nil
	}
	if len(keep) > 0 {
		forward = batch(keep)
	}
	return forward, batch(replies)
}

func batch(elems []json.RawMessage) []byte {
	b, _ := json.Marshal(elems)
	return append(b, '\n')
}

// fromServer decides about one server frame and returns the bytes to send to
// the client: the original frame unless a tools/list result was changed.
func (r *relay) fromServer(session string, frame []byte) []byte {
	if mcpio.IsBatch(frame) {
		var elems []json.RawMessage
		if json.Unmarshal(frame, &elems) != nil {
			return frame
		}
		changed := false
		for i, e := range elems {
			if out, ok := r.serverMessage(session, e); ok {
				elems[i], changed = out, true
			}
		}
		if !changed {
			return frame
		}
		return batch(elems)
	}
	if out, ok := r.serverMessage(session, mcpio.TrimFrame(frame)); ok {
		return append(out, '\n')
	}
	return frame
}

// serverMessage inspects one server message; ok is true when it was rewritten.
func (r *relay) serverMessage(session string, msg []byte) ([]byte, bool) {
	env, ok := mcpio.ParseEnvelope(msg)
	if !ok {
		return nil, false
	}
	if env.IsNotification() && env.Method == "notifications/tools/list_changed" {
		r.opts.Inspector.ListChanged()
		r.opts.Events.Emit(events.Event{Kind: "tools-list-changed", Message: "the server announced a changed tool list; the next tools/list is checked against the pins"})
		return nil, false
	}
	if env.Method != "" || env.ID == nil {
		return nil, false // a server request (sampling, roots, ...) or a notification
	}
	// A response: it settles its request whether it carries a result or an
	// error, so the table does not grow with failed requests.
	key := session + "\x00" + mcpio.IDKey(env.ID)
	r.mu.Lock()
	req, pending := r.pending[key]
	delete(r.pending, key)
	r.mu.Unlock()
	if !pending || env.Result == nil {
		return nil, false
	}
	var out []byte
	switch req.method {
	case "tools/list":
		out = r.opts.Inspector.ToolsList(env.Result, req.paged)
	case "initialize":
		out = r.opts.Inspector.Initialize(env.Result)
	default:
		return nil, false
	}
	if bytes.Equal(out, env.Result) {
		return nil, false
	}
	rewritten, err := replaceResult(msg, env.Result, out)
	if err != nil {
		return nil, false
	}
	return rewritten, true
}

// replaceResult rebuilds a response with a new result. When old is the
// result's own bytes inside msg (the fast envelope path), they are spliced,
// and every other byte of the message stays as it was; otherwise the
// members are re-encoded.
func replaceResult(msg, old, result []byte) ([]byte, error) {
	if start := cap(msg) - cap(old); len(old) > 0 && start >= 0 && start+len(old) <= len(msg) && &msg[start] == &old[0] {
		out := make([]byte, 0, len(msg)-len(old)+len(result))
		out = append(out, msg[:start]...)
		out = append(out, result...)
		return append(out, msg[start+len(old):]...), nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(msg, &members); err != nil {
		return nil, err
	}
	members["result"] = result
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(members); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// errorResponse builds a JSON-RPC error response with the request's id.
func errorResponse(id []byte, code int, msg string, data any) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data,omitempty"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{code, msg, data}})
	return b
}

// RunStdio starts the server argv and relays newline-delimited JSON-RPC
// between the client (in, out) and it until the client closes its input or
// the server exits. It returns the server's exit status.
func RunStdio(ctx context.Context, argv []string, in io.Reader, out, stderr io.Writer, opts Options) (int, error) {
	c, err := mcpio.StartChild(mcpio.ChildOptions{Argv: argv, Env: os.Environ(), Stderr: stderr})
	if err != nil {
		return 0, err
	}
	r := newRelay(out, opts)
	// A process the server started may keep the pipe open after the server
	// exits; closing our end stops the reader.
	defer c.Stdout().Close()

	serverDone := make(chan error, 1)
	go func() { serverDone <- r.pumpServer(c.Stdout()) }()

	clientDone := make(chan error, 1)
	go func() { clientDone <- r.pumpClient(in, c.Stdin()) }()

	// drain waits for the server's remaining output to reach the client, but
	// not forever: a client that stopped reading must not hang the proxy.
	drain := func() {
		t := time.NewTimer(r.opts.Grace)
		defer t.Stop()
		select {
		case <-serverDone:
		case <-t.C:
		}
	}
	select {
	case <-clientDone:
		// Client EOF: the spec's shutdown, then the server's last words.
		c.Shutdown(ctx, r.opts.Grace)
		drain()
	case <-serverDone:
		// The server closed its output: it is exiting.
		if !c.WaitFor(r.opts.Grace) {
			c.Shutdown(ctx, r.opts.Grace)
		}
	case <-ctx.Done():
		c.Shutdown(ctx, r.opts.Grace)
		drain()
	}
	return c.ExitCode(), nil
}

// pumpClient forwards client frames to the server until the client's EOF.
func (r *relay) pumpClient(in io.Reader, server io.Writer) error {
	fr := mcpio.NewFrameReader(in, r.opts.MaxMessage)
	for {
		frame, err := fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		forward, reply := r.fromClient("", frame)
		if reply != nil {
			if err := r.toClient(reply); err != nil {
				return err
			}
		}
		if forward != nil {
			if _, err := server.Write(forward); err != nil {
				return err
			}
		}
	}
}

// pumpServer forwards server frames to the client until the server's EOF.
func (r *relay) pumpServer(server io.Reader) error {
	fr := mcpio.NewFrameReader(server, r.opts.MaxMessage)
	for {
		frame, err := fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := r.toClient(r.fromServer("", frame)); err != nil {
			return err
		}
	}
}
