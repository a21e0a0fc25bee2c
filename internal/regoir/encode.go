package regoir

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
)

// An Image's encoding, for a plan linked at build time: a string table,
// the functions, the constant terms (uvarints), then the blocks,
// statements and arguments as fixed-width little-endian records, so that
// decoding them is filling three arrays. Nothing is initialised before a
// command decodes it (a Go literal of the same program is data every
// process populates).

const encodingMagic = "mcpguard regoir 3\n"

// Constant tags.
const (
	tagString byte = iota
	tagNumber
	tagTrue
	tagFalse
	tagNull
)

// Sizes of the fixed-width records: a span is two 32-bit numbers, a
// statement its op and seven, an argument one, a location three.
const (
	spanSize  = 8
	instrSize = 1 + 7*4
	refSize   = 4
	locSize   = 12
)

// Bounds on what an Image may have, far above what a policy needs: its
// blocks' nesting, a function's locals, the locals a chain of calls holds
// (an evaluation's stack, made at once).
const (
	maxDepth  = 256
	maxLocals = 1 << 16
	maxFrames = 1 << 20
)

// MarshalBinary encodes p's Image (constants of OPA's scalar types only,
// as Link makes them).
func (p *Program) MarshalBinary() ([]byte, error) { return p.Image().MarshalBinary() }

// MarshalBinary encodes im.
func (im *Image) MarshalBinary() ([]byte, error) {
	e := &encoder{index: map[string]int{}}
	body := e.image(im)
	if e.err != nil {
		return nil, e.err
	}
	out := []byte(encodingMagic)
	out = binary.AppendUvarint(out, uint64(len(e.strs)))
	for _, s := range e.strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return append(out, body...), nil
}

type encoder struct {
	strs  []string
	index map[string]int
	out   []byte
	err   error
}

func (e *encoder) uint(n int) {
	if n < 0 && e.err == nil {
		e.err = fmt.Errorf("encode plan: %d is negative", n)
	}
	e.out = binary.AppendUvarint(e.out, uint64(n))
}

func (e *encoder) int(n int) { e.out = binary.AppendVarint(e.out, int64(n)) }

func (e *encoder) u32(n int32) { e.out = binary.LittleEndian.AppendUint32(e.out, uint32(n)) }

func (e *encoder) str(s string) {
	i, ok := e.index[s]
	if !ok {
		i = len(e.strs)
		e.index[s] = i
		e.strs = append(e.strs, s)
	}
	e.uint(i)
}

func (e *encoder) image(im *Image) []byte {
	e.uint(len(im.Builtins))
	for _, b := range im.Builtins {
		e.str(b)
	}
	e.uint(len(im.Files))
	for _, f := range im.Files {
		e.str(f)
	}
	e.uint(im.Consts)
	e.uint(im.Memos)
	fresh := 0
	if im.Fresh {
		fresh = 1
	}
	e.uint(fresh)
	for _, fns := range [][]Func{im.Plans, im.Funcs} {
		e.uint(len(fns))
		for i := range fns {
			e.function(&fns[i])
		}
	}
	e.uint(len(im.Terms))
	for _, t := range im.Terms {
		e.term(t)
	}
	e.uint(len(im.Blocks))
	for _, b := range im.Blocks {
		e.u32(b.Start)
		e.u32(b.Len)
	}
	e.uint(len(im.Stmts))
	for i := range im.Stmts {
		s := &im.Stmts[i]
		e.out = append(e.out, byte(s.Op))
		for _, n := range [...]int32{s.Target, s.Key, s.N, int32(s.A), int32(s.B), s.Sub.Start, s.Sub.Len} {
			e.u32(n)
		}
	}
	e.out = append(e.out, im.Locs...)
	e.uint(len(im.Args))
	for _, a := range im.Args {
		e.u32(int32(a))
	}
	return e.out
}

func (e *encoder) function(fn *Func) {
	e.str(fn.Name)
	e.int(int(fn.Ret))
	e.uint(int(fn.Locals))
	e.int(int(fn.Memo))
	e.uint(len(fn.Params))
	for _, p := range fn.Params {
		e.uint(int(p))
	}
	e.uint(int(fn.Blocks.Start))
	e.uint(int(fn.Blocks.Len))
}

func (e *encoder) term(t *ast.Term) {
	switch v := t.Value.(type) {
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
			e.err = fmt.Errorf("encode plan: a constant %s", t)
		}
	}
}

var errEncoding = errors.New("decode plan: malformed")

// Decode decodes MarshalBinary's encoding and checks what it decoded can be
// evaluated: corrupt bytes are an error, never a program that reads out of
// bounds. The image's strings are b's: an embedded string costs no copy.
func Decode(b string) (*Image, error) { return DecodeShared(b, nil) }

// DecodeShared is Decode with each string constant that shared holds
// decoded as that term: a caller that builds its input records with the
// same terms as keys has them found by pointer (Record.get).
func DecodeShared(b string, shared map[string]*ast.Term) (*Image, error) {
	if len(b) < len(encodingMagic) || b[:len(encodingMagic)] != encodingMagic {
		return nil, errEncoding
	}
	d := &decoder{b: b[len(encodingMagic):]}
	d.strs = make([]string, d.count(1))
	for i := range d.strs {
		n := d.count(1)
		if d.err != nil {
			return nil, errEncoding
		}
		d.strs[i] = d.b[:n]
		d.b = d.b[n:]
	}
	im := &Image{}
	im.Builtins = make([]string, d.count(1))
	for i := range im.Builtins {
		im.Builtins[i] = d.str()
	}
	im.Files = make([]string, d.count(1))
	for i := range im.Files {
		im.Files[i] = d.str()
	}
	im.Consts, im.Memos = d.count(0), d.count(0)
	switch d.count(0) {
	case 0:
	case 1:
		im.Fresh = true
	default:
		d.fail()
	}
	im.Plans = d.functions()
	im.Funcs = d.functions()
	im.Terms = d.terms(shared)
	im.Blocks = make([]Span, d.count(spanSize))
	for i, r := 0, d.records(len(im.Blocks), spanSize); i < len(im.Blocks); i++ {
		im.Blocks[i] = Span{Start: le32(r, i*spanSize), Len: le32(r, i*spanSize+4)}
	}
	im.Stmts = make([]Instr, d.count(instrSize))
	r := d.records(len(im.Stmts), instrSize)
	for i := range im.Stmts {
		f := r[i*instrSize:]
		im.Stmts[i] = Instr{Op: Op(f[0]), Target: le32(f, 1), Key: le32(f, 5), N: le32(f, 9), A: Ref(le32(f, 13)), B: Ref(le32(f, 17)),
			Sub: Span{Start: le32(f, 21), Len: le32(f, 25)}}
	}
	im.Locs = d.records(len(im.Stmts), locSize)
	im.Args = make([]Ref, d.count(refSize))
	for i, r := 0, d.records(len(im.Args), refSize); i < len(im.Args); i++ {
		im.Args[i] = Ref(le32(r, i*refSize))
	}
	if d.err != nil || len(d.b) > 0 {
		return nil, errEncoding
	}
	if err := im.check(); err != nil {
		return nil, fmt.Errorf("decode plan: %w", err)
	}
	return im, nil
}

// le32 is the little-endian 32-bit number at b[i:].
func le32(b string, i int) int32 {
	b = b[i : i+4]
	return int32(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

type decoder struct {
	b    string
	strs []string
	err  error
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

// count is a number of things of size bytes each, no more than what is
// left to decode holds (a size of 0 bounds a number that counts nothing
// by the same), so that no length allocates beyond it.
func (d *decoder) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/max(size, 1)) {
		d.fail()
		return 0
	}
	return int(n)
}

// records takes n records of size bytes.
func (d *decoder) records(n, size int) string {
	if d.err != nil || n*size > len(d.b) {
		d.fail()
		return ""
	}
	r := d.b[:n*size]
	d.b = d.b[n*size:]
	return r
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

func (d *decoder) functions() []Func {
	fns := make([]Func, d.count(1))
	for i := range fns {
		fn := &fns[i]
		fn.Name = d.str()
		fn.Ret = d.varint()
		fn.Locals = d.int32()
		fn.Memo = d.varint()
		fn.Params = make([]int32, d.count(1))
		for j := range fn.Params {
			fn.Params[j] = d.int32()
		}
		fn.Blocks = Span{Start: d.int32(), Len: d.int32()}
	}
	return fns
}

// terms decodes the constant terms: a string that shared holds is its
// term.
func (d *decoder) terms(shared map[string]*ast.Term) []*ast.Term {
	terms := make([]*ast.Term, d.count(1))
	for i := range terms {
		switch d.byte() {
		case tagString:
			s := d.str()
			if terms[i] = shared[s]; terms[i] == nil {
				terms[i] = ast.StringTerm(s)
			}
		case tagNumber:
			s := d.str()
			if _, err := json.Number(s).Float64(); err != nil { // as Link takes them
				d.fail()
				return nil
			}
			terms[i] = ast.NumberTerm(json.Number(s))
		case tagTrue:
			terms[i] = ast.InternedTerm(true)
		case tagFalse:
			terms[i] = ast.InternedTerm(false)
		case tagNull:
			terms[i] = ast.InternedNullTerm
		default:
			d.fail()
			return nil
		}
	}
	return terms
}
