package regoir

import (
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
