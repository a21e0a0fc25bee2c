package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
)

// The proxy benchmarks (SPEC §7) compare each case with a baseline in the
// same run, so the figures are ratios on a shared machine: the same fake
// server spoken to directly ("direct") and through RunStdio ("proxy").
// bench/proxy.sh runs them and prints the differences.

// realTools builds a tools/list result of at least size bytes shaped like
// one large real listing: whole servers of the captured development set
// (toolcheck/testdata/tools/real/dev), tools as captured and never renamed
// (benchdata.RealListing). Repeated, renamed copies (RealToolList) made
// every sibling tool a text names look like another server's.
func realTools(tb testing.TB, size int) []byte {
	tb.Helper()
	data, err := benchdata.RealListing("../toolcheck/testdata/tools/real/dev", size)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// endpoint is a client's view of a server: write a line, read a line.
type endpoint struct {
	w     io.WriteCloser
	r     *bufio.Reader
	close func()
}

// direct starts the fake server with pipes and no proxy.
func direct(b *testing.B, argv []string) *endpoint {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = os.Environ()
	w, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &endpoint{w: w, r: bufio.NewReaderSize(r, 1<<20), close: func() { w.Close(); cmd.Wait() }}
}

// proxied starts the fake server behind RunStdio.
func proxied(b *testing.B, argv []string, opts Options) *endpoint {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := RunStdio(context.Background(), argv, inR, outW, io.Discard, opts); err != nil {
			b.Error(err)
		}
		outW.Close()
	}()
	r := bufio.NewReaderSize(outR, 1<<20)
	return &endpoint{w: inW, r: r, close: func() {
		inW.Close()
		go io.Copy(io.Discard, r)
		<-done
	}}
}

func (e *endpoint) roundTrip(b *testing.B, line []byte) int {
	if _, err := e.w.Write(line); err != nil {
		b.Fatal(err)
	}
	resp, err := e.r.ReadSlice('\n')
	for err == bufio.ErrBufferFull {
		var more []byte
		more, err = e.r.ReadSlice('\n')
		resp = append(append([]byte(nil), resp...), more...)
	}
	if err != nil {
		b.Fatal(err)
	}
	return len(resp)
}

// BenchmarkRoundTrip is the latency of one small request and its response:
// proxy minus direct is the latency the proxy adds per pass-through message
// pair.
func BenchmarkRoundTrip(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"uri":"file:///project/README.md","text":"` + strings.Repeat("x", 200) + `"}}` + "\n")
	for _, mode := range []string{"direct", "proxy"} {
		b.Run(mode, func(b *testing.B) {
			argv := fakeServer(b, "normal")
			var e *endpoint
			if mode == "direct" {
				e = direct(b, argv)
			} else {
				e = proxied(b, argv, Options{Enforce: true, Inspector: NewGuard(GuardOptions{Name: "bench", Enforce: true})})
			}
			defer e.close()
			e.roundTrip(b, line) // start-up
			b.ResetTimer()
			for range b.N {
				e.roundTrip(b, line)
			}
		})
	}
}

// BenchmarkThroughput streams 16 KiB messages both ways, pipelined: proxy
// over direct is the fraction of a plain pipe's throughput the proxy keeps.
func BenchmarkThroughput(b *testing.B) {
	payload := strings.Repeat("y", 16<<10)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"data":"` + payload + `"}}` + "\n")
	for _, mode := range []string{"direct", "proxy"} {
		b.Run(mode, func(b *testing.B) {
			argv := fakeServer(b, "normal")
			var e *endpoint
			if mode == "direct" {
				e = direct(b, argv)
			} else {
				e = proxied(b, argv, Options{Enforce: true, Inspector: NewGuard(GuardOptions{Name: "bench", Enforce: true})})
			}
			defer e.close()
			e.roundTrip(b, line)
			b.SetBytes(int64(2 * len(line)))
			b.ResetTimer()
			errc := make(chan error, 1)
			go func() {
				for range b.N {
					if _, err := e.w.Write(line); err != nil {
						errc <- err
						return
					}
				}
				errc <- nil
			}()
			for range b.N {
				if _, err := e.r.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
					b.Fatal(err)
				}
			}
			if err := <-errc; err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkToolsList1MB is the proxy's whole per-message path for a 1 MB
// tools/list response of real tool definitions, in enforce mode with pins:
// the relay parses the response, matches its request, the Guard analyses
// every tool (hidden Unicode, annotations, poisoning, pins, the tools
// policy) and sanitizes, and the response is re-encoded. The listing is
// analysed afresh each time (a list_changed precedes each request). Issue
// 18: at most 2x BenchmarkToolsList1MBDecode.
func BenchmarkToolsList1MB(b *testing.B) {
	resp := toolsListResponse(b)
	g := NewGuard(GuardOptions{Name: "bench", Enforce: true, Pins: openPins(b)})
	r := newRelay(io.Discard, Options{Enforce: true, Inspector: g})
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	r.fromClient(route{}, req)
	r.fromServer(route{}, resp) // first use: pins the tools
	b.SetBytes(int64(len(resp)))
	b.ReportAllocs()
	for b.Loop() {
		g.ListChanged()
		r.fromClient(route{}, req)
		if out := r.fromServer(route{}, resp); !bytes.HasPrefix(out, []byte(`{"jsonrpc":"2.0","id":1,"result":{`)) {
			b.Fatalf("the listing did not go through: %.200s", out)
		}
	}
}

// BenchmarkToolsList1MBDecode is the floor of BenchmarkToolsList1MB: one
// encoding/json Unmarshal of the same response into any.
func BenchmarkToolsList1MBDecode(b *testing.B) {
	resp := toolsListResponse(b)
	b.SetBytes(int64(len(resp)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(resp, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// toolsListResponse is a 1 MB tools/list response made of whole real
// servers' tool lists (realTools), as one line.
func toolsListResponse(b *testing.B) []byte {
	b.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, realTools(b, 1<<20)); err != nil {
		b.Fatal(err)
	}
	return []byte(`{"jsonrpc":"2.0","id":1,"result":` + compact.String() + "}\n")
}

// BenchmarkToolsList1MBRoundTrip is a 1 MB tools/list result answered by a
// server process directly and through the proxy in enforce mode with pins:
// the difference is what the proxy adds to a large listing, pipes included.
func BenchmarkToolsList1MBRoundTrip(b *testing.B) {
	tools := realTools(b, 1<<20)
	path := filepath.Join(b.TempDir(), "tools.json")
	if err := os.WriteFile(path, tools, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("MCPGUARD_FAKE_TOOLS_FILE", path)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	for _, mode := range []string{"direct", "proxy", "proxy-monitor"} {
		b.Run(mode, func(b *testing.B) {
			argv := fakeServer(b, "normal")
			var e *endpoint
			var g *Guard
			switch mode {
			case "direct":
				e = direct(b, argv)
			default:
				enforce := mode == "proxy"
				g = NewGuard(GuardOptions{Name: "bench", Enforce: enforce, Pins: openPins(b)})
				e = proxied(b, argv, Options{Enforce: enforce, Inspector: g})
			}
			defer e.close()
			e.roundTrip(b, line) // first use: pins the tools
			b.SetBytes(int64(len(tools)))
			b.ResetTimer()
			for range b.N {
				if g != nil {
					g.ListChanged()
				}
				e.roundTrip(b, line)
			}
		})
	}
}

// BenchmarkGuardToolsList is the Guard alone on a 1 MB listing: analysis,
// pins, rewriting.
func BenchmarkGuardToolsList(b *testing.B) {
	// github.json is one real server's listing (26 tools, ~30 KB), the
	// common case; the 1 MB list is the target of SPEC §7.
	raw, err := os.ReadFile("../toolcheck/testdata/tools/real/github.json")
	if err != nil {
		b.Fatal(err)
	}
	var doc struct{ Result json.RawMessage }
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	large := realTools(b, 1<<20)
	for _, tc := range []struct {
		name  string
		tools []byte
		pins  bool
	}{{"analysis", large, false}, {"analysis+pins", large, true}, {"github/analysis+pins", doc.Result, true}} {
		b.Run(tc.name, func(b *testing.B) {
			opts := GuardOptions{Name: "bench", Enforce: true}
			if tc.pins {
				opts.Pins = openPins(b)
			}
			g := NewGuard(opts)
			_, _ = g.ToolsList(tc.tools, false)
			b.SetBytes(int64(len(tc.tools)))
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				g.ListChanged()
				_, _ = g.ToolsList(tc.tools, false)
			}
		})
	}
}
