package introspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/mcpio"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// scriptedConn answers the n-th request with the n-th line of a script:
// the line as the result, or, when it starts with '!', the rest of the line
// as a raw message followed by the same answer again.
type scriptedConn struct {
	lines   [][]byte
	pending [][]byte
}

func (c *scriptedConn) send(_ context.Context, msg []byte) error {
	env, ok := mcpio.ParseEnvelope(msg)
	if !ok || env.Method == "" || env.ID == nil {
		return nil // notifications and answers to the server's requests
	}
	if len(c.lines) == 0 {
		return nil
	}
	line := c.lines[0]
	c.lines = c.lines[1:]
	if raw, ok := bytes.CutPrefix(line, []byte("!")); ok {
		c.pending = append(c.pending, raw)
		line = []byte("{}")
	}
	c.pending = append(c.pending, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, env.ID, line))
	return nil
}

func (c *scriptedConn) next(context.Context) ([]byte, error) {
	if len(c.pending) == 0 {
		return nil, io.EOF
	}
	m := c.pending[0]
	c.pending = c.pending[1:]
	return m, nil
}

func (c *scriptedConn) close(context.Context) {}

// FuzzIntrospectAnswers: whatever a server answers, introspection reports
// it or an error, never panics, and the report shows no hidden character.
func FuzzIntrospectAnswers(f *testing.F) {
	f.Add([]byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"x","version":"1"}}
{"tools":[{"name":"a","description":"b\u200b","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object"}}],"nextCursor":"c"}
{"tools":[{"name":"a"}]}
{"prompts":[{"name":"p","description":"q"}]}`))
	f.Add([]byte("{}\n{\"tools\":[]}"))
	f.Add([]byte("!{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"ping\"}\n{\"tools\":{}}"))
	f.Add([]byte("[]\n"))
	f.Add([]byte(`{"capabilities":{"resources":{}}}` + "\n" + `{"tools":[1,"x",null]}` + "\n" + `{"resources":[{"uri":"https://u:p@h/"}]}`))
	f.Fuzz(func(t *testing.T, script []byte) {
		c := &scriptedConn{lines: bytes.Split(script, []byte("\n"))}
		sess := &session{c: c}
		l, err := sess.handshake(context.Background(), clientInfo{name: "fuzz"})
		opts := Options{Secrets: secrets.NewDetector()}
		s := &scanner.Server{ID: "s-1", Name: "fuzz", Source: reports.Location{Path: "/c.json"}}
		out := opts.outcome(s, &target{transport: scanner.TransportStdio, argv: []string{"x"}}, l, err, time.Millisecond)
		in := out.Introspection
		if in == nil || in.Tools == nil {
			t.Fatal("no introspection entry")
		}
		if err != nil && in.Status == reports.IntrospectionOK {
			t.Fatalf("a failed session reported ok: %v", err)
		}
		if errors.Is(err, io.EOF) && in.Reason == "" {
			t.Fatal("a failure without a reason")
		}
		for _, tool := range in.Tools {
			for _, str := range []string{tool.Name, tool.Description, tool.Title} {
				if bytes.ContainsRune([]byte(str), '\u200b') {
					t.Fatalf("a hidden character reached the report: %q", str)
				}
			}
		}
	})
}
