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
	if im.Consts < 0 || im.Memos < 0 || len(im.Locs) != locSize*len(im.Stmts) {
		return fmt.Errorf("check plan: %d constants, %d memos, %d bytes of locations", im.Consts, im.Memos, len(im.Locs))
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
		if d := int(fn.Locals) + deepest; d <= maxFrames { // bounded on the way, so no sum overflows
			return d, nil
		}
		return 0, fmt.Errorf("check plan: chains of calls from %s hold over %d locals", fn.Name, maxFrames)
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
	im.checked = true
	return nil
}

// checker marks what check has seen (a block, statement or argument seen
// twice is in two places) and holds the function it is checking.
type checker struct {
	im                     *Image
	blocks, stmts, args    []bool
	nblocks, nstmts, nargs int

	fn     *Func
	locals int32 // fn.Locals
	calls  *[]int32
}

func (c *checker) bad(format string, args ...any) error {
	return fmt.Errorf("check plan: %s: %s", c.fn.Name, fmt.Sprintf(format, args...))
}

func (c *checker) local(l int32) bool { return l >= 0 && l < c.locals }

func (c *checker) ref(r Ref) bool {
	if r >= 0 {
		return int32(r) < c.locals
	}
	return int(^r) < len(c.im.Terms)
}

// function checks fn and appends the functions it calls to calls.
func (c *checker) function(fn *Func, plan bool, calls *[]int32) error {
	c.fn, c.locals, c.calls = fn, fn.Locals, calls
	if fn.Locals < 2 || fn.Locals > maxLocals || fn.Memo < -1 || int(fn.Memo) >= c.im.Memos {
		return c.bad("%d locals, memo %d", fn.Locals, fn.Memo)
	}
	if plan != (fn.Ret == -1) || !plan && (!c.local(fn.Ret) || len(fn.Params) < 2) || plan && len(fn.Params) > 0 {
		return c.bad("return %d, %d parameters", fn.Ret, len(fn.Params))
	}
	for _, par := range fn.Params {
		if !c.local(par) {
			return c.bad("parameter %d", par)
		}
	}
	return c.blockSpan(fn.Blocks, 0)
}

func (c *checker) blockSpan(bs Span, depth int) error {
	im := c.im
	if depth > maxDepth {
		return c.bad("blocks nested %d deep", depth)
	}
	if bs.Start < 0 || bs.Len < 0 || bs.end() > len(im.Blocks) {
		return c.bad("blocks %d+%d of %d", bs.Start, bs.Len, len(im.Blocks))
	}
	for i := bs.Start; i < int32(bs.end()); i++ {
		if c.blocks[i] {
			return c.bad("block %d in two places", i)
		}
		c.blocks[i] = true
		c.nblocks++
		b := im.Blocks[i]
		if b.Start < 0 || b.Len < 0 || b.end() > len(im.Stmts) {
			return c.bad("statements %d+%d of %d", b.Start, b.Len, len(im.Stmts))
		}
		for j := b.Start; j < int32(b.end()); j++ {
			if c.stmts[j] {
				return c.bad("statement %d in two places", j)
			}
			c.stmts[j] = true
			c.nstmts++
			if err := c.stmt(&im.Stmts[j], depth); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *checker) stmt(s *Instr, depth int) error {
	im := c.im
	if !c.ref(s.A) || !c.ref(s.B) {
		return c.bad("%#v: an operand out of range", s.Op)
	}
	if s.Op > OpResultAdd || !c.local(s.Target) || !c.local(s.Key) || s.N < 0 {
		return c.bad("%#v: target %d, key %d, n %d", s.Op, s.Target, s.Key, s.N)
	}
	switch s.Op {
	case OpScan:
		if !c.local(s.N) {
			return c.bad("scan of local %d", s.N)
		}
	case OpMakeArray:
		// An array's capacity is its literal's length, appended by a
		// statement each: no more than the program has (an allocation of
		// whatever the bytes say, otherwise).
		if int(s.N) > len(im.Stmts) {
			return c.bad("an array of capacity %d", s.N)
		}
	}
	if n, ok := hasBlocks(s.Op); ok {
		if n >= 0 && s.Sub.Len != int32(n) {
			return c.bad("%#v with %d blocks", s.Op, s.Sub.Len)
		}
		return c.blockSpan(s.Sub, depth+1)
	}
	if !hasArgs(s.Op) {
		if s.Sub != (Span{}) {
			return c.bad("%#v with arguments", s.Op)
		}
		return nil
	}
	if s.Sub.Start < 0 || s.Sub.Len < 0 || s.Sub.end() > len(im.Args) {
		return c.bad("%#v: arguments %d+%d of %d", s.Op, s.Sub.Start, s.Sub.Len, len(im.Args))
	}
	args := im.Args[s.Sub.Start:s.Sub.end()]
	seen := c.args[s.Sub.Start:s.Sub.end()]
	for i, a := range args {
		if seen[i] {
			return c.bad("%#v: an argument in two places", s.Op)
		}
		seen[i] = true
		if !c.ref(a) {
			return c.bad("%#v: an argument out of range", s.Op)
		}
	}
	c.nargs += len(args)
	switch s.Op {
	case OpCall:
		if int(s.N) >= len(im.Funcs) || len(args) != len(im.Funcs[s.N].Params) {
			return c.bad("call %d with %d arguments", s.N, len(args))
		}
		*c.calls = append(*c.calls, s.N)
	case OpCallBuiltin:
		if int(s.N) >= len(im.Builtins) {
			return c.bad("built-in %d", s.N)
		}
	case OpMakeConst:
		if int(s.N) >= im.Consts || s.Key < constSet || s.Key > constObject {
			return c.bad("constant %d of kind %d", s.N, s.Key)
		}
		for _, a := range args {
			if a >= 0 {
				return c.bad("constant %d holds a local", s.N)
			}
		}
	}
	return nil
}
