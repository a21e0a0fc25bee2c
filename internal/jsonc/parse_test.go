package jsonc

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
)

// BenchmarkParseToolsList parses a 1 MB tools/list result, the proxy's
// largest parse.
func BenchmarkParseToolsList(b *testing.B) { benchmarkParse(b, Parse) }

func benchmarkParse(b *testing.B, parse func([]byte, Options) (*Value, []Warning, error)) {
	data, err := benchdata.RealToolList("../../toolcheck/testdata/tools/real", 1<<20)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := parse(data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCarvedSlicesDoNotAlias: members and elements of neighbouring
// containers share blocks; appending to one must not write into the next.
func TestCarvedSlicesDoNotAlias(t *testing.T) {
	v, _, err := Parse([]byte(`[{"a":1,"b":2},{"c":3},[1,2],[3],{"d":4}]`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, second := v.Elems[0], v.Elems[1]
	_ = append(first.Members, Member{Key: "x"})
	if second.Members[0].Key != "c" {
		t.Errorf("appending to an object's members changed the next object's: %q", second.Members[0].Key)
	}
	_ = append(v.Elems[2].Elems, nil)
	if v.Elems[3].Elems[0] == nil {
		t.Error("appending to an array's elements changed the next array's")
	}
}

// TestElementHook: every array element is passed once, complete, in
// document order, with the key of its array's member and its depth.
func TestElementHook(t *testing.T) {
	doc := `[1, {"tools": [{"a": [true]}, "x"], "k": {"tools": [[2], 3]}}]`
	type call struct {
		key   string
		depth int
		elem  *Value
		text  string
	}
	var calls []call
	v, _, err := Parse([]byte(doc), Options{Element: func(key string, depth int, e *Value) {
		calls = append(calls, call{key, depth, e, doc[e.Pos.Offset:e.End]})
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		key   string
		depth int
		text  string
	}{
		{"", 1, "1"}, {"a", 5, "true"}, {"tools", 3, `{"a": [true]}`}, {"tools", 3, `"x"`},
		{"", 5, "2"}, {"tools", 4, "[2]"}, {"tools", 4, "3"},
		{"", 1, `{"tools": [{"a": [true]}, "x"], "k": {"tools": [[2], 3]}}`},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d calls, want %d: %+v", len(calls), len(want), calls)
	}
	for i, w := range want {
		if c := calls[i]; c.key != w.key || c.depth != w.depth || c.text != w.text {
			t.Errorf("call %d: %q depth %d %s, want %q depth %d %s", i, c.key, c.depth, c.text, w.key, w.depth, w.text)
		}
	}
	if calls[2].elem != v.Elems[1].Get("tools").Elems[0] {
		t.Error("the element passed is not the one in the tree")
	}
}
