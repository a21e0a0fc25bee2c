package regoir

import (
	"fmt"
)

// check verifies that im can be evaluated without reading or writing out
// of bounds — every local within its function's, every call, built-in and
// constant of im's, every span within its array and each block, statement
// and argument in exactly one place (so that no block contains itself and
// the arrays hold nothing unchecked), blocks nested no deeper than
// maxDepth, no recursion — and sets im.Frames, the most locals a chain of
// calls holds at once. Program.Image's layouts of Link's programs hold by
// construction; Decode's are checked because their bytes could be
// anything.
func (im *Image) check() error {
	if im.Consts < 0 || im.Memos < 0 {
		return fmt.Errorf("check plan: %d constants, %d memos", im.Consts, im.Memos)
	}
	c := &checker{im: im, blocks: make([]bool, len(im.Blocks)), stmts: make([]bool, len(im.Stmts)), args: make([]bool, len(im.Args))}
	// What each function calls, plans first.
	callees := make([][]int32, len(im.Plans)+len(im.Funcs))
	for i := range im.Plans {
		if err := c.function(&im.Plans[i], true, &callees[i]); err != nil {
			return err
		}
	}
	for i := range im.Funcs {
		if err := c.function(&im.Funcs[i], false, &callees[len(im.Plans)+i]); err != nil {
			return err
		}
	}
	if c.nblocks != len(im.Blocks) || c.nstmts != len(im.Stmts) || c.nargs != len(im.Args) {
		return fmt.Errorf("check plan: %d of %d blocks, %d of %d statements, %d of %d arguments in a function",
			c.nblocks, len(im.Blocks), c.nstmts, len(im.Stmts), c.nargs, len(im.Args))
	}
	// Rego has no recursion (the compiler rejects it), so calls form a DAG.
	depth := make([]int, len(im.Funcs))
	var walk func(fn *Func, calls []int32, path []bool) (int, error)
	walk = func(fn *Func, calls []int32, path []bool) (int, error) {
		deepest := 0
		for _, n := range calls {
			if path[n] {
				return 0, fmt.Errorf("check plan: %s calls itself", im.Funcs[n].Name)
			}
			if depth[n] == 0 {
				path[n] = true
				d, err := walk(&im.Funcs[n], callees[len(im.Plans)+int(n)], path)
				if err != nil {
					return 0, err
				}
				depth[n] = d
				path[n] = false
			}
			deepest = max(deepest, depth[n])
		}
		return int(fn.Locals) + deepest, nil
	}
	im.Frames = 0
	path := make([]bool, len(im.Funcs))
	for i := range im.Plans {
		d, err := walk(&im.Plans[i], callees[i], path)
		if err != nil {
			return err
		}
		im.Frames = max(im.Frames, d)
	}
	if im.Frames > maxFrames {
		return fmt.Errorf("check plan: chains of calls hold %d locals", im.Frames)
	}
	im.checked = true
	return nil
}

// checker marks what check has seen: a block, statement or argument seen
// twice is in two places.
type checker struct {
	im                     *Image
	blocks, stmts, args    []bool
	nblocks, nstmts, nargs int
}

// function checks fn and appends the functions it calls to calls.
func (c *checker) function(fn *Func, plan bool, calls *[]int32) error {
	im := c.im
	bad := func(format string, args ...any) error {
		return fmt.Errorf("check plan: %s: %s", fn.Name, fmt.Sprintf(format, args...))
	}
	local := func(l int32) bool { return l >= 0 && l < fn.Locals }
	if fn.Locals < 2 || fn.Locals > maxLocals || fn.Memo < -1 || int(fn.Memo) >= im.Memos {
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
	ref := func(r Ref) bool { return r >= 0 && local(int32(r)) || r < 0 && int(^r) < len(im.Terms) }
	var blocks func(bs Span, depth int) error
	stmt := func(s *Instr, depth int) error {
		if !ref(s.A) || !ref(s.B) {
			return bad("%#v: an operand out of range", s.Op)
		}
		if s.Op > OpResultAdd || !local(s.Target) || !local(s.Key) || s.N < 0 {
			return bad("%#v: target %d, key %d, n %d", s.Op, s.Target, s.Key, s.N)
		}
		// An array's capacity is its literal's length, appended by a
		// statement each: no more than the program has (an allocation
		// of whatever the bytes say, otherwise).
		if s.Op == OpMakeArray && int(s.N) > len(im.Stmts) {
			return bad("an array of capacity %d", s.N)
		}
		if n, ok := hasBlocks(s.Op); ok {
			if n >= 0 && s.Sub.Len != int32(n) {
				return bad("%#v with %d blocks", s.Op, s.Sub.Len)
			}
			return blocks(s.Sub, depth+1)
		}
		if !hasArgs(s.Op) {
			if s.Sub != (Span{}) {
				return bad("%#v with arguments", s.Op)
			}
			return nil
		}
		if s.Sub.Start < 0 || s.Sub.Len < 0 || s.Sub.end() > len(im.Args) {
			return bad("%#v: arguments %d+%d of %d", s.Op, s.Sub.Start, s.Sub.Len, len(im.Args))
		}
		args := im.Args[s.Sub.Start:s.Sub.end()]
		for i, a := range args {
			if c.args[int(s.Sub.Start)+i] {
				return bad("%#v: an argument in two places", s.Op)
			}
			c.args[int(s.Sub.Start)+i] = true
			if !ref(a) {
				return bad("%#v: an argument out of range", s.Op)
			}
		}
		c.nargs += len(args)
		switch s.Op {
		case OpCall:
			if int(s.N) >= len(im.Funcs) || len(args) != len(im.Funcs[s.N].Params) {
				return bad("call %d with %d arguments", s.N, len(args))
			}
			*calls = append(*calls, s.N)
		case OpCallBuiltin:
			if int(s.N) >= len(im.Builtins) {
				return bad("built-in %d", s.N)
			}
		case OpMakeConst:
			if int(s.N) >= im.Consts || s.Key < constSet || s.Key > constObject {
				return bad("constant %d of kind %d", s.N, s.Key)
			}
			for _, a := range args {
				if a >= 0 {
					return bad("constant %d holds a local", s.N)
				}
			}
		}
		return nil
	}
	blocks = func(bs Span, depth int) error {
		if depth > maxDepth {
			return bad("blocks nested %d deep", depth)
		}
		if bs.Start < 0 || bs.Len < 0 || bs.end() > len(im.Blocks) {
			return bad("blocks %d+%d of %d", bs.Start, bs.Len, len(im.Blocks))
		}
		for i := bs.Start; i < int32(bs.end()); i++ {
			if c.blocks[i] {
				return bad("block %d in two places", i)
			}
			c.blocks[i] = true
			c.nblocks++
			b := im.Blocks[i]
			if b.Start < 0 || b.Len < 0 || b.end() > len(im.Stmts) {
				return bad("statements %d+%d of %d", b.Start, b.Len, len(im.Stmts))
			}
			for j := b.Start; j < int32(b.end()); j++ {
				if c.stmts[j] {
					return bad("statement %d in two places", j)
				}
				c.stmts[j] = true
				c.nstmts++
				if s := &im.Stmts[j]; s.Op == OpScan && !local(s.N) {
					return bad("scan of local %d", s.N)
				}
				if err := stmt(&im.Stmts[j], depth); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return blocks(fn.Blocks, 0)
}
