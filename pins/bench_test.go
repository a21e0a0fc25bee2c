package pins

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
	"github.com/mcpguard/mcpguard/toolcheck"
)

// BenchmarkPinTools1MB pins every tool of a 1 MB listing of real servers'
// tools, definitions included: what the proxy does to each listing.
func BenchmarkPinTools1MB(b *testing.B) {
	data, err := benchdata.RealToolList("../toolcheck/testdata/tools/real", 1<<20)
	if err != nil {
		b.Fatal(err)
	}
	rep, err := toolcheck.Analyze(data, toolcheck.Options{Path: "tools/list"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if p := PinTools(rep, true); len(p) != len(rep.Tools) {
			b.Fatalf("%d pins of %d tools", len(p), len(rep.Tools))
		}
	}
}
