package scanner

import (
	"reflect"
	"runtime"
	"testing"
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
			if len(d.doc) < parallelMinBytes {
				t.Fatalf("document of %d bytes is too small to be analysed in parallel", len(d.doc))
			}
			analyse := func(procs int) *ToolReport {
				runtime.GOMAXPROCS(procs)
				rep, err := AnalyzeTools(d.doc, ToolOptions{Path: "tools/list", Server: "s"})
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			seq, par := analyse(1), analyse(4)
			runtime.GOMAXPROCS(1)
			seqPins := PinTools(seq, true)
			runtime.GOMAXPROCS(4)
			if parPins := PinTools(par, true); !reflect.DeepEqual(seqPins, parPins) {
				t.Errorf("pins differ: %d in one pass, %d in parallel", len(seqPins), len(parPins))
			}
			if len(par.Tools) < 2*parallelChunk {
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

// TestInChunksPanics checks that a worker's panic reaches the caller, as
// a panic of a sequential loop would, instead of killing the process.
func TestInChunksPanics(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want boom", r)
		}
	}()
	inChunks(10*parallelChunk, func() func(c, lo, hi int) {
		return func(c, _, _ int) {
			if c == 7 {
				panic("boom")
			}
		}
	})
	t.Error("no panic")
}
