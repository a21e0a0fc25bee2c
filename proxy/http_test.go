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
)

// fakeUpstream is a minimal Streamable HTTP MCP server: POST answers tools/list
// with twoTools (as JSON, or as an SSE stream when the request asks for
// ?sse), echoes other requests, and records what reached it.
type fakeUpstream struct {
	mu      sync.Mutex
	seen    []string
	headers []http.Header
	deletes int
}

func (f *fakeUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	switch r.Method {
	case http.MethodDelete:
		f.mu.Lock()
		f.deletes++
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodGet:
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.seen = append(f.seen, string(body))
	f.mu.Unlock()
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &req)
	result := `{}`
	if req.Method == "tools/list" {
		result = twoTools
	}
	resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	w.Header().Set("Mcp-Session-Id", "sess-1")
	if r.URL.Query().Has("sse") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, ": keep-alive comment\n\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\nid: 8\nevent: message\ndata: %s\n\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, resp)
}

func newHTTPPair(t *testing.T, query string) (*httptest.Server, *fakeUpstream) {
	t.Helper()
	up := &fakeUpstream{}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	h, err := NewHTTP(upSrv.URL+"/mcp"+query, Options{Enforce: true, Inspector: &fakeInspector{
		withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "hidden instructions"}}}})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)
	return px, up
}

func post(t *testing.T, url, body string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// get opens a GET stream as clients do.
func get(t *testing.T, url string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestHTTPJSON(t *testing.T) {
	px, up := newHTTPPair(t, "")
	resp, body := post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		map[string]string{"Mcp-Session-Id": "sess-1", "Authorization": "Bearer tok"})
	if strings.Contains(body, "evil") || !strings.Contains(body, "read_file") {
		t.Errorf("tools/list: %s", body)
	}
	if resp.Header.Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("session header lost: %v", resp.Header)
	}
	// The refused call never reaches the upstream.
	_, body = post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"evil"}}`, map[string]string{"Mcp-Session-Id": "sess-1"})
	if !strings.Contains(body, `"code":-32001`) || !strings.Contains(body, `"id":2`) {
		t.Errorf("refusal: %s", body)
	}
	// Untouched requests and responses pass byte for byte.
	_, body = post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":3,"method":"ping", "x":[1, 2]}`, nil)
	if body != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("ping: %s", body)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if len(up.seen) != 2 || up.seen[1] != `{"jsonrpc":"2.0","id":3,"method":"ping", "x":[1, 2]}` {
		t.Errorf("upstream saw %q", up.seen)
	}
	// The caller's credentials are the caller's (ListenerOptions.ForwardCredentials).
	if up.headers[0].Get("Authorization") != "" || up.headers[0].Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("headers at upstream: %v", up.headers[0])
	}
}

func TestHTTPEventStream(t *testing.T) {
	px, _ := newHTTPPair(t, "?sse")
	_, body := post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	if strings.Contains(body, "evil") || !strings.Contains(body, "read_file") {
		t.Errorf("tools/list over SSE: %s", body)
	}
	// Other events, comments and fields are kept as they were.
	for _, want := range []string{": keep-alive comment\n\n", "id: 7\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n", "id: 8\nevent: message\ndata: {"} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %q in %q", want, body)
		}
	}
}

func TestHTTPGetStreamAndDelete(t *testing.T) {
	px, up := newHTTPPair(t, "")
	resp := get(t, px.URL+"/mcp")
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	resp.Body.Close()
	if strings.Join(lines, "\n") != "id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n" {
		t.Errorf("GET stream: %q", lines)
	}
	req, _ := http.NewRequest(http.MethodDelete, px.URL+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", "sess-1")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if up.deletes != 1 {
		t.Errorf("deletes = %d", up.deletes)
	}
}

func TestHTTPBadUpstream(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "not a url", "http://"} {
		if _, err := NewHTTP(u, Options{}); err == nil {
			t.Errorf("NewHTTP(%q) accepted", u)
		}
	}
}

// TestHTTPEncodingsAndContentTypes: the proxy asks for a body it can read,
// refuses one it cannot, and reads a body the way clients decide to read it.
func TestHTTPEncodingsAndContentTypes(t *testing.T) {
	var gotAE []string
	var mu sync.Mutex
	mode := "br"
	upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotAE = append(gotAE, r.Header.Get("Accept-Encoding"))
		m := mode
		mu.Unlock()
		resp := `{"jsonrpc":"2.0","id":1,"result":` + twoTools + `}`
		switch m {
		case "br":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "br")
			io.WriteString(w, "\x0b\x02\x80not really brotli")
		case "sneaky":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8; x=text/event-stream")
			io.WriteString(w, "data: "+resp+"\n\n")
		case "cr":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "\xef\xbb\xbfevent: message\rdata: "+resp+"\r\r")
		}
	}))
	t.Cleanup(upSrv.Close)
	h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: true, Inspector: &fakeInspector{
		withhold: map[string]Withheld{"evil": {Rule: "MCPG-T001", Message: "hidden instructions"}}}})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

	resp, body := post(t, px.URL+"/mcp", list, map[string]string{"Accept-Encoding": "br, gzip"})
	if resp.StatusCode != http.StatusBadGateway || strings.Contains(body, "evil") {
		t.Errorf("a body in an encoding the proxy cannot read: %d %q", resp.StatusCode, body)
	}
	mu.Lock()
	if len(gotAE) == 0 || strings.Contains(gotAE[0], "br") {
		t.Errorf("the client's Accept-Encoding reached the upstream: %q", gotAE)
	}
	mode = "sneaky"
	mu.Unlock()
	if _, body := post(t, px.URL+"/mcp", list, nil); strings.Contains(body, "evil") || !strings.Contains(body, "read_file") {
		t.Errorf("an event stream under another content type was not inspected: %q", body)
	}
	mu.Lock()
	mode = "cr"
	mu.Unlock()
	if _, body := post(t, px.URL+"/mcp", list, nil); strings.Contains(body, "evil") || !strings.Contains(body, "read_file") {
		t.Errorf("an event stream with CR line ends was not inspected: %q", body)
	}
}
