package toolcheck

import (
	"bytes"
	"reflect"
	"runtime"
	"testing"

	"github.com/mcpguard/mcpguard/internal/chunks"
	"github.com/mcpguard/mcpguard/internal/jsonc"
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

// TestEarly: Options.Early is given tool objects of the listing in document
// order while it is parsed (for a listing large enough that the walk ends
// before the parse), only objects of a tools array, and the analysis is
// the same with it. Under -race it checks the hand-over from the parser.
func TestEarly(t *testing.T) {
	list := realToolList(t, 1<<20)
	shapes := map[string][]byte{
		"result":   list,
		"response": append(append([]byte(`{"jsonrpc":"2.0","id":1,"result":`), list...), '}'),
		"array":    list[len(`{"tools":`) : len(list)-1],
		// A repeated "tools" key: the first array's objects may be given,
		// the report lists the second's.
		"repeated": append(append([]byte(`{"tools":[{"name":"decoy"}],`), list[1:len(list)-1]...), '}'),
	}
	if !bytes.HasPrefix(list, []byte(`{"tools":[`)) {
		t.Fatalf("the listing starts %.20q", list)
	}
	for name, doc := range shapes {
		t.Run(name, func(t *testing.T) {
			plain, err := Analyze(doc, Options{Path: "tools/list", Server: "s"})
			if err != nil {
				t.Fatal(err)
			}
			var given []*jsonc.Value
			rep, err := Analyze(doc, Options{Path: "tools/list", Server: "s", Early: func(v *jsonc.Value) { given = append(given, v) }})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(plain.Findings, rep.Findings) || len(plain.Tools) != len(rep.Tools) {
				t.Fatal("the analysis differs with Early")
			}
			index := map[*jsonc.Value]int{}
			for i, tl := range rep.Tools {
				index[tl.Value] = i
			}
			last := -1
			for _, v := range given {
				i, ok := index[v]
				if !ok {
					if name == "repeated" && v.Get("name").Str == "decoy" {
						continue
					}
					t.Fatalf("Early was given %.60q, not a tool of the listing", doc[v.Pos.Offset:v.End])
				}
				if i <= last {
					t.Fatalf("Early was given tool %d after tool %d", i, last)
				}
				last = i
			}
			t.Logf("%s: %d of %d tools given early", name, len(given), len(rep.Tools))
		})
	}
}
