package proxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// Requests that name a withheld prompt, resource or template by another
// method than prompts/get and resources/read, and the server's
// notifications about a withheld resource (hostile tests first).

const inboxURI = "https://api.example.com/inbox?token=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

// refCases are requests after the poisoned listings: code is what enforce
// mode answers (0: forwarded).
var refCases = []struct {
	name, params, method string
	code                 int
}{
	{"complete a withheld prompt", `{"ref":{"type":"ref/prompt","name":"polish_email"},"argument":{"name":"draft","value":"h"}}`, "completion/complete", CodeWithheld},
	{"complete a withheld template", `{"ref":{"type":"ref/resource","uri":"docs://pages/{slug}"},"argument":{"name":"slug","value":"i"}}`, "completion/complete", CodeWithheld},
	{"complete a uri a withheld template makes", `{"ref":{"type":"ref/resource","uri":"DOCS://pages/intro"},"argument":{"name":"slug","value":"i"}}`, "completion/complete", CodeWithheld},
	{"complete a withheld resource", `{"ref":{"type":"ref/resource","uri":"` + inboxURI + `"},"argument":{"name":"x","value":""}}`, "completion/complete", CodeWithheld},
	{"subscribe to a withheld resource", `{"uri":"` + inboxURI + `"}`, "resources/subscribe", CodeWithheld},
	{"subscribe to a uri a withheld template makes", `{"uri":"docs://pages/intro#x"}`, "resources/subscribe", CodeWithheld},
	{"unsubscribe from a withheld resource", `{"uri":"` + inboxURI + `"}`, "resources/unsubscribe", CodeWithheld},
	{"a second ref a Go server reads", `{"ref":{"type":"ref/prompt","name":"explain"},"Ref":{"type":"ref/prompt","name":"polish_email"},"argument":{"name":"a","value":""}}`, "completion/complete", CodeNotAnalysed},
	{"a NAME in the ref", `{"ref":{"type":"ref/prompt","name":"explain","NAME":"polish_email"},"argument":{"name":"a","value":""}}`, "completion/complete", CodeNotAnalysed},
	{"a TYPE in the ref", `{"ref":{"type":"ref/other","TYPE":"ref/prompt","name":"polish_email"},"argument":{"name":"a","value":""}}`, "completion/complete", CodeNotAnalysed},
	{"a URI beside the uri", `{"uri":"notes://archive","URI":"` + inboxURI + `"}`, "resources/subscribe", CodeNotAnalysed},
	{"complete a kept prompt", `{"ref":{"type":"ref/prompt","name":"explain"},"argument":{"name":"code","value":"f"}}`, "completion/complete", 0},
	{"complete a kept template", `{"ref":{"type":"ref/resource","uri":"file:///{path}"},"argument":{"name":"path","value":"a"}}`, "completion/complete", 0},
	{"subscribe to a kept resource", `{"uri":"notes://archive"}`, "resources/subscribe", 0},
	{"complete something else", `{"ref":{"type":"ref/tool","name":"polish_email"},"argument":{"name":"a","value":""}}`, "completion/complete", 0},
}

// listPoisoned sends the three poisoned listings through a relay.
func listPoisoned(t *testing.T, r *relay, rt route) {
	t.Helper()
	for i, l := range []struct{ method, result string }{{"prompts/list", poisonedPrompts}, {"resources/templates/list", poisonedTemplates}, {"resources/list", poisonedResources}} {
		id := 100 + i
		r.fromClient(rt, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, l.method)))
		if out := r.fromServer(rt, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, l.result))); out == nil {
			t.Fatalf("%s dropped", l.method)
		}
	}
}

// TestItemRefsRefused: in enforce mode completion/complete of a withheld
// prompt or template, and resources/subscribe or unsubscribe of a
// withheld resource, are answered by the proxy; monitor mode forwards
// them with an event.
func TestItemRefsRefused(t *testing.T) {
	for _, enforce := range []bool{true, false} {
		var log syncBuffer
		gt := newGuardTest(t, GuardOptions{Name: "srv", Enforce: enforce})
		r := newRelay(io.Discard, Options{Enforce: enforce, Inspector: gt.g, Events: events.New(&log, "proxy", nil)})
		listPoisoned(t, r, route{})
		for i, c := range refCases {
			req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, i+1, c.method, c.params)
			fwd, reply := r.fromClient(route{}, []byte(req))
			want := c.code
			if !enforce {
				want = 0
			}
			switch {
			case want == 0 && (fwd == nil || reply != nil):
				t.Errorf("enforce %v: %s: refused: %s", enforce, c.name, reply)
			case want != 0 && (fwd != nil || !strings.Contains(string(reply), fmt.Sprintf(`"code":%d`, want)) || !strings.Contains(string(reply), fmt.Sprintf(`"id":%d`, i+1))):
				t.Errorf("enforce %v: %s: forwarded %s, answered %s", enforce, c.name, fwd, reply)
			}
			if strings.Contains(string(reply), "ghp_") {
				t.Errorf("%s: the answer holds the uri's token: %s", c.name, reply)
			}
		}
		log.mu.Lock()
		logged := log.buf.String()
		log.mu.Unlock()
		kind := `"kind":"call-refused"`
		if !enforce {
			kind = `"kind":"call-allowed-monitor"`
		}
		if !strings.Contains(logged, kind) || !strings.Contains(logged, `"method":"completion/complete"`) || !strings.Contains(logged, `"method":"resources/subscribe"`) {
			t.Errorf("enforce %v: events:\n%s", enforce, logged)
		}
		if strings.Contains(logged, "ghp_a1B2") {
			t.Errorf("an event holds the resource's token")
		}
	}
}

// TestResourceUpdatedWithheld: the server's notifications/resources/updated
// for a withheld resource, or a uri a withheld template makes, is dropped
// in enforce mode (also inside a batch, also when a Go client would read a
// "URI" member), with a notification-withheld event; one for a kept
// resource passes byte for byte; monitor mode forwards all of them.
func TestResourceUpdatedWithheld(t *testing.T) {
	upd := func(params string) string {
		return `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":` + params + `}`
	}
	for _, enforce := range []bool{true, false} {
		var log syncBuffer
		gt := newGuardTest(t, GuardOptions{Name: "srv", Enforce: enforce})
		r := newRelay(io.Discard, Options{Enforce: enforce, Inspector: gt.g, Events: events.New(&log, "proxy", nil)})
		listPoisoned(t, r, route{})
		for params, dropped := range map[string]bool{
			`{"uri":"` + inboxURI + `"}`:                         true,
			`{"uri":"docs://pages/intro"}`:                       true,
			`{"uri":"notes://archive","URI":"` + inboxURI + `"}`: true,
			`{"uri":"notes://archive"}`:                          false,
			`{"uri":"file:///etc/hosts"}`:                        false,
		} {
			msg := upd(params) + "\n"
			out := r.fromServer(route{}, []byte(msg))
			if drop := dropped && enforce; drop != (out == nil) || (!drop && string(out) != msg) {
				t.Errorf("enforce %v: %s: got %q", enforce, params, out)
			}
		}
		b := `[` + upd(`{"uri":"`+inboxURI+`"}`) + `,` + upd(`{"uri":"notes://archive"}`) + `]` + "\n"
		out := r.fromServer(route{}, []byte(b))
		if enforce && (strings.Contains(string(out), "inbox") || !strings.Contains(string(out), "notes://archive")) {
			t.Errorf("batch: %s", out)
		}
		if !enforce && string(out) != b {
			t.Errorf("monitor batch: %s", out)
		}
		log.mu.Lock()
		logged := log.buf.String()
		log.mu.Unlock()
		if strings.Count(logged, `"kind":"notification-withheld"`) != 4 || strings.Contains(logged, "ghp_a1B2") {
			t.Errorf("enforce %v: events:\n%s", enforce, logged)
		}
	}
}

// TestStdioItemRefs: through a real stdio server, the refused requests
// never reach it (the next answer the client reads is its ping's), the
// forwarded ones are answered by it, and an update about a withheld
// resource or template uri that follows a subscription is dropped.
func TestStdioItemRefs(t *testing.T) {
	t.Setenv("MCPGUARD_FAKE_PROMPTS", poisonedPrompts)
	t.Setenv("MCPGUARD_FAKE_TEMPLATES", poisonedTemplates)
	t.Setenv("MCPGUARD_FAKE_RESOURCES", poisonedResources)
	t.Setenv("MCPGUARD_FAKE_UPDATED", inboxURI+" docs://pages/intro notes://archive")
	gt := newGuardTest(t, GuardOptions{Name: "fake", Enforce: true})
	s := start(t, "normal", Options{Enforce: true, Inspector: gt.g})
	for i, m := range []string{"prompts/list", "resources/templates/list", "resources/list"} {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, 100+i, m))
		s.recv()
	}
	for i, c := range refCases {
		id := i + 1
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, c.method, c.params))
		got := s.recv()
		if c.code == 0 {
			if got != fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id) {
				t.Errorf("%s: %s", c.name, got)
			}
			if c.method == "resources/subscribe" {
				if got := s.recv(); got != `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"notes://archive"}}` {
					t.Errorf("after the subscription: %s (an update about a withheld resource reached the client)", got)
				}
			}
			continue
		}
		if !strings.Contains(got, fmt.Sprintf(`"code":%d`, c.code)) || !strings.Contains(got, fmt.Sprintf(`"id":%d`, id)) {
			t.Errorf("%s: %s", c.name, got)
		}
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, id))
		if got := s.recv(); got != fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","result":{}}`, id) {
			t.Errorf("%s: after the refusal: %s (the server got the request)", c.name, got)
		}
	}
	s.close()
	if n := gt.kinds(); n["item-withheld"] == 0 {
		t.Errorf("guard events %v", n)
	}
	kinds := map[string]int{}
	for _, e := range s.events() {
		kinds[e.Kind]++
	}
	if kinds["notification-withheld"] != 2 || kinds["call-refused"] != 11 {
		t.Errorf("events %v", kinds)
	}
}

// itemsUpstream is a Streamable HTTP server with the poisoned lists; it
// records the methods that reach it, answers as JSON or as an event
// stream, sends updates for MCPGUARD_FAKE_UPDATED-like uris after a
// subscription's answer (event stream) and on its GET stream, and gives
// a session id when session is set.
type itemsUpstream struct {
	sse     bool
	session string
	updated []string
	mu      sync.Mutex
	seen    []string
}

func (u *itemsUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u.session != "" {
		w.Header().Set("Mcp-Session-Id", u.session)
	}
	notes := func() string {
		var b strings.Builder
		for _, uri := range u.updated {
			fmt.Fprintf(&b, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":%q}}\n\n", uri)
		}
		return b.String()
	}
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, notes())
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &req)
	u.mu.Lock()
	u.seen = append(u.seen, req.Method)
	u.mu.Unlock()
	result := map[string]string{"prompts/list": poisonedPrompts, "resources/templates/list": poisonedTemplates, "resources/list": poisonedResources}[req.Method]
	if result == "" {
		result = `{}`
	}
	resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	if u.sse {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", resp)
		if req.Method == "resources/subscribe" {
			io.WriteString(w, notes())
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, resp)
}

// TestHTTPItemRefs: over Streamable HTTP — JSON and event-stream answers,
// with a session and stateless (the 2026-07-28 revision's _meta, no
// session) — the refused requests never reach the upstream, and updates
// about withheld resources are dropped from a POST's stream and from the
// GET stream.
func TestHTTPItemRefs(t *testing.T) {
	for _, c := range []struct {
		name    string
		sse     bool
		session string
	}{{"json", false, "s-1"}, {"sse", true, "s-1"}, {"stateless json", false, ""}, {"stateless sse", true, ""}} {
		t.Run(c.name, func(t *testing.T) {
			up := &itemsUpstream{sse: c.sse, session: c.session, updated: []string{inboxURI, "docs://pages/intro", "notes://archive"}}
			upSrv := httptest.NewServer(up)
			defer upSrv.Close()
			gt := newGuardTest(t, GuardOptions{Name: "http", Enforce: true})
			h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: true, Inspector: gt.g, Events: events.New(io.Discard, "proxy", nil)})
			if err != nil {
				t.Fatal(err)
			}
			px := httptest.NewServer(h)
			defer px.Close()
			hdr := map[string]string{}
			meta := ""
			if c.session != "" {
				hdr["Mcp-Session-Id"] = c.session
			} else {
				meta = modernMeta
			}
			withMeta := func(params string) string {
				if meta == "" {
					return params
				}
				if params == "{}" {
					return "{" + meta + "}"
				}
				return strings.TrimSuffix(params, "}") + "," + meta + "}"
			}
			for i, m := range []string{"prompts/list", "resources/templates/list", "resources/list"} {
				post(t, px.URL+"/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, 100+i, m, withMeta("{}")), hdr)
			}
			want := []string{"prompts/list", "resources/templates/list", "resources/list"}
			for i, rc := range refCases {
				_, body := post(t, px.URL+"/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, i+1, rc.method, withMeta(rc.params)), hdr)
				if rc.code == 0 {
					want = append(want, rc.method)
					if !strings.Contains(body, `"result":{}`) {
						t.Errorf("%s: %s", rc.name, body)
					}
					if rc.method == "resources/subscribe" && c.sse && (strings.Contains(body, "inbox") || strings.Contains(body, "docs://pages/intro") || !strings.Contains(body, "notes://archive")) {
						t.Errorf("%s: updates on the stream: %s", rc.name, body)
					}
					continue
				}
				if !strings.Contains(body, fmt.Sprintf(`"code":%d`, rc.code)) {
					t.Errorf("%s: %s", rc.name, body)
				}
			}
			up.mu.Lock()
			if got := strings.Join(up.seen, ","); got != strings.Join(want, ",") {
				t.Errorf("the upstream saw %s\nwant %s", got, strings.Join(want, ","))
			}
			up.mu.Unlock()
			if c.session == "" {
				return
			}
			req, _ := http.NewRequest(http.MethodGet, px.URL+"/mcp", nil)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Mcp-Session-Id", c.session)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			resp.Body.Close()
			if got := strings.Join(lines, "\n"); strings.Contains(got, "inbox") || strings.Contains(got, "pages/intro") || !strings.Contains(got, "notes://archive") {
				t.Errorf("GET stream: %s", got)
			}
		})
	}
}
