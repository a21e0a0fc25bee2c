package proxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// refusals returns the reason detail of each event of the kind.
func refusals(evs []events.Event, kind string) []string {
	var out []string
	for _, e := range evs {
		if e.Kind == kind {
			r, _ := e.Details["reason"].(string)
			out = append(out, r)
		}
	}
	return out
}

// TestResponsesOnlyForPendingRequests: a server that sends listings for a
// request the client has not sent yet, for an id never requested, and a
// second answer to every request, gets none of them to the client in
// enforce mode, and the event log says so. The listing the client does
// get is the one the analysis saw.
func TestResponsesOnlyForPendingRequests(t *testing.T) {
	t.Setenv("MCPGUARD_FAKE_TOOLS", twoTools)
	insp := &fakeInspector{withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "hidden instructions"}}}
	s := start(t, "hostile-ids", Options{Enforce: true, Inspector: insp})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if got := s.recv(); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("initialize: %s", got)
	}
	// The batch loses its unsolicited response and keeps the notification.
	if got := s.recv(); got != `[{"jsonrpc":"2.0","method":"notifications/message","params":{}}]` {
		t.Errorf("after initialize: %s (a response to a request never sent reached the client)", got)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if got := s.recv(); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("ping: %s", got)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := s.recv(); strings.Contains(got, "evil") || !strings.Contains(got, "read_file") || !strings.Contains(got, `"id":2`) {
		t.Errorf("tools/list: %s (the second answer to ping, or a listing sent early, reached the client)", got)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if got := s.recv(); got != `{"jsonrpc":"2.0","id":4,"result":{}}` {
		t.Errorf("ping: %s (the second answer to tools/list reached the client)", got)
	}
	s.close()
	got := strings.Join(refusals(s.events(), "message-refused"), ",")
	// Three early listings for id 2, id 999, id 998 in the batch; then a
	// second answer to ping 3, tools/list 2 and ping 4.
	if want := "unsolicited,unsolicited,unsolicited,unsolicited,unsolicited,duplicate,duplicate,duplicate"; got != want {
		t.Errorf("refusals: %s, want %s", got, want)
	}
	insp.mu.Lock()
	defer insp.mu.Unlock()
	if len(insp.seen) != 1 {
		t.Errorf("the analysis saw %d listings, want the one forwarded", len(insp.seen))
	}
}

// TestMonitorForwardsUncorrelatedResponses: monitor mode forwards what
// enforce mode drops, and reports each.
func TestMonitorForwardsUncorrelatedResponses(t *testing.T) {
	insp := &fakeInspector{}
	s := start(t, "hostile-ids", Options{Enforce: false, Inspector: insp})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	for _, want := range []string{`"id":1,`, `"id":2,`, `"id":2,`, `"id":2,`, `"id":999,`, `"id":998,`} {
		if got := s.recv(); !strings.Contains(got, want) {
			t.Errorf("monitor: got %s, want %s", got, want)
		}
	}
	s.close()
	if got := refusals(s.events(), "message-not-analysed"); len(got) != 5 || got[0] != reasonUnsolicited {
		t.Errorf("monitor reports: %q", got)
	}
	if got := refusals(s.events(), "message-refused"); len(got) != 0 {
		t.Errorf("monitor refused: %q", got)
	}
}

// TestClientResponsesOnlyForServerRequests: the client's responses go to
// the server only for a request the server sent and the client has not
// answered; ids are matched as loosely as clients match them, in both
// directions.
func TestClientResponsesOnlyForServerRequests(t *testing.T) {
	var log syncBuffer
	r := newRelay(io.Discard, Options{Enforce: true, Events: events.New(&log, "proxy", nil),
		Inspector: &fakeInspector{withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "x"}}}})
	rt := route{}
	if out := r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{}}`+"\n")); out == nil {
		t.Fatal("a server request was dropped")
	}
	r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":7,"method":"roots/list"}`+"\n"))
	cases := []struct {
		name, frame string
		forward     string // "" when nothing reaches the server
	}{
		{"answer", `{"jsonrpc":"2.0","id":"srv-1","result":{}}`, `{"jsonrpc":"2.0","id":"srv-1","result":{}}`},
		{"second answer", `{"jsonrpc":"2.0","id":"srv-1","result":{}}`, ""},
		{"never requested", `{"jsonrpc":"2.0","id":"srv-9","error":{"code":1,"message":"x"}}`, ""},
		{"a result without an id", `{"jsonrpc":"2.0","result":{}}`, ""},
		{"a parse error has no id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`},
		{"batch", `[{"jsonrpc":"2.0","id":"7","result":{"roots":[]}},{"jsonrpc":"2.0","id":8,"result":{}},{"jsonrpc":"2.0","id":20,"method":"ping"}]`,
			`[{"jsonrpc":"2.0","id":"7","result":{"roots":[]}},{"jsonrpc":"2.0","id":20,"method":"ping"}]` + "\n"},
		{"7 again, as 7.0", `{"jsonrpc":"2.0","id":7.0,"result":{}}`, ""},
	}
	for _, c := range cases {
		forward, reply := r.fromClient(rt, []byte(c.frame))
		if string(forward) != c.forward || reply != nil {
			t.Errorf("%s: forwarded %q, replied %q; want %q", c.name, forward, reply, c.forward)
		}
	}
	// The server's side: request 20 is open, a refused call is not.
	if out := r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":20,"result":{}}`)); out == nil {
		t.Error("the answer to request 20 was dropped")
	}
	r.fromClient(rt, []byte(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"evil"}}`))
	if out := r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":21,"result":{"content":[]}}`)); out != nil {
		t.Errorf("a response to a call the proxy answered itself: %s", out)
	}
	// Unparsable, with an id nobody waits for: no error in its name.
	if out := r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":777,"result":{`)); out != nil {
		t.Errorf("an unparsable response to id 777 was answered: %s", out)
	}
	r.fromClient(rt, []byte(`{"jsonrpc":"2.0","id":22,"method":"tools/list"}`))
	if out := r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":22,"result":{`)); !strings.Contains(string(out), `"id":22`) || !strings.Contains(string(out), "-32002") {
		t.Errorf("an unparsable response to a pending request: %s", out)
	}
}

// hostileUpstream answers every POST with a response to another id first,
// then its own response twice (JSON: only the wrong one), and sends a
// response on the GET stream.
func hostileUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"+twoTools+"}\n\n")
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
			return
		}
		body, _ := io.ReadAll(r.Body)
		id := "1"
		if strings.Contains(string(body), `"id":2`) {
			id = "2"
		}
		if r.URL.Query().Has("json") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":999,"result":`+twoTools+`}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":"+twoTools+"}\n\n")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", id)
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":"+twoTools+"}\n\n", id)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHTTPResponsesOnlyForTheirPOST: over Streamable HTTP a POST's body
// answers the requests of that POST only, once; a GET stream without a
// session answers nothing. Two stateless clients may use the same id.
func TestHTTPResponsesOnlyForTheirPOST(t *testing.T) {
	up := hostileUpstream(t)
	var log syncBuffer
	h, err := NewHTTP(up.URL+"/mcp", Options{Enforce: true, Events: events.New(&log, "proxy", nil), Inspector: &fakeInspector{}})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)
	for i := 0; i < 2; i++ { // two clients, both with id 1
		_, body := post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
		if body != "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n" {
			t.Errorf("POST %d: %q", i, body)
		}
	}
	resp := get(t, px.URL+"/mcp")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n" {
		t.Errorf("GET stream: %q", b)
	}
	// A JSON body that answers another id: the client gets no listing.
	jh, _ := NewHTTP(up.URL+"/mcp?json", Options{Enforce: true, Inspector: &fakeInspector{}})
	jpx := httptest.NewServer(jh)
	t.Cleanup(jpx.Close)
	if resp, body := post(t, jpx.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil); strings.Contains(body, "read_file") || resp.StatusCode != http.StatusBadGateway {
		t.Errorf("JSON answer to another id: %d %q", resp.StatusCode, body)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	var n int
	for _, l := range strings.Split(log.buf.String(), "\n") {
		if strings.Contains(l, `"message-refused"`) {
			n++
		}
	}
	if n != 5 { // 999 and the second answer on each POST, id 1 on the GET stream
		t.Errorf("%d refusals logged, want 5:\n%s", n, log.buf.String())
	}
}

// TestReusedIDs: a client that sends requests with an id still open (the
// benchmarks pipeline id 1) gets one answer per request, matched in order;
// an answer more than it asked for is a duplicate. A request for something
// else under an open id is refused: its answer could be judged as the
// other's (TestRedteamLooseIDResult).
func TestReusedIDs(t *testing.T) {
	r := newRelay(io.Discard, Options{Enforce: true, Inspector: &fakeInspector{withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "x"}}}})
	rt := route{}
	r.fromClient(rt, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	r.fromClient(rt, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if fwd, reply := r.fromClient(rt, []byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)); fwd != nil || !strings.Contains(string(reply), "-32002") {
		t.Errorf("another request under an open id: forwarded %s, answered %s", fwd, reply)
	}
	// Each answer is the listing's, and is analysed as one.
	for i := 0; i < 2; i++ {
		if out := r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":1,"result":`+twoTools+`}`)); out == nil || strings.Contains(string(out), "evil") {
			t.Errorf("answer %d: %s", i+1, out)
		}
	}
	if out := r.fromServer(rt, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); out != nil {
		t.Errorf("third answer to two requests: %s", out)
	}
}

// TestIDTableBounds: a peer that never answers cannot grow the table past
// its bound, and releasing a POST's keys keeps the count of open requests.
func TestIDTableBounds(t *testing.T) {
	tb := newIDTable()
	for i := 0; i < maxOpen+100; i++ {
		tb.add([]string{"p"}, []byte(fmt.Sprint(i)), &pendingRequest{})
	}
	if tb.count != maxOpen || len(tb.open) != maxOpen {
		t.Errorf("count %d, keys %d, want %d", tb.count, len(tb.open), maxOpen)
	}
	tb = newIDTable()
	a, b := &pendingRequest{}, &pendingRequest{}
	tb.add([]string{"p1", "s"}, []byte(`1`), a)
	tb.add([]string{"p2"}, []byte(`1`), b)
	tb.release(a, "p1") // open under the session only
	tb.release(b, "p2") // gone
	if tb.count != 1 || len(tb.open) != 1 {
		t.Fatalf("after release: count %d, keys %v", tb.count, tb.open)
	}
	if req, _ := tb.settle("s", []byte(`1`)); req != a || tb.count != 0 || len(tb.open) != 0 {
		t.Errorf("settle under the session: %v, count %d", req == a, tb.count)
	}
	tb.release(a, "p1") // a settled request: nothing left to release
	if tb.count != 0 {
		t.Errorf("count %d after releasing a settled request", tb.count)
	}
}
