package regoir

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// A linked Program's compact encoding, for a plan linked at build time: a
// string table, then the functions, their blocks and statements as
// uvarints. Decoding it costs a fraction of linking the plan again, and
// nothing is initialised before a command decodes it (a Go literal of the
// same program is data every process populates).

const encodingMagic = "mcpguard regoir 1\n"

// Operand tags.
const (
	tagLocal byte = iota
	tagString
	tagNumber
	tagTrue
	tagFalse
	tagNull
)

// maxDepth bounds the nesting of blocks Decode accepts.
const maxDepth = 256

// MarshalBinary encodes p (constants of OPA's scalar types only, as Link
// makes them).
func (p *Program) MarshalBinary() ([]byte, error) {
	e := &encoder{index: map[string]int{}}
	body := e.program(p)
	if e.err != nil {
		return nil, e.err
	}
	out := []byte(encodingMagic)
	// What Decode allocates, so that it allocates each kind once.
	out = binary.AppendUvarint(out, uint64(e.nblocks))
	out = binary.AppendUvarint(out, uint64(e.nstmts))
	out = binary.AppendUvarint(out, uint64(e.nargs))
	out = binary.AppendUvarint(out, uint64(len(e.strs)))
	for _, s := range e.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, body...), nil
}

type encoder struct {
	strs                   []string
	index                  map[string]int
	out                    []byte
	err                    error
	nblocks, nstmts, nargs int
}

func (e *encoder) uint(n int) {
	if n < 0 && e.err == nil {
		e.err = fmt.Errorf("encode plan: %d is negative", n)
	}
	e.out = binary.AppendUvarint(e.out, uint64(n))
}

func (e *encoder) int(n int) { e.out = binary.AppendVarint(e.out, int64(n)) }

func (e *encoder) str(s string) {
	i, ok := e.index[s]
	if !ok {
		i = len(e.strs)
		e.index[s] = i
		e.strs = append(e.strs, s)
	}
	e.uint(i)
}

func (e *encoder) program(p *Program) []byte {
	e.uint(len(p.Builtins))
	for _, b := range p.Builtins {
		e.str(b)
	}
	e.uint(len(p.Files))
	for _, f := range p.Files {
		e.str(f)
	}
	e.uint(p.Consts)
	e.uint(p.Memos)
	for _, fns := range [][]Function{p.Plans, p.Funcs} {
		e.uint(len(fns))
		for i := range fns {
			e.function(&fns[i])
		}
	}
	return e.out
}

func (e *encoder) function(fn *Function) {
	e.str(fn.Name)
	e.int(int(fn.Ret))
	e.uint(int(fn.Locals))
	e.int(int(fn.Memo))
	e.uint(len(fn.Params))
	for _, p := range fn.Params {
		e.uint(int(p))
	}
	e.blocks(fn.Blocks)
}

func (e *encoder) blocks(bs []Block) {
	e.uint(len(bs))
	e.nblocks += len(bs)
	for _, b := range bs {
		e.uint(len(b))
		e.nstmts += len(b)
		for i := range b {
			e.stmt(&b[i])
		}
	}
}

func (e *encoder) stmt(s *Stmt) {
	e.out = append(e.out, byte(s.Op))
	e.uint(int(s.Target))
	e.uint(int(s.Key))
	e.uint(int(s.N))
	e.operand(s.A)
	e.operand(s.B)
	e.uint(int(s.Loc.File))
	e.uint(int(s.Loc.Row))
	e.uint(int(s.Loc.Col))
	e.blocks(s.Blocks)
	e.uint(len(s.Args))
	e.nargs += len(s.Args)
	for _, a := range s.Args {
		e.operand(a)
	}
}

func (e *encoder) operand(o Operand) {
	if o.Const == nil {
		e.out = append(e.out, tagLocal)
		e.uint(int(o.Local))
		return
	}
	switch v := o.Const.Value.(type) {
	case ast.String:
		e.out = append(e.out, tagString)
		e.str(string(v))
	case ast.Number:
		e.out = append(e.out, tagNumber)
		e.str(string(v))
	case ast.Boolean:
		e.out = append(e.out, tagFalse)
		if v {
			e.out[len(e.out)-1] = tagTrue
		}
	case ast.Null:
		e.out = append(e.out, tagNull)
	default:
		if e.err == nil {
			e.err = fmt.Errorf("encode plan: a constant %s", o.Const)
		}
	}
}

var errEncoding = errors.New("decode plan: malformed")

// Decode decodes MarshalBinary's encoding and checks what it decoded can be
// evaluated: corrupt bytes are an error, never a program that reads out of
// bounds. The program's strings are b's: an embedded string costs no copy.
func Decode(b string) (*Program, error) { return DecodeShared(b, nil) }

// DecodeShared is Decode with each string constant that shared holds
// decoded as that term: a caller that builds its input records with the
// same terms as keys has them found by pointer (Record.get).
func DecodeShared(b string, shared map[string]*ast.Term) (*Program, error) {
	if len(b) < len(encodingMagic) || b[:len(encodingMagic)] != encodingMagic {
		return nil, errEncoding
	}
	d := &decoder{b: b[len(encodingMagic):], shared: shared}
	d.blockArena = make([]Block, d.count())
	d.stmtArena = make([]Stmt, d.count())
	d.argArena = make([]Operand, d.count())
	d.strs = make([]string, d.count())
	for i := range d.strs {
		n := d.count()
		if d.err != nil || n > len(d.b) {
			return nil, errEncoding
		}
		d.strs[i] = d.b[:n]
		d.b = d.b[n:]
	}
	d.terms = make([]*ast.Term, 2*len(d.strs))
	p := &Program{}
	p.Builtins = make([]string, d.count())
	for i := range p.Builtins {
		p.Builtins[i] = d.str()
	}
	p.Files = make([]string, d.count())
	for i := range p.Files {
		p.Files[i] = d.str()
	}
	p.Consts, p.Memos = d.count(), d.count()
	p.Plans = d.functions()
	p.Funcs = d.functions()
	if d.err != nil || len(d.b) > 0 {
		return nil, errEncoding
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("decode plan: %w", err)
	}
	return p, nil
}

type decoder struct {
	b    string
	strs []string
	// The program's blocks, statements and arguments, each in one
	// allocation that Decode cuts slices from.
	blockArena []Block
	stmtArena  []Stmt
	argArena   []Operand
	terms      []*ast.Term // constants, one term per value: a string's at its index, a number's after them
	shared     map[string]*ast.Term
	depth      int
	err        error
}

func (d *decoder) fail() {
	d.err = errEncoding
	d.b = ""
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var n uint64
	for i := 0; i < len(d.b) && i < binary.MaxVarintLen64; i++ {
		c := d.b[i]
		if i == binary.MaxVarintLen64-1 && c > 1 {
			break // past 64 bits
		}
		n |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.b = d.b[i+1:]
			return n
		}
	}
	d.fail()
	return 0
}

// count is a number no larger than what is left to decode (each counted
// thing takes a byte at least), so that no length allocates beyond it.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// int32 is a number that fits a local, an index or a location.
func (d *decoder) int32() int32 {
	n := d.uvarint()
	if n > 1<<31-1 {
		d.fail()
		return 0
	}
	return int32(n)
}

// varint is a zig-zag signed number (binary.AppendVarint's) that fits an
// int32.
func (d *decoder) varint() int32 {
	u := d.uvarint()
	n := int64(u >> 1)
	if u&1 != 0 {
		n = ^n
	}
	if n < -1<<31 || n > 1<<31-1 {
		d.fail()
		return 0
	}
	return int32(n)
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) str() string {
	i := d.index()
	if i < 0 {
		return ""
	}
	return d.strs[i]
}

// index is an index into the string table; -1 when it is not one.
func (d *decoder) index() int {
	i := d.uvarint()
	if i >= uint64(len(d.strs)) {
		d.fail()
		return -1
	}
	return int(i)
}

func (d *decoder) functions() []Function {
	fns := make([]Function, d.count())
	for i := range fns {
		fn := &fns[i]
		fn.Name = d.str()
		fn.Ret = d.varint()
		fn.Locals = d.int32()
		fn.Memo = d.varint()
		fn.Params = make([]int32, d.count())
		for j := range fn.Params {
			fn.Params[j] = d.int32()
		}
		fn.Blocks = d.blocks()
	}
	return fns
}

func (d *decoder) blocks() []Block {
	n := d.count()
	if d.err != nil || n == 0 {
		return nil
	}
	if d.depth++; d.depth > maxDepth {
		d.fail()
		return nil
	}
	defer func() { d.depth-- }()
	bs, ok := take(&d.blockArena, n)
	for i := range bs {
		if bs[i], ok = take(&d.stmtArena, d.count()); !ok {
			break
		}
		for j := range bs[i] {
			d.stmt(&bs[i][j])
		}
	}
	if !ok {
		d.fail()
	}
	if d.err != nil {
		return nil
	}
	return bs
}

// take cuts n elements from the front of an arena; false when it has not
// that many left.
func take[T any](arena *[]T, n int) ([]T, bool) {
	if n > len(*arena) {
		*arena = nil
		return nil, false
	}
	out := (*arena)[:n:n]
	*arena = (*arena)[n:]
	return out, true
}

func (d *decoder) stmt(s *Stmt) {
	s.Op = Op(d.byte())
	s.Target, s.Key, s.N = d.int32(), d.int32(), d.int32()
	s.A, s.B = d.operand(), d.operand()
	s.Loc = Loc{File: d.int32(), Row: d.int32(), Col: d.int32()}
	s.Blocks = d.blocks()
	if n := d.count(); n > 0 {
		var ok bool
		if s.Args, ok = take(&d.argArena, n); !ok {
			d.fail()
			return
		}
		for i := range s.Args {
			s.Args[i] = d.operand()
		}
	}
}

func (d *decoder) operand() Operand {
	switch d.byte() {
	case tagLocal:
		return Operand{Local: d.int32()}
	case tagString:
		return Operand{Const: d.term(false, d.index())}
	case tagNumber:
		return Operand{Const: d.term(true, d.index())}
	case tagTrue:
		return Operand{Const: ast.InternedTerm(true)}
	case tagFalse:
		return Operand{Const: ast.InternedTerm(false)}
	case tagNull:
		return Operand{Const: ast.InternedNullTerm}
	}
	d.fail()
	return Operand{}
}

// term is the constant string (or number) at string index i, one term
// per value.
func (d *decoder) term(number bool, i int) *ast.Term {
	if i < 0 {
		return nil
	}
	slot := i
	if number {
		slot += len(d.strs)
	}
	if t := d.terms[slot]; t != nil {
		return t
	}
	s := d.strs[i]
	var t *ast.Term
	switch {
	case number:
		if _, err := json.Number(s).Float64(); err != nil { // as Link takes them
			d.fail()
			return nil
		}
		t = ast.NumberTerm(json.Number(s))
	case d.shared[s] != nil:
		t = d.shared[s]
	default:
		t = ast.StringTerm(s)
	}
	d.terms[slot] = t
	return t
}
