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

// TestAuditCommandLineSecrets: a string argument that is a command line or
// holds one (a run_command tool's command, a query with a DSN) shows its
// credential flags, NAME=value assignments and "Name: value" headers
// hidden, as a server's argv is in a report; prose and paths stay.
func TestAuditCommandLineSecrets(t *testing.T) {
	for _, c := range []struct{ args, secret string }{
		{`{"command":"mysql -u root --password=Hunter2xq db"}`, "Hunter2xq"},
		{`{"command":"PGPASSWORD=s3cr3tpw psql -h db.internal"}`, "s3cr3tpw"},
		{`{"command":"deploy --token abcdef123456 --env prod"}`, "abcdef123456"},
		{`{"command":"curl -H 'X-Api-Key: kq81zzp0w7' https://api.example"}`, "kq81zzp0w7"},
		{`{"command":"docker run -e \"API_KEY=plainkey991\" img"}`, "plainkey991"},
		{`{"query":"password=hunter2secret"}`, "hunter2secret"},
		{`{"dsn":"Server=h;User Id=u;Password=Hunter2xq;"}`, "Hunter2xq"},
		{`{"command":"export PASSWORD=Hunter2xq; run"}`, "Hunter2xq"},
		{`{"command":"run --password\u00a0Hunter2xq"}`, "Hunter2xq"},
		{`{"body":"pass\u200bword=Hunter2xq"}`, "Hunter2xq"},
	} {
		if raw := auditOf(t, c.args); strings.Contains(raw, c.secret) {
			t.Errorf("arguments %s: the audit holds %q:\n%s", c.args, c.secret, raw)
		}
	}
	for _, c := range []struct{ args, shown string }{
		{`{"command":"go test ./... -run TestLogin -v"}`, "go test ./... -run TestLogin -v"},
		{`{"path":"src/auth/token.go","message":"fix the password reset page"}`, "fix the password reset page"},
		{`{"command":"ls --color=auto /etc/passwd"}`, "ls --color=auto /etc/passwd"},
	} {
		if raw := auditOf(t, c.args); !strings.Contains(raw, c.shown) {
			t.Errorf("arguments %s: the audit lost %q:\n%s", c.args, c.shown, raw)
		}
	}
	// A string too long to judge field by field is shown by its size.
	long := strings.Repeat("x ", 40000) + "--password Hunter2xq"
	if raw := auditOf(t, `{"content":"`+long+`"}`); strings.Contains(raw, "Hunter2xq") || !strings.Contains(raw, "string of 80020 bytes") {
		t.Errorf("a long string argument: %.300s", raw)
	}
}

// TestRedteamAuditCredentialForms (red team 8): credential forms of a
// command line or request body in a string argument, which the audit
// showed as they were, and arguments whose name reads as a credential's
// only once its lookalike characters are folded, or is the short "pw".
// Each has a benign twin the audit keeps whole.
func TestRedteamAuditCredentialForms(t *testing.T) {
	for _, c := range []struct{ args, secret string }{
		{`{"command":"mysql -uroot -pHunter2xq db"}`, "Hunter2xq"},
		{`{"command":"sshpass -p Hunter2xq ssh h"}`, "Hunter2xq"},
		{`{"command":"docker login -u ann -p Hunter2xq"}`, "Hunter2xq"},
		{`{"command":"curl -u ann:Hunter2xq https://h"}`, "Hunter2xq"},
		{`{"command":"curl --user=ann:Hunter2xq https://h"}`, "Hunter2xq"},
		{`{"command":"curl -b 'session=q8Zr4Lx0abc' h"}`, "q8Zr4Lx0abc"},
		{`{"command":"curl -H 'Cookie: a=1; sid=q8Zr4Lx0abc' h"}`, "q8Zr4Lx0abc"},
		{`{"command":"curl -H 'Authorization:Bearer q8Zr4Lx0' h"}`, "q8Zr4Lx0"},
		{`{"value":"Basic YW5uOnB3"}`, "YW5uOnB3"},
		{`{"body":"password = Hunter2xq"}`, "Hunter2xq"},
		{`{"body":"{ \"api_key\" : \"Hunter2xq\" }"}`, "Hunter2xq"},
		{`{"body":"--password=\"Hunter 2xq\""}`, "2xq"},
		{`{"body":"$env:PASSWORD=\"Hunter2xq\""}`, "Hunter2xq"},
		{`{"body":"/password:Hunter2xq"}`, "Hunter2xq"},
		{`{"body":"grant_type=password&username=ann&password=Hunter2xq"}`, "Hunter2xq"},
		{`{"url":"h.example/x?token=Hunter2xq"}`, "Hunter2xq"},
		{`{"url":"https://h.example/cb#access_token=Hunter2xq"}`, "Hunter2xq"},
		{`{"command":"mount -o username=ann,password=Hunter2xq //h/s /mnt"}`, "Hunter2xq"},
		{`{"body":"<password>Hunter2xq</password>"}`, "Hunter2xq"},
		{`{"p\u0430ssword":"Hunter2xq"}`, "Hunter2xq"},
		{`{"\uff30\uff29\uff2e":4821}`, "4821"},
		{`{"pw":"Hunter2xq"}`, "Hunter2xq"},
	} {
		if raw := auditOf(t, c.args); strings.Contains(raw, c.secret) {
			t.Errorf("arguments %s: the audit holds %q:\n%s", c.args, c.secret, raw)
		}
	}
	for _, c := range []struct{ args, shown string }{
		{`{"command":"docker run -p 8080:80 -u 1000:1000 nginx"}`, "docker run -p 8080:80 -u 1000:1000 nginx"},
		{`{"command":"mysql -u root -p mydb"}`, "mysql -u root -p mydb"},
		{`{"command":"curl -b cookies.txt https://h"}`, "curl -b cookies.txt https://h"},
		{`{"message":"Basic authentication is on; bearer authentication too"}`, "Basic authentication is on; bearer authentication too"},
		{`{"message":"the user's password = what they chose"}`, "the user's password = what they chose"},
		{`{"query":"https://h/search?q=password+reset\u0026page=2"}`, "q=password+reset"},
		{`{"p\u0430th":"/etc/hosts"}`, "/etc/hosts"},
	} {
		if raw := auditOf(t, c.args); !strings.Contains(raw, c.shown) {
			t.Errorf("arguments %s: the audit lost %q:\n%s", c.args, c.shown, raw)
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
