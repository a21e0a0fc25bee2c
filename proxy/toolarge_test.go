package proxy

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// TestOversizedMessagesEndTheSession: a message over --max-message from
// either side is answered with an error naming the limit, reported, and
// ends the session at once, with the reason in the Exit.
func TestOversizedMessagesEndTheSession(t *testing.T) {
	const limit = 1 << 20
	for _, side := range []string{"server", "client"} {
		t.Run(side, func(t *testing.T) {
			s := start(t, "big", Options{Enforce: true, MaxMessage: limit})
			s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			if got := s.recv(); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
				t.Fatalf("ping: %s", got)
			}
			if side == "server" {
				s.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}`) // answered with 32 MiB
			} else {
				go io.WriteString(s.toProxy, `{"jsonrpc":"2.0","id":2,"method":"echo","params":{"s":"`+strings.Repeat("a", 2*limit)+`"}}`+"\n")
			}
			got := s.recv()
			if !strings.Contains(got, `"id":2`) || !strings.Contains(got, "-32003") || !strings.Contains(got, "1048576 bytes (--max-message)") {
				t.Errorf("answer: %.300s", got)
			}
			if line, err := s.fromProx.ReadString('\n'); !errors.Is(err, io.EOF) {
				t.Errorf("after the answer: %.100q %v, want EOF", line, err)
			}
			<-s.done
			if s.exit.Reason != ReasonTooLarge || !strings.Contains(s.exit.Message, side) {
				t.Errorf("exit: %+v", s.exit)
			}
			var n int
			for _, e := range s.events() {
				if e.Kind == "message-too-large" && e.Details["direction"] == side && e.Details["answered"] == true {
					n++
				}
			}
			if n != 1 {
				t.Errorf("message-too-large events: %+v", s.events())
			}
			s.toProxy.Close()
		})
	}
}

// TestHTTPOversizedMessages: over HTTP a POST or a response over the limit
// is answered with the error naming it; the listener goes on.
func TestHTTPOversizedMessages(t *testing.T) {
	up := &fakeUpstream{}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	var log syncBuffer
	h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: true, MaxMessage: 100, Events: events.New(&log, "proxy", nil)})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)
	resp, body := post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":5,"method":"echo","params":{"s":"`+strings.Repeat("a", 200)+`"}}`, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"id":5`) || !strings.Contains(body, "100 bytes (--max-message)") {
		t.Errorf("large POST: %d %s", resp.StatusCode, body)
	}
	// tools/list is answered with twoTools, more than 100 bytes.
	_, body = post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, nil)
	if !strings.Contains(body, `"id":6`) || !strings.Contains(body, "-32003") || strings.Contains(body, "read_file") {
		t.Errorf("large response: %s", body)
	}
	if _, body = post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, nil); !strings.Contains(body, `"id":7,"result"`) {
		t.Errorf("after: %s", body)
	}
	up.mu.Lock()
	if len(up.seen) != 2 {
		t.Errorf("the upstream saw %q", up.seen)
	}
	up.mu.Unlock()
	log.mu.Lock()
	if n := strings.Count(log.buf.String(), `"kind":"message-too-large"`); n != 2 {
		t.Errorf("%d message-too-large events", n)
	}
	log.mu.Unlock()
}
