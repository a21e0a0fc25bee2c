package proxy

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// Red team (issue 42 part 4): --max-message over a Streamable HTTP event
// stream.

// TestRedteamSSEEventOverLimitInManyLines: the limit is applied to each
// line of an event stream, not to an event: an event whose data is split
// into many lines, each under --max-message, is buffered whole (without
// bound: a server can exhaust the proxy's memory) and forwarded, although
// the message it carries is far over the limit.
func TestRedteamSSEEventOverLimitInManyLines(t *testing.T) {
	const limit = 200
	upSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		// One message of about 20 KB in 100-byte data lines.
		// (JSON may break lines between values.)
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"s\":[\n")
		for i := 0; i < 200; i++ {
			fmt.Fprintf(w, "data: \"%s\",\n", strings.Repeat("x", 100))
		}
		fmt.Fprint(w, "data: \"end\"]}}\n\n")
	}))
	t.Cleanup(upSrv.Close)
	var log syncBuffer
	h, err := NewHTTP(upSrv.URL+"/mcp", Options{Enforce: true, MaxMessage: limit, Events: events.New(&log, "proxy", nil)})
	if err != nil {
		t.Fatal(err)
	}
	px := httptest.NewServer(h)
	t.Cleanup(px.Close)
	_, body := post(t, px.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"echo"}`, nil)
	if strings.Count(body, "xxxxxxxxxx") > 0 {
		t.Errorf("an event of %d bytes passed a --max-message of %d", len(body), limit)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if !strings.Contains(log.buf.String(), `"kind":"message-too-large"`) {
		t.Errorf("no message-too-large event:\n%s", log.buf.String())
	}
}
