package toolcheck

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/mcpguard/mcpguard/internal/chunks"
)

// TestAnalyzeToolsParallelMatchesSequential holds the parallel analysis of
// large lists to the single pass: the same findings in the same order, on
// real definitions and on every hostile document (hidden Unicode, whose
// findings overLong reads from the shared base, among them). Run under
// -race it also checks that workers share nothing mutable.
func TestAnalyzeToolsParallelMatchesSequential(t *testing.T) {
	docs := []struct {
		name string
		doc  []byte
	}{{"real", realToolList(t, 256<<10)}}
	for _, hc := range hostileCases(256 << 10) {
		docs = append(docs, struct {
			name string
			doc  []byte
		}{hc.name, hc.doc})
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			if len(d.doc) < chunks.MinBytes {
				t.Fatalf("document of %d bytes is too small to be analysed in parallel", len(d.doc))
			}
			analyse := func(procs int) *Report {
				runtime.GOMAXPROCS(procs)
				rep, err := Analyze(d.doc, Options{Path: "tools/list", Server: "s"})
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			seq, par := analyse(1), analyse(4)
			if len(par.Tools) < 2*chunks.Size {
				t.Skipf("%d tools: one chunk, nothing to compare", len(par.Tools))
			}
			if len(seq.Findings) != len(par.Findings) {
				t.Fatalf("%d findings in one pass, %d in parallel", len(seq.Findings), len(par.Findings))
			}
			for i := range seq.Findings {
				if !reflect.DeepEqual(seq.Findings[i], par.Findings[i]) {
					t.Fatalf("finding %d differs:\none pass: %+v\nparallel: %+v", i, seq.Findings[i], par.Findings[i])
				}
			}
		})
	}
}
