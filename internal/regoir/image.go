package regoir

import (
	"encoding/binary"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// An Image is a Program laid out for evaluation: every statement of the
// program in one array, a block a span of it, a statement's blocks and
// arguments spans of two more, its operands indexes. Nothing in the arrays
// is a pointer, so decoding an image fills a few arrays instead of
// allocating a tree of small slices, and the collector never scans them.
//
// Link and its rewrites (fold, resultValues) work on the Program's tree;
// Image lays it out (Program.Image), and Decode makes one from its
// encoding, checked (check) so that corrupt bytes are an error and never a
// program that reads out of bounds.
type Image struct {
	Plans    []Func
	Funcs    []Func
	Builtins []string // the names OpCallBuiltin statements index
	Files    []string // the names Loc.File indexes
	Blocks   []Span   // a block is its statements, a span of Stmts
	Stmts    []Instr
	Args     []Ref       // calls' arguments and OpMakeConst's elements
	Terms    []*ast.Term // the constant operands: Ref -1 is Terms[0]
	// Locs is where each statement came from, in the encoding's records
	// (locSize bytes each): read only for an error's message, never
	// decoded ahead.
	Locs   string
	Consts int  // constant collections (OpMakeConst), made by Bind
	Memos  int  // functions memoized per evaluation
	Fresh  bool // Program.Fresh
	Frames int  // the most locals a chain of calls holds at once (check)

	checked bool // check has held
}

// Func is a plan or a function of an Image.
type Func struct {
	Name   string
	Params []int32
	Ret    int32 // -1 for a plan
	Blocks Span  // of Image.Blocks
	Locals int32
	Memo   int32 // slot in an evaluation's memo, or -1
}

// Span is Len elements from Start.
type Span struct{ Start, Len int32 }

// end is the index after the span, in int: a span past the array is an
// error, not an overflow.
func (s Span) end() int { return int(s.Start) + int(s.Len) }

// Ref is an operand: a local (>= 0) or the constant Terms[^r].
type Ref int32

// Instr is a Stmt laid out: Sub is the span of its blocks (OpBlock, OpNot,
// OpScan) in Image.Blocks or of its arguments (OpCall, OpCallBuiltin,
// OpMakeConst) in Image.Args; its location is in Image.Locs; the other
// fields are Stmt's.
type Instr struct {
	Op     Op
	Target int32
	Key    int32
	N      int32
	A, B   Ref
	Sub    Span
}

// loc is the location of statement i.
func (im *Image) loc(i int) Loc {
	if i < 0 || (i+1)*locSize > len(im.Locs) {
		return Loc{}
	}
	r := im.Locs[i*locSize:]
	return Loc{File: le32(r, 0), Row: le32(r, 4), Col: le32(r, 8)}
}

// hasBlocks reports the statements whose Sub is a span of blocks, and how
// many they must have (-1: any).
func hasBlocks(op Op) (n int, ok bool) {
	switch op {
	case OpBlock:
		return -1, true
	case OpNot, OpScan:
		return 1, true
	}
	return 0, false
}

func hasArgs(op Op) bool { return op == OpCall || op == OpCallBuiltin || op == OpMakeConst }

// Image lays p out. It does not check it (Decode and Bind do), so that a
// test can encode a broken program.
func (p *Program) Image() *Image {
	im := &Image{Builtins: p.Builtins, Files: p.Files, Consts: p.Consts, Memos: p.Memos, Fresh: p.Fresh}
	l := &layout{im: im, terms: map[ast.Value]Ref{}}
	defer func() { im.Locs = string(l.locs) }()
	for _, fns := range []struct {
		src []Function
		dst *[]Func
	}{{p.Plans, &im.Plans}, {p.Funcs, &im.Funcs}} {
		for i := range fns.src {
			fn := &fns.src[i]
			*fns.dst = append(*fns.dst, Func{Name: fn.Name, Params: fn.Params, Ret: fn.Ret, Locals: fn.Locals, Memo: fn.Memo,
				Blocks: l.blocks(fn.Blocks)})
		}
	}
	return im
}

// layout appends a tree's blocks to an image depth first: a block's
// statements are laid out together, then the blocks of each, so that
// every block, statement and argument is in one place.
type layout struct {
	im    *Image
	terms map[ast.Value]Ref // by value: Link makes a number's or a boolean's term for each statement
	locs  []byte
}

func (l *layout) blocks(bs []Block) Span {
	im := l.im
	span := Span{Start: int32(len(im.Blocks)), Len: int32(len(bs))}
	im.Blocks = append(im.Blocks, make([]Span, len(bs))...)
	for i, b := range bs {
		first := len(im.Stmts)
		im.Blocks[int(span.Start)+i] = Span{Start: int32(first), Len: int32(len(b))}
		im.Stmts = append(im.Stmts, make([]Instr, len(b))...)
		l.locs = append(l.locs, make([]byte, locSize*len(b))...)
		for j := range b {
			s := &b[j]
			in := Instr{Op: s.Op, Target: s.Target, Key: s.Key, N: s.N, A: l.ref(s.A), B: l.ref(s.B)}
			at := l.locs[(first+j)*locSize:]
			binary.LittleEndian.PutUint32(at, uint32(s.Loc.File))
			binary.LittleEndian.PutUint32(at[4:], uint32(s.Loc.Row))
			binary.LittleEndian.PutUint32(at[8:], uint32(s.Loc.Col))
			switch {
			case len(s.Blocks) > 0:
				in.Sub = l.blocks(s.Blocks)
			case len(s.Args) > 0:
				in.Sub = Span{Start: int32(len(im.Args)), Len: int32(len(s.Args))}
				for _, a := range s.Args {
					im.Args = append(im.Args, l.ref(a))
				}
			}
			im.Stmts[first+j] = in
		}
	}
	return span
}

// ref is o's operand, each scalar constant (all Link makes: a string, a
// number's text, a boolean, null) once in Terms; any other constant (a
// hand-made program's) is a term of its own.
func (l *layout) ref(o Operand) Ref {
	if o.Const == nil {
		return Ref(o.Local)
	}
	scalar := false
	switch o.Const.Value.(type) {
	case ast.String, ast.Number, ast.Boolean, ast.Null:
		scalar = true
	}
	if scalar {
		if r, ok := l.terms[o.Const.Value]; ok {
			return r
		}
	}
	r := ^Ref(len(l.im.Terms))
	l.im.Terms = append(l.im.Terms, o.Const)
	if scalar {
		l.terms[o.Const.Value] = r
	}
	return r
}

// buildConsts makes im's constant collections (im is checked: every
// OpMakeConst's index is in range and its elements are constants).
func buildConsts(im *Image) ([]*ast.Term, error) {
	consts := make([]*ast.Term, im.Consts)
	for i := range im.Stmts {
		s := &im.Stmts[i]
		if s.Op != OpMakeConst {
			continue
		}
		if consts[s.N] != nil {
			return nil, fmt.Errorf("bind plan: constant %d is made twice", s.N)
		}
		args := im.Args[s.Sub.Start:s.Sub.end()]
		terms := make([]*ast.Term, len(args))
		for i, a := range args {
			terms[i] = im.Terms[^a]
		}
		switch s.Key {
		case constSet:
			consts[s.N] = ast.SetTerm(terms...)
		case constArray:
			consts[s.N] = ast.ArrayTerm(terms...)
		case constObject:
			obj := ast.NewObject()
			for i := 0; i+1 < len(terms); i += 2 {
				obj.Insert(terms[i], terms[i+1])
			}
			consts[s.N] = ast.NewTerm(obj)
		}
	}
	for i, c := range consts {
		if c == nil {
			return nil, fmt.Errorf("bind plan: constant %d is not made", i)
		}
	}
	return consts, nil
}
