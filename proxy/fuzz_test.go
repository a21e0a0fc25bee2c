package proxy

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/mcpio"
)

// FuzzServerFrame: whatever a server sends in answer to a pending
// tools/list, the proxy in enforce mode forwards nothing that does not
// parse, and never a tool it withholds in a response the client matches to
// that request.
func FuzzServerFrame(f *testing.F) {
	evil := `{"name":"evil","description":"x"}`
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + evil + `]}}`,
		`{"jsonrpc":"2.0","id":1.0,"result":{"tools":[` + evil + `]}}`,
		`{"jsonrpc":"2.0","id":"1","result":{"tools":[` + evil + `]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[]},"result":{"tools":[` + evil + `]}}`,
		`{"jsonrpc":"2.0","id":1,"res\u0075lt":{"tools":[` + evil + `]}}`,
		`[{"jsonrpc":"2.0","id":1,"result":{"tools":[` + evil + `]}}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + evil + `],"_meta":` + strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat(`}`, 200) + `}}`,
		"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[" + evil + "]}}",
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + evil + `]}} x`,
		`not json`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		r := newRelay(io.Discard, Options{Enforce: true, Inspector: &fakeInspector{
			withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "x"}}}})
		r.fromClient(route{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n"))
		out := r.fromServer(route{}, frame)
		if out == nil || blank(mcpio.TrimFrame(out)) {
			return // dropped, or a blank line (forwarded: there is nothing in it)
		}
		m, err := mcpio.ParseMessage(mcpio.TrimFrame(out))
		if err != nil {
			t.Fatalf("forwarded a frame that does not parse: %q -> %q (%v)", frame, out, err)
		}
		msgs := [][]byte{mcpio.TrimFrame(out)}
		if m.Batch != nil {
			msgs = m.Batch
		}
		for _, msg := range msgs {
			mm, err := mcpio.ParseMessage(msg)
			if err != nil || mm.Result == nil || !matchesOne(mm.ID) {
				continue
			}
			var res struct {
				Tools []map[string]any `json:"tools"`
			}
			if json.Unmarshal(mcpio.Normalize(mm.Result), &res) != nil {
				continue
			}
			for _, tl := range res.Tools {
				if tl["name"] == "evil" {
					t.Fatalf("forwarded a withheld tool: %q -> %q", frame, out)
				}
			}
		}
	})
}

// matchesOne reports whether a client matching ids as loosely as the
// TypeScript SDK takes id for request 1.
func matchesOne(id []byte) bool {
	for _, k := range mcpio.IDKeys(id) {
		if k == "n:1" {
			return true
		}
	}
	return false
}

// FuzzNoRequestPending: with no request open, whatever a server sends, the
// proxy in enforce mode forwards no response at all — only requests,
// notifications and what answers nothing (an error without an id).
func FuzzNoRequestPending(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"evil"}]}}`,
		`{"jsonrpc":"2.0","id":"2","result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","method":"notifications/message"}]`,
		`{"jsonrpc":"2.0","id":4,"method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":5,"result":{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		r := newRelay(io.Discard, Options{Enforce: true})
		out := r.fromServer(route{}, frame)
		if out == nil || blank(mcpio.TrimFrame(out)) {
			return
		}
		m, err := mcpio.ParseMessage(mcpio.TrimFrame(out))
		if err != nil {
			t.Fatalf("forwarded a frame that does not parse: %q", out)
		}
		elems := [][]byte{mcpio.TrimFrame(out)}
		if m.Batch != nil {
			elems = m.Batch
		}
		for _, e := range elems {
			em, err := mcpio.ParseMessage(e)
			if err != nil || em.Batch != nil {
				continue // no client takes it for a response
			}
			if isResponse(&em.Envelope) && (em.ID != nil || em.Result != nil) {
				t.Fatalf("forwarded a response with no request open: %q", e)
			}
		}
	})
}
