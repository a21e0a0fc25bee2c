package regoir

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestRecordGrowAdd: a record filled with Grow and Add, past the room made
// and after growing again, is the object of its fields in order.
func TestRecordGrowAdd(t *testing.T) {
	var r Record
	r.Grow(2)
	r.Add(ast.StringTerm("a"), ast.IntNumberTerm(1))
	r.Grow(1) // room left: nothing moves
	r.Add(ast.StringTerm("b"), ast.IntNumberTerm(2))
	r.Grow(3)
	r.Add(ast.StringTerm("c"), ast.IntNumberTerm(3))
	r.Add(ast.StringTerm("d"), ast.IntNumberTerm(4))
	r.Add(ast.StringTerm("e"), ast.IntNumberTerm(5)) // past the room: append grows
	want := ast.MustParseTerm(`{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}`).Value
	if r.Len() != 5 || r.Object().Compare(want) != 0 {
		t.Fatalf("%d fields: %v", r.Len(), r.Object())
	}
	for i, k := range []string{"a", "b", "c", "d", "e"} {
		if key, v := r.Field(i); key.Value.Compare(ast.String(k)) != 0 || r.get(key) != v {
			t.Errorf("field %d: %v %v", i, key, v)
		}
	}
	var empty Record
	if empty.Len() != 0 || empty.Object().Len() != 0 || empty.get(ast.StringTerm("a")) != nil {
		t.Error("the zero record is the empty object")
	}
}

// TestDecodeShared: the plan's string constants are decoded as the
// caller's terms, so that a record keyed by them is read by pointer, with
// the same results (the constant sets made at Bind too).
func TestDecodeShared(t *testing.T) {
	modules := map[string]string{"p.rego": `package p

r := [input.name, input.tag] if input.kind in {"a", "name"}
`}
	_, enc := encodeModules(t, modules, "p/r")
	shared := map[string]*ast.Term{"name": ast.StringTerm("name"), "kind": ast.StringTerm("kind"), "tag": ast.StringTerm("tag")}
	prog, err := DecodeShared(string(enc), shared)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, c := range prog.Terms {
		for k, term := range shared {
			if c == term {
				found[k] = true
			}
		}
	}
	if !found["name"] || !found["kind"] || !found["tag"] {
		t.Fatalf("constants shared: %v", found)
	}
	ev, err := prog.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	var in Record
	in.Grow(3)
	in.Add(shared["kind"], ast.StringTerm("name"))
	in.Add(shared["name"], ast.StringTerm("x"))
	in.Add(shared["tag"], ast.StringTerm("y"))
	if got := evalOutcome(t, ev, "p/r", &in); got != `["x", "y"]` {
		t.Errorf("got %s", got)
	}
}

// records is v with its objects made records, as a caller that builds
// its input as records gives it (outside arrays, which hold none).
func records(v ast.Value) ast.Value {
	o, ok := v.(ast.Object)
	if !ok {
		return v
	}
	keys := make([]*ast.Term, 0, o.Len())
	vals := make([]*ast.Term, 0, o.Len())
	o.Foreach(func(k, v *ast.Term) {
		keys, vals = append(keys, k), append(vals, ast.NewTerm(records(v.Value)))
	})
	return NewRecord(keys, vals)
}

// TestRecordLater: the fields a record leaves for later are made once,
// on the first read that needs one (a key it does not hold, a field by
// index, the whole object), and are then read as its own, a later record
// of their own included; a key the record holds never makes them.
func TestRecordLater(t *testing.T) {
	made := 0
	r := NewRecord([]*ast.Term{ast.StringTerm("a")}, []*ast.Term{ast.IntNumberTerm(1)})
	r.Later(LaterFunc(func() *Record {
		made++
		rest := NewRecord([]*ast.Term{ast.StringTerm("b")}, []*ast.Term{ast.IntNumberTerm(2)})
		rest.Later(LaterFunc(func() *Record {
			made++
			return NewRecord([]*ast.Term{ast.StringTerm("c")}, []*ast.Term{ast.IntNumberTerm(3)})
		}))
		return rest
	}))
	if v := r.get(ast.StringTerm("a")); v == nil || made != 0 {
		t.Fatalf("a: %v, %d made", v, made)
	}
	if v := r.get(ast.StringTerm("b")); v == nil || v.Value.Compare(ast.Number("2")) != 0 || made != 1 {
		t.Fatalf("b: %v, %d made", v, made)
	}
	if v := r.get(ast.StringTerm("c")); v == nil || v.Value.Compare(ast.Number("3")) != 0 || made != 2 {
		t.Fatalf("c: %v, %d made", v, made)
	}
	if v := r.get(ast.StringTerm("d")); v != nil || made != 2 {
		t.Fatalf("d: %v, %d made", v, made)
	}
	want := ast.MustParseTerm(`{"a": 1, "b": 2, "c": 3}`).Value
	if r.Len() != 3 || r.Object().Compare(want) != 0 || r.Compare(want) != 0 || made != 2 {
		t.Fatalf("%d fields %v, %d made", r.Len(), r.Object(), made)
	}
	for i, k := range []string{"a", "b", "c"} {
		if key, _ := r.Field(i); key.Value.Compare(ast.String(k)) != 0 {
			t.Errorf("field %d: %v", i, key)
		}
	}
	// A collection made later is inside the record (the fuzz test's cycle
	// check, contains).
	arr := ast.NewArray(ast.IntNumberTerm(4))
	withArr := NewRecord(nil, nil)
	withArr.Later(LaterFunc(func() *Record { return NewRecord([]*ast.Term{ast.StringTerm("e")}, []*ast.Term{ast.NewTerm(arr)}) }))
	if !contains(withArr, arr) {
		t.Error("an array made later is not inside the record")
	}

	// The whole object first: every field is made.
	fresh := NewRecord([]*ast.Term{ast.StringTerm("a")}, []*ast.Term{ast.IntNumberTerm(1)})
	fresh.Later(LaterFunc(func() *Record { return nil })) // nothing to add
	if fresh.Len() != 1 || fresh.Object().Len() != 1 || fresh.get(ast.StringTerm("b")) != nil {
		t.Errorf("a record whose later fields are none: %v", fresh.Object())
	}
}

// TestRecordLaterConcurrent: goroutines that read a record's later fields
// at once make them once (go test -race checks the reads).
func TestRecordLaterConcurrent(t *testing.T) {
	var made atomic.Int32
	r := NewRecord([]*ast.Term{ast.StringTerm("a")}, []*ast.Term{ast.IntNumberTerm(1)})
	r.Later(LaterFunc(func() *Record {
		made.Add(1)
		return NewRecord([]*ast.Term{ast.StringTerm("b")}, []*ast.Term{ast.IntNumberTerm(2)})
	}))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			switch i % 3 {
			case 0:
				if r.get(ast.StringTerm("b")) == nil {
					t.Error("b not found")
				}
			case 1:
				if r.Len() != 2 {
					t.Error("not two fields")
				}
			default:
				if r.Object().Len() != 2 {
					t.Error("not two fields")
				}
			}
		})
	}
	wg.Wait()
	if made.Load() != 1 {
		t.Errorf("made %d times", made.Load())
	}
}

// TestEmptyArrayShared: an evaluation that would append to the empty
// array inputs share fails, and the array stays empty.
func TestEmptyArrayShared(t *testing.T) {
	prog := &Program{Plans: []Function{{Name: "p", Ret: -1, Memo: -1, Locals: 3, Blocks: []Block{{
		{Op: OpDot, Target: 2, A: Operand{Local: 0}, B: Operand{Const: ast.StringTerm("xs")}},
		{Op: OpArrayAppend, Target: 2, A: Operand{Const: ast.IntNumberTerm(1)}},
	}}}}}
	ev, err := prog.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	in := NewRecord([]*ast.Term{ast.StringTerm("xs")}, []*ast.Term{EmptyArray()})
	if _, err := ev.Eval(context.Background(), "p", in); err == nil || !strings.Contains(err.Error(), "appends to its input") {
		t.Errorf("got %v, want the append refused", err)
	}
	if n := EmptyArray().Value.(*ast.Array).Len(); n != 0 {
		t.Errorf("the shared array holds %d elements", n)
	}
}

// TestRecordUse: a record keeps its fields in the room it is given, and
// past it grows without the keys overwriting the values; a record that
// has fields, or a room too small, is left as it was.
func TestRecordUse(t *testing.T) {
	buf := make([]*ast.Term, 4)
	var r Record
	if !r.Use(buf) {
		t.Fatal("a fresh record refused its room")
	}
	for i := range 5 {
		r.Add(ast.StringTerm(fmt.Sprint("k", i)), ast.IntNumberTerm(i))
	}
	for i := range 5 {
		k, v := r.Field(i)
		if k.Value.Compare(ast.String(fmt.Sprint("k", i))) != 0 || v.Value.Compare(ast.Number(fmt.Sprint(i))) != 0 {
			t.Errorf("field %d = %v: %v", i, k, v)
		}
	}
	if buf[0] == nil || buf[2] == nil || buf[0].Value.Compare(ast.String("k0")) != 0 || buf[2].Value.Compare(ast.Number("0")) != 0 {
		t.Errorf("the first fields are not in the room given: %v", buf)
	}
	if r.Use(make([]*ast.Term, 4)) {
		t.Error("a record with fields took new room")
	}
	var small Record
	if small.Use(make([]*ast.Term, 1)) {
		t.Error("a record took room for no field")
	}
}

// LaterFunc is a Filler made of a function.
type LaterFunc func() *Record

// FillLater calls f.
func (f LaterFunc) FillLater() *Record { return f() }

// NewRecord makes a record of keys[i]: vals[i]. It keeps both slices.
func NewRecord(keys, vals []*ast.Term) *Record {
	return &Record{keys: keys[:len(keys):len(keys)], vals: vals[:len(keys):len(keys)]}
}
