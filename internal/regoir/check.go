package regoir

import (
	"fmt"
)

// check verifies that p can be evaluated without reading or writing out of
// bounds — every local within its function's, every call, built-in and
// constant of p's, the blocks each statement needs, no recursion — and
// sets p.Frames, the most locals a chain of calls holds at once. Link's
// programs hold by construction; Decode's are checked because their bytes
// could be anything.
func (p *Program) check() error {
	if p.Consts < 0 || p.Memos < 0 {
		return fmt.Errorf("check plan: %d constants, %d memos", p.Consts, p.Memos)
	}
	for i := range p.Plans {
		if err := p.checkFunction(&p.Plans[i], true); err != nil {
			return err
		}
	}
	for i := range p.Funcs {
		if err := p.checkFunction(&p.Funcs[i], false); err != nil {
			return err
		}
	}
	// Rego has no recursion (the compiler rejects it), so calls form a DAG.
	depth := make([]int, len(p.Funcs))
	var walk func(fn *Function, path []bool) (int, error)
	walk = func(fn *Function, path []bool) (int, error) {
		deepest := 0
		var err error
		visit(fn.Blocks, func(s *Stmt) {
			if s.Op != OpCall || err != nil {
				return
			}
			if path[s.N] {
				err = fmt.Errorf("check plan: %s calls itself", p.Funcs[s.N].Name)
				return
			}
			if depth[s.N] == 0 {
				path[s.N] = true
				depth[s.N], err = walk(&p.Funcs[s.N], path)
				path[s.N] = false
			}
			deepest = max(deepest, depth[s.N])
		})
		return int(fn.Locals) + deepest, err
	}
	p.Frames = 0
	for i := range p.Plans {
		d, err := walk(&p.Plans[i], make([]bool, len(p.Funcs)))
		if err != nil {
			return err
		}
		p.Frames = max(p.Frames, d)
	}
	return nil
}

func (p *Program) checkFunction(fn *Function, plan bool) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("check plan: %s: %s", fn.Name, fmt.Sprintf(format, args...))
	}
	local := func(l int32) bool { return l >= 0 && l < fn.Locals }
	if fn.Locals < 2 || fn.Memo < -1 || int(fn.Memo) >= p.Memos {
		return bad("%d locals, memo %d", fn.Locals, fn.Memo)
	}
	if plan != (fn.Ret == -1) || !plan && (!local(fn.Ret) || len(fn.Params) < 2) || plan && len(fn.Params) > 0 {
		return bad("return %d, %d parameters", fn.Ret, len(fn.Params))
	}
	for _, par := range fn.Params {
		if !local(par) {
			return bad("parameter %d", par)
		}
	}
	var err error
	visit(fn.Blocks, func(s *Stmt) {
		if err != nil {
			return
		}
		operand := func(o Operand) bool { return o.Const != nil || local(o.Local) }
		if !operand(s.A) || !operand(s.B) {
			err = bad("%#v: an operand out of range", s.Op)
			return
		}
		for _, a := range s.Args {
			if !operand(a) {
				err = bad("%#v: an argument out of range", s.Op)
				return
			}
		}
		if s.Op > OpResultAdd || !local(s.Target) || !local(s.Key) || s.N < 0 {
			err = bad("%#v: target %d, key %d, n %d", s.Op, s.Target, s.Key, s.N)
			return
		}
		blocks := 0
		switch s.Op {
		case OpBlock:
			blocks = len(s.Blocks)
		case OpNot, OpScan:
			blocks = 1
		}
		if len(s.Blocks) != blocks {
			err = bad("%#v with %d blocks", s.Op, len(s.Blocks))
			return
		}
		switch s.Op {
		case OpScan:
			if !local(s.N) {
				err = bad("scan of local %d", s.N)
			}
		case OpCall:
			if int(s.N) >= len(p.Funcs) || len(s.Args) != len(p.Funcs[s.N].Params) {
				err = bad("call %d with %d arguments", s.N, len(s.Args))
			}
		case OpCallBuiltin:
			if int(s.N) >= len(p.Builtins) {
				err = bad("built-in %d", s.N)
			}
		case OpMakeConst:
			if int(s.N) >= p.Consts || s.Key < constSet || s.Key > constObject {
				err = bad("constant %d of kind %d", s.N, s.Key)
			}
			for _, a := range s.Args {
				if a.Const == nil {
					err = bad("constant %d holds a local", s.N)
				}
			}
		}
	})
	return err
}
