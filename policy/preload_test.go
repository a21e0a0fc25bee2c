package policy

import (
	"context"
	"os"
	"os/exec"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
)

// TestPreloadedEngineMatches: an engine given the preloaded shipped
// groups judges every server as one that loads its own — without custom
// rules (it takes both groups and their prepared queries), with them (the
// verdict group is compiled with the custom rules, the preloaded one
// unused), with a data document (every query prepared again), and for a
// second engine given the same preload (it gets nothing and loads its
// own).
func TestPreloadedEngineMatches(t *testing.T) {
	ctx := context.Background()
	custom := map[string]string{"bundle:acme/deny.rego": `package mcpguard.custom.acme

deny contains msg if {
	input.server.transport == "http"
	msg := sprintf("remote server %s", [input.server.name])
}

warn contains msg if {
	some name in data.acme.watched
	input.server.name == name
	msg := sprintf("watched server %s", [name])
}
`}
	data := map[string]any{"acme": map[string]any{"watched": []any{"srv-0", "srv-3"}}}
	pctx := benchContext(t)
	servers := benchServerValues(t, 12)
	judge := func(t *testing.T, e *Engine) []*ServerResult {
		t.Helper()
		var out []*ServerResult
		for _, s := range servers {
			r, err := e.EvalServer(ctx, s, pctx)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		modules map[string]string
		data    map[string]any
	}{{"shipped", nil, nil}, {"custom", custom, nil}, {"data", nil, data}, {"custom and data", custom, data}} {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := NewEngine(ctx, EngineOptions{Modules: tc.modules, Data: tc.data})
			if err != nil {
				t.Fatal(err)
			}
			want := judge(t, ref)
			p := PreloadShipped()
			for i := range 2 { // the second engine finds the preload taken
				e, err := NewEngine(ctx, EngineOptions{Modules: tc.modules, Data: tc.data, Preload: p})
				if err != nil {
					t.Fatal(err)
				}
				if got := judge(t, e); !reflect.DeepEqual(got, want) {
					t.Fatalf("engine %d with the preload: %+v\nwant %+v", i, got, want)
				}
				// The shipped plan evaluates the shipped queries of an engine
				// without data (the verdict query only without custom rules);
				// topdown those of the others.
				if planned := e.plan != nil; planned != (tc.data == nil) {
					t.Errorf("engine %d: evaluated through the plan: %v", i, planned)
				}
			}
			if !p.taken.Load() {
				t.Fatal("no engine took the preload")
			}
			if tc.modules != nil && !hasFinding(want, func(f RuleResult) bool { return f.Package == "mcpguard.custom.acme" }) {
				t.Fatal("the custom rule denied nothing: the comparison tested nothing of it")
			}
			if tc.modules != nil && tc.data != nil && !hasFinding(want, func(f RuleResult) bool { return f.Message == "watched server srv-0" }) {
				t.Fatal("the rule on data found nothing: the comparison tested nothing of it")
			}
		})
	}
}

// hasFinding reports whether any result has a finding that match accepts.
func hasFinding(results []*ServerResult, match func(RuleResult) bool) bool {
	for _, r := range results {
		for _, f := range r.Findings {
			if match(f) {
				return true
			}
		}
	}
	return false
}

// TestGrowStack: GrowStack takes a frame of evalStackFrame bytes (the
// compiler did not drop it). Run in a child process whose goroutines may
// not grow past half of that: the runtime kills it there, which it would
// not if the frame were gone. (The stack in use is no measure: a goroutine
// may get a stack another one left.)
func TestGrowStack(t *testing.T) {
	if os.Getenv("MCPGUARD_GROW_STACK_CHILD") == "1" {
		debug.SetMaxStack(evalStackFrame / 2)
		done := make(chan struct{})
		go func() {
			GrowStack()
			close(done)
		}()
		<-done
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGrowStack$")
	cmd.Env = append(os.Environ(), "MCPGUARD_GROW_STACK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "stack exceeds") {
		t.Fatalf("a goroutine limited to %d bytes of stack ran GrowStack (err %v):\n%.400s", evalStackFrame/2, err, out)
	}
}

// TestPlanFitsSmallStack: the plan evaluates servers on a goroutine whose
// stack may not grow past 32 KiB, after Engine.GrowStack, which leaves such
// an engine's goroutines alone; topdown's evaluation of the same servers
// does not fit (the limit means something). Each in a child process: the
// runtime kills one that goes past it.
func TestPlanFitsSmallStack(t *testing.T) {
	if mode := os.Getenv("MCPGUARD_SMALL_STACK_CHILD"); mode != "" {
		ctx := context.Background()
		e, err := NewEngine(ctx, EngineOptions{Topdown: mode == "topdown"})
		if err != nil {
			t.Fatal(err)
		}
		pctx, servers := benchContext(t), benchServerValues(t, 32)
		debug.SetMaxStack(32 << 10)
		done := make(chan error)
		go func() {
			if mode == "plan" {
				e.GrowStack() // which must leave the stack alone
			}
			for _, s := range servers {
				if _, err := e.EvalServer(ctx, s, pctx); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		os.Exit(0)
	}
	for _, mode := range []string{"plan", "topdown"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPlanFitsSmallStack$")
		cmd.Env = append(os.Environ(), "MCPGUARD_SMALL_STACK_CHILD="+mode)
		out, err := cmd.CombinedOutput()
		overflow := strings.Contains(string(out), "stack exceeds")
		if (mode == "plan") == (err != nil || overflow) {
			t.Errorf("%s in 32 KiB of stack: err %v\n%.400s", mode, err, out)
		}
	}
}
