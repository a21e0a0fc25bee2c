package mcpio

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
)

// BenchmarkParseMessageToolsList validates a 1 MB tools/list response, the
// relay's first pass over every large message from a server.
func BenchmarkParseMessageToolsList(b *testing.B) {
	result, err := benchdata.RealToolList("../../toolcheck/testdata/tools/real", 1<<20)
	if err != nil {
		b.Fatal(err)
	}
	frame := append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), result...), '}')
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := ParseMessage(frame); err != nil {
			b.Fatal(err)
		}
	}
}
