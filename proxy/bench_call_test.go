package proxy

import (
	"io"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/events"
)

// BenchmarkCallRoundTrip is the latency of one tools/call and its result
// with an event log: what the proxy adds per call (the Guard's verdict, the
// id table, the tool-called audit event with its redacted arguments).
// bench/proxy.sh runs it against a baseline build too (BASE=rev).
func BenchmarkCallRoundTrip(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/project/README.md","token":"` + strings.Repeat("t", 40) + `","limit":100,"text":"` + strings.Repeat("x", 200) + `"}}}` + "\n")
	for _, mode := range []string{"direct", "proxy"} {
		b.Run(mode, func(b *testing.B) { benchRoundTrips(b, mode, line) })
	}
}

// benchRoundTrips times round trips of line to the fake server, spoken to
// directly or through an enforcing proxy (mode "direct" or "proxy").
func benchRoundTrips(b *testing.B, mode string, line []byte) {
	argv := fakeServer(b, "normal")
	var e *endpoint
	if mode == "direct" {
		e = direct(b, argv)
	} else {
		log := events.New(io.Discard, "proxy", nil).For("bench")
		e = proxied(b, argv, Options{Enforce: true, Events: log, Inspector: NewGuard(GuardOptions{Name: "bench", Enforce: true, Events: log})})
	}
	defer e.close()
	e.roundTrip(b, line) // start-up
	b.ResetTimer()
	for range b.N {
		e.roundTrip(b, line)
	}
}

// BenchmarkCallResult is the latency of a tools/call whose result is 4 KiB
// of text: ASCII (the clean check alone) or with emoji ZWJ sequences and
// RTL text (a full sanitizer pass that changes nothing), which the client
// gets byte for byte.
func BenchmarkCallResult(b *testing.B) {
	for _, tool := range []string{"text", "text-unicode"} {
		line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}` + "\n")
		for _, mode := range []string{"direct", "proxy"} {
			b.Run(tool+"/"+mode, func(b *testing.B) { benchRoundTrips(b, mode, line) })
		}
	}
}
