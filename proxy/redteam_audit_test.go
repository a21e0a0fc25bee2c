package proxy

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// Red team (issue 42 part 6): what the tool-called audit event lets
// through. "Never a secret", and values are bounded.

// auditOf runs one tools/call with the arguments through a relay and
// returns the audit log's text.
func auditOf(t *testing.T, arguments string) string {
	t.Helper()
	var audit syncBuffer
	r := newRelay(io.Discard, Options{Enforce: true, Audit: events.New(&audit, "proxy", nil)})
	fwd, reply := r.fromClient(route{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":`+arguments+`}}`+"\n"))
	if fwd == nil || reply != nil {
		t.Fatalf("the call was not forwarded: %s", reply)
	}
	r.fromServer(route{}, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`+"\n"))
	audit.mu.Lock()
	defer audit.mu.Unlock()
	if !strings.Contains(audit.buf.String(), `"kind":"tool-called"`) {
		t.Fatalf("no tool-called event: %s", audit.buf.String())
	}
	return audit.buf.String()
}

// TestRedteamAuditSecretValues: secrets under credential names that the
// audit shows as they are: a pass phrase with spaces, and numbers (a
// PIN, a card's security code, a numeric password).
func TestRedteamAuditSecretValues(t *testing.T) {
	for _, c := range []struct{ args, secret string }{
		{`{"user":"ann","password":"correct horse battery staple"}`, "correct horse"},
		{`{"user":"ann","password":839201734}`, "839201734"},
		{`{"card":"x","cvv":731,"pin":482913}`, "482913"},
		{`{"user":"ann","client_secret":"Zq8#kL0p!xV3 9aWm"}`, "Zq8#kL0p"},
	} {
		if raw := auditOf(t, c.args); strings.Contains(raw, c.secret) {
			t.Errorf("arguments %s: the audit holds %q:\n%s", c.args, c.secret, raw)
		}
	}
}

// TestRedteamAuditArgumentNames: argument names are recorded verbatim and
// unbounded: a name that is a token, and a name of 64 KiB (a tool with
// free-form keys, such as an env or headers map at the top level).
func TestRedteamAuditArgumentNames(t *testing.T) {
	if raw := auditOf(t, `{"`+ghToken+`":"x"}`); strings.Contains(raw, ghToken) {
		t.Errorf("a token as an argument's name is in the audit:\n%s", raw)
	}
	long := strings.Repeat("k", 64<<10)
	if raw := auditOf(t, `{"`+long+`":1}`); len(raw) > 8<<10 {
		t.Errorf("one tool-called event of %d bytes: argument names are not bounded", len(raw))
	}
}

// TestRedteamAuditCaseVariantArguments: callName refuses a tools/call
// whose params hold "NAME" beside "name", but not "Arguments" beside
// "arguments". A server on Go's encoding/json (mark3labs/mcp-go, go-sdk
// before 1.3.1) runs the call with the other arguments, and the audit
// records the ones it did not run.
func TestRedteamAuditCaseVariantArguments(t *testing.T) {
	var audit syncBuffer
	r := newRelay(io.Discard, Options{Enforce: true, Audit: events.New(&audit, "proxy", nil)})
	fwd, _ := r.fromClient(route{}, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"cmd":"ls"},"Arguments":{"cmd":"rm -rf ~"}}}`+"\n"))
	if fwd == nil {
		return // refused: the audit and the server agree
	}
	var server struct {
		Params struct {
			Arguments struct {
				Cmd string `json:"cmd"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(fwd, &server); err != nil {
		t.Fatal(err)
	}
	r.fromServer(route{}, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`+"\n"))
	audit.mu.Lock()
	defer audit.mu.Unlock()
	if !strings.Contains(audit.buf.String(), server.Params.Arguments.Cmd) {
		t.Errorf("a Go server runs cmd %q; the audit says:\n%s", server.Params.Arguments.Cmd, audit.buf.String())
	}
}

// TestSensitiveName: names under which the audit redacts any value, and
// names under which it shows numbers and short strings as they are.
func TestSensitiveName(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "client_secret": true, "apiKey": true, "pin": true, "pin_code": true,
		"cardCvv": true, "CVC": true, "otp": true, "user": false, "count": false, "spinner": false,
		"opinion": false, "path": false, "": false,
	} {
		if got := sensitiveName(name); got != want {
			t.Errorf("sensitiveName(%q) = %v, want %v", name, got, want)
		}
	}
	// A null under a credential's name says nothing, and stays null;
	// an object there is redacted too.
	raw := auditOf(t, `{"password":null,"token":{"a":"b"},"count":3}`)
	if !strings.Contains(raw, `"password":null`) || strings.Contains(raw, "object of") || !strings.Contains(raw, `"count":3`) {
		t.Errorf("audit:\n%s", raw)
	}
}
