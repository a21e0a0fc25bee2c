package regoir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"
)

// Program is a linked plan: every call resolved to a function or a
// built-in's name, every constant a term, as a tree that Link's rewrites
// work on. Laid out (Image), it is plain data: a program linked at build
// time is encoded (MarshalBinary) and decoded when it is needed (Decode;
// policy's shipped plan). Bind gives it its built-ins.
type Program struct {
	Plans    []Function
	Funcs    []Function
	Builtins []string // the names OpCallBuiltin statements index
	Files    []string // the names Loc.File indexes
	Consts   int      // constant collections (OpMakeConst), made by Bind
	Memos    int      // functions memoized per evaluation
	// Fresh says that every statement that writes into a collection writes
	// into one its function has just made, as fold checked: a value a
	// function returns is never written into, and evaluations may share
	// it (fixed.go).
	Fresh bool
}

// Function is a plan or a function of one.
type Function struct {
	Name   string
	Params []int32
	Ret    int32 // -1 for a plan
	Blocks []Block
	Locals int32
	Memo   int32 // slot in an evaluation's memo, or -1
}

// Block is a block's statements.
type Block []Stmt

// Op is a statement's kind.
type Op uint8

// The statements, one for each of ir's that is implemented (MakeNumberInt,
// MakeNumberRef and MakeNull make a constant).
const (
	OpNop Op = iota
	OpArrayAppend
	OpAssignConst
	OpAssignVar
	OpAssignVarOnce
	OpBlock
	OpBreak
	OpCall
	OpCallBuiltin
	OpDot
	OpEqual
	OpIsArray
	OpIsDefined
	OpIsObject
	OpIsSet
	OpIsUndefined
	OpLen
	OpMakeArray
	OpMakeObject
	OpMakeSet
	OpNot
	OpNotEqual
	OpObjectInsert
	OpObjectInsertOnce
	OpResetLocal
	OpResultSetAdd
	OpReturnLocal
	OpScan
	OpSetAdd
	OpMakeConst // a collection literal, made once (fold.go)
	OpResultAdd // a result's value, without the object around it (results.go)
)

var opNames = [...]string{"OpNop", "OpArrayAppend", "OpAssignConst", "OpAssignVar", "OpAssignVarOnce", "OpBlock",
	"OpBreak", "OpCall", "OpCallBuiltin", "OpDot", "OpEqual", "OpIsArray", "OpIsDefined", "OpIsObject", "OpIsSet",
	"OpIsUndefined", "OpLen", "OpMakeArray", "OpMakeObject", "OpMakeSet", "OpNot", "OpNotEqual", "OpObjectInsert",
	"OpObjectInsertOnce", "OpResetLocal", "OpResultSetAdd", "OpReturnLocal", "OpScan", "OpSetAdd", "OpMakeConst", "OpResultAdd"}

// GoString is the constant's name, for messages.
func (o Op) GoString() string {
	if int(o) < len(opNames) {
		return "regoir." + opNames[o]
	}
	return fmt.Sprintf("regoir.Op(%d)", o)
}

// Stmt is one statement, linked. Each Op uses the fields its ir statement
// has: A and B are its operands, Target (and Key, for a scan) its locals, N
// its number (a break's index, a scan's source, an array's capacity, the
// index of the function or built-in a call calls, of an OpMakeConst's
// collection), Blocks its blocks (a NotStmt's and a ScanStmt's one), Args
// a call's arguments (an OpMakeConst's elements, Key its kind).
type Stmt struct {
	Op     Op
	Target int32
	Key    int32
	N      int32
	A, B   Operand
	Blocks []Block
	Args   []Operand
	Loc    Loc
}

// Operand is a local (Const nil) or a constant.
type Operand struct {
	Local int32
	Const *ast.Term
}

// Loc is where a statement came from, for errors: Files[File], Row, Col.
type Loc struct {
	File, Row, Col int32
}

// Link resolves p's calls and constants.
func Link(p *ir.Policy) (*Program, error) {
	if p == nil || p.Static == nil || p.Plans == nil {
		return nil, errors.New("link plan: no plans")
	}
	prog := &Program{}
	l := &linker{funcs: map[string]int32{}, builtins: map[string]int32{}, prog: prog}
	l.strs = make([]*ast.Term, len(p.Static.Strings))
	for i, s := range p.Static.Strings {
		l.strs[i] = ast.StringTerm(s.Value)
	}
	for _, f := range p.Static.Files {
		prog.Files = append(prog.Files, f.Value)
	}
	var funcs []*ir.Func
	if p.Funcs != nil {
		funcs = p.Funcs.Funcs
	}
	for i, f := range funcs {
		fn := Function{Name: f.Name, Ret: int32(f.Return), Memo: -1}
		for _, par := range f.Params {
			fn.Params = append(fn.Params, int32(par))
		}
		// A function of input and data alone is a rule: its value is the
		// same for the whole evaluation (the Wasm compiler memoizes the same
		// functions).
		if len(f.Params) == 2 {
			fn.Memo = int32(prog.Memos)
			prog.Memos++
		}
		l.funcs[f.Name] = int32(i)
		prog.Funcs = append(prog.Funcs, fn)
	}
	for i, f := range funcs {
		fn := &prog.Funcs[i]
		l.max = max(fn.Ret, 1)
		for _, par := range fn.Params {
			l.max = max(l.max, par)
		}
		var err error
		if fn.Blocks, err = l.blocks(f.Blocks); err != nil {
			return nil, fmt.Errorf("link plan: function %s: %w", f.Name, err)
		}
		fn.Locals = l.max + 1
	}
	for _, pl := range p.Plans.Plans {
		fn := Function{Name: pl.Name, Ret: -1, Memo: -1}
		l.max = 1
		var err error
		if fn.Blocks, err = l.blocks(pl.Blocks); err != nil {
			return nil, fmt.Errorf("link plan: %s: %w", pl.Name, err)
		}
		fn.Locals = l.max + 1
		prog.Plans = append(prog.Plans, fn)
	}
	fold(prog)
	resultValues(prog)
	if err := prog.Image().check(); err != nil {
		return nil, fmt.Errorf("link plan: %w", err)
	}
	return prog, nil
}

func visit(blocks []Block, f func(*Stmt)) {
	for _, b := range blocks {
		for i := range b {
			f(&b[i])
			visit(b[i].Blocks, f)
		}
	}
}

type linker struct {
	funcs    map[string]int32
	builtins map[string]int32
	prog     *Program
	strs     []*ast.Term
	max      int32 // the highest local of the function being linked
}

func (l *linker) blocks(bs []*ir.Block) ([]Block, error) {
	out := make([]Block, 0, len(bs))
	for _, b := range bs {
		lb, err := l.block(b)
		if err != nil {
			return nil, err
		}
		out = append(out, lb)
	}
	return out, nil
}

func (l *linker) block(b *ir.Block) (Block, error) {
	if b == nil {
		return Block{}, nil
	}
	out := make(Block, len(b.Stmts))
	for i, s := range b.Stmts {
		if err := l.stmt(s, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (l *linker) local(x ir.Local) int32 {
	l.max = max(l.max, int32(x))
	return int32(x)
}

func (l *linker) operand(o ir.Operand) (Operand, error) {
	switch v := o.Value.(type) { // JSON decodes pointers
	case *ir.Local:
		return l.operand(ir.Operand{Value: *v})
	case *ir.StringIndex:
		return l.operand(ir.Operand{Value: *v})
	case *ir.Bool:
		return l.operand(ir.Operand{Value: *v})
	case ir.Local:
		return Operand{Local: l.local(v)}, nil
	case ir.StringIndex:
		if int(v) < 0 || int(v) >= len(l.strs) {
			return Operand{}, fmt.Errorf("string %d out of range", v)
		}
		return Operand{Const: l.strs[v]}, nil
	case ir.Bool:
		return Operand{Const: ast.BooleanTerm(bool(v))}, nil
	}
	return Operand{}, fmt.Errorf("operand %v", o.Value)
}

func (l *linker) operands(dst []*Operand, src ...ir.Operand) error {
	for i, o := range src {
		var err error
		if *dst[i], err = l.operand(o); err != nil {
			return err
		}
	}
	return nil
}

func (l *linker) stmt(s ir.Stmt, out *Stmt) error {
	if loc := s.GetLocation(); loc != nil {
		out.Loc = Loc{File: int32(loc.File), Row: int32(loc.Row), Col: int32(loc.Col)}
	}
	konst := func(t ir.Local, c *ast.Term) {
		out.Op, out.Target, out.A = OpAssignConst, l.local(t), Operand{Const: c}
	}
	var err error
	switch s := s.(type) {
	case *ir.NopStmt:
		out.Op = OpNop
	case *ir.ArrayAppendStmt:
		out.Op, out.Target = OpArrayAppend, l.local(s.Array)
		err = l.operands([]*Operand{&out.A}, s.Value)
	case *ir.AssignIntStmt:
		konst(s.Target, ast.IntNumberTerm(int(s.Value)))
	case *ir.MakeNullStmt:
		konst(s.Target, ast.NullTerm())
	case *ir.MakeNumberIntStmt:
		konst(s.Target, ast.IntNumberTerm(int(s.Value)))
	case *ir.MakeNumberRefStmt:
		if s.Index < 0 || s.Index >= len(l.strs) {
			return fmt.Errorf("number %d out of range", s.Index)
		}
		num := json.Number(l.strs[s.Index].Value.(ast.String))
		if _, perr := num.Float64(); perr != nil {
			return fmt.Errorf("number %q: %w", num, perr)
		}
		konst(s.Target, ast.NumberTerm(num))
	case *ir.AssignVarStmt:
		out.Op, out.Target = OpAssignVar, l.local(s.Target)
		err = l.operands([]*Operand{&out.A}, s.Source)
	case *ir.AssignVarOnceStmt:
		out.Op, out.Target = OpAssignVarOnce, l.local(s.Target)
		err = l.operands([]*Operand{&out.A}, s.Source)
	case *ir.BlockStmt:
		out.Op = OpBlock
		out.Blocks, err = l.blocks(s.Blocks)
	case *ir.BreakStmt:
		out.Op, out.N = OpBreak, int32(s.Index)
	case *ir.CallStmt:
		out.Target = l.local(s.Result)
		out.Args = make([]Operand, len(s.Args))
		for i, a := range s.Args {
			if err = l.operands([]*Operand{&out.Args[i]}, a); err != nil {
				return err
			}
		}
		if fn, ok := l.funcs[s.Func]; ok {
			out.Op, out.N = OpCall, fn
			if len(s.Args) != len(l.prog.Funcs[fn].Params) {
				return fmt.Errorf("call %s: %d arguments for %d parameters", s.Func, len(s.Args), len(l.prog.Funcs[fn].Params))
			}
			return nil
		}
		bi, ok := l.builtins[s.Func]
		if !ok {
			bi = int32(len(l.prog.Builtins))
			l.builtins[s.Func] = bi
			l.prog.Builtins = append(l.prog.Builtins, s.Func)
		}
		out.Op, out.N = OpCallBuiltin, bi
	case *ir.DotStmt:
		out.Op, out.Target = OpDot, l.local(s.Target)
		err = l.operands([]*Operand{&out.A, &out.B}, s.Source, s.Key)
	case *ir.EqualStmt:
		out.Op = OpEqual
		err = l.operands([]*Operand{&out.A, &out.B}, s.A, s.B)
	case *ir.NotEqualStmt:
		out.Op = OpNotEqual
		err = l.operands([]*Operand{&out.A, &out.B}, s.A, s.B)
	case *ir.IsArrayStmt:
		out.Op = OpIsArray
		err = l.operands([]*Operand{&out.A}, s.Source)
	case *ir.IsObjectStmt:
		out.Op = OpIsObject
		err = l.operands([]*Operand{&out.A}, s.Source)
	case *ir.IsSetStmt:
		out.Op = OpIsSet
		err = l.operands([]*Operand{&out.A}, s.Source)
	case *ir.IsDefinedStmt:
		out.Op, out.Target = OpIsDefined, l.local(s.Source)
	case *ir.IsUndefinedStmt:
		out.Op, out.Target = OpIsUndefined, l.local(s.Source)
	case *ir.LenStmt:
		out.Op, out.Target = OpLen, l.local(s.Target)
		err = l.operands([]*Operand{&out.A}, s.Source)
	case *ir.MakeArrayStmt:
		out.Op, out.Target, out.N = OpMakeArray, l.local(s.Target), max(s.Capacity, 0)
	case *ir.MakeObjectStmt:
		out.Op, out.Target = OpMakeObject, l.local(s.Target)
	case *ir.MakeSetStmt:
		out.Op, out.Target = OpMakeSet, l.local(s.Target)
	case *ir.NotStmt:
		out.Op = OpNot
		out.Blocks, err = l.blocks([]*ir.Block{s.Block})
	case *ir.ObjectInsertStmt:
		out.Op, out.Target = OpObjectInsert, l.local(s.Object)
		err = l.operands([]*Operand{&out.A, &out.B}, s.Key, s.Value)
	case *ir.ObjectInsertOnceStmt:
		out.Op, out.Target = OpObjectInsertOnce, l.local(s.Object)
		err = l.operands([]*Operand{&out.A, &out.B}, s.Key, s.Value)
	case *ir.ResetLocalStmt:
		out.Op, out.Target = OpResetLocal, l.local(s.Target)
	case *ir.ResultSetAddStmt:
		out.Op, out.Target = OpResultSetAdd, l.local(s.Value)
	case *ir.ReturnLocalStmt:
		out.Op, out.Target = OpReturnLocal, l.local(s.Source)
	case *ir.ScanStmt:
		out.Op, out.N, out.Key, out.Target = OpScan, l.local(s.Source), l.local(s.Key), l.local(s.Value)
		out.Blocks, err = l.blocks([]*ir.Block{s.Block})
	case *ir.SetAddStmt:
		out.Op, out.Target = OpSetAdd, l.local(s.Set)
		err = l.operands([]*Operand{&out.A}, s.Value)
	default:
		return fmt.Errorf("%T is not implemented", s)
	}
	return err
}

// Evaluator is an Image with its built-ins. It is safe for concurrent use.
type Evaluator struct {
	im       *Image
	builtins []topdown.BuiltinFunc
	// inline holds, for a built-in the evaluator computes itself
	// (inlineBuiltins), its function; nil for the others.
	inline []func(args []*ast.Term) *ast.Term
	consts []*ast.Term // OpMakeConst's collections, shared by every evaluation
	// fixed holds the value of each fixed function (fixed.go) once an
	// evaluation has made it; nil for a function that is not fixed.
	fixed  []*fixedValue
	states sync.Pool
	// patterns are regex.match's constant patterns (MatchPattern).
	patterns map[string]*lazyRegexp
	// acyclic refuses an insert that would make a value contain itself.
	// Check bounds what a program reads and writes, not what it computes:
	// a hostile one (FuzzDecode's) can insert an object into itself, and
	// OPA's functions recurse into such a value without end. Planned Rego
	// never does (its values are trees), so only the fuzz test pays for
	// the walk.
	acyclic bool
}

// Builtin is a built-in function a plan may call: its declaration (how
// many operands a call gives it) and its implementation.
type Builtin struct {
	Decl *types.Function
	Fn   topdown.BuiltinFunc
}

// Bind lays p out, checks it and gives it its built-ins (Image.Bind).
func (p *Program) Bind(extra map[string]Builtin) (*Evaluator, error) {
	return p.Image().Bind(extra)
}

// Bind gives im its built-ins: extra (mcpguard's own functions) or OPA's.
// A built-in neither has is an error, and so is a call with more or fewer
// operands than its declaration takes (a built-in indexes its operands
// as declared); so is an image that does not check (one Decode made has
// been).
func (im *Image) Bind(extra map[string]Builtin) (*Evaluator, error) {
	if !im.checked {
		if err := im.check(); err != nil {
			return nil, fmt.Errorf("bind plan: %w", err)
		}
	}
	e := &Evaluator{im: im, builtins: make([]topdown.BuiltinFunc, len(im.Builtins)), inline: make([]func([]*ast.Term) *ast.Term, len(im.Builtins))}
	args := make([]types.FuncArgs, len(im.Builtins))
	for i, name := range im.Builtins {
		b, ok := extra[name]
		if d := ast.BuiltinMap[name]; !ok && d != nil {
			b = Builtin{Decl: d.Decl, Fn: topdown.GetBuiltin(name)}
			e.inline[i] = inlineBuiltins[name]
			if name == "regex.match" {
				e.patterns = constantPatterns(im, int32(i))
				e.inline[i] = regexMatch(e.patterns)
			}
		}
		if b.Fn == nil || b.Decl == nil {
			return nil, fmt.Errorf("bind plan: no built-in function %s", name)
		}
		e.builtins[i], args[i] = b.Fn, b.Decl.FuncArgs()
	}
	for i := range im.Stmts {
		if st := &im.Stmts[i]; st.Op == OpCallBuiltin {
			n, want := int(st.Sub.Len), args[st.N]
			if n < len(want.Args) || n > len(want.Args) && want.Variadic == nil {
				return nil, fmt.Errorf("bind plan: %s called with %d operands", im.Builtins[st.N], n)
			}
		}
	}
	var err error
	if e.consts, err = buildConsts(im); err != nil {
		return nil, err
	}
	e.fixed = make([]*fixedValue, len(im.Funcs))
	if im.Fresh {
		for n, ok := range fixedFuncs(im) {
			if ok {
				e.fixed[n] = new(fixedValue)
			}
		}
	}
	return e, nil
}

// Eval evaluates the plan named entrypoint (a path such as "pkg/rule") on
// input, with an empty data document, and returns its results: the value
// of each of OPA's result set, the "result" member of its {"result": value}
// object (none when undefined). A built-in's error ends the evaluation; so
// does ctx.
func (e *Evaluator) Eval(ctx context.Context, entrypoint string, input ast.Value) ([]*ast.Term, error) {
	return e.EvalTerm(ctx, entrypoint, ast.NewTerm(input))
}

// EvalTerm is Eval with the input as a term, which the plan reads and
// never changes: a caller that makes the input for one evaluation makes
// its term with it.
func (e *Evaluator) EvalTerm(ctx context.Context, entrypoint string, input *ast.Term) ([]*ast.Term, error) {
	var out []*ast.Term
	err := e.eval(ctx, entrypoint, input, false, func(rs []*ast.Term) error { out = rs; return nil })
	return out, err
}

// EvalTermWith is EvalTerm that gives the results to read before it
// returns, and makes the terms of the collections it builds in memory of
// its own, reused by the next evaluation: read must not keep any part of
// the results (TestEvalTermWithSlab).
func (e *Evaluator) EvalTermWith(ctx context.Context, entrypoint string, input *ast.Term, read func([]*ast.Term) error) error {
	return e.eval(ctx, entrypoint, input, true, read)
}

func (e *Evaluator) eval(ctx context.Context, entrypoint string, input *ast.Term, slab bool, read func([]*ast.Term) error) error {
	var plan *Func
	for i := range e.im.Plans {
		if e.im.Plans[i].Name == entrypoint {
			plan = &e.im.Plans[i]
		}
	}
	if plan == nil {
		return fmt.Errorf("no plan %q", entrypoint)
	}
	s, _ := e.states.Get().(*state)
	if s == nil {
		s = &state{ev: e, im: e.im, terms: e.im.Terms, memo: make([]*ast.Term, e.im.Memos), stack: make([]*ast.Term, e.im.Frames)}
		s.capture = s.captureOutput
	}
	defer e.states.Put(s)
	defer s.reset()
	s.slab = slab
	s.bctx = topdown.BuiltinContext{Context: ctx}
	s.done = ctx.Done()
	locals := s.stack[:plan.Locals]
	locals[ir.Input] = input
	locals[ir.Data] = ast.InternedEmptyObject // never written: the plan reads data
	s.top = int(plan.Locals)
	s.high = s.top
	for _, b := range e.im.Blocks[plan.Blocks.Start:plan.Blocks.end()] {
		r := s.exec(b, locals)
		if s.err != nil {
			return s.err
		}
		if r == ctrlReturn {
			break
		}
	}
	return read(s.results)
}

// state is one evaluation's: the locals of its calls in one stack, the
// memoized rules, the results.
type state struct {
	ev      *Evaluator
	im      *Image
	terms   []*ast.Term // im.Terms
	stack   []*ast.Term
	top     int
	high    int // the highest top of the evaluation: reset clears below it
	memo    []*ast.Term
	results []*ast.Term
	err     error
	done    <-chan struct{} // the context's
	bctx    topdown.BuiltinContext
	args    []*ast.Term // a built-in's operands
	out     *ast.Term   // a built-in's output
	ret     *ast.Term   // the value of the last ReturnLocalStmt
	capture func(*ast.Term) error
	steps   uint
	scans   []*scanFrame // by depth
	depth   int          // of the scan being run
	// slab is true in an evaluation whose results are read before it
	// returns (EvalTermWith): the terms of the collections it builds are
	// made in slabTerms and slabArrays, reused by the next; outside a
	// fixed function's evaluation (fixing > 0), whose value every later
	// evaluation shares.
	slab       bool
	fixing     int
	slabTerms  []ast.Term
	slabArrays []arrayBlock
	nTerms     int
	nArrays    int
}

// Room in a state's slab: a server's evaluation builds a few dozen
// collections and arrays.
const (
	slabTermCount  = 64
	slabArrayCount = 16
)

// newTerm is a term for v, made in the slab when the evaluation has one.
func (s *state) newTerm(v ast.Value) *ast.Term {
	if !s.slab || s.fixing > 0 {
		return &ast.Term{Value: v}
	}
	if s.slabTerms == nil {
		s.slabTerms = make([]ast.Term, slabTermCount)
	}
	if s.nTerms == len(s.slabTerms) {
		return &ast.Term{Value: v}
	}
	t := &s.slabTerms[s.nTerms]
	s.nTerms++
	t.Value = v
	return t
}

// makeArray is makeArray's array, its block made in the slab when the
// evaluation has one.
func (s *state) makeArray(n int) *ast.Term {
	if !s.slab || s.fixing > 0 || n > inlineArrayElems || !arrayFieldsMatch() {
		return makeArray(n)
	}
	if s.slabArrays == nil {
		s.slabArrays = make([]arrayBlock, slabArrayCount)
	}
	if s.nArrays == len(s.slabArrays) {
		return makeArray(n)
	}
	b := &s.slabArrays[s.nArrays]
	s.nArrays++
	return b.init(n)
}

// undefinedMemo marks a rule memoized as undefined.
var undefinedMemo = &ast.Term{}

func (s *state) reset() {
	// The slab's terms and arrays let go of what they held.
	clear(s.slabTerms[:s.nTerms])
	clear(s.slabArrays[:s.nArrays])
	s.nTerms, s.nArrays, s.slab, s.fixing = 0, 0, false, 0
	// Only the part of the stack this evaluation reached (high) holds
	// anything to let go of.
	clear(s.stack[:s.high])
	clear(s.memo)
	s.results, s.err, s.done, s.bctx, s.out, s.ret, s.top, s.high, s.depth = nil, nil, nil, topdown.BuiltinContext{}, nil, nil, 0, 0, 0
	for _, f := range s.scans {
		f.st, f.locals = nil, nil
	}
}

func (s *state) captureOutput(t *ast.Term) error {
	s.out = t
	return nil
}

// Control results of exec: a block that ran to its end, one a return (or
// an error) left, or the number of blocks past its own to leave (0: this
// one; a statement that is undefined leaves its block).
const (
	ctrlEnd    = -1
	ctrlReturn = -2
)

var errCancelled = &topdown.Error{Code: topdown.CancelErr, Message: "caller cancelled query execution"}

// location is where statement at (its index in Stmts) came from.
func (s *state) location(at int) *ast.Location {
	l := s.im.loc(at)
	loc := &ast.Location{Row: int(l.Row), Col: int(l.Col)}
	if int(l.File) < len(s.im.Files) {
		loc.File = s.im.Files[l.File]
	}
	return loc
}

// value is r's term: a local's, or a constant.
func (s *state) value(r Ref, locals []*ast.Term) *ast.Term {
	if r >= 0 {
		return locals[r]
	}
	return s.terms[^r]
}

func (s *state) fail(err error) int {
	if s.err == nil {
		s.err = err
	}
	return ctrlReturn
}

func (s *state) exec(b Span, locals []*ast.Term) int {
	stmts := s.im.Stmts[b.Start:b.end()]
	for i := range stmts {
		st := &stmts[i]
		switch st.Op {
		case OpNop:
		case OpArrayAppend:
			arr, ok := asArray(locals[st.Target])
			v := s.value(st.A, locals)
			if !ok || v == nil {
				return 0
			}
			if arr == emptyArray.Value {
				return s.fail(fmt.Errorf("plan appends to its input at %v", s.location(int(b.Start)+i)))
			}
			if s.ev.acyclic && contains(v.Value, arr) {
				return s.fail(errCycle)
			}
			appendArray(arr, Plain(v))
		case OpAssignConst, OpAssignVar:
			locals[st.Target] = s.value(st.A, locals)
		case OpAssignVarOnce:
			v := s.value(st.A, locals)
			if cur := locals[st.Target]; cur != nil && (v == nil || !equal(cur, v)) {
				return s.fail(&topdown.Error{Code: topdown.ConflictErr, Message: "complete rules must not produce multiple outputs", Location: s.location(int(b.Start) + i)})
			}
			locals[st.Target] = v
		case OpBlock:
			for _, sub := range s.im.Blocks[st.Sub.Start:st.Sub.end()] {
				r := s.exec(sub, locals)
				if r == ctrlReturn {
					return r
				}
				if r > 0 {
					return r - 1
				}
			}
		case OpBreak:
			return int(st.N)
		case OpCall, OpCallBuiltin:
			var v *ast.Term
			var r int
			if st.Op == OpCall {
				v, r = s.call(st, locals)
			} else {
				v, r = s.callBuiltin(st, int(b.Start)+i, locals)
			}
			if r == ctrlReturn {
				return r
			}
			if v == nil {
				return 0
			}
			locals[st.Target] = v
		case OpDot:
			v := dot(s.value(st.A, locals), s.value(st.B, locals))
			if v == nil {
				return 0
			}
			locals[st.Target] = v
		case OpEqual:
			a, b := s.value(st.A, locals), s.value(st.B, locals)
			if a == nil || b == nil || !equal(a, b) {
				return 0
			}
		case OpNotEqual:
			a, b := s.value(st.A, locals), s.value(st.B, locals)
			if a == nil || b == nil || equal(a, b) {
				return 0
			}
		case OpIsArray:
			if _, ok := asArray(s.value(st.A, locals)); !ok {
				return 0
			}
		case OpIsObject:
			if !isObject(s.value(st.A, locals)) {
				return 0
			}
		case OpIsSet:
			if _, ok := asSet(s.value(st.A, locals)); !ok {
				return 0
			}
		case OpIsDefined:
			if locals[st.Target] == nil {
				return 0
			}
		case OpIsUndefined:
			if locals[st.Target] != nil {
				return 0
			}
		case OpLen:
			n, ok := length(s.value(st.A, locals))
			if !ok {
				return 0
			}
			locals[st.Target] = ast.InternedTerm(n)
		case OpMakeArray:
			locals[st.Target] = s.makeArray(int(st.N))
		case OpMakeConst:
			locals[st.Target] = s.ev.consts[st.N]
		case OpMakeObject:
			// Many stay empty (a rule's findings, most of the time): the map
			// behind an object or a set is made with its first element.
			locals[st.Target] = s.newTerm(ast.InternedEmptyObjectValue)
		case OpMakeSet:
			locals[st.Target] = s.newTerm(ast.InternedEmptySetValue)
		case OpNot:
			r := s.exec(s.im.Blocks[st.Sub.Start], locals)
			switch {
			case r == ctrlReturn:
				return r
			case r == ctrlEnd: // the negated block held
				return 0
			case r > 0:
				return r - 1
			}
		case OpObjectInsert, OpObjectInsertOnce:
			if t := locals[st.Target]; t != nil {
				if _, ok := t.Value.(*Record); ok {
					return s.fail(fmt.Errorf("plan inserts into its input at %v", s.location(int(b.Start)+i)))
				}
			}
			obj, ok := asObject(locals[st.Target])
			k, v := Plain(s.value(st.A, locals)), Plain(s.value(st.B, locals))
			if !ok || k == nil || v == nil {
				return 0
			}
			if s.ev.acyclic && (contains(k.Value, obj) || contains(v.Value, obj)) {
				return s.fail(errCycle)
			}
			if st.Op == OpObjectInsertOnce {
				if cur := obj.Get(k); cur != nil && cur.Value.Compare(v.Value) != 0 {
					return s.fail(&topdown.Error{Code: topdown.ConflictErr, Message: "object keys must be unique", Location: s.location(int(b.Start) + i)})
				}
			}
			if obj == ast.InternedEmptyObjectValue { // OpMakeObject's
				locals[st.Target].Value = ast.NewObject([2]*ast.Term{k, v})
			} else {
				obj.Insert(k, v)
			}
		case OpResetLocal:
			locals[st.Target] = nil
		case OpResultSetAdd:
			v := Plain(locals[st.Target])
			if v == nil {
				return 0
			}
			r := dot(v, resultKey)
			if r == nil {
				return s.fail(fmt.Errorf("plan result %v has no result member at %v", v, s.location(int(b.Start)+i)))
			}
			s.results = append(s.results, r)
		case OpResultAdd:
			v := Plain(s.value(st.A, locals))
			if v == nil {
				return 0
			}
			s.results = append(s.results, v)
		case OpReturnLocal:
			s.ret = locals[st.Target]
			return ctrlReturn
		case OpScan:
			if r := s.scan(st, locals); r != ctrlEnd {
				return r
			}
		case OpSetAdd:
			set, ok := asSet(locals[st.Target])
			v := Plain(s.value(st.A, locals))
			if !ok || v == nil {
				return 0
			}
			if s.ev.acyclic && contains(v.Value, set) {
				return s.fail(errCycle)
			}
			if set == ast.InternedEmptySetValue { // OpMakeSet's
				locals[st.Target].Value = ast.NewSet(v)
			} else {
				set.Add(v)
			}
		}
	}
	return ctrlEnd
}

// scan runs st's body for each element of its source: ctrlEnd when the
// statement is done, otherwise what exec of the enclosing block returns.
func (s *state) scan(st *Instr, locals []*ast.Term) int {
	src := locals[st.N]
	if src == nil {
		return ctrlEnd
	}
	// One frame per scan depth, made once per state with its methods bound:
	// a closure per scan would be an allocation per scan.
	if s.depth == len(s.scans) {
		f := &scanFrame{s: s}
		f.stepFn, f.memberFn = f.step, f.member
		s.scans = append(s.scans, f)
	}
	f := s.scans[s.depth]
	s.depth++
	f.st, f.locals, f.res = st, locals, ctrlEnd
	v := src.Value
	if r, ok := v.(*Record); ok {
		v = r.Object()
	}
	switch x := v.(type) {
	case *ast.Array:
		for i := 0; i < x.Len(); i++ {
			if f.step(ast.InternedTerm(i), x.Elem(i)) {
				break
			}
		}
	case ast.Object:
		x.Until(f.stepFn)
	case ast.Set:
		x.Until(f.memberFn)
	}
	s.depth--
	res := f.res
	f.st, f.locals = nil, nil
	return res
}

// scanFrame is one ScanStmt being run.
type scanFrame struct {
	s        *state
	st       *Instr
	locals   []*ast.Term
	res      int // what scan returns
	stepFn   func(k, v *ast.Term) bool
	memberFn func(e *ast.Term) bool
}

// step runs the body for one element and says whether the scan is done.
// The body is two blocks deep: leaving its own block (0) goes on with the
// next element, leaving one more (1) ends the scan, and each further one is
// a block around the scan.
func (f *scanFrame) step(k, v *ast.Term) bool {
	s, st := f.s, f.st
	if s.cancelled() {
		f.res = s.fail(errCancelled)
		return true
	}
	f.locals[st.Key], f.locals[st.Target] = k, v
	switch r := s.exec(s.im.Blocks[st.Sub.Start], f.locals); {
	case r == ctrlEnd || r == 0:
		return false
	case r == ctrlReturn:
		f.res = r
	case r == 1:
		f.res = ctrlEnd
	default:
		f.res = r - 2
	}
	return true
}

// member is step for a set's element, its key and its value.
func (f *scanFrame) member(e *ast.Term) bool { return f.step(e, e) }

// cancelled looks at the context every 64 calls and scan steps (a
// channel receive, not topdown's Cancel: that would need a context.AfterFunc
// per evaluation to set it).
func (s *state) cancelled() bool {
	s.steps++
	if s.done == nil || s.steps%64 != 0 {
		return false
	}
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *state) call(st *Instr, locals []*ast.Term) (*ast.Term, int) {
	fn := &s.im.Funcs[st.N]
	fixed := s.ev.fixed[st.N]
	if fixed != nil {
		if v := fixed.Load(); v != nil {
			// As a call would be: undefined when an operand is.
			for _, a := range s.im.Args[st.Sub.Start:st.Sub.end()] {
				if s.value(a, locals) == nil {
					return nil, ctrlEnd
				}
			}
			if v == undefinedMemo {
				return nil, ctrlEnd
			}
			return v, ctrlEnd
		}
	}
	if fn.Memo >= 0 {
		if v := s.memo[fn.Memo]; v != nil {
			if v == undefinedMemo {
				return nil, ctrlEnd
			}
			return v, ctrlEnd
		}
	}
	if s.cancelled() {
		return nil, s.fail(errCancelled)
	}
	n := int(fn.Locals)
	frame := s.stack[s.top : s.top+n]
	for i, a := range s.im.Args[st.Sub.Start:st.Sub.end()] {
		v := s.value(a, locals)
		if v == nil {
			clear(frame)
			return nil, ctrlEnd
		}
		frame[fn.Params[i]] = v
	}
	s.top += n
	s.high = max(s.high, s.top)
	// A fixed function's value outlives the evaluation: nothing of it is
	// made in the slab.
	fixing := 0
	if fixed != nil {
		fixing = 1
	}
	s.fixing += fixing
	var out *ast.Term
	for _, b := range s.im.Blocks[fn.Blocks.Start:fn.Blocks.end()] {
		r := s.exec(b, frame)
		if s.err != nil {
			s.top -= n
			s.fixing -= fixing
			return nil, ctrlReturn
		}
		if r == ctrlReturn {
			out, s.ret = s.ret, nil
			break
		}
	}
	s.fixing -= fixing
	if out == nil {
		out = frame[fn.Ret]
	}
	clear(frame)
	s.top -= n
	if fn.Memo >= 0 || fixed != nil {
		v := out
		if v == nil {
			v = undefinedMemo
		}
		if fn.Memo >= 0 {
			s.memo[fn.Memo] = v
		}
		if fixed != nil {
			fixed.Store(v)
		}
	}
	return out, ctrlEnd
}

func (s *state) callBuiltin(st *Instr, at int, locals []*ast.Term) (*ast.Term, int) {
	// The operands go in one slice per evaluation: a built-in reads them
	// and never keeps the slice, and none calls back into the plan.
	refs := s.im.Args[st.Sub.Start:st.Sub.end()]
	if cap(s.args) < len(refs) {
		s.args = make([]*ast.Term, len(refs))
	}
	args := s.args[:len(refs)]
	defer clear(args)
	for i, a := range refs {
		if args[i] = Plain(s.value(a, locals)); args[i] == nil {
			return nil, ctrlEnd
		}
	}
	if f := s.ev.inline[st.N]; f != nil {
		if v := f(args); v != nil {
			return v, ctrlEnd
		}
	}
	s.out = nil
	if err := s.ev.builtins[st.N](s.bctx, args, s.capture); err != nil {
		var halt topdown.Halt
		if errors.As(err, &halt) {
			err = halt.Err
		}
		// Where the call is, as topdown says it: made only for an error, on a
		// copy (topdown shares some of its errors).
		if te, ok := err.(*topdown.Error); ok && te.Location == nil {
			cp := *te
			cp.Location = s.location(at)
			err = &cp
		}
		return nil, s.fail(err)
	}
	return s.out, ctrlEnd
}

var errCycle = errors.New("plan inserts a value into itself")

// contains reports whether the collection c is v or is inside it.
func contains(v ast.Value, c ast.Value) bool {
	switch x := v.(type) {
	case *ast.Array:
		if ast.Value(x) == c {
			return true
		}
		for i := range x.Len() {
			if contains(x.Elem(i).Value, c) {
				return true
			}
		}
	case ast.Object:
		if x == c {
			return true
		}
		return x.Until(func(k, e *ast.Term) bool { return contains(k.Value, c) || contains(e.Value, c) })
	case ast.Set:
		if x == c {
			return true
		}
		return x.Until(func(e *ast.Term) bool { return contains(e.Value, c) })
	case *Record:
		for i := range x.Len() {
			if _, e := x.Field(i); contains(e.Value, c) {
				return true
			}
		}
	}
	return false
}

// asArray, asObject and asSet are t's value of that type. (Not one generic
// function: an assertion to an interface type through a type parameter
// looks its itab up on every call, where a plain one caches it.)
func asArray(t *ast.Term) (*ast.Array, bool) {
	if t == nil {
		return nil, false
	}
	v, ok := t.Value.(*ast.Array)
	return v, ok
}

func asObject(t *ast.Term) (ast.Object, bool) {
	if t == nil {
		return nil, false
	}
	v, ok := t.Value.(ast.Object)
	return v, ok
}

// isObject reports an object, a record included.
func isObject(t *ast.Term) bool {
	if t == nil {
		return false
	}
	switch t.Value.(type) {
	case ast.Object, *Record:
		return true
	}
	return false
}

// equal reports whether a and b are the same value (records compared as
// the objects they are).
func equal(a, b *ast.Term) bool {
	return PlainValue(a.Value).Compare(PlainValue(b.Value)) == 0
}

func asSet(t *ast.Term) (ast.Set, bool) {
	if t == nil {
		return nil, false
	}
	v, ok := t.Value.(ast.Set)
	return v, ok
}

// dot is src[key]: an object's value, an array's element, a set's member;
// nil when there is none.
func dot(src, key *ast.Term) *ast.Term {
	if src == nil || key == nil {
		return nil
	}
	switch x := src.Value.(type) {
	case *Record:
		return x.get(key)
	case ast.Object:
		return x.Get(Plain(key))
	case *ast.Array:
		n, ok := key.Value.(ast.Number)
		if !ok {
			return nil
		}
		i, ok := n.Int()
		if !ok || i < 0 || i >= x.Len() {
			return nil
		}
		return x.Elem(i)
	case ast.Set:
		if key = Plain(key); x.Contains(key) {
			return key
		}
	}
	return nil
}

// length is count(t) for the values count takes.
func length(t *ast.Term) (int, bool) {
	if t == nil {
		return 0, false
	}
	switch x := t.Value.(type) {
	case *ast.Array:
		return x.Len(), true
	case ast.Object:
		return x.Len(), true
	case *Record:
		return x.Object().Len(), true
	case ast.Set:
		return x.Len(), true
	case ast.String:
		return utf8.RuneCountInString(string(x)), true
	}
	return 0, false
}
