package introspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpguard/mcpguard/internal/mcpio"
	"github.com/mcpguard/mcpguard/reports"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// conn is one transport to a server: stdio pipes, Streamable HTTP or the
// legacy HTTP+SSE transport.
type conn interface {
	// send delivers one JSON-RPC message to the server.
	send(ctx context.Context, msg []byte) error
	// next returns the next message from the server (a copy the caller
	// keeps).
	next(ctx context.Context) ([]byte, error)
	// close ends the session and frees everything it holds: no process,
	// goroutine or connection is left once it returns.
	close(ctx context.Context)
}

// protocolVersion is the newest MCP revision of the initialize era that
// mcpguard speaks; servers answer with the one they choose.
const protocolVersion = "2025-11-25"

// modernVersion is the stateless revision: no initialize, server/discover,
// and the protocol version, client info and capabilities in every
// request's _meta. Introspection speaks it to a server that refuses
// initialize.
const modernVersion = "2026-07-28"

// maxPages bounds a paginated listing: a server that returns a cursor
// forever must not keep the scan busy until its timeout.
const maxPages = 1000

// rpcError is a JSON-RPC error response.
type rpcError struct {
	code    int
	message string
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s", e.code, e.message)
}

// errMethodNotFound is the JSON-RPC code of an unknown method.
const errMethodNotFound = -32601

// session speaks JSON-RPC to one server as a client: it numbers requests,
// waits for their responses, and answers what the server asks meanwhile.
type session struct {
	c      conn
	nextID int
	step   string // what the session is waiting for, for timeout messages
	// noise counts server messages that were not JSON-RPC (log lines on
	// stdout and the like): clients skip them, and so does introspection.
	noise int
	// meta is the _meta every request carries in the 2026-07-28 revision;
	// nil in the initialize era.
	meta map[string]any
}

// call sends a request and returns the raw result of its response.
func (s *session) call(ctx context.Context, method string, params any) ([]byte, error) {
	s.nextID++
	id := s.nextID
	s.step = method
	if s.meta != nil {
		p, _ := params.(map[string]any)
		withMeta := make(map[string]any, len(p)+1)
		for k, v := range p {
			withMeta[k] = v
		}
		withMeta["_meta"] = s.meta
		params = withMeta
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := s.c.send(ctx, msg); err != nil {
		return nil, err
	}
	want := strconv.Itoa(id)
	for {
		frame, err := s.c.next(ctx)
		if err != nil {
			return nil, err
		}
		env, ok := mcpio.ParseEnvelope(mcpio.TrimFrame(frame))
		if !ok {
			s.noise++
			continue
		}
		switch {
		case env.IsRequest():
			if err := s.answer(ctx, env); err != nil {
				return nil, err
			}
		case env.Method != "":
			// A notification (log message, progress, list changed).
		case mcpio.IDKey(env.ID) == want:
			if env.HasError {
				return nil, decodeRPCError(frame)
			}
			if env.Result == nil {
				return nil, fmt.Errorf("the response to %s has neither result nor error", method)
			}
			return env.Result, nil
		}
	}
}

// notify sends a notification.
func (s *session) notify(ctx context.Context, method string) error {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	return s.c.send(ctx, msg)
}

// answer replies to a request from the server: ping is answered, anything
// else (sampling, elicitation, roots — capabilities introspection does not
// declare) is refused, so that the server does not wait for an answer.
func (s *session) answer(ctx context.Context, env mcpio.Envelope) error {
	reply := map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(env.ID)}
	if env.Method == "ping" {
		reply["result"] = map[string]any{}
	} else {
		reply["error"] = map[string]any{"code": errMethodNotFound, "message": "not supported by mcpguard introspection"}
	}
	msg, err := json.Marshal(reply)
	if err != nil {
		return nil // an id that does not re-encode: leave the request unanswered
	}
	return s.c.send(ctx, msg)
}

// decodeRPCError reads the error of a response; its message is the
// server's text, made safe to print.
func decodeRPCError(frame []byte) error {
	var m struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(frame, &m)
	return &rpcError{code: m.Error.Code, message: safeText(m.Error.Message, 200)}
}

// safeText makes server text printable in a reason: hidden characters
// removed, shortened.
func safeText(s string, n int) string {
	return reports.TrimMessage(mcpunicode.Sanitize(s), n)
}

// listing is everything a server answered, raw.
type listing struct {
	initialize []byte   // the initialize result, or server/discover's
	version    string   // the revision spoken: the one initialize chose, or modernVersion
	tools      [][]byte // tools/list results, one per page
	prompts    [][]byte
	resources  [][]byte
	templates  [][]byte // resources/templates/list results
	// problems are failures of optional steps (prompts, resources).
	problems []string
}

// handshake runs the client side of an MCP session: initialize,
// notifications/initialized, then the listings the capabilities announce.
//
// A server of the 2026-07-28 revision only refuses initialize (with a
// JSON-RPC error, or HTTP 400): it is asked server/discover instead, and
// every later request carries the revision's _meta.
func (s *session) handshake(ctx context.Context, client clientInfo) (*listing, error) {
	clientInfo := map[string]any{"name": client.name, "version": client.version}
	init, err := s.call(ctx, "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      clientInfo,
	})
	method := "initialize"
	if err != nil {
		var re *rpcError
		var se *httpStatusError
		if !errors.As(err, &re) && !(errors.As(err, &se) && se.code == 400) {
			return nil, err
		}
		s.meta = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    modernVersion,
			"io.modelcontextprotocol/clientInfo":         clientInfo,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
		if v, ok := s.c.(versioned); ok {
			v.setVersion(modernVersion)
		}
		disc, derr := s.call(ctx, "server/discover", map[string]any{})
		if derr != nil {
			// Not a server of the new revision either: the initialize
			// error is the one to report.
			return nil, err
		}
		init, method = disc, "server/discover"
	}
	var head struct {
		ProtocolVersion   string                     `json:"protocolVersion"`
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(init, &head); err != nil {
		return nil, fmt.Errorf("the %s result is not an object: %v", method, err)
	}
	l := &listing{initialize: init, version: head.ProtocolVersion}
	if s.meta != nil {
		l.version = modernVersion
	} else {
		if v, ok := s.c.(versioned); ok {
			v.setVersion(head.ProtocolVersion)
		}
		if err := s.notify(ctx, "notifications/initialized"); err != nil {
			return nil, err
		}
	}
	_, hasTools := head.Capabilities["tools"]
	// Ask for tools even when the capability is missing: some servers
	// forget to announce it, and their clients ask anyway.
	l.tools, err = s.pages(ctx, "tools/list")
	if err != nil {
		var re *rpcError
		if hasTools || !errors.As(err, &re) || re.code != errMethodNotFound {
			return nil, err
		}
	}
	for _, opt := range []struct {
		capability, method string
		into               *[][]byte
	}{{"prompts", "prompts/list", &l.prompts}, {"resources", "resources/list", &l.resources},
		{"resources", "resources/templates/list", &l.templates}} {
		if _, ok := head.Capabilities[opt.capability]; !ok {
			continue
		}
		pages, err := s.pages(ctx, opt.method)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			var re *rpcError
			if opt.method == "resources/templates/list" && errors.As(err, &re) && re.code == errMethodNotFound {
				continue // many servers with resources have no templates, nor the method
			}
			l.problems = append(l.problems, fmt.Sprintf("%s: %v", opt.method, err))
			continue
		}
		*opt.into = pages
	}
	return l, nil
}

// versioned is a conn that sends the negotiated protocol version with
// every later message (the HTTP transports' MCP-Protocol-Version header).
type versioned interface{ setVersion(string) }

// pages calls a paginated list method until the server returns no cursor.
func (s *session) pages(ctx context.Context, method string) ([][]byte, error) {
	var out [][]byte
	seen := map[string]bool{}
	cursor := ""
	for range maxPages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := s.call(ctx, method, params)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
		var page struct {
			NextCursor *string `json:"nextCursor"`
		}
		_ = json.Unmarshal(res, &page)
		if page.NextCursor == nil || *page.NextCursor == "" {
			return out, nil
		}
		cursor = *page.NextCursor
		if seen[cursor] {
			return nil, fmt.Errorf("%s returned the cursor %q twice: the listing does not end", method, safeText(cursor, 40))
		}
		seen[cursor] = true
	}
	return nil, fmt.Errorf("%s did not end within %d pages", method, maxPages)
}

// clientInfo is how introspection introduces itself.
type clientInfo struct{ name, version string }
