package regoir

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestEvalTermWithSlab: evaluations whose collections are made in the
// state's slab (EvalTermWith), one after another and on several
// goroutines at once, give what EvalTerm gives each input; and the value
// of a fixed function, first made in such an evaluation, is not made in
// the slab: the evaluations after it, which reuse the slab, still read it
// whole.
func TestEvalTermWithSlab(t *testing.T) {
	modules := map[string]string{"p.rego": `package p

allowed := {"allowed": true, "reasons": ["ALLOWED"], "lists": [[1, 2], {"a"}]}

r := {"allowed": allowed, "name": input.name, "pair": [input.name, count(input.xs)], "set": {x | some x in input.xs}, "objs": [{"x": x} | some x in input.xs]}
`}
	prog, _ := encodeModules(t, modules, "p/r")
	ev, err := prog.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := func(i int) *ast.Term {
		xs := []any{}
		for j := range i % 7 {
			xs = append(xs, fmt.Sprintf("x%d", j))
		}
		v, err := ast.InterfaceToValue(map[string]any{"name": fmt.Sprintf("n%d", i), "xs": xs})
		if err != nil {
			t.Fatal(err)
		}
		return ast.NewTerm(v)
	}
	want := func(i int) string {
		rs, err := ev.EvalTerm(context.Background(), "p/r", in(i))
		if err != nil || len(rs) != 1 {
			t.Fatalf("EvalTerm: %v, %d results", err, len(rs))
		}
		return rs[0].String()
	}
	got := func(i int) string {
		var s string
		err := ev.EvalTermWith(context.Background(), "p/r", in(i), func(rs []*ast.Term) error {
			if len(rs) != 1 {
				return fmt.Errorf("%d results", len(rs))
			}
			s = rs[0].String()
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		return s
	}
	// The fixed value is made first in a slab evaluation.
	for i := range 50 {
		if g, w := got(i), want(i); g != w {
			t.Fatalf("input %d: %s, want %s", i, g, w)
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				n := g*1000 + i
				if g, w := got(n), want(n); g != w {
					t.Errorf("input %d: %s, want %s", n, g, w)
					return
				}
			}
		})
	}
	wg.Wait()
	for n, f := range ev.im.Funcs {
		if f.Name == "g0.data.p.allowed" {
			if v := ev.fixed[n].Load(); v == nil || v.String() != `{"allowed": true, "lists": [[1, 2], {"a"}], "reasons": ["ALLOWED"]}` {
				t.Errorf("the fixed value is %v", v)
			}
		}
	}
}
