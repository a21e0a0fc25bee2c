package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/mcpio"
	"github.com/mcpguard/mcpguard/internal/secrets"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// Inspector applies mcpguard's checks to the messages the proxy decodes. It
// is called concurrently (HTTP sessions, both directions) and must be safe
// for that.
type Inspector interface {
	// Initialize inspects the result of an initialize response (raw JSON) and
	// returns the result to forward: the same slice when nothing changes.
	Initialize(result []byte) []byte
	// ToolsList inspects the result of a tools/list response and returns the
	// result to forward, or why it could not be analysed (the relay then
	// answers the client with an error in enforce mode). paged is true when
	// the request carried a cursor (a later page of a paginated listing).
	ToolsList(result []byte, paged bool) ([]byte, error)
	// ListChanged is told that the server announced a changed tool list.
	ListChanged()
	// Withheld reports whether calls to the tool must be refused, and why.
	Withheld(tool string) (Withheld, bool)
}

// ItemInspector is an Inspector that also checks the other lists whose
// strings reach the model: prompts/list, resources/templates/list and
// resources/list (issue 44 part 3). The relay asks for it with a type
// assertion, so an Inspector without it forwards those lists unchecked.
type ItemInspector interface {
	// ItemsList inspects the result of one of those methods and returns
	// the result to forward, or why it could not be analysed; paged is
	// true for a later page of a listing (the request had a cursor).
	ItemsList(method string, result []byte, paged bool) ([]byte, error)
	// WithheldItem reports whether a prompts/get of the prompt named id,
	// or a resources/read of the resource at uri id, must be refused.
	WithheldItem(method, id string) (Withheld, bool)
}

// ResultInspector is an Inspector that also checks the results whose text
// goes into the model's context: a prompts/get result (the prompt's
// messages, judged as a listed prompt is), and the data of a tools/call
// or resources/read result (hidden characters and terminal escapes
// removed, no verdict). The relay asks for it with a type assertion, so
// an Inspector without it forwards those results unchecked.
type ResultInspector interface {
	// Result inspects the result of a prompts/get of the prompt named
	// name, of a tools/call of the tool name, or of a resources/read
	// (name ""), and returns the result to forward; the same slice when
	// nothing changes. withheld is set when the result must not reach the
	// client (a prompt with hidden instructions), err when it could not
	// be analysed; the relay acts on either in enforce mode only.
	Result(method, name string, result []byte) (out []byte, withheld *Withheld, err error)
}

// Withheld explains why a tool was withheld from the client.
type Withheld struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// passThrough inspects nothing.
type passThrough struct{}

func (passThrough) Initialize(r []byte) []byte                 { return r }
func (passThrough) ToolsList(r []byte, _ bool) ([]byte, error) { return r, nil }
func (passThrough) ListChanged()                               {}
func (passThrough) Withheld(string) (Withheld, bool)           { return Withheld{}, false }

// JSON-RPC error codes of mcpguard's own answers (implementation-defined
// server error range).
const (
	// CodeWithheld answers a call to a withheld tool.
	CodeWithheld = -32001
	// CodeNotAnalysed answers in the server's place when its response could
	// not be parsed or analysed, and a request that could not be, or that a
	// server could read otherwise than the proxy (enforce mode).
	CodeNotAnalysed = -32002
	// CodeTooLarge answers a request larger than Options.MaxMessage, or
	// one whose response is.
	CodeTooLarge = -32003
)

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
	// Listener says who may use the Streamable HTTP listener (NewHTTP).
	Listener ListenerOptions
	// Logger reports refusals and the end of a session to people
	// (stderr); nil discards.
	Logger *slog.Logger
	// Audit receives a tool-called event per tools/call (audit.go); nil
	// sends them to Events.
	Audit *events.Log
	// Secrets redacts the arguments the audit records; nil uses the
	// default detector.
	Secrets *secrets.Detector
}

// relay moves messages between a client and a server.
type relay struct {
	opts Options

	wmu    sync.Mutex // serializes writes to the client
	client io.Writer

	mu sync.Mutex
	// calls are the client's requests forwarded to the server, back the
	// server's requests forwarded to the client (correlate.go).
	calls, back *idTable

	audit *events.Log
	det   *secrets.Detector
	// answering holds a token for each of the proxy's own answers to a
	// server request still being written (answerServer).
	answering chan struct{}

	// toServer writes the proxy's own response to a server request to
	// the server (stdio: its stdin, serialized with the client's frames);
	// nil drops it.
	toServer func(frame []byte)
}

func newRelay(client io.Writer, opts Options) *relay {
	if opts.Inspector == nil {
		opts.Inspector = passThrough{}
	}
	if opts.Grace <= 0 {
		opts.Grace = 5 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Secrets == nil {
		opts.Secrets = secrets.NewDetector()
	}
	audit := opts.Audit
	if audit == nil {
		audit = opts.Events
	}
	return &relay{opts: opts, client: client, calls: newIDTable(), back: newIDTable(), audit: audit, det: opts.Secrets,
		answering: make(chan struct{}, maxPendingAnswers)}
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
// rt says where the frame's ids are recorded (correlate.go); stdio has
// one route, the zero one.
//
// In enforce mode a frame the proxy cannot parse is not forwarded: a server
// might read it (a tools/call to a withheld tool followed by garbage, a
// depth the proxy gave up on), and the proxy must see every call it lets
// through. So is a request whose envelope a case-insensitive decoder (Go's
// encoding/json) reads differently ("METHOD", "Params").
func (r *relay) fromClient(rt route, frame []byte) (forward, reply []byte) {
	msg := mcpio.TrimFrame(frame)
	if blank(msg) {
		return frame, nil
	}
	m, err := mcpio.ParseMessage(msg)
	if err != nil {
		return r.refuseClient(frame, parseErrorID(err), "request could not be parsed: "+err.Error())
	}
	if m.Batch != nil {
		return r.fromClientBatch(rt, frame, m.Batch)
	}
	if c := bytes.TrimLeft(msg, " \t\r\n")[0]; c != '{' {
		// A string or a number: a server that decodes a string again
		// would run a call nobody checked.
		return r.refuseClient(frame, nil, "not a JSON-RPC message: a JSON "+scalarKind(c))
	}
	if m.Ambiguous != "" {
		return r.refuseClient(frame, m.ID, fmt.Sprintf("ambiguous request: the member %q is read as an envelope member by some servers", m.Ambiguous))
	}
	if isResponse(&m.Envelope) {
		if _, ok := r.correlate(r.back, rt.back, &m.Envelope, "client"); !ok {
			return nil, nil
		}
		return frame, nil
	}
	if denied := r.request(rt, &m.Envelope); denied != nil {
		return nil, append(denied, '\n')
	}
	return frame, nil
}

// isResponse reports a message that answers a request: no method, and an
// id, a result or an error.
func isResponse(env *mcpio.Envelope) bool {
	return env.Method == "" && (env.ID != nil || env.Result != nil || env.HasError)
}

// correlate matches a response from one side with the request of the other
// side that it answers, and settles that request. ok is false when the
// response must not be forwarded (enforce mode): it answers no request the
// proxy forwarded, or one already answered. req is nil when the response
// answers nothing (monitor mode forwards it all the same, unanalysed).
//
// A response without an id carries an error about a message its sender
// could not read (JSON-RPC's parse error): it answers nothing and a client
// cannot take it for an answer, so it passes; a result without an id does
// not.
func (r *relay) correlate(t *idTable, prefix string, env *mcpio.Envelope, from string) (req *pendingRequest, ok bool) {
	var reason, why string
	if env.ID == nil {
		if env.Result == nil {
			return nil, true
		}
		reason, why = reasonUnsolicited, "a result without an id"
	} else {
		r.mu.Lock()
		req, dup := t.settle(prefix, env.ID)
		r.mu.Unlock()
		if req != nil {
			return req, true
		}
		requester := "server"
		if from == "server" {
			requester = "client"
		}
		reason, why = uncorrelated(env.ID, dup, requester)
	}
	details := map[string]any{"direction": from, "reason": reason}
	if !r.opts.Enforce {
		r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning", Details: details,
			Message: "monitor mode: forwarded a " + from + " message that enforce mode refuses: " + why})
		return nil, true
	}
	details["answered"] = false
	r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Details: details,
		Message: "refused a " + from + " message: " + why + "; dropped"})
	r.opts.Logger.Warn("response refused", "from", from, "reason", reason, "why", why)
	return nil, false
}

// refuseClient handles a client frame the proxy does not trust: answered
// with an error (or dropped, without an id) in enforce mode, forwarded with
// an event in monitor mode.
func (r *relay) refuseClient(frame, id []byte, why string) (forward, reply []byte) {
	if !r.opts.Enforce {
		r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning",
			Message: "monitor mode: forwarded a client message that enforce mode refuses: " + why})
		return frame, nil
	}
	r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused a client message: " + why,
		Details: map[string]any{"direction": "client", "answered": id != nil}})
	r.opts.Logger.Warn("client message refused", "why", why, "answered", id != nil)
	if id == nil {
		return nil, nil
	}
	return nil, append(errorResponse(id, CodeNotAnalysed, "mcpguard: "+why, nil), '\n')
}

// request returns an error response when a client request must not reach
// the server, and otherwise records it: only its response may come back.
func (r *relay) request(rt route, env *mcpio.Envelope) []byte {
	if !env.IsRequest() {
		return nil
	}
	var call *callRecord
	if env.Method == "tools/call" {
		name, _ := callName(env.Params)
		call = r.newCall(name, env.Params)
	}
	if denied, code, rule, why := r.deny(env); denied != nil {
		r.called(call, outcomeRefused, nil, code, rule, why)
		return denied
	}
	req := &pendingRequest{method: env.Method, call: call}
	if env.Method == "prompts/get" {
		req.name = paramString(env.Params, "name") // the prompt its result is judged as
	}
	if rt.recorded != nil && len(env.ID) <= maxIDKey {
		req.id = bytes.Clone(env.ID) // to answer it if its POST's stream has none (HTTP)
	}
	switch env.Method {
	case "tools/list", "prompts/list", "resources/templates/list", "resources/list":
		// A cursor asks for a later page of one listing: any value but
		// null, as a server reads it (a client sends back the cursor it
		// was given, a number too).
		var p struct {
			Cursor json.RawMessage `json:"cursor"`
		}
		_ = json.Unmarshal(env.Params, &p) // absent or malformed params: the first page
		req.page = Page{Session: rt.session, Stateless: rt.stateless, Cursor: cursorKey(p.Cursor)}
		req.page.Paged = req.page.Cursor != ""
	}
	prefixes := []string{rt.calls}
	if rt.also != "" {
		prefixes = append(prefixes, rt.also)
	}
	// A response is judged as the answer to the request it settles, the
	// oldest its id matches: with two open requests its id matches (1 and
	// "1", 1 and 1.0, the same id twice) that ask different things, a
	// server could answer a prompts/get with the id of a ping the proxy
	// takes it for, while the client reads it as the prompt. The later
	// request is refused in enforce mode; the same request pipelined
	// under one id (the benchmarks) is answered in order.
	r.mu.Lock()
	if r.opts.Enforce && r.calls.busy(prefixes, env.ID, req) {
		r.mu.Unlock()
		why := "request id in use: an open request has an id a response to this one also answers"
		r.called(call, outcomeRefused, nil, CodeNotAnalysed, "", why)
		r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused a client message: " + why,
			Details: map[string]any{"direction": "client", "answered": true}})
		return errorResponse(env.ID, CodeNotAnalysed, "mcpguard: "+why, nil)
	}
	r.calls.add(prefixes, env.ID, req)
	if rt.recorded != nil {
		*rt.recorded = append(*rt.recorded, req)
	}
	r.mu.Unlock()
	return nil
}

// deny returns the error response to a request that must not reach the
// server: a call to a withheld tool, or one whose tool name some server
// reads otherwise; with its code, and the rule and reason behind it.
func (r *relay) deny(env *mcpio.Envelope) (resp []byte, code int, rule, why string) {
	switch env.Method {
	case "tools/call":
		name, variant := callName(env.Params)
		if variant != "" {
			if !r.opts.Enforce {
				r.opts.Events.Emit(events.Event{Kind: "call-allowed-monitor", Tool: name, Severity: "warning",
					Message: fmt.Sprintf("monitor mode: forwarded a tools/call whose params also hold %q, which some servers read as another member", variant)})
				return nil, 0, "", ""
			}
			why := fmt.Sprintf("ambiguous tools/call: the params also hold %q", variant)
			r.opts.Events.Emit(events.Event{Kind: "call-refused", Tool: name, Message: why})
			return errorResponse(env.ID, CodeNotAnalysed, fmt.Sprintf("mcpguard: ambiguous tools/call: the params hold %q, which some servers read as name, arguments or _meta", variant), nil), CodeNotAnalysed, "", why
		}
		w, withheld := r.opts.Inspector.Withheld(name)
		if !withheld {
			return nil, 0, "", ""
		}
		if !r.opts.Enforce {
			r.opts.Events.Emit(events.Event{Kind: "call-allowed-monitor", Tool: name, Rule: w.Rule,
				Message: "monitor mode: forwarded a call to a tool that enforce mode withholds: " + w.Message})
			return nil, 0, "", ""
		}
		r.opts.Events.Emit(events.Event{Kind: "call-refused", Tool: name, Rule: w.Rule, Message: w.Message})
		return errorResponse(env.ID, CodeWithheld, fmt.Sprintf("mcpguard withheld tool %q: %s", name, w.Message),
			map[string]any{"tool": name, "rule": w.Rule}), CodeWithheld, w.Rule, w.Message
	case "prompts/get", "resources/read", "resources/subscribe", "resources/unsubscribe", "completion/complete":
		return r.denyItem(env)
	}
	return nil, 0, "", ""
}

// callName returns params.name of a tools/call as JSON.parse reads it (the
// member spelled exactly "name", the last one when repeated), and any other
// member a case-insensitive decoder would take for it, for "arguments" or
// for "_meta" instead ("NAME", "Arguments": encoding/json's struct
// decoding takes the last of them, so a Go server would run other
// arguments than the ones checked and audited).
func callName(params []byte) (name, variant string) {
	keys, values, ok := mcpio.ObjectMembers(params)
	if !ok {
		return "", ""
	}
	for i, k := range keys {
		switch {
		case k == "name":
			var s string
			if json.Unmarshal(values[i], &s) == nil {
				name = s
			} else {
				name = ""
			}
		case strings.EqualFold(k, "name"), k != "arguments" && strings.EqualFold(k, "arguments"),
			k != "_meta" && strings.EqualFold(k, "_meta"):
			variant = k
		}
	}
	return name, variant
}

// fromClientBatch handles a JSON-RPC batch: it is forwarded as one frame
// unless an element must be refused, in which case the refused elements are
// answered and the rest forwarded as a batch.
func (r *relay) fromClientBatch(rt route, frame []byte, elems [][]byte) (forward, reply []byte) {
	var keep, replies []json.RawMessage
	for _, e := range elems {
		m, err := mcpio.ParseMessage(e)
		switch {
		case err != nil || m.Batch != nil || e[0] != '{':
			// Not a message: most servers answer it with an error, but
			// one that flattens nested arrays or decodes a string again
			// would run a call nobody checked (a withheld tool's).
			why := "a batch element is not a JSON-RPC message: a JSON " + scalarKind(e[0])
			if !r.opts.Enforce {
				r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning",
					Message: "monitor mode: forwarded a client message that enforce mode refuses: " + why})
				keep = append(keep, e)
				continue
			}
			r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused a client message: " + why,
				Details: map[string]any{"direction": "client", "answered": false}})
			r.opts.Logger.Warn("client message refused", "why", why, "answered", false)
			continue
		case m.Ambiguous != "" && r.opts.Enforce:
			r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error",
				Message: fmt.Sprintf("refused a client message: ambiguous request: the member %q", m.Ambiguous)})
			if m.ID != nil {
				replies = append(replies, errorResponse(m.ID, CodeNotAnalysed, fmt.Sprintf("mcpguard: ambiguous request: the member %q is read as an envelope member by some servers", m.Ambiguous), nil))
			}
			continue
		}
		if isResponse(&m.Envelope) {
			if _, ok := r.correlate(r.back, rt.back, &m.Envelope, "client"); ok {
				keep = append(keep, e)
			}
			continue
		}
		if denied := r.request(rt, &m.Envelope); denied != nil {
			replies = append(replies, denied)
			continue
		}
		keep = append(keep, e)
	}
	if len(replies) == 0 && len(keep) == len(elems) {
		return frame, nil
	}
	if len(keep) > 0 {
		forward = batch(keep)
	}
	if len(replies) > 0 {
		reply = batch(replies)
	}
	return forward, reply
}

// maxNestedBatch is how deep nestedResponseIDs looks into arrays inside
// a batch: each level parses its elements again.
const maxNestedBatch = 4

// nestedResponseIDs returns the ids of the responses inside v, a batch
// element that is itself an array ("[[{"id":2,"result":...}]]"), to
// maxNestedBatch levels.
func nestedResponseIDs(v []byte, depth int) [][]byte {
	if depth > maxNestedBatch || len(v) == 0 || v[0] != '[' && v[0] != '{' {
		return nil
	}
	m, err := mcpio.ParseMessage(v)
	if err != nil {
		return nil
	}
	if m.Batch == nil {
		if m.ID != nil && isResponse(&m.Envelope) {
			return [][]byte{m.ID}
		}
		return nil
	}
	var out [][]byte
	for _, e := range m.Batch {
		out = append(out, nestedResponseIDs(e, depth+1)...)
	}
	return out
}

// scalarKind names the JSON value that starts with c.
func scalarKind(c byte) string {
	switch c {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '[':
		return "array"
	}
	return "number"
}

func batch(elems []json.RawMessage) []byte {
	b, _ := json.Marshal(elems)
	return append(b, '\n')
}

func blank(b []byte) bool { return len(bytes.TrimLeft(b, " \t\r\n")) == 0 }

// parseErrorID returns the id a ParseError recovered, if any.
func parseErrorID(err error) []byte {
	if pe, ok := err.(*mcpio.ParseError); ok {
		return pe.ID
	}
	return nil
}

// fromServer decides about one server frame and returns the bytes to send to
// the client: the original frame unless a result was changed, or nil when
// the frame must not reach the client.
//
// In enforce mode nothing the proxy has not fully parsed and analysed
// reaches the client (SPEC §8): a frame that is not one complete JSON value
// becomes an error response for its id when the id can be read, and is
// dropped otherwise; a tools/list result that cannot be analysed becomes an
// error response.
func (r *relay) fromServer(rt route, frame []byte) []byte {
	msg := mcpio.TrimFrame(frame)
	if blank(msg) {
		return frame
	}
	m, err := mcpio.ParseMessage(msg)
	if err != nil {
		return r.refuseServer(rt, frame, parseErrorID(err), "response could not be parsed: "+err.Error())
	}
	if m.Batch != nil {
		elems := make([]json.RawMessage, len(m.Batch))
		answers := map[int][]json.RawMessage{} // the proxy's errors in place of refused elements
		changed := false
		for i, e := range m.Batch {
			elems[i] = e
			em, err := mcpio.ParseMessage(e)
			if err != nil || em.Batch != nil || e[0] != '{' {
				// Not a message: most clients reject it, but one that
				// flattens nested arrays or decodes a string again would
				// read what nobody analysed.
				why := "a batch element is not a JSON-RPC message: a JSON " + scalarKind(e[0])
				ids := nestedResponseIDs(e, 0)
				if !r.opts.Enforce || len(ids) == 0 {
					if out := r.refuseServer(rt, e, nil, why); !bytes.Equal(out, e) {
						elems[i], changed = nil, true
					}
					continue
				}
				// The responses inside it answer requests the client waits
				// for: each gets -32002 in the element's place.
				elems[i], changed = nil, true
				for _, id := range ids {
					if out := r.refuseServer(rt, e, id, why); out != nil {
						answers[i] = append(answers[i], bytes.TrimSuffix(out, []byte("\n")))
					}
				}
				continue
			}
			if em.Ambiguous != "" {
				if out := r.refuseAmbiguous(rt, e, em); !bytes.Equal(out, e) {
					elems[i], changed = bytes.TrimSuffix(out, []byte("\n")), true
					if out == nil {
						elems[i] = nil
					}
				}
				continue
			}
			if out, ok := r.serverMessage(rt, e, em); ok {
				if out == nil {
					elems[i], changed = nil, true
					continue
				}
				elems[i], changed = out, true
			}
		}
		if !changed {
			return frame
		}
		var kept []json.RawMessage
		for i, e := range elems {
			if e != nil {
				kept = append(kept, e)
			}
			kept = append(kept, answers[i]...)
		}
		if len(kept) == 0 {
			return nil
		}
		return batch(kept)
	}
	if c := bytes.TrimLeft(msg, " \t\r\n")[0]; c != '{' {
		// A string or a number: no client reads it as a message, and one
		// that decodes a string again would read what nobody analysed.
		return r.refuseServer(rt, frame, nil, "not a JSON-RPC message: a JSON "+scalarKind(c))
	}
	if m.Ambiguous != "" {
		return r.refuseAmbiguous(rt, frame, m)
	}
	if out, ok := r.serverMessage(rt, msg, m); ok {
		if out == nil {
			return nil
		}
		return append(out, '\n')
	}
	return frame
}

// refuseRepeatedCall refuses a server request or notification whose
// method, params or id appears twice: the proxy judged what JSON.parse
// reads (the last), a client decoding the first match reads the other
// (sampling/createMessage before a "method":"ping", or params nothing
// judged). In enforce mode it is not forwarded and the server gets
// -32002 for a request; monitor mode forwards it with a warning.
func (r *relay) refuseRepeatedCall(rt route, m *mcpio.Message, member string) (out []byte, ok bool) {
	why := fmt.Sprintf("ambiguous message: the member %q appears twice", member)
	if !r.opts.Enforce {
		r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning",
			Message: "monitor mode: forwarded a server message that enforce mode refuses: " + why})
		return nil, false
	}
	r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused a server message: " + why,
		Details: map[string]any{"direction": "server", "answered": m.ID != nil}})
	r.opts.Logger.Warn("server message refused", "why", why, "answered", m.ID != nil)
	if m.ID != nil {
		r.answerServer(rt, errorResponse(m.ID, CodeNotAnalysed, "mcpguard: "+why, nil))
	}
	return nil, true
}

// refuseAmbiguous refuses a server message with a member a case-folding
// decoder reads as an envelope member ("Result", "ID"): a client on Go's
// encoding/json (mark3labs/mcp-go, go-sdk before 1.3.1) would read a
// result or id the analysis did not. A response's id, as JSON.parse reads
// it, gets -32002 when the client is waiting for it.
func (r *relay) refuseAmbiguous(rt route, frame []byte, m mcpio.Message) []byte {
	var id []byte
	if m.Method == "" {
		id = m.ID
	}
	return r.refuseServer(rt, frame, id, fmt.Sprintf("ambiguous message: the member %q is read as an envelope member by some clients", m.Ambiguous))
}

// refuseServer handles a server frame the proxy could not parse: in
// enforce mode the client gets an error for the id it carries, when that id
// is a request the client is waiting for, and nothing otherwise.
func (r *relay) refuseServer(rt route, frame, id []byte, why string) []byte {
	if !r.opts.Enforce {
		r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning",
			Message: "monitor mode: forwarded a server message that enforce mode refuses: " + why})
		return frame
	}
	var req *pendingRequest
	if id != nil {
		r.mu.Lock()
		req, _ = r.calls.settle(rt.calls, id)
		r.mu.Unlock()
	}
	r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused a server message: " + why,
		Details: map[string]any{"direction": "server", "answered": req != nil}})
	r.opts.Logger.Warn("server message refused", "why", why, "answered", req != nil)
	if req == nil {
		return nil
	}
	r.called(req.call, outcomeRefused, frame, CodeNotAnalysed, "", why)
	return append(errorResponse(id, CodeNotAnalysed, "mcpguard: "+why, nil), '\n')
}

// serverMessage inspects one parsed server message; ok is true when the
// message is replaced by out (nil: dropped).
func (r *relay) serverMessage(rt route, msg []byte, m mcpio.Message) (out []byte, ok bool) {
	if m.IsNotification() && m.Method == "notifications/resources/updated" {
		return r.resourceUpdated(&m)
	}
	if m.IsNotification() && m.Method == "notifications/tools/list_changed" {
		r.opts.Inspector.ListChanged()
		r.opts.Events.Emit(events.Event{Kind: "tools-list-changed", Message: "the server announced a changed tool list; the next tools/list is checked against the pins"})
		return nil, false
	}
	if m.Method != "" {
		if member := m.RepeatedCall; member != "" || (m.Repeated == "id" && m.ID != nil) {
			if member == "" {
				member = "id"
			}
			return r.refuseRepeatedCall(rt, &m, member)
		}
		if m.ID == nil && judgedRequests[m.Method] {
			// A request's method without an id (or with a null one):
			// no valid message, but a client that reads it as the
			// request must not read unjudged text.
			if r.judgeServerRequest(rt, &m) {
				return nil, true
			}
			return r.serverRequest(msg, &m)
		}
		if m.ID != nil {
			// A server request (sampling, elicitation, roots): only the
			// client's response to it may go back. One with hidden
			// instructions is answered by the proxy (requests.go).
			if r.judgeServerRequest(rt, &m) {
				return nil, true
			}
			r.mu.Lock()
			r.back.add([]string{rt.back}, m.ID, &pendingRequest{method: m.Method})
			r.mu.Unlock()
			return r.serverRequest(msg, &m)
		}
		return r.notification(msg, &m)
	}
	if !isResponse(&m.Envelope) {
		return nil, false // not a message: a client rejects it as it is
	}
	// A response settles its request whether it carries a result or an
	// error. It is matched as loosely as any client matches (mcpio.IDKeys).
	req, forward := r.correlate(r.calls, rt.calls, &m.Envelope, "server")
	if !forward {
		return nil, true
	}
	if req == nil || m.Result == nil {
		if req != nil {
			r.answered(req.call, msg, &m)
			if m.HasError {
				return r.errorText(req.method, msg, &m)
			}
		}
		return nil, false
	}
	if member := m.Repeated; member != "" {
		// The analysis reads the last, as JSON.parse does; a decoder
		// that takes the first match (gjson, jsonparser) reads the
		// other result, which nothing checked, or takes it for the
		// answer to another request (a prompts/get's, the answer to
		// a tools/call only cleaned).
		why := fmt.Sprintf("ambiguous message: the member %q appears twice", member)
		if r.opts.Enforce {
			r.called(req.call, outcomeRefused, msg, CodeNotAnalysed, "", why)
			r.opts.Events.Emit(events.Event{Kind: "message-refused", Severity: "error", Message: "refused a server message: " + why,
				Details: map[string]any{"direction": "server", "answered": true}})
			return errorResponse(m.ID, CodeNotAnalysed, "mcpguard: "+why, nil), true
		}
		r.opts.Events.Emit(events.Event{Kind: "message-not-analysed", Severity: "warning",
			Message: "monitor mode: forwarded a server message that enforce mode refuses: " + why})
	}
	method, paged := req.method, req.page.Paged
	result := m.Result
	if m.InvalidUTF8 || m.LoneSurrogate {
		// What the client decodes to U+FFFD is sent as U+FFFD: the client
		// then sees exactly what the analysis saw.
		result = mcpio.Normalize(result)
	}
	// The embedded requests of an input_required result (2026-07-28,
	// multi-round-trip requests) reach the user or a model whatever the
	// client asked: a tools/list or initialize may be answered with one,
	// and a result with content beside them is read as the question by a
	// client of that revision.
	if rf := r.withheldInput(m.ID, method, result); rf != nil {
		r.called(req.call, outcomeRefused, msg, rf.code, rf.rule, rf.why)
		return rf.resp, true
	}
	switch method {
	case "prompts/get", "tools/call", "resources/read":
		// contentResult records the audit once it knows the outcome.
	default:
		r.answered(req.call, msg, &m)
	}
	switch method {
	case "prompts/get", "tools/call", "resources/read":
		var refused []byte
		if result, refused = r.contentResult(req, msg, &m, result); refused != nil {
			return refused, true
		}
	case "tools/list":
		var inspected []byte
		var err error
		if si, ok := r.opts.Inspector.(SessionInspector); ok {
			inspected, err = si.ToolsListPage(req.page, result)
		} else {
			inspected, err = r.opts.Inspector.ToolsList(result, paged)
		}
		if err != nil {
			if !r.opts.Enforce {
				return nil, false
			}
			return errorResponse(m.ID, CodeNotAnalysed, "mcpguard: tools/list result could not be analysed: "+err.Error(), nil), true
		}
		result = inspected
	case "prompts/list", "resources/templates/list", "resources/list":
		ii, ok := r.opts.Inspector.(ItemInspector)
		if !ok {
			return nil, false
		}
		var inspected []byte
		var err error
		if si, ok := r.opts.Inspector.(SessionInspector); ok {
			inspected, err = si.ItemsListPage(req.page, method, result)
		} else {
			inspected, err = ii.ItemsList(method, result, paged)
		}
		if err != nil {
			if !r.opts.Enforce {
				return nil, false
			}
			return errorResponse(m.ID, CodeNotAnalysed, "mcpguard: "+method+" result could not be analysed: "+err.Error(), nil), true
		}
		result = inspected
	case "initialize", "server/discover":
		// server/discover (the 2026-07-28 revision) is the stateless
		// initialize: its instructions and server info reach the model too.
		result = r.opts.Inspector.Initialize(result)
	default:
		// Any other result: the embedded requests of an input_required
		// one, judged above, are cleaned of hidden characters.
		if out, changed := r.inputRequired(method, result); changed {
			result = out
		} else {
			return nil, false
		}
	}
	if bytes.Equal(result, m.Result) {
		return nil, false
	}
	rewritten, err := replaceResult(msg, m.Result, result)
	if err != nil {
		return nil, false
	}
	return rewritten, true
}

// contentResult inspects the result of a prompts/get, tools/call or
// resources/read (ResultInspector) and records a tools/call's answer in
// the audit. It returns the result to forward, or, in enforce mode, the
// error response the client gets instead (refused): a prompt with hidden
// instructions (-32001), a result that could not be analysed (-32002).
// An input_required result (2026-07-28) is the server's question, not
// its answer: only its inputRequests are cleaned, its requestState is
// the server's opaque token.
func (r *relay) contentResult(req *pendingRequest, msg []byte, m *mcpio.Message, result []byte) (out, refused []byte) {
	ri, ok := r.opts.Inspector.(ResultInspector)
	if !ok || isInputRequired(result) {
		r.answered(req.call, msg, m)
		if out, changed := r.inputRequired(req.method, result); changed {
			return out, nil
		}
		return result, nil
	}
	name := req.name
	if req.call != nil {
		name = req.call.tool
	}
	out, w, err := ri.Result(req.method, name, result)
	switch {
	case err != nil && r.opts.Enforce:
		why := req.method + " result could not be analysed: " + err.Error()
		r.called(req.call, outcomeRefused, msg, CodeNotAnalysed, "", why)
		return nil, errorResponse(m.ID, CodeNotAnalysed, "mcpguard: "+why, nil)
	case w != nil && r.opts.Enforce:
		return nil, errorResponse(m.ID, CodeWithheld, "mcpguard withheld this prompt: "+w.Message, map[string]any{"item_kind": "prompt", "rule": w.Rule})
	case err != nil || w != nil:
		out = result // monitor mode: forwarded, the events say what enforce mode does
	}
	r.answered(req.call, msg, m)
	return out, nil
}

// errorText cleans the error a prompts/get, tools/call or resources/read
// gets of hidden characters and terminal escapes (enforce mode): a client
// hands its message to the model as the call's outcome ("Error: ..."), as
// it hands a result. A clean error passes as it is.
func (r *relay) errorText(method string, msg []byte, m *mcpio.Message) (out []byte, ok bool) {
	switch method {
	case "prompts/get", "tools/call", "resources/read":
	default:
		return nil, false
	}
	if mcpunicode.IsCleanJSON(msg) {
		return nil, false
	}
	keys, values, okm := mcpio.ObjectMembers(msg)
	var errv []byte
	for i, k := range keys {
		if k == "error" {
			errv = values[i] // the last, as JSON.parse reads it
		}
	}
	if !okm || errv == nil || mcpunicode.IsCleanJSON(errv) {
		return nil, false
	}
	clean, changed, err := mcpunicode.SanitizeJSON(errv)
	if err != nil {
		if !r.opts.Enforce {
			return nil, false
		}
		return errorResponse(m.ID, CodeNotAnalysed, "mcpguard: the "+method+" error could not be analysed: "+err.Error(), nil), true
	}
	if !changed {
		return nil, false
	}
	r.opts.Events.Emit(events.Event{Kind: "result-sanitized", Severity: "warning", Details: map[string]any{"method": method, "error": true},
		Message: "the error of a " + method + " carries hidden characters or escape sequences" + r.action("; removed", " (monitor mode: forwarded)")})
	if !r.opts.Enforce {
		return nil, false
	}
	out, err = replaceMember(msg, "error", errv, clean)
	if err != nil {
		return errorResponse(m.ID, CodeNotAnalysed, "mcpguard: the "+method+" error could not be cleaned", nil), true
	}
	return out, true
}

// serverRequest cleans the params of a server's sampling/createMessage
// or elicitation/create request in enforce mode: their messages, system
// prompt and question go to the client's model or to the user, so hidden
// characters and terminal escapes are removed as from a result (an
// input-sanitized event). Other server requests, and clean ones, pass as
// they came.
func (r *relay) serverRequest(msg []byte, m *mcpio.Message) (out []byte, ok bool) {
	if m.Method != "sampling/createMessage" && m.Method != "elicitation/create" {
		return nil, false
	}
	return r.cleanParams(msg, m, "input-sanitized", "request")
}

// textNotifications are the server notifications whose params carry text
// a client shows the user or hands to the model: log messages (their
// data and logger), a progress message, the reason a request was
// cancelled.
var textNotifications = map[string]bool{"notifications/message": true, "notifications/progress": true, "notifications/cancelled": true}

// notification cleans the params of a server notification that carries
// text (textNotifications) in enforce mode, as a result's: hidden
// characters and terminal escapes removed, with a notification-sanitized
// event. Other notifications, and clean ones, pass as they came.
func (r *relay) notification(msg []byte, m *mcpio.Message) (out []byte, ok bool) {
	if !textNotifications[m.Method] {
		return nil, false
	}
	return r.cleanParams(msg, m, "notification-sanitized", "notification")
}

// cleanParams removes hidden characters and terminal escapes from the
// params of a server message (a request or notification, what) in enforce
// mode, with an event of the kind; clean params (the fast check) pass as
// they are. Params that cannot be cleaned (nested past the sanitizer) are
// not forwarded in enforce mode.
func (r *relay) cleanParams(msg []byte, m *mcpio.Message, kind, what string) (out []byte, ok bool) {
	if len(m.Params) == 0 || mcpunicode.IsCleanJSON(m.Params) {
		return nil, false
	}
	clean, changed, err := mcpunicode.SanitizeJSON(m.Params)
	if err != nil {
		r.opts.Events.Emit(events.Event{Kind: "protocol-error", Severity: "error",
			Message: "the server's " + m.Method + " " + what + " could not be cleaned: " + err.Error() + r.action("; not forwarded", " (monitor mode: forwarded)"),
			Details: map[string]any{"method": m.Method}})
		return nil, r.opts.Enforce
	}
	if !changed {
		return nil, false
	}
	r.opts.Events.Emit(events.Event{Kind: kind, Severity: "warning",
		Message: "the server's " + m.Method + " " + what + " carries hidden characters or escape sequences" + r.action(", removed", " (monitor mode: forwarded)"),
		Details: map[string]any{"method": m.Method}})
	if !r.opts.Enforce {
		return nil, false
	}
	out, err = replaceMember(msg, "params", m.Params, clean)
	if err != nil {
		return nil, true // not forwarded: what the client would read was not cleaned
	}
	return out, true
}

// replaceResult rebuilds a response with a new result. When old is the
// result's own bytes inside msg (the fast envelope path), they are spliced,
// and every other byte of the message stays as it was; otherwise the
// members are re-encoded.
func replaceResult(msg, old, result []byte) ([]byte, error) {
	return replaceMember(msg, "result", old, result)
}

// replaceMember rebuilds a message with a new value of its member key, as
// replaceResult does for "result".
func replaceMember(msg []byte, key string, old, value []byte) ([]byte, error) {
	if start := cap(msg) - cap(old); len(old) > 0 && start >= 0 && start+len(old) <= len(msg) && &msg[start] == &old[0] {
		out := make([]byte, 0, len(msg)-len(old)+len(value))
		out = append(out, msg[:start]...)
		out = append(out, value...)
		return append(out, msg[start+len(old):]...), nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(msg, &members); err != nil {
		return nil, err
	}
	members[key] = value
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(members); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// sessionEnded tells the Inspector that a client session ended: its
// listings' pages are forgotten (paging.go).
func (r *relay) sessionEnded(session string) {
	if si, ok := r.opts.Inspector.(SessionInspector); ok {
		si.SessionEnded(session)
	}
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

// Exit is how a stdio session ended.
type Exit struct {
	// Code is the server's exit status, as a shell reports it (128 plus
	// the signal that ended it).
	Code int
	// Reason is why the session ended: ReasonClientClosed,
	// ReasonServerExited, ReasonTerminated, ReasonTooLarge or ReasonIO.
	Reason string
	// Message says it for people.
	Message string
}

// Reasons a session ends (Exit.Reason, proxy-exit's reason detail).
const (
	ReasonClientClosed = "client-closed"
	ReasonServerExited = "server-exited"
	ReasonTerminated   = "terminated"
	ReasonTooLarge     = "message-too-large"
	ReasonIO           = "io-error"
)

// sessionEnd is a pump's reason to end the session.
type sessionEnd struct{ reason, msg string }

func (e *sessionEnd) Error() string { return e.msg }

// RunStdio starts the server argv and relays newline-delimited JSON-RPC
// between the client (in, out) and it until the client closes its input,
// the server exits, ctx ends or a message is larger than
// Options.MaxMessage. It returns the server's exit status and why the
// session ended; the error is for a server that could not be started.
func RunStdio(ctx context.Context, argv []string, in io.Reader, out, stderr io.Writer, opts Options) (Exit, error) {
	// As the subreaper (Linux), the proxy can end even what left the
	// server's group and session.
	c, err := mcpio.StartChild(mcpio.ChildOptions{Argv: argv, Env: os.Environ(), Stderr: stderr, Subreaper: true})
	if err != nil {
		return Exit{}, err
	}
	r := newRelay(out, opts)
	defer catchSIGPIPE()()
	// A process the server started may keep the pipe open after the server
	// exits; closing our end stops the reader.
	defer c.Stdout().Close()

	// The client's frames and the proxy's own answers to server requests
	// share the server's stdin: one writer at a time.
	stdin := &lockedWriter{w: c.Stdin()}
	r.toServer = func(frame []byte) { _, _ = stdin.Write(frame) }

	serverDone := make(chan error, 1)
	go func() { serverDone <- r.pumpServer(c.Stdout()) }()

	clientDone := make(chan error, 1)
	go func() { clientDone <- r.pumpClient(in, stdin) }()

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
	var exit Exit
	ended := func(err error, reason, msg string) {
		var end *sessionEnd
		switch {
		case errors.As(err, &end):
			exit.Reason, exit.Message = end.reason, end.msg
		case err != nil:
			exit.Reason, exit.Message = ReasonIO, err.Error()
		default:
			exit.Reason, exit.Message = reason, msg
		}
	}
	// Whatever ends the session, the server's process group goes with it
	// (EndGroup): a process the server started must not outlive the proxy.
	// Its last words still reach the client: the pipe holds them after the
	// writers are gone.
	select {
	case err := <-clientDone:
		// Client EOF: the spec's shutdown, then the server's last words.
		ended(err, ReasonClientClosed, "the client closed its input")
		c.Shutdown(ctx, r.opts.Grace)
		c.EndGroup(r.opts.Grace)
		drain()
	case err := <-serverDone:
		ended(err, ReasonServerExited, "the server closed its output")
		if exit.Reason == ReasonTooLarge {
			// Nobody reads the server any more: it must not block writing.
			c.Stdout().Close()
			c.Shutdown(ctx, r.opts.Grace)
		} else if !c.WaitFor(r.opts.Grace) {
			// The server closed its output: it is exiting.
			c.Shutdown(ctx, r.opts.Grace)
		}
		c.EndGroup(r.opts.Grace)
	case <-c.Done():
		// The server exited, and something it started holds its output
		// open (or is about to close it).
		ended(nil, ReasonServerExited, "the server exited")
		c.EndGroup(r.opts.Grace)
		drain()
	case <-ctx.Done():
		ended(nil, ReasonTerminated, "the proxy was told to stop")
		c.Shutdown(ctx, r.opts.Grace)
		c.EndGroup(r.opts.Grace)
		drain()
	}
	exit.Code = c.ExitCode()
	r.unanswered()
	r.sessionEnded("")
	return exit, nil
}

// tooLarge handles a message over Options.MaxMessage from one side: the
// proxy cannot read it, forward it or find where the next one starts, so
// the session ends. A request is answered with an error naming the limit,
// and so is the client's request a server's response answers, when their
// id precedes the part that made them too large.
//
// Over HTTP (stream false) only the POST or its response is lost.
func (r *relay) tooLarge(rt route, from string, prefix []byte, limit int, stream bool) (reply []byte, end *sessionEnd) {
	m, _ := mcpio.ParseMessage(mcpio.TrimFrame(prefix)) // cut short: the members before the cut
	then := ""
	if stream {
		then = "; the session ends"
	}
	switch {
	case from == "client" && m.Method != "" && m.ID != nil:
		reply = errorResponse(m.ID, CodeTooLarge, fmt.Sprintf("mcpguard: the request is larger than the proxy's limit of %d bytes (--max-message)%s", limit, then), map[string]any{"limit": limit})
	case from == "server" && m.Method == "" && m.ID != nil:
		r.mu.Lock()
		req, _ := r.calls.settle(rt.calls, m.ID)
		r.mu.Unlock()
		if req != nil {
			r.called(req.call, outcomeRefused, prefix, CodeTooLarge, "", fmt.Sprintf("the response is larger than %d bytes (--max-message)", limit))
			reply = errorResponse(m.ID, CodeTooLarge, fmt.Sprintf("mcpguard: the server's response is larger than the proxy's limit of %d bytes (--max-message)%s", limit, then), map[string]any{"limit": limit})
		}
	}
	msg := fmt.Sprintf("the %s sent a message larger than %d bytes (--max-message)", from, limit)
	r.opts.Events.Emit(events.Event{Kind: "message-too-large", Severity: "error", Message: msg + then,
		Details: map[string]any{"direction": from, "limit": limit, "answered": reply != nil}})
	r.opts.Logger.Error("message larger than --max-message"+then, "from", from, "limit", limit, "answered", reply != nil)
	if reply != nil {
		reply = append(reply, '\n')
	}
	return reply, &sessionEnd{reason: ReasonTooLarge, msg: msg}
}

// lockedWriter serializes whole writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// pumpClient forwards client frames to the server until the client's EOF.
func (r *relay) pumpClient(in io.Reader, server io.Writer) error {
	return r.pump(in, "client", func(frame []byte) error {
		forward, reply := r.fromClient(route{}, frame)
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
		return nil
	})
}

// pumpServer forwards server frames to the client until the server's EOF.
func (r *relay) pumpServer(server io.Reader) error {
	return r.pump(server, "server", func(frame []byte) error {
		return r.toClient(r.fromServer(route{}, frame))
	})
}

// pump hands each frame read from in to handle until in's EOF or handle's
// error. A frame over MaxMessage from side ends the pump as tooLarge says.
func (r *relay) pump(in io.Reader, side string, handle func(frame []byte) error) error {
	fr := mcpio.NewFrameReader(in, r.opts.MaxMessage)
	for {
		frame, err := fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, mcpio.ErrFrameTooLarge) {
				reply, end := r.tooLarge(route{}, side, fr.Prefix(), r.opts.MaxMessage, true)
				if reply != nil {
					_ = r.toClient(reply)
				}
				return end
			}
			return err
		}
		if err := handle(frame); err != nil {
			return err
		}
	}
}
