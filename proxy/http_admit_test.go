package proxy

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// executor is an upstream that runs every tools/call it gets: what a web
// page must never reach through the proxy.
type executor struct {
	mu      sync.Mutex
	calls   int
	headers []http.Header
}

func (e *executor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	e.headers = append(e.headers, r.Header.Clone())
	if strings.Contains(string(body), "tools/call") {
		e.calls++
	}
	e.headers[len(e.headers)-1].Set("Host", r.Host)
	e.mu.Unlock()
	w.Header().Set("Set-Cookie", "upstream-session=s3cr3t")
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EXECUTED"}]}}`)
}

// listenerPair starts the proxy on a listener whose address it knows, as
// `mcpguard proxy --listen` does.
func listenerPair(t *testing.T, lo ListenerOptions) (px string, up *executor, upHost string, log *syncBuffer) {
	t.Helper()
	up = &executor{}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lo.Listen = ln.Addr().String()
	log = &syncBuffer{}
	h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: true, Inspector: &fakeInspector{}, Listener: lo, Events: events.New(log, "proxy", nil)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, up, strings.TrimPrefix(upSrv.URL, "http://"), log
}

const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"cmd":"id"}}}`

// send posts call to the proxy with the given Host and headers.
func send(t *testing.T, px, host string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, px+"/mcp", strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestListenerRefusesWebPages is the conformance suite's
// dns-rebinding-protection scenario and more: a page that rebinds its
// name to 127.0.0.1, or posts text/plain from another origin (no CORS
// preflight), never reaches the upstream; the proxy's own client does.
func TestListenerRefusesWebPages(t *testing.T) {
	px, up, _, log := listenerPair(t, ListenerOptions{AllowOrigins: []string{"http://localhost:3000"}})
	port := px[strings.LastIndexByte(px, ':')+1:]
	cases := []struct {
		name   string
		host   string
		hdr    map[string]string
		status int
	}{
		{"DNS rebinding", "evil.attacker.example:" + port, map[string]string{"Origin": "http://evil.attacker.example"}, http.StatusMisdirectedRequest},
		{"rebinding without Origin", "evil.attacker.example:" + port, nil, http.StatusMisdirectedRequest},
		{"loopback name, other port", "localhost:1", nil, http.StatusMisdirectedRequest},
		{"no port", "localhost", nil, http.StatusMisdirectedRequest},
		{"cross-origin page", "", map[string]string{"Origin": "http://evil.attacker.example"}, http.StatusForbidden},
		{"opaque origin", "", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"simple text/plain POST", "", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"form POST", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"no Accept", "", map[string]string{"Accept": ""}, http.StatusNotAcceptable},
		{"a page on another local port", "", map[string]string{"Origin": "http://localhost:1"}, http.StatusForbidden},
		{"the listener's name over https", "", map[string]string{"Origin": "https://127.0.0.1:" + port}, http.StatusForbidden},
		{"the listener's name with a path", "", map[string]string{"Origin": "http://127.0.0.1:" + port + "/x"}, http.StatusForbidden},
	}
	for _, c := range cases {
		if resp, body := send(t, px, c.host, c.hdr); resp.StatusCode != c.status || strings.Contains(body, "EXECUTED") {
			t.Errorf("%s: %d %q, want %d", c.name, resp.StatusCode, body, c.status)
		}
	}
	up.mu.Lock()
	if up.calls != 0 {
		t.Errorf("the upstream executed %d calls from web pages", up.calls)
	}
	up.mu.Unlock()
	log.mu.Lock()
	if n := strings.Count(log.buf.String(), `"kind":"http-refused"`); n != len(cases) {
		t.Errorf("%d http-refused events, want %d", n, len(cases))
	}
	log.mu.Unlock()

	for _, host := range []string{"", "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port, "127.0.0.1:" + port} {
		if resp, body := send(t, px, host, map[string]string{"Content-Type": "application/json; charset=utf-8"}); resp.StatusCode != 200 || !strings.Contains(body, "EXECUTED") {
			t.Errorf("Host %q: %d %q", host, resp.StatusCode, body)
		}
	}
	if resp, _ := send(t, px, "", map[string]string{"Origin": "http://LOCALHOST:3000"}); resp.StatusCode != 200 {
		t.Errorf("an allowed origin: %d", resp.StatusCode)
	}
	// The listener's own origin (what the conformance suite's
	// dns-rebinding-protection scenario sends as its valid case): no page
	// can be served from it, since the proxy serves none (a navigation,
	// which does not accept text/event-stream, gets 406).
	for _, o := range []string{"http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port} {
		if resp, body := send(t, px, "", map[string]string{"Origin": o}); resp.StatusCode != 200 {
			t.Errorf("the listener's own origin %s: %d %s", o, resp.StatusCode, body)
		}
	}
}

// TestListenerCredentials: the upstream sees its own Host and none of the
// caller's credentials, and the caller none of the upstream's cookies,
// unless forwarding is configured; a listen token is the proxy's own.
func TestListenerCredentials(t *testing.T) {
	creds := map[string]string{"Authorization": "Bearer caller-token", "Cookie": "a=b"}
	px, up, upHost, _ := listenerPair(t, ListenerOptions{})
	resp, _ := send(t, px, "", creds)
	if resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("the upstream's cookie reached the caller: %v", resp.Header)
	}
	up.mu.Lock()
	h := up.headers[0]
	if h.Get("Authorization") != "" || h.Get("Cookie") != "" || h.Get("Host") != upHost {
		t.Errorf("at the upstream: %v (want Host %s)", h, upHost)
	}
	up.mu.Unlock()

	px, up, _, _ = listenerPair(t, ListenerOptions{ForwardCredentials: true})
	send(t, px, "", creds)
	up.mu.Lock()
	if h := up.headers[0]; h.Get("Authorization") != "Bearer caller-token" || h.Get("Cookie") != "a=b" {
		t.Errorf("configured forwarding: %v", h)
	}
	up.mu.Unlock()

	px, up, _, _ = listenerPair(t, ListenerOptions{Token: "local-secret", ForwardCredentials: true})
	for _, auth := range []string{"", "Bearer wrong", "Basic local-secret", "Bearer local-secretX"} {
		if resp, body := send(t, px, "", map[string]string{"Authorization": auth}); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "EXECUTED") {
			t.Errorf("token %q: %d", auth, resp.StatusCode)
		}
	}
	if resp, _ := send(t, px, "", map[string]string{"Authorization": "Bearer local-secret"}); resp.StatusCode != 200 {
		t.Errorf("the right token: %d", resp.StatusCode)
	}
	up.mu.Lock()
	if len(up.headers) != 1 || up.headers[0].Get("Authorization") != "" {
		t.Errorf("the listen token reached the upstream: %v", up.headers)
	}
	up.mu.Unlock()
}

// TestOwnOriginOnly: the listener's own origin is its loopback names with
// its port, never another machine's address on the same port (a listener
// on 0.0.0.0 takes any address as Host).
func TestOwnOriginOnly(t *testing.T) {
	for _, c := range []struct {
		listen, origin string
		ok             bool
	}{
		{"127.0.0.1:8931", "http://127.0.0.1:8931", true},
		{"127.0.0.1:8931", "http://localhost:8931", true},
		{"0.0.0.0:8931", "http://localhost:8931", true},
		{"0.0.0.0:8931", "http://10.1.2.3:8931", false},
		{"0.0.0.0:8931", "http://0.0.0.0:8931", false},
		{"10.1.2.3:8931", "http://10.1.2.3:8931", true},
		{"127.0.0.1:8931", "http://localhost:8932", false},
		{"", "http://localhost:8931", false},
		{"127.0.0.1:8931", "http://evil.example:8931", false},
		{"127.0.0.1:8931", "http://user@localhost:8931", false},
	} {
		h := &httpProxy{listener: ListenerOptions{Listen: c.listen}}
		if got := h.originAllowed(c.origin); got != c.ok {
			t.Errorf("listen %s, Origin %s: %v", c.listen, c.origin, got)
		}
	}
}

func TestHostAllowed(t *testing.T) {
	cases := []struct {
		host, listen string
		ok           bool
	}{
		{"127.0.0.1:8931", "127.0.0.1:8931", true},
		{"localhost:8931", "127.0.0.1:8931", true},
		{"localhost.:8931", "127.0.0.1:8931", true},
		{"evil.example:8931", "127.0.0.1:8931", false},
		{"127.0.0.1.nip.io:8931", "127.0.0.1:8931", false},
		{"localhost:8932", "127.0.0.1:8931", false},
		{"", "127.0.0.1:8931", false},
		{"mybox:8931", "mybox:8931", true},
		{"10.0.0.5:8931", "0.0.0.0:8931", true},
		{"evil.example:8931", "0.0.0.0:8931", false},
		{"[::1]:8931", "[::1]:8931", true},
		{"localhost:1234", "", true},
		{"evil.example:1234", "", false},
	}
	for _, c := range cases {
		if got := hostAllowed(c.host, c.listen); got != c.ok {
			t.Errorf("hostAllowed(%q, %q) = %v", c.host, c.listen, got)
		}
	}
}

// FuzzHostAllowed: a Host header is accepted for a loopback listener only
// when it names a loopback address or name with the listen port.
func FuzzHostAllowed(f *testing.F) {
	for _, s := range []string{"127.0.0.1:8931", "localhost:8931", "[::1]:8931", "evil.example:8931", "localhost", "127.0.0.1.nip.io:8931",
		"LOCALHOST.:8931", "[::ffff:127.0.0.1]:8931", "127.1:8931", "%6cocalhost:8931", ":8931", "[]:8931"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if !hostAllowed(host, "127.0.0.1:8931") {
			return
		}
		h, port, err := net.SplitHostPort(host)
		if err != nil || port != "8931" {
			t.Fatalf("accepted %q without the listen port", host)
		}
		switch strings.ToLower(strings.TrimSuffix(h, ".")) {
		case "127.0.0.1", "localhost", "::1":
		default:
			t.Fatalf("accepted %q, which is no loopback name", host)
		}
	})
}
