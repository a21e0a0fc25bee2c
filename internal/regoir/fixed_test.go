package regoir

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestFixedFunctions: a rule that reads neither input nor data, calls no
// built-in and only rules like it is fixed, and its value is made once
// for every evaluation; one that reads input, calls a built-in or a rule
// that reads input is not. The results are the same either way.
func TestFixedFunctions(t *testing.T) {
	modules := map[string]string{"p.rego": `package p

allowed := {"allowed": true, "reasons": ["ALLOWED"]}

flags := {"-p", "--package"}

both := [allowed, flags]

name := input.name

counted := count(["a", "b"])

named := [name, allowed]

r := {"both": both, "counted": counted, "named": named, "flag": flags[input.flag]}
`}
	prog, enc := encodeModules(t, modules, "p/r")
	if !prog.Fresh {
		t.Fatal("the planner's program is not fresh")
	}
	if dec, err := Decode(string(enc)); err != nil || !dec.Fresh {
		t.Fatalf("decoded: %v, fresh %v", err, dec != nil && dec.Fresh)
	}
	ev, err := prog.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"allowed": true, "flags": true, "both": true, "name": false, "counted": false, "named": false}
	got := map[string]bool{}
	for n, f := range ev.im.Funcs {
		for rule := range want {
			if f.Name == "g0.data.p."+rule {
				got[rule] = ev.fixed[n] != nil
			}
		}
	}
	for rule, w := range want {
		if g, ok := got[rule]; !ok || g != w {
			t.Errorf("%s: fixed %v (found %v), want %v", rule, g, ok, w)
		}
	}

	in := func(name string) ast.Value {
		v, _ := ast.InterfaceToValue(map[string]any{"name": name, "flag": "-p"})
		return v
	}
	first := evalOutcome(t, ev, "p/r", in("a"))
	const wantFirst = `{"both": [{"allowed": true, "reasons": ["ALLOWED"]}, ["--package", "-p"]], "counted": 2, "flag": "-p", "named": ["a", {"allowed": true, "reasons": ["ALLOWED"]}]}`
	if first != wantFirst {
		t.Fatalf("first evaluation: %s", first)
	}
	if second := evalOutcome(t, ev, "p/r", in("b")); second != `{"both": [{"allowed": true, "reasons": ["ALLOWED"]}, ["--package", "-p"]], "counted": 2, "flag": "-p", "named": ["b", {"allowed": true, "reasons": ["ALLOWED"]}]}` {
		t.Fatalf("second evaluation: %s", second)
	}
	// Both evaluations took allowed's value from the one made first.
	for n, f := range ev.im.Funcs {
		if f.Name == "g0.data.p.allowed" && ev.fixed[n].Load() == nil {
			t.Error("allowed's value was not kept")
		}
	}
	rs1, err := ev.Eval(context.Background(), "p/r", in("c"))
	if err != nil {
		t.Fatal(err)
	}
	rs2, err := ev.Eval(context.Background(), "p/r", in("d"))
	if err != nil {
		t.Fatal(err)
	}
	a1 := rs1[0].Value.(ast.Object).Get(ast.StringTerm("both")).Value.(*ast.Array).Elem(0)
	a2 := rs2[0].Value.(ast.Object).Get(ast.StringTerm("both")).Value.(*ast.Array).Elem(0)
	if a1 != a2 {
		t.Error("two evaluations made allowed's value each")
	}
}

// TestFixedCallUndefinedOperand: a fixed function called with an operand
// that is undefined is undefined, as any call is, after an evaluation
// has kept its value too.
func TestFixedCallUndefinedOperand(t *testing.T) {
	call := func(arg int32) []Stmt {
		return []Stmt{
			{Op: OpCall, Target: 3, N: 0, Args: []Operand{{Local: 0}, {Local: 1}, {Local: arg}}},
			{Op: OpResultAdd, A: Operand{Local: 3}},
		}
	}
	prog := &Program{
		Fresh: true,
		Funcs: []Function{{Name: "f", Params: []int32{0, 1, 2}, Ret: 3, Memo: -1, Locals: 4, Blocks: []Block{{
			{Op: OpAssignConst, Target: 3, A: Operand{Const: ast.IntNumberTerm(1)}},
		}}}},
		Plans: []Function{
			{Name: "defined", Ret: -1, Memo: -1, Locals: 4, Blocks: []Block{call(0)}},
			{Name: "undefined", Ret: -1, Memo: -1, Locals: 4, Blocks: []Block{call(2)}}, // local 2 is never set
		},
	}
	ev, err := prog.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev.fixed[0] == nil {
		t.Fatal("f is not fixed")
	}
	for _, plan := range []string{"defined", "undefined", "defined", "undefined"} {
		want := map[string]string{"defined": "1", "undefined": "undefined"}[plan]
		if got := evalOutcome(t, ev, plan, ast.NewObject()); got != want {
			t.Errorf("%s: %s, want %s", plan, got, want)
		}
	}
	if ev.fixed[0].Load() == nil {
		t.Error("f's value was not kept")
	}
}
