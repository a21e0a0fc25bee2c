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
	if got := o.Value(); !got.Equal(want) {
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
