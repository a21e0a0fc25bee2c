package regoir

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestResultValues: Link ends every plan of a policy with OpResultAdd, no
// result object built; Eval gives the values, as topdown does
// (TestMatchesTopdown compares them for every shape of rule).
func TestResultValues(t *testing.T) {
	prog, err := Link(planModules(t, encodeTestModules, "p/v", "p/w"))
	if err != nil {
		t.Fatal(err)
	}
	adds, sets := 0, 0
	visitAll(prog, func(s *Stmt) {
		switch s.Op {
		case OpResultAdd:
			adds++
		case OpResultSetAdd:
			sets++
		}
	})
	if adds == 0 || sets != 0 {
		t.Fatalf("%d OpResultAdd, %d OpResultSetAdd", adds, sets)
	}
}

// TestResultSetAddUnwraps: a result the rewrite leaves alone (its object
// used again) is unwrapped as it is added; one without a result member is
// an error, not a value.
func TestResultSetAddUnwraps(t *testing.T) {
	plan := func(key string) *Evaluator {
		// The second result is the first's object: the first is not
		// rewritten, or there would be no object to take.
		prog := &Program{Plans: []Function{{Name: "p", Ret: -1, Memo: -1, Locals: 4, Blocks: []Block{{
			{Op: OpMakeObject, Target: 2},
			{Op: OpObjectInsert, Target: 2, A: Operand{Const: ast.StringTerm(key)}, B: Operand{Const: ast.StringTerm("v")}},
			{Op: OpResultSetAdd, Target: 2},
			{Op: OpMakeObject, Target: 3},
			{Op: OpObjectInsert, Target: 3, A: Operand{Const: resultKey}, B: Operand{Local: 2}},
			{Op: OpResultSetAdd, Target: 3},
		}}}}}
		resultValues(prog)
		if err := prog.Image().check(); err != nil {
			t.Fatal(err)
		}
		ev, err := prog.Bind(nil)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	rs, err := plan("result").Eval(context.Background(), "p", ast.NewObject())
	if err != nil || len(rs) != 2 || rs[0].Value.Compare(ast.String("v")) != 0 || rs[1].Value.Compare(ast.MustParseTerm(`{"result": "v"}`).Value) != 0 {
		t.Fatalf("got %v, %v", rs, err)
	}
	if _, err := plan("other").Eval(context.Background(), "p", ast.NewObject()); err == nil {
		t.Fatal("a result without a result member is a value")
	}
}
