package policy

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/mcpguard/mcpguard/internal/regoir"
	"github.com/open-policy-agent/opa/v1/ast"
)

// TestMemo: a memoizing engine answers an unchanged input from memory, a
// changed one by evaluating, and keeps what a caller does to a result out
// of the memo.
func TestMemo(t *testing.T) {
	ctx := context.Background()
	e, err := NewEngine(ctx, EngineOptions{Memo: true})
	if err != nil {
		t.Fatal(err)
	}
	pctx := testContext(t, nil)
	server := func(cmd string) Value { return testServer(t, "s", []string{cmd, "-y", "pkg"}, "") }
	first, err := e.EvalServer(ctx, server("npx"), pctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Findings) == 0 {
		t.Fatal("want findings (unpinned launcher) to check the copy")
	}
	first.Decision.Reasons = append(first.Decision.Reasons, "changed by the caller")
	first.Findings[0].Rule = "changed by the caller"
	again, err := e.EvalServer(ctx, server("npx"), pctx)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := e.evalServer(ctx, server("npx"), pctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, fresh) {
		t.Errorf("memoized result %+v differs from a fresh evaluation %+v", again, fresh)
	}
	if _, err := e.EvalServer(ctx, server("uvx"), pctx); err != nil {
		t.Fatal(err)
	}
	if hits, misses := e.Sweep(); hits != 1 || misses != 2 {
		t.Errorf("first scan: %d hits, %d misses; want 1, 2", hits, misses)
	}
	// The next scan uses only npx: uvx is dropped at the sweep after.
	if _, err := e.EvalServer(ctx, server("npx"), pctx); err != nil {
		t.Fatal(err)
	}
	if hits, misses := e.Sweep(); hits != 1 || misses != 0 {
		t.Errorf("second scan: %d hits, %d misses; want 1, 0", hits, misses)
	}
	e.Sweep()
	if _, err := e.EvalServer(ctx, server("uvx"), pctx); err != nil {
		t.Fatal(err)
	}
	if hits, misses := e.Sweep(); hits != 0 || misses != 1 {
		t.Errorf("after two sweeps: %d hits, %d misses; want 0, 1 (uvx forgotten)", hits, misses)
	}
}

// TestMemoEqualIsCompare: the memo's record-aware equality is OPA's
// (records as the objects they stand for), and a value built twice the
// same way hashes the same; records whose fields come in another order
// are still equal (hashing apart costs a miss, never a wrong answer).
func TestMemoEqualIsCompare(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	fields := []string{"name", "url", "claude", "allow", "count", "source", "path"}
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := rng.IntN(8); {
		case depth > 2 || n < 3:
			return []any{"a", "b", 1, true, nil}[rng.IntN(5)]
		case n < 4:
			return []any{gen(depth + 1), gen(depth + 1)}
		default:
			m := map[string]any{}
			for range 1 + rng.IntN(3) {
				k := fields[rng.IntN(len(fields))]
				if rng.IntN(8) == 0 {
					k = "data-key"
				}
				m[k] = gen(depth + 1)
			}
			return m
		}
	}
	value := func(x any) ast.Value {
		v, err := NewValue(x)
		if err != nil {
			t.Fatal(err)
		}
		return v.v
	}
	for range 3000 {
		x, y := gen(0), gen(0)
		a, again, b := value(x), value(x), value(y)
		if !memoEqual(a, again) || memoHash(a) != memoHash(again) {
			t.Fatalf("%v built twice: equal %v, hashes %d %d", a, memoEqual(a, again), memoHash(a), memoHash(again))
		}
		want := regoir.PlainValue(a).Compare(regoir.PlainValue(b)) == 0
		if got := memoEqual(a, b); got != want {
			t.Fatalf("memoEqual(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
	// The same fields in another order.
	k1, k2 := keyTerm("name"), keyTerm("url")
	r1 := regoir.NewRecord([]*ast.Term{k1, k2}, []*ast.Term{ast.StringTerm("a"), ast.StringTerm("b")})
	r2 := regoir.NewRecord([]*ast.Term{k2, k1}, []*ast.Term{ast.StringTerm("b"), ast.StringTerm("a")})
	if !memoEqual(r1, r2) {
		t.Error("a record and its fields in another order differ")
	}
}

// TestMemoContextComparedOnce: a scan's context found equal to a
// remembered one is not compared again for the next server, and a context
// that differs is never taken for it.
func TestMemoContextComparedOnce(t *testing.T) {
	ctxOf := func(project string) ast.Value {
		v, err := NewValue(map[string]any{"os": "linux", "project": project, "claude": map[string]any{"deny": map[string]any{"names": map[string]any{"x": []any{"y"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		return v.v
	}
	m := newServerMemo()
	old, same, other := ctxOf("/p"), ctxOf("/p"), ctxOf("/q")
	if !m.equalCtx(old, same) || m.sameCtx[same] != old {
		t.Fatal("an equal context was not found equal and remembered")
	}
	if m.equalCtx(old, other) || m.sameCtx[other] != nil {
		t.Fatal("a different context was found equal")
	}
	m.sweep()
	if len(m.sameCtx) != 0 {
		t.Error("the contexts of a scan outlived it")
	}
}
