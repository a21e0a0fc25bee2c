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
