package proxy

import (
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// revisioned is a fakeInspector that knows its tools' revisions.
type revisioned struct{ *fakeInspector }

func (revisioned) Revision(tool string) string { return "sha-of-" + tool }

const ghToken = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

// TestCallAudit: every tools/call leaves one tool-called event in the
// audit log, whatever became of it, with the arguments by name, secrets
// redacted, long values cut, nested values by size, and never the result.
func TestCallAudit(t *testing.T) {
	var audit syncBuffer
	insp := revisioned{&fakeInspector{withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "hidden instructions"}}}}
	s := start(t, "normal", Options{Enforce: true, Inspector: insp, Audit: events.New(&audit, "proxy", nil).For("fake")})
	long := strings.Repeat("é", 200)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/etc/hosts","api_key":"hunter2-Zq8#kL0p!xV3","note":"use ` + ghToken + ` here","long":"` + long + `","n":3,"ok":true,"opts":{"password":"x"},"list":[1,2]}}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fails","arguments":{}}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rpc-error"}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"evil","arguments":{"x":1}}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hang"}}`)
	s.send(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	s.recv()
	s.close()

	audit.mu.Lock()
	raw := audit.buf.String()
	audit.mu.Unlock()
	for _, leak := range []string{ghToken, "hunter2", "secret output", `"password"`, strings.Repeat("é", 130)} {
		if strings.Contains(raw, leak) {
			t.Errorf("the audit holds %q:\n%s", leak, raw)
		}
	}
	as := &session{t: t}
	as.log.buf.WriteString(raw)
	byTool := map[string]events.Event{}
	for _, e := range as.events() {
		if e.Kind != "tool-called" {
			t.Errorf("the audit log holds a %s event", e.Kind)
			continue
		}
		if _, dup := byTool[e.Tool]; dup {
			t.Errorf("two events for %s", e.Tool)
		}
		byTool[e.Tool] = e
	}
	want := map[string]string{"read_file": "ok", "fails": "tool-error", "rpc-error": "error", "evil": "refused", "hang": "unanswered"}
	for tool, outcome := range want {
		e, ok := byTool[tool]
		if !ok {
			t.Errorf("no tool-called event for %s", tool)
			continue
		}
		if e.Details["outcome"] != outcome || e.Server != "fake" || e.Details["tool_sha256"] != "sha-of-"+tool {
			t.Errorf("%s: %+v", tool, e)
		}
		if _, ok := e.Details["duration_ms"].(float64); !ok {
			t.Errorf("%s: no duration", tool)
		}
	}
	args, _ := byTool["read_file"].Details["arguments"].(map[string]any)
	wantArgs := map[string]any{"path": "/etc/hosts", "api_key": "REDACTED", "note": "REDACTED", "n": 3.0, "ok": true,
		"opts": "<object of 16 bytes>", "list": "<array of 5 bytes>"}
	for k, v := range wantArgs {
		if args[k] != v {
			t.Errorf("argument %s: %#v, want %#v", k, args[k], v)
		}
	}
	if l, _ := args["long"].(string); !strings.HasSuffix(l, "... (400 bytes)") || len(l) > maxAuditValue+20 {
		t.Errorf("long argument: %q", l)
	}
	if e := byTool["rpc-error"]; e.Details["error_code"] != -32602.0 || e.Details["refused_by"] != "server" {
		t.Errorf("rpc-error: %+v", e.Details)
	}
	if e := byTool["evil"]; e.Details["refused_by"] != "mcpguard" || e.Rule != "MCPG-T001" || e.Details["error_code"] != float64(CodeWithheld) {
		t.Errorf("evil: %+v", e)
	}
	if n, _ := byTool["fails"].Details["response_bytes"].(float64); n < 50 {
		t.Errorf("fails: response_bytes %v", byTool["fails"].Details["response_bytes"])
	}
	// The events log keeps its own events and no audit.
	for _, e := range s.events() {
		if e.Kind == "tool-called" {
			t.Errorf("a tool-called event in the events log while --audit is set")
		}
	}
}

// TestCallAuditOverHTTP: calls through the listener are audited too, and a
// POST that ends without the response leaves an unanswered event.
func TestCallAuditOverHTTP(t *testing.T) {
	px, _, _, log := listenerPair(t, ListenerOptions{})
	_, body := send(t, px, "", nil)
	if !strings.Contains(body, "EXECUTED") {
		t.Fatalf("call: %s", body)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if !strings.Contains(log.buf.String(), `"kind":"tool-called"`) || !strings.Contains(log.buf.String(), `"outcome":"ok"`) {
		t.Errorf("no tool-called event:\n%s", log.buf.String())
	}
}
