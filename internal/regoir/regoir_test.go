package regoir

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/compile"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"
)

// planModules plans the modules for the entrypoints, as `opa build -t plan`
// does.
func planModules(t testing.TB, modules map[string]string, entrypoints ...string) *ir.Policy {
	t.Helper()
	return planWith(t, nil, modules, entrypoints...)
}

// planWith plans with these capabilities (nil: OPA's).
func planWith(t testing.TB, caps *ast.Capabilities, modules map[string]string, entrypoints ...string) *ir.Policy {
	t.Helper()
	dir := t.TempDir()
	for name, src := range modules {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := compile.New().WithTarget(compile.TargetPlan).WithPaths(dir).WithEntrypoints(entrypoints...)
	if caps != nil {
		c = c.WithCapabilities(caps)
	}
	if err := c.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	var p ir.Policy
	if err := json.Unmarshal(c.Bundle().PlanModules[0].Raw, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// outcome is one evaluation's result, as both evaluators are compared: the
// value, "undefined", or that it failed.
func topdownOutcome(t testing.TB, modules map[string]string, entrypoint string, input any) string {
	t.Helper()
	opts := []func(*rego.Rego){rego.Query("data." + strings.ReplaceAll(entrypoint, "/", ".")), rego.StrictBuiltinErrors(true)}
	for name, src := range modules {
		opts = append(opts, rego.Module(name, src))
	}
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs, err := pq.Eval(context.Background(), rego.EvalInput(input))
	if err != nil {
		return "error"
	}
	if len(rs) == 0 {
		return "undefined"
	}
	v, err := ast.InterfaceToValue(rs[0].Expressions[0].Value)
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

// link links and binds p.
func link(t testing.TB, p *ir.Policy, extra map[string]Builtin) *Evaluator {
	t.Helper()
	prog, err := Link(p)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := prog.Bind(extra)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func irOutcome(t testing.TB, prog *Evaluator, entrypoint string, input any) string {
	t.Helper()
	in, err := ast.InterfaceToValue(input)
	if err != nil {
		t.Fatal(err)
	}
	return evalOutcome(t, prog, entrypoint, in)
}

func evalOutcome(t testing.TB, prog *Evaluator, entrypoint string, in ast.Value) string {
	t.Helper()
	rs, err := prog.Eval(context.Background(), entrypoint, in)
	if err != nil {
		return "error"
	}
	if len(rs) == 0 {
		return "undefined"
	}
	if len(rs) != 1 {
		t.Fatalf("%d results", len(rs))
	}
	// As topdown's results are compared: in Go's values, sets as arrays.
	x, err := ast.JSON(rs[0].Value)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ast.InterfaceToValue(x)
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

// TestMatchesTopdown evaluates Rego of every shape the planner plans
// differently with topdown and with the plan, on the same inputs.
func TestMatchesTopdown(t *testing.T) {
	inputs := []string{
		`{}`,
		`{"x": 1, "xs": [1, 2, 3], "s": "hello", "o": {"a": 1, "b": [2]}}`,
		`{"x": 1.0, "xs": [], "s": "", "o": {}}`,
		`{"x": "1", "xs": [3, 2, 1, 2], "s": "héllo wörld", "o": {"b": [2], "c": null}}`,
		`{"x": true, "xs": ["a", {"k": "v"}], "s": 7, "o": []}`,
		`{"x": -2, "xs": [[1, 2], [3]], "s": "a,b,,c", "o": {"a": {"a": 1}}}`,
	}
	cases := []struct {
		name, src string
	}{
		{"complete", `v := input.x`},
		{"default", "default v := \"none\"\nv := input.s if input.x == 1"},
		{"else", "v := \"one\" if { input.x == 1 } else := \"string\" if { is_string(input.x) } else := \"other\""},
		{"partial set", `v contains y if { some y in input.xs; y != 2 }`},
		{"partial object", `v[k] := val if { some k, val in input.o; k != "c" }`},
		{"array comprehension", `v := [z | some y in input.xs; is_number(y); z := y * 2]`},
		{"set comprehension", `v := {y | some y in input.xs}`},
		{"object comprehension", `v := {k: count(val) | some k, val in input.o; is_array(val)}`},
		{"not", "v if not input.o.c\nv if input.x == 7"},
		{"some key", `v := [k | input.o[k]]`},
		{"iterate set", `v := [x | some x in {y | some y in input.xs}]`},
		{"function", "f(a) := b if { b := a + 1 }\nf(a) := a if is_string(a)\nv := [f(y) | some y in input.xs]"},
		{"function else", "g(a) := \"n\" if { is_number(a) } else := \"?\"\nv := [g(y) | some y in input.xs]"},
		{"builtins", `v := {"up": upper(input.s), "parts": split(input.s, ","), "f": sprintf("%v-%d", [input.s, count(input.xs)]), "re": regex.match("^h", input.s)}`},
		{"builtin error", `v := to_number(input.s)`},
		{"numbers", "v if input.x == 1\nw := 1.5 + input.x"},
		{"array unify", `v := a if [a, b] := input.xs`},
		{"object unify", `v := b if {"a": 1, "b": b} = input.o`},
		{"nested refs", `v := input.o.a.a`},
		{"array index", `v := [input.xs[0], input.xs[2]]`},
		{"with rule refs", "a := count(input.xs)\nb := a * 2 if a > 1\nv := {\"a\": a, \"b\": b}"},
		{"every", `v if every y in input.xs { is_number(y) }`},
		{"conflict", "v := 1 if input.x == 1\nv := 2 if input.x == 1"},
		{"or in function", "h(a) if a == 1\nh(a) if a == 3\nv := [y | some y in input.xs; h(y)]"},
		{"membership", `v := {"in": 2 in input.xs, "kv": 1, "o": "a" in object.keys(input.o)}`},
		{"strings", `v := {"c": concat("/", ["a", input.s]), "t": trim_space(sprintf("%v ", [input.s])), "idx": indexof(input.s, "l")}`},
		{"sort and slice", `v := array.slice(sort(input.xs), 1, 2)`},
		{"json", `v := json.marshal(input.o)`},
		{"undefined var", `v := input.nope.deeper`},
		{"empty set rule", `v contains y if { some y in input.nothing }`},
		// An object of the input leaving the plan's reads (a record, when the
		// input is made of them).
		{"input object as result", `v := input.o`},
		{"whole input", `v := input`},
		{"input object in collections", `v := {"in object": input.o, "in array": [input.o], "in set": {input.o}, "as key": {input.o: 1}}`},
		{"input object compared", `v := {"self": input.o == input.o, "literal": input.o == {"a": 1, "b": [2]}, "not": input.o != {}, "input": input == input}`},
		{"input object counted", `v := {"count": count(input.o), "object": is_object(input.o), "keys": object.keys(input.o)}`},
		{"input object in a rule", "o := input.o\nv := [o.a, count(o), [k | o[k]]]"},
		{"input object passed", "f(x) := x.b\nv := f(input.o)"},
		{"input object looked up", "s := {input.o}\nobj := {input.o: \"found\"}\nv := [s[input.o], obj[input.o], input.o in s]"},
		{"input object assigned once", "v := input.o if input.x == 1\nv := input.o if input.x == 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			modules := map[string]string{"p.rego": "package p\n\n" + c.src + "\n"}
			prog := link(t, planModules(t, modules, "p/v"), nil)
			for _, raw := range inputs {
				var input any
				if err := json.Unmarshal([]byte(raw), &input); err != nil {
					t.Fatal(err)
				}
				want := topdownOutcome(t, modules, "p/v", input)
				if got := irOutcome(t, prog, "p/v", input); got != want {
					t.Errorf("input %s: plan %s, topdown %s", raw, got, want)
				}
				in, err := ast.InterfaceToValue(input)
				if err != nil {
					t.Fatal(err)
				}
				if got := evalOutcome(t, prog, "p/v", records(in)); got != want {
					t.Errorf("input %s as records: plan %s, topdown %s", raw, got, want)
				}
			}
		})
	}
}

// TestLinkRefuses: what the evaluator does not implement, or a function it
// cannot find, is an error before evaluation, never a wrong answer.
func TestLinkRefuses(t *testing.T) {
	p := planModules(t, map[string]string{"p.rego": "package p\n\nv := x if { x := input.a with input.a as 1 }\n"}, "p/v")
	if _, err := Link(p); err == nil || !strings.Contains(err.Error(), "WithStmt") {
		t.Errorf("Link = %v, want an error naming WithStmt", err)
	}
	p = planModules(t, map[string]string{"p.rego": "package p\n\nv := x if x := input.a\n"}, "p/v")
	p.Funcs.Funcs[0].Blocks[0].Stmts = append([]ir.Stmt{&ir.CallStmt{Func: "no.such", Result: 2}}, p.Funcs.Funcs[0].Blocks[0].Stmts...)
	prog, err := Link(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prog.Bind(nil); err == nil || !strings.Contains(err.Error(), "no.such") {
		t.Errorf("Bind = %v, want an error naming no.such", err)
	}
}

// TestCallerBuiltins: a built-in the caller gives is called with the
// operands, and its error ends the evaluation.
func TestCallerBuiltins(t *testing.T) {
	var calls int
	double := func(_ topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		calls++
		n, ok := ops[0].Value.(ast.Number)
		if !ok {
			return &topdown.Error{Code: topdown.TypeErr, Message: "not a number"}
		}
		i, _ := n.Int()
		return iter(ast.IntNumberTerm(2 * i))
	}
	caps := ast.CapabilitiesForThisVersion()
	decl := types.NewFunction(types.Args(types.A), types.N)
	caps.Builtins = append(caps.Builtins, &ast.Builtin{Name: "double", Decl: decl})
	p := planWith(t, caps, map[string]string{"p.rego": "package p\n\nv := [double(x) | some x in input]\n"}, "p/v")
	prog := link(t, p, map[string]Builtin{"double": {Decl: decl, Fn: double}})
	// A declaration of two operands for a call of one is refused.
	prog2, err := Link(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prog2.Bind(map[string]Builtin{"double": {Decl: types.NewFunction(types.Args(types.A, types.A), types.N), Fn: double}}); err == nil {
		t.Error("a call of one operand bound to a built-in of two")
	}
	if got := irOutcome(t, prog, "p/v", []any{1, 2}); got != "[2, 4]" || calls != 2 {
		t.Errorf("got %s after %d calls", got, calls)
	}
	if got := irOutcome(t, prog, "p/v", []any{1, "x"}); got != "error" {
		t.Errorf("a built-in's error gave %s", got)
	}
}

// TestCancel: an evaluation whose context is cancelled stops with topdown's
// cancel error.
func TestCancel(t *testing.T) {
	p := planModules(t, map[string]string{"p.rego": "package p\n\nv := count([x | some x in numbers.range(1, 100000); x % 7 == 0])\n"}, "p/v")
	prog := link(t, p, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := prog.Eval(ctx, "p/v", ast.NewObject())
	var te *topdown.Error
	if !errors.As(err, &te) || te.Code != topdown.CancelErr {
		t.Errorf("Eval = %v, want a cancel error", err)
	}
}

// TestScanBreaks: a scan's body is two blocks deep, as in OPA's Wasm
// compiler: BreakStmt 0 goes on with the next element, 1 ends the scan, 2
// leaves the block around it, 3 the one around that. (The planner does not emit the last two for
// the shipped policies, so the plan is written by hand.)
func TestScanBreaks(t *testing.T) {
	local := func(i int) ir.Operand { return ir.Operand{Value: ir.Local(i)} }
	str := func(i int) ir.Operand { return ir.Operand{Value: ir.StringIndex(i)} }
	plan := func(index uint32) *ir.Policy {
		return &ir.Policy{
			Static: &ir.Static{Strings: []*ir.StringConst{{Value: "result"}, {Value: "stop"}, {Value: "end"}}},
			Plans: &ir.Plans{Plans: []*ir.Plan{{Name: "p", Blocks: []*ir.Block{{Stmts: []ir.Stmt{
				&ir.MakeArrayStmt{Target: 2},
				&ir.BlockStmt{Blocks: []*ir.Block{{Stmts: []ir.Stmt{
					&ir.ScanStmt{Source: ir.Input, Key: 3, Value: 4, Block: &ir.Block{Stmts: []ir.Stmt{
						&ir.ArrayAppendStmt{Value: local(4), Array: 2},
						&ir.EqualStmt{A: local(4), B: str(1)},
						&ir.BreakStmt{Index: index},
					}}},
					&ir.ArrayAppendStmt{Value: str(2), Array: 2},
				}}}},
				&ir.MakeObjectStmt{Target: 5},
				&ir.ObjectInsertStmt{Key: str(0), Value: local(2), Object: 5},
				&ir.ResultSetAddStmt{Value: 5},
			}}}}}},
		}
	}
	for index, want := range []string{`["a", "stop", "b", "end"]`, `["a", "stop", "end"]`, `["a", "stop"]`, "undefined"} {
		prog := link(t, plan(uint32(index)), nil)
		if got := irOutcome(t, prog, "p", []any{"a", "stop", "b"}); got != want {
			t.Errorf("BreakStmt %d: %s, want %s", index, got, want)
		}
	}
}

// TestOpNames: every Op has its name, in order.
func TestOpNames(t *testing.T) {
	if len(opNames) != int(OpResultAdd)+1 || OpResultAdd.GoString() != "regoir.OpResultAdd" || OpMakeConst.GoString() != "regoir.OpMakeConst" ||
		OpNop.GoString() != "regoir.OpNop" || OpCallBuiltin.GoString() != "regoir.OpCallBuiltin" {
		t.Errorf("%d names for %d ops; OpCallBuiltin is %s", len(opNames), OpResultAdd+1, OpCallBuiltin.GoString())
	}
}

// TestFoldConstants: collection literals are made once, whether a rule's
// whole value or a condition's, and every evaluation still gives topdown's
// result.
func TestFoldConstants(t *testing.T) {
	modules := map[string]string{"p.rego": `package p

launchers := {"npx", "uvx"}

flags := ["-p", "--package"]

limits := {"low": 1, "high": 9}

v contains "launcher" if input.x in launchers

v contains "flag" if input.s in flags

v contains "inline" if input.x in {"a", "b"}

v contains sprintf("limit %d", [limits[input.s]]) if limits[input.s]

v contains pair if {
	some x in input.xs
	pair := [x, "seen"]
}

w := r if {
	r := {"npx", "uvx"}
	input.x == "npx"
} else := r if {
	r := {"a"}
	input.x == "a"
}
`}
	p := planModules(t, modules, "p/v", "p/w")
	prog, err := Link(p)
	if err != nil {
		t.Fatal(err)
	}
	if prog.Consts < 5 {
		t.Errorf("%d collections folded, want at least 5", prog.Consts)
	}
	ev, err := prog.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second round finds the shared constants as the first left them
		for _, raw := range []string{`{"x": "npx", "s": "-p", "xs": [1, 2]}`, `{"x": "a", "s": "high", "xs": []}`, `{"x": "q", "s": "low"}`, `{}`} {
			var input any
			if err := json.Unmarshal([]byte(raw), &input); err != nil {
				t.Fatal(err)
			}
			for _, entry := range []string{"p/v", "p/w"} {
				if got, want := irOutcome(t, ev, entry, input), topdownOutcome(t, modules, entry, input); got != want {
					t.Errorf("%s on %s: plan %s, topdown %s", entry, raw, got, want)
				}
			}
		}
	}
}

// TestFoldRefusesMutated: when a collection may be mutated after it was
// made, it is not folded, and each evaluation starts from the literal
// again (arrays, where a second append shows). (The planner does not write such plans, so they are written by
// hand.)
func TestFoldRefusesMutated(t *testing.T) {
	local := func(i int) ir.Operand { return ir.Operand{Value: ir.Local(i)} }
	str := func(i int) ir.Operand { return ir.Operand{Value: ir.StringIndex(i)} }
	result := []ir.Stmt{
		&ir.MakeObjectStmt{Target: 3},
		&ir.ObjectInsertStmt{Key: str(0), Value: local(2), Object: 3},
		&ir.ResultSetAddStmt{Value: 3},
	}
	constArray := &ir.Func{Name: "f", Params: []ir.Local{0, 1}, Return: 2, Blocks: []*ir.Block{{Stmts: []ir.Stmt{
		&ir.MakeArrayStmt{Target: 2},
		&ir.ArrayAppendStmt{Value: str(1), Array: 2},
		&ir.ReturnLocalStmt{Source: 2},
	}}}}
	for _, tc := range []struct {
		name   string
		funcs  []*ir.Func
		blocks [][]ir.Stmt
	}{
		{"a rule's value, added to by its caller", []*ir.Func{constArray}, [][]ir.Stmt{
			append([]ir.Stmt{
				&ir.CallStmt{Func: "f", Args: []ir.Operand{local(0), local(1)}, Result: 2},
				&ir.ArrayAppendStmt{Value: str(2), Array: 2},
			}, result...),
		}},
		{"added to in a later block", nil, [][]ir.Stmt{
			{&ir.MakeArrayStmt{Target: 2}, &ir.ArrayAppendStmt{Value: str(1), Array: 2}},
			append([]ir.Stmt{&ir.ArrayAppendStmt{Value: str(2), Array: 2}}, result...),
		}},
		{"made, then another value in its local", []*ir.Func{constArray}, [][]ir.Stmt{
			append([]ir.Stmt{
				&ir.MakeArrayStmt{Target: 2},
				&ir.CallStmt{Func: "f", Args: []ir.Operand{local(0), local(1)}, Result: 2},
				&ir.ArrayAppendStmt{Value: str(2), Array: 2},
			}, result...),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &ir.Policy{
				Static: &ir.Static{Strings: []*ir.StringConst{{Value: "result"}, {Value: "a"}, {Value: "b"}}},
				Funcs:  &ir.Funcs{Funcs: tc.funcs},
				Plans:  &ir.Plans{Plans: []*ir.Plan{{Name: "p"}}},
			}
			for _, b := range tc.blocks {
				p.Plans.Plans[0].Blocks = append(p.Plans.Plans[0].Blocks, &ir.Block{Stmts: b})
			}
			prog, err := Link(p)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := prog.Bind(nil)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if got := irOutcome(t, ev, "p", nil); got != `["a", "b"]` {
					t.Fatalf("got %s (%d collections folded)", got, prog.Consts)
				}
			}
		})
	}
}

// TestConcurrentEvaluations: an Evaluator, its folded constants included,
// serves goroutines at once (run under -race in CI's race step).
func TestConcurrentEvaluations(t *testing.T) {
	modules := map[string]string{"p.rego": `package p

launchers := {"npx", "uvx"}

v contains "launcher" if input.x in launchers

v contains sprintf("%s-%d", [x, count(launchers)]) if some x in input.xs
`}
	ev := link(t, planModules(t, modules, "p/v"), nil)
	inputs := []any{map[string]any{"x": "npx", "xs": []any{"a", "b"}}, map[string]any{"x": "q", "xs": []any{"c"}}}
	want := make([]string, len(inputs))
	for i, in := range inputs {
		want[i] = topdownOutcome(t, modules, "p/v", in)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(inputs)
				if got := irOutcome(t, ev, "p/v", inputs[k]); got != want[k] {
					t.Errorf("goroutine %d: %s, want %s", g, got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
}
