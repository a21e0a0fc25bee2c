package proxy

import (
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// Red team (issue 42 part 2): what a web page still gets through the
// listener.

// TestRedteamNoCorsGetFromAWebPage: a page's fetch(url, {mode:"no-cors",
// headers:{Accept:"text/event-stream"}}) to http://127.0.0.1:PORT/mcp is
// a GET without an Origin header (browsers send Origin on GET only in CORS
// mode) and with a safelisted Accept; the Host is the proxy's own. The
// browser marks it Sec-Fetch-Site: cross-site, which the listener does not
// read, and the request reaches the upstream. The page cannot read the
// answer, but it opens streams on the user's upstream at will.
func TestRedteamNoCorsGetFromAWebPage(t *testing.T) {
	px, up, _, _ := listenerPair(t, ListenerOptions{})
	req, _ := http.NewRequest(http.MethodGet, px+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Sec-Fetch-Mode", "no-cors")
	req.Header.Set("Sec-Fetch-Dest", "empty")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	up.mu.Lock()
	defer up.mu.Unlock()
	if len(up.headers) != 0 {
		t.Errorf("a cross-site no-cors GET reached the upstream (status %d)", resp.StatusCode)
	}
}

// TestRedteamAllowOriginPreflight: --allow-origin admits a browser
// client's origin (the MCP Inspector's page, say), but a browser sends an
// application/json POST only after a CORS preflight, and the listener
// answers every OPTIONS with 405: the allowed origin can never call.
// (A correctness failure of --allow-origin rather than a hole.)
func TestRedteamAllowOriginPreflight(t *testing.T) {
	const origin = "http://localhost:6274"
	px, _, _, _ := listenerPair(t, ListenerOptions{AllowOrigins: []string{origin}})
	req, _ := http.NewRequest(http.MethodOptions, px+"/mcp", nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-session-id")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 || resp.Header.Get("Access-Control-Allow-Origin") != origin {
		t.Errorf("preflight from an allowed origin: %d, Access-Control-Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// TestRedteamRefusalFlood: every request the listener turns away writes
// an http-refused event and a log line, without bound. Any web page the
// user has open can post text/plain to 127.0.0.1:PORT in a loop (no
// preflight, no answer needed) and so append to the user's events file
// and stderr as fast as the proxy serves: gigabytes an hour.
func TestRedteamRefusalFlood(t *testing.T) {
	px, _, _, log := listenerPair(t, ListenerOptions{})
	const n = 300
	for i := 0; i < n; i++ {
		send(t, px, "", map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"})
	}
	log.mu.Lock()
	written := log.buf.Len()
	log.mu.Unlock()
	if written > 64<<10 {
		t.Errorf("%d refused requests from one page wrote %d bytes of events", n, written)
	}
}

// TestRefusalLimiter: a kind is reported once per interval, then with the
// number left out; kinds beyond the bound share one report.
func TestRefusalLimiter(t *testing.T) {
	var l refusalLimiter
	t0 := time.Unix(1000, 0)
	if n, ok := l.admit("a", t0); !ok || n != 0 {
		t.Errorf("first: %d %v", n, ok)
	}
	for i := 0; i < 5; i++ {
		if _, ok := l.admit("a", t0.Add(time.Second)); ok {
			t.Errorf("reported again within the interval")
		}
	}
	if _, ok := l.admit("b", t0.Add(time.Second)); !ok {
		t.Errorf("another kind was not reported")
	}
	if n, ok := l.admit("a", t0.Add(refusalInterval+time.Second)); !ok || n != 5 {
		t.Errorf("after the interval: %d %v, want 5 true", n, ok)
	}
	for i := 0; i < 2*maxRefusalKinds; i++ {
		l.admit(fmt.Sprint("k", i), t0.Add(2*time.Second))
	}
	if len(l.kinds) > maxRefusalKinds+1 {
		t.Errorf("%d kinds held", len(l.kinds))
	}
}

// TestListenerFetchMetadata: what Sec-Fetch-* lets through: a browser's
// request from no page (none) or the same origin, and any request of an
// allowed origin; requests without the headers (SDK clients) pass.
func TestListenerFetchMetadata(t *testing.T) {
	const origin = "http://localhost:6274"
	px, _, _, _ := listenerPair(t, ListenerOptions{AllowOrigins: []string{origin}})
	for _, c := range []struct {
		hdr    map[string]string
		status int
	}{
		{nil, http.StatusOK},
		{map[string]string{"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "cors"}, http.StatusOK},
		{map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}, http.StatusOK},
		{map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors", "Origin": origin}, http.StatusOK},
		{map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"}, http.StatusForbidden},
		{map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}, http.StatusForbidden},
		{map[string]string{"Sec-Fetch-Mode": "no-cors"}, http.StatusForbidden},
	} {
		resp, body := send(t, px, "", c.hdr)
		if resp.StatusCode != c.status {
			t.Errorf("%v: %d %q, want %d", c.hdr, resp.StatusCode, body, c.status)
		}
		if c.hdr["Origin"] != "" && resp.Header.Get("Access-Control-Allow-Origin") != origin {
			t.Errorf("%v: Access-Control-Allow-Origin %q", c.hdr, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
}
