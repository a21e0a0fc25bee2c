package policy

import (
	"context"
	"reflect"
	"testing"
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
