package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// Red team (issue 42 parts 1-2): what a hostile Streamable HTTP upstream
// gets past the proxy.

// TestRedteamContentTypeBothKinds: bodyKind reads a Content-Type naming
// both media types as an event stream, as the TypeScript SDK does; the
// official Python SDK checks startswith("application/json") first (and
// the Go SDK reads the media type), so it reads the body as JSON. A body
// that is one JSON message has no data field for the proxy's event parser:
// it passes byte for byte, and the Python client takes the listing the
// analysis never saw.
func TestRedteamContentTypeBothKinds(t *testing.T) {
	for _, ct := range []string{"application/json; x=text/event-stream", "application/json, text/event-stream"} {
		upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", ct)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"evil","description":"poisoned"}]}}`)
		}))
		h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: true, Inspector: &fakeInspector{
			withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "poisoned"}}}})
		if err != nil {
			t.Fatal(err)
		}
		px := httptest.NewServer(h)
		resp, body := post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
		if strings.Contains(body, "evil") && strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "application/json") {
			t.Errorf("Content-Type %q: a client that reads it as JSON gets %s", ct, body)
		}
		px.Close()
		upSrv.Close()
	}
}

// TestRedteamUpstreamRedirect: the upstream answers a POST with 307 and a
// Location elsewhere; the proxy passes the redirect on, and the client
// (fetch, the Python SDK's httpx client with follow_redirects, Go's
// http.Client: all follow a 307 with the body) posts the request to that
// server directly. Its listing never passes the proxy.
func TestRedteamUpstreamRedirect(t *testing.T) {
	evilSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"evil","description":"poisoned"}]}}`)
	}))
	t.Cleanup(evilSrv.Close)
	upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, evilSrv.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(upSrv.Close)
	h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: true, Inspector: &fakeInspector{
		withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "poisoned"}}}})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)
	resp, body := post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil)
	if strings.Contains(body, "evil") {
		t.Errorf("the client followed the upstream's redirect to %s and got %s", resp.Request.URL, body)
	}
}

// TestUpstreamResponsesClientsReadOtherwise: what enforce mode refuses of
// an upstream's response (a redirect, a Content-Type of both kinds or
// twice, an event stream with no data event while a request is pending),
// and that monitor mode forwards it with a report.
func TestUpstreamResponsesClientsReadOtherwise(t *testing.T) {
	const listing = `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"evil","description":"poisoned"}]}}`
	cases := []struct {
		name   string
		serve  func(w http.ResponseWriter, r *http.Request)
		status int    // enforce mode
		want   string // in the enforce-mode body
	}{
		{"308 redirect", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "http://attacker.example/mcp")
			w.WriteHeader(http.StatusPermanentRedirect)
		}, http.StatusBadGateway, "redirect"},
		{"two Content-Type headers", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Content-Type", "text/event-stream")
			w.Header().Add("Content-Type", "application/json")
			fmt.Fprint(w, listing)
		}, http.StatusBadGateway, "Content-Type headers"},
		{"event stream with no data event", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, ": ping\n\n"+listing+"\n\n")
		}, http.StatusOK, `"code":-32002`},
	}
	for _, c := range cases {
		for _, enforce := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s enforce=%v", c.name, enforce), func(t *testing.T) {
				upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					c.serve(w, r)
				}))
				defer upSrv.Close()
				var log syncBuffer
				h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: enforce, Events: events.New(&log, "proxy", nil)})
				if err != nil {
					t.Fatal(err)
				}
				px := httptest.NewServer(h)
				defer px.Close()
				client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
				req, _ := http.NewRequest(http.MethodPost, px.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body := string(b)
				log.mu.Lock()
				evs := log.buf.String()
				log.mu.Unlock()
				if enforce {
					if resp.StatusCode != c.status || !strings.Contains(body, c.want) || strings.Contains(body, "evil") {
						t.Errorf("enforce: %d %q, want %d with %q", resp.StatusCode, body, c.status, c.want)
					}
					if !strings.Contains(evs, `"kind":"message-refused"`) {
						t.Errorf("enforce: no message-refused event:\n%s", evs)
					}
					return
				}
				if resp.StatusCode == http.StatusBadGateway || strings.Contains(body, "-32002") {
					t.Errorf("monitor: refused: %d %q", resp.StatusCode, body)
				}
				if !strings.Contains(evs, `"kind":"message-not-analysed"`) {
					t.Errorf("monitor: no message-not-analysed event:\n%s", evs)
				}
			})
		}
	}
}

// TestRedteamHTTPNotAMessage (red team 10): over real sockets, what is not
// a JSON-RPC message does not cross in enforce mode in either direction:
// a client's call to a withheld tool nested in a batch never reaches the
// upstream, and an upstream's poisoned listing nested in a batch or
// written as a string, in a JSON body or an SSE event, never reaches the
// client; the valid response beside it does.
func TestRedteamHTTPNotAMessage(t *testing.T) {
	evil := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"evil","description":"poisoned"}]}}`
	pong := `{"jsonrpc":"2.0","id":5,"result":{}}`
	quoted := `"` + strings.ReplaceAll(evil, `"`, `\"`) + `"`
	up := newScriptedUpstream(t)
	h, err := NewHTTP(up.url+"/mcp", Options{Enforce: true, Inspector: &fakeInspector{
		withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "poisoned"}}}})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)

	up.answer(pong, "application/json")
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"evil","arguments":{}}}`
	post(t, px.URL+"/mcp", `[{"jsonrpc":"2.0","id":5,"method":"ping"},[`+call+`]]`, nil)
	post(t, px.URL+"/mcp", `"`+strings.ReplaceAll(call, `"`, `\"`)+`"`, nil)
	for _, b := range up.bodies() {
		if strings.Contains(b, "evil") {
			t.Errorf("the upstream got the withheld tool's call: %s", b)
		}
	}
	for _, ct := range []string{"application/json", "text/event-stream"} {
		for _, a := range []string{`[` + pong + `,[` + evil + `]]`, `[` + pong + `,` + quoted + `]`, quoted} {
			up.answer(a, ct)
			_, body := post(t, px.URL+"/mcp", `[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`, nil)
			if strings.Contains(body, "evil") {
				t.Errorf("%s %.40s: the client got %s", ct, a, body)
			}
			if strings.HasPrefix(a, "[") && !strings.Contains(body, `"id":5`) {
				t.Errorf("%s %.40s: the valid response was lost: %s", ct, a, body)
			}
		}
	}
}

// TestRedteamHTTPNotAMessageMonitor (red team 10): monitor mode forwards
// what is not a message byte for byte over real sockets, both ways, and
// reports it.
func TestRedteamHTTPNotAMessageMonitor(t *testing.T) {
	evil := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"evil","description":"poisoned"}]}}`
	pong := `{"jsonrpc":"2.0","id":5,"result":{}}`
	up := newScriptedUpstream(t)
	var log syncBuffer
	h, err := NewHTTP(up.url+"/mcp", Options{Enforce: false, Events: events.New(&log, "proxy", nil), Inspector: &fakeInspector{}})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)
	req := `[{"jsonrpc":"2.0","id":5,"method":"ping"},[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"evil"}}]]`
	for _, ct := range []string{"application/json", "text/event-stream"} {
		answer := `[` + pong + `,[` + evil + `]]`
		up.answer(answer, ct)
		_, body := post(t, px.URL+"/mcp", req, nil)
		if got := up.bodies(); len(got) != 1 || got[0] != req {
			t.Errorf("%s: the upstream got %q, want the request byte for byte", ct, got)
		}
		if !strings.Contains(body, answer) {
			t.Errorf("%s: the client got %s, want %s byte for byte", ct, body, answer)
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if n := strings.Count(log.buf.String(), "not a JSON-RPC message"); n < 4 {
		t.Errorf("%d monitor-mode reports, want 4 (2 requests, 2 responses):\n%s", n, log.buf.String())
	}
}

// scriptedUpstream is an HTTP MCP server that answers every POST with the
// body and content type it was last given (an SSE event for
// text/event-stream) and records the bodies it got since.
type scriptedUpstream struct {
	url         string
	mu          sync.Mutex
	got         []string
	body, ctype string
}

func newScriptedUpstream(t *testing.T) *scriptedUpstream {
	up := &scriptedUpstream{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		up.mu.Lock()
		up.got = append(up.got, string(b))
		body, ctype := up.body, up.ctype
		up.mu.Unlock()
		w.Header().Set("Content-Type", ctype)
		if ctype == "text/event-stream" {
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", body)
			return
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	up.url = srv.URL
	return up
}

// answer sets what the upstream answers from now on and forgets the
// bodies it got.
func (up *scriptedUpstream) answer(body, ctype string) {
	up.mu.Lock()
	defer up.mu.Unlock()
	up.body, up.ctype, up.got = body, ctype, nil
}

// bodies returns the request bodies the upstream got since the last answer.
func (up *scriptedUpstream) bodies() []string {
	up.mu.Lock()
	defer up.mu.Unlock()
	return append([]string(nil), up.got...)
}
