package jsonc

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
)

// sameParse reports how Parse and the reference parser differ on data, or "".
func sameParse(data []byte, opts Options) string {
	v, w, err := Parse(data, opts)
	rv, rw, rerr := refParse(data, opts)
	if fmt.Sprint(err) != fmt.Sprint(rerr) || reflect.TypeOf(err) != reflect.TypeOf(rerr) {
		return fmt.Sprintf("error %v, reference %v", err, rerr)
	}
	if !reflect.DeepEqual(w, rw) {
		return fmt.Sprintf("warnings %v, reference %v", w, rw)
	}
	if err == nil {
		if d := diffValue(v, rv, "$"); d != "" {
			return d
		}
	}
	return ""
}

// diffValue compares every field of two trees (reflect.DeepEqual would too,
// but not say where).
func diffValue(a, b *Value, at string) string {
	if (a == nil) != (b == nil) {
		return at + ": nil against non-nil"
	}
	if a == nil {
		return ""
	}
	if a.Kind != b.Kind || a.Pos != b.Pos || a.End != b.End || a.Str != b.Str || a.Bool != b.Bool {
		return fmt.Sprintf("%s: %+v against %+v", at, *a, *b)
	}
	if len(a.Elems) != len(b.Elems) || (a.Elems == nil) != (b.Elems == nil) {
		return fmt.Sprintf("%s: %d elements against %d", at, len(a.Elems), len(b.Elems))
	}
	for i := range a.Elems {
		if d := diffValue(a.Elems[i], b.Elems[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
			return d
		}
	}
	if len(a.Members) != len(b.Members) || (a.Members == nil) != (b.Members == nil) {
		return fmt.Sprintf("%s: %d members against %d", at, len(a.Members), len(b.Members))
	}
	for i := range a.Members {
		ma, mb := a.Members[i], b.Members[i]
		if ma.Key != mb.Key || ma.KeyPos != mb.KeyPos || !reflect.DeepEqual(ma.Dups(), mb.Dups()) {
			return fmt.Sprintf("%s: member %+v against %+v", at, ma, mb)
		}
		if d := diffValue(ma.Value, mb.Value, at+"."+ma.Key); d != "" {
			return d
		}
	}
	return ""
}

// TestParseMatchesReference holds the parser to the reference on every JSON
// file of the repository's test data, a large tools listing, and hostile
// and malformed documents, in both dialects and under limits.
func TestParseMatchesReference(t *testing.T) {
	var docs [][]byte
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonc")) {
			if data, err := os.ReadFile(p); err == nil && len(data) < 4<<20 {
				docs = append(docs, data)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 50 {
		t.Fatalf("only %d JSON files found", len(docs))
	}
	listing, err := benchdata.RealToolList("../../toolcheck/testdata/tools/real", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, listing)
	for _, s := range []string{
		"", " ", "{", "[", `"`, `"abc`, "\"a\nb\"", `"\`, `"\u12"`, `"\uD800\uDC00x"`, `"\uDC00"`, `"\uD800\u0041"`,
		"\"é\xff\xfeà\\n\\t\\\"x\"", `{"a":1,"a":2,"b":[1,2,3],"a":{"c":null}}`, `{"a":1,}`, `[1,2,]`, "{\n\"a\" : 1 ,\n \"b\":\n[\n]\n}",
		"// c\n{\"a\": /* x\ny */ 1}", "/* open", "{\"a\":1}\n//", `[tru]`, `[nul, 1]`, `-`, `-01`, `1.`, `1e`, `1e+`, "[1e5,-0.5E-3]",
		"\xEF\xBB\xBF{\"a\": [\"\xEF\xBB\xBF\"]}", `{"k":"v"} x`, "{\"\\u00e9\\u0000\": \"\t\"}", `{"` + strings.Repeat("k", 40) + `":1}`,
		strings.Repeat("[", 600) + strings.Repeat("]", 600), strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100),
		"{" + strings.Repeat(`"a":1,`, 20) + `"b":2}`, "[" + strings.Repeat(`"x\\n",`, 3000) + "0]",
	} {
		docs = append(docs, []byte(s))
	}
	// Large objects (an index finds their members) whose keys come back
	// later, some many times, and keys that only differ in the middle.
	for _, n := range []int{9, 40, 700} {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, `"k%d":%d, "srv-%03d-x":[%d], `, i, i, i%97, i)
			if i%7 == 0 {
				fmt.Fprintf(&b, `"k%d":{"again":%d}, `, i/2, i)
			}
		}
		b.WriteString(`"end":null}`)
		docs = append(docs, []byte(b.String()))
	}
	// Every prefix of a few documents: errors at every position.
	for _, s := range []string{"{\"a\": [1, \"b\\n\", {\"c\": true}], \"é\": null}\n", "[\"x\", -1.5e3,\n {\"k\" : \"\\ud83d\\ude00\"}]"} {
		for i := range len(s) {
			docs = append(docs, []byte(s[:i]))
		}
	}
	for _, data := range docs {
		for _, opts := range []Options{{}, {JSONC: true}, {MaxDepth: 3, MaxValues: 50, MaxElements: 4}} {
			if d := sameParse(data, opts); d != "" {
				t.Fatalf("%+v on %.80q: %s", opts, data, d)
			}
		}
	}
}

// BenchmarkParseToolsList parses a 1 MB tools/list result, the proxy's
// largest parse.
func BenchmarkParseToolsList(b *testing.B) { benchmarkParse(b, Parse) }

// BenchmarkParseToolsListReference is the reference parser on the same.
func BenchmarkParseToolsListReference(b *testing.B) { benchmarkParse(b, refParse) }

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
