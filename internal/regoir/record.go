package regoir

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// A Record is an object of an evaluation's input that the plan reads by
// key and nothing else touches: a server's input, built afresh for every
// server of a scan. OPA's objects hash every key and value as they are
// built and keep a map of them; a Record is its keys and values as
// given, looked up by comparing keys, and becomes an
// OPA object (Object) only where a value leaves the plan's reads: compared,
// scanned, passed to a built-in, put in a result. Values are ast values or
// Records; arrays hold no Records (an array hashes its elements as it is
// made).
//
// A record can leave some of its fields to be made on the first read
// that needs one (Later): a scan's server input holds fields that the
// shipped rules read for few servers. Whether a field was made early or
// late cannot be observed: every read, Object included, fills the later
// fields first when it needs one (TestRecordLater).
//
// A Record implements ast.Value for the code that holds input values
// without looking at them; each of its methods works on Object. It is
// safe for concurrent use; its keys must be distinct, and neither its
// keys nor its values may change once it is made.
type Record struct {
	keys, vals []*ast.Term
	filler     Filler // makes the later fields, nil when there are none
	laterOnce  sync.Once
	laterRec   *Record
	once       sync.Once
	obj        ast.Object
}

// A Filler makes the fields a record leaves for later (Record.Later).
// It is an interface rather than a closure so that a caller can hand
// over a value it has already instead of allocating a closure for every
// record.
type Filler interface {
	// FillLater returns a record of the later fields (which may leave
	// fields for later in turn), or nil when there are none.
	FillLater() *Record
}

// Later has r make more fields when a read first needs one: a key r does
// not hold, a field by index (Len, Field) or the whole object. f runs
// once, on the goroutine that needs its fields first; the record it
// returns holds keys that r does not, and may itself leave some for later.
// Call Later once, before anything reads r.
func (r *Record) Later(f Filler) { r.filler = f }

// rest is the record of the fields r made later, nil when it has none.
func (r *Record) rest() *Record {
	if r.filler == nil {
		return nil
	}
	r.laterOnce.Do(func() {
		if r.laterRec = r.filler.FillLater(); r.laterRec == nil {
			r.laterRec = &Record{}
		}
	})
	return r.laterRec
}

// EmptyArray is an empty array term that inputs may share (most servers
// have no secrets, no arguments or no variables). A plan appends to the
// arrays it makes, never to its input's; an evaluation that would append
// to this one fails instead (TestEmptyArrayShared).
func EmptyArray() *ast.Term { return emptyArray }

var emptyArray = ast.NewTerm(ast.NewArray())

// Grow makes room for n more fields in one allocation for keys and values
// (a record built field by field with Add, as policy's input objects are).
func (r *Record) Grow(n int) {
	if cap(r.keys)-len(r.keys) >= n {
		return
	}
	buf := make([]*ast.Term, 2*(len(r.keys)+n))
	half := len(buf) / 2
	r.keys = append(buf[:0:half], r.keys...)
	r.vals = append(buf[half:half:len(buf)], r.vals...)
}

// Use gives r the room of buf (at least two slots) for its fields: half
// for the keys, half for the values, in memory its caller allocated
// with it (policy's input objects hold a few fields inline). It returns
// false, and leaves r as it is, when r already has fields or buf is
// too small to be worth it.
func (r *Record) Use(buf []*ast.Term) bool {
	if len(r.keys) > 0 || len(buf) < 2 {
		return false
	}
	half := len(buf) / 2
	r.keys, r.vals = buf[:0:half], buf[half:half:2*half]
	return true
}

// Add appends the field key: v. A record is filled before anything reads
// it: Add after a read breaks the record's promise that it does not change.
func (r *Record) Add(key, v *ast.Term) {
	r.keys, r.vals = append(r.keys, key), append(r.vals, v)
}

// Field is the i-th field as added, for 0 <= i < Len: those added first,
// then those made later.
func (r *Record) Field(i int) (key, value *ast.Term) {
	if i < len(r.keys) {
		return r.keys[i], r.vals[i]
	}
	return r.rest().Field(i - len(r.keys))
}

// Len is the number of fields, those made later included.
func (r *Record) Len() int {
	if rest := r.rest(); rest != nil {
		return len(r.keys) + rest.Len()
	}
	return len(r.keys)
}

// get is the value under key, nil when there is none: a string key is
// found among the keys (a record has a few dozen at most), by the term
// itself or else by its string; any other through Object.
func (r *Record) get(key *ast.Term) *ast.Term {
	k, ok := key.Value.(ast.String)
	if !ok {
		return r.Object().Get(Plain(key))
	}
	// The plan's constants are often the very terms the record's keys are
	// (DecodeShared): pointers first, strings only when none is.
	for i, t := range r.keys {
		if t == key {
			return r.vals[i]
		}
	}
	for i, t := range r.keys {
		if s, ok := t.Value.(ast.String); ok && s == k {
			return r.vals[i]
		}
	}
	if rest := r.rest(); rest != nil {
		return rest.get(key)
	}
	return nil
}

// Object is r as an OPA object, records within it included, made once.
func (r *Record) Object() ast.Object {
	r.once.Do(func() {
		items := make([][2]*ast.Term, r.Len())
		for i := range items {
			k, v := r.Field(i)
			items[i] = [2]*ast.Term{Plain(k), Plain(v)}
		}
		r.obj = ast.NewObject(items...)
	})
	return r.obj
}

// Plain is t with a record turned into its Object: what OPA's own code
// may be given.
func Plain(t *ast.Term) *ast.Term {
	if t == nil {
		return nil
	}
	if r, ok := t.Value.(*Record); ok {
		return &ast.Term{Value: r.Object(), Location: t.Location}
	}
	return t
}

// PlainValue is Plain for a value.
func PlainValue(v ast.Value) ast.Value {
	if r, ok := v.(*Record); ok {
		return r.Object()
	}
	return v
}

// Compare compares r's Object with other.
func (r *Record) Compare(other ast.Value) int { return r.Object().Compare(PlainValue(other)) }

// Find looks path up in r's Object.
func (r *Record) Find(path ast.Ref) (ast.Value, error) { return r.Object().Find(path) }

// Hash is the hash of r's Object.
func (r *Record) Hash() int { return r.Object().Hash() }

// IsGround reports true: a record holds values, never variables.
func (r *Record) IsGround() bool { return true }

// String writes r's Object.
func (r *Record) String() string { return r.Object().String() }

// StringLength is the length of String.
func (r *Record) StringLength() int { return r.Object().StringLength() }
