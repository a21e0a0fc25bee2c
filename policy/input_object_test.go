package policy

import "testing"

// TestObjectMatchesNewValue: an Object is the value NewValue makes of the
// same fields as a Go map, nil and empty lists included.
func TestObjectMatchesNewValue(t *testing.T) {
	inner := NewObject(2)
	inner.AddString("path", "/p")
	inner.AddInt("line", -1)
	o := NewObject(0)
	o.AddString("s", "x")
	o.AddString("empty", "")
	o.AddBool("t", true)
	o.AddBool("f", false)
	o.AddInt("n", 42)
	o.AddNull("null")
	o.AddStrings("list", []string{"a", "b"})
	o.AddStrings("none", nil)
	o.AddObject("obj", inner)
	o.AddObjects("objs", []*Object{inner, NewObject(0)})
	o.AddObjects("noobjs", nil)
	want, err := NewValue(map[string]any{
		"s": "x", "empty": "", "t": true, "f": false, "n": 42, "null": nil,
		"list": []any{"a", "b"}, "none": []any{},
		"obj":  map[string]any{"path": "/p", "line": -1},
		"objs": []any{map[string]any{"path": "/p", "line": -1}, map[string]any{}}, "noobjs": []any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Value(); !got.Equal(want) || !want.Equal(got) {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := o.Value(); got.Equal(Value{}) || !(Value{}).Equal(Value{}) {
		t.Error("Equal on the zero Value")
	}
	other := NewObject(1)
	other.AddString("s", "y")
	if other.Value().Equal(want) {
		t.Error("different objects are equal")
	}
}

// TestInputKeysMadeOnce: two objects share the term of a key of the input,
// and a name that is not one is made for its object.
func TestInputKeysMadeOnce(t *testing.T) {
	a, b := NewObject(2), NewObject(2)
	for _, o := range []*Object{a, b} {
		o.AddString("name", "x")
		o.AddString("not-an-input-key", "y")
	}
	if a.keys[0] != b.keys[0] {
		t.Error("each object made its own term for name")
	}
	if a.keys[1] == b.keys[1] || a.keys[1].Value.Compare(b.keys[1].Value) != 0 {
		t.Error("a name outside the input's shares a term, or differs")
	}
}
