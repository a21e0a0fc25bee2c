package regoir

import "github.com/open-policy-agent/opa/v1/ast"

// resultKey is the member of a result object that holds the entrypoint's
// value.
var resultKey = ast.StringTerm("result")

// resultValues rewrites how the planner ends a plan's query,
//
//	MakeObject t; ObjectInsert t "result" v; ResultSetAdd t
//
// into OpResultAdd v, which adds the value itself: Eval returns values, and
// building an object around each only for the caller to take it apart was
// two OPA objects (a map, its elements, its keys) for every server a scan
// judges. Only when t is used nowhere else in the plan, which the planner's
// fresh temporaries are; any other result is unwrapped as it is added
// (OpResultSetAdd).
func resultValues(p *Program) {
	for i := range p.Plans {
		fn := &p.Plans[i]
		uses := map[int32]int{}
		visit(fn.Blocks, func(s *Stmt) {
			uses[s.Target]++
			for _, o := range append([]Operand{s.A, s.B}, s.Args...) {
				if o.Const == nil {
					uses[o.Local]++
				}
			}
			if s.Op == OpScan {
				uses[s.N]++
				uses[s.Key]++
			}
		})
		var rewrite func(bs []Block)
		rewrite = func(bs []Block) {
			for _, b := range bs {
				for j := range b {
					rewrite(b[j].Blocks)
					if j+2 >= len(b) {
						continue
					}
					mk, ins, add := &b[j], &b[j+1], &b[j+2]
					t := mk.Target
					if mk.Op != OpMakeObject || ins.Op != OpObjectInsert && ins.Op != OpObjectInsertOnce || add.Op != OpResultSetAdd ||
						ins.Target != t || add.Target != t || ins.A.Const == nil || !ins.A.Const.Equal(resultKey) ||
						uses[t] != 3 {
						continue
					}
					*add = Stmt{Op: OpResultAdd, A: ins.B, Loc: add.Loc}
					*mk, *ins = Stmt{Op: OpNop, Loc: mk.Loc}, Stmt{Op: OpNop, Loc: ins.Loc}
				}
			}
		}
		rewrite(fn.Blocks)
	}
}
