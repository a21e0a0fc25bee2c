package policy

import (
	"encoding/json"
	goast "go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/regoir"
	"github.com/open-policy-agent/opa/v1/ast"
)

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
	o.Later(2, LaterFunc(func(o *Object) {
		o.AddString("later", "y")
		o.AddStrings("later_list", []string{""})
	}))
	want, err := NewValue(map[string]any{
		"s": "x", "empty": "", "t": true, "f": false, "n": 42, "null": nil,
		"list": []any{"a", "b"}, "none": []any{},
		"obj":  map[string]any{"path": "/p", "line": -1},
		"objs": []any{map[string]any{"path": "/p", "line": -1}, map[string]any{}}, "noobjs": []any{},
		"later": "y", "later_list": []any{""},
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

// TestSymbolsAndSharedStrings: AddSymbol adds the value AddString would,
// one term for a common value and a new one for any other; AddStringsAgain
// adds the list it is given, as the same array only when it holds the same
// strings.
func TestSymbolsAndSharedStrings(t *testing.T) {
	a, b := NewObject(6), NewObject(6)
	for _, o := range []*Object{a, b} {
		o.AddSymbol("transport", "stdio")
		o.AddSymbol("program", "my-own-server")
		o.AddSymbol("scheme", "")
		args := o.AddStrings("args", []string{"-y", "pkg@1.0.0"})
		o.AddStringsAgain("program_args", []string{"-y", "pkg@1.0.0"}, args)
		o.AddStringsAgain("other_args", []string{"-y"}, args)
		o.AddStringsAgain("none", nil, args)
	}
	want, err := NewValue(map[string]any{
		"transport": "stdio", "program": "my-own-server", "scheme": "",
		"args": []any{"-y", "pkg@1.0.0"}, "program_args": []any{"-y", "pkg@1.0.0"}, "other_args": []any{"-y"}, "none": []any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Value(); !got.Equal(want) {
		t.Errorf("got %s, want %s", got, want)
	}
	field := func(o *Object, key string) *ast.Term { return o.rec.Object().Get(ast.StringTerm(key)) }
	if field(a, "transport") != field(b, "transport") {
		t.Error("a common symbol is made for each object")
	}
	if field(a, "program") == field(b, "program") {
		t.Error("an uncommon symbol shares a term")
	}
	if field(a, "program_args") != field(a, "args") {
		t.Error("the same strings made a second array")
	}
	if field(a, "other_args") == field(a, "args") {
		t.Error("other strings share the array")
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
	key := func(o *Object, i int) *ast.Term { k, _ := o.rec.Field(i); return k }
	if key(a, 0) != key(b, 0) {
		t.Error("each object made its own term for name")
	}
	if key(a, 1) == key(b, 1) || key(a, 1).Value.Compare(key(b, 1).Value) != 0 {
		t.Error("a name outside the input's shares a term, or differs")
	}
}

// TestResultKeysMadeOnce: every field name the decoder looks up in a result
// (each literal given to member in decode.go, and the custom rules' kinds)
// is a term made once, so reading a result makes none.
func TestResultKeysMadeOnce(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "decode.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"deny", "warn"}
	goast.Inspect(f, func(n goast.Node) bool {
		call, ok := n.(*goast.CallExpr)
		if id, isIdent := fun(call); ok && isIdent && id == "member" && len(call.Args) == 2 {
			if lit, ok := call.Args[1].(*goast.BasicLit); ok && lit.Kind == token.STRING {
				keys = append(keys, strings.Trim(lit.Value, `"`))
			}
		}
		return true
	})
	if len(keys) < 10 {
		t.Fatalf("found only %v in decode.go", keys)
	}
	for _, k := range keys {
		if keyTerms()[k] == nil {
			t.Errorf("decode.go reads %q from results, which keyTerms does not hold", k)
		}
	}
}

func fun(call *goast.CallExpr) (string, bool) {
	if call == nil {
		return "", false
	}
	id, ok := call.Fun.(*goast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// TestNewValueFieldRecords: NewValue makes records of the objects whose keys
// are all input field names, from the top down, and leaves OPA's objects
// where any key is data (and all under them), and arrays; the value is the
// same either way.
func TestNewValueFieldRecords(t *testing.T) {
	x := map[string]any{
		"os": "linux",
		"claude": map[string]any{
			"allow": map[string]any{"count": 1, "names": map[string]any{"url": []any{map[string]any{"name": "url"}}}, "urls": []any{map[string]any{"url": "u"}}},
			"on":    map[string]any{},
		},
	}
	v, err := NewValue(x)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ast.InterfaceToValue(x)
	if regoir.PlainValue(v.v).Compare(want) != 0 {
		t.Fatalf("%v, want %v", v, want)
	}
	path := func(keys ...string) ast.Value {
		cur := v.v
		for _, k := range keys {
			obj := regoir.PlainValue(cur).(ast.Object)
			if r, ok := cur.(*regoir.Record); ok {
				for i := range r.Len() {
					if key, val := r.Field(i); key.Value.Compare(ast.String(k)) == 0 {
						cur = val.Value
					}
				}
				continue
			}
			cur = obj.Get(ast.StringTerm(k)).Value
		}
		return cur
	}
	isRecord := func(v ast.Value) bool { _, ok := v.(*regoir.Record); return ok }
	for _, c := range []struct {
		path   []string
		record bool
	}{
		{nil, true},
		{[]string{"claude"}, true},
		{[]string{"claude", "allow"}, true},
		{[]string{"claude", "allow", "names"}, true}, // "url" is a field name: a record, read the same
		{[]string{"claude", "on"}, false},            // empty
		{[]string{"claude", "allow", "urls"}, false}, // an array
	} {
		if got := isRecord(path(c.path...)); got != c.record {
			t.Errorf("%v: record %v, want %v", c.path, got, c.record)
		}
	}
	data, _ := NewValue(map[string]any{"names": map[string]any{"some-server": map[string]any{"name": "x"}}})
	inner := data.v.(*regoir.Record)
	if _, val := inner.Field(0); isRecord(val.Value) {
		t.Error("an object keyed by data is OPA's")
	} else if obj := val.Value.(ast.Object); isRecord(obj.Get(ast.StringTerm("some-server")).Value) {
		t.Error("an OPA object holds a record")
	}
}

// TestArgvKey: a command line's key is encoding/json's text of it, quoted
// by hand or not, for lists of strings and for whatever a settings file's
// list holds.
func TestArgvKey(t *testing.T) {
	for _, argv := range [][]any{
		nil,
		{},
		{"npx", "-y", "@acme/server@1.2.3"},
		{"sh", "-c", "a <b> && c \"d\" \\ e\n\t\u2028 \xff é"},
		{"npx", 1, true, nil, []any{"x"}, map[string]any{"k": "<v>"}},
	} {
		want := argvKeyJSON(argv)
		if got := ArgvKey(argv); got != want {
			t.Errorf("ArgvKey(%q) = %s, want %s", argv, got, want)
		}
		var strs []string
		for _, a := range argv {
			if s, ok := a.(string); ok {
				strs = append(strs, s)
			}
		}
		if got, want := ArgvKey(strs), argvKeyJSON(strs); got != want {
			t.Errorf("ArgvKey(%q) = %s, want %s", strs, got, want)
		}
	}
}

// TestNewValueMatchesConversionThenRecords: NewValue gives what OPA's
// conversion followed by making records of field-keyed objects (the way it
// was built first, fieldRecords below) gives: the same values, records in
// the same places, their fields in the same order.
func TestNewValueMatchesConversionThenRecords(t *testing.T) {
	fields := []string{"name", "url", "claude", "allow", "names", "count", "source", "path", "line"}
	rng := rand.New(rand.NewPCG(3, 5))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := rng.IntN(9); {
		case depth > 3 || n < 3:
			return []any{nil, true, "s", 1, 2.5, json.Number("7"), int64(-3)}[rng.IntN(7)]
		case n < 5:
			l := make([]any, rng.IntN(3))
			for i := range l {
				l[i] = gen(depth + 1)
			}
			return l
		default:
			m := map[string]any{}
			for range rng.IntN(4) {
				k := fields[rng.IntN(len(fields))]
				if rng.IntN(6) == 0 {
					k = "data-key"
				}
				m[k] = gen(depth + 1)
			}
			return m
		}
	}
	var same func(a, b ast.Value) bool
	same = func(a, b ast.Value) bool {
		ra, aRec := a.(*regoir.Record)
		rb, bRec := b.(*regoir.Record)
		if aRec != bRec {
			return false
		}
		if !aRec {
			return a.Compare(b) == 0
		}
		if ra.Len() != rb.Len() {
			return false
		}
		for i := range ra.Len() {
			ka, va := ra.Field(i)
			kb, vb := rb.Field(i)
			if ka != kb || !same(va.Value, vb.Value) {
				return false
			}
		}
		return true
	}
	for range 2000 {
		x := gen(0)
		got, err := NewValue(x)
		if err != nil {
			t.Fatal(err)
		}
		conv, err := ast.InterfaceToValue(x)
		if err != nil {
			t.Fatal(err)
		}
		if want := fieldRecords(conv); !same(got.v, want) {
			t.Fatalf("NewValue(%v) = %v, want %v", x, got, want)
		}
	}
}

// fieldRecords is v with each object whose keys are all field names of
// the engine's input (keyTerms) made a record keyed by those terms, from
// the top down: the plan finds such a field by pointer (regoir.Record)
// where an OPA object hashes the key, and a project's context is read a
// dozen times for every server. An object with any other key (a list's
// index by server name) stays OPA's, and so does all it holds, as do
// arrays: neither may hold a record.
func fieldRecords(v ast.Value) ast.Value {
	o, ok := v.(ast.Object)
	if !ok || o.Len() == 0 {
		return v
	}
	known := keyTerms()
	other := o.Until(func(k, _ *ast.Term) bool {
		s, ok := k.Value.(ast.String)
		return !ok || known[string(s)] == nil
	})
	if other {
		return v
	}
	r := &regoir.Record{}
	r.Grow(o.Len())
	o.Foreach(func(k, val *ast.Term) {
		r.Add(known[string(k.Value.(ast.String))], ast.NewTerm(fieldRecords(val.Value)))
	})
	return r
}

// TestKeyTerm: every known key is the term made once, and any other key
// is a term of its own with its own text.
func TestKeyTerm(t *testing.T) {
	for name, term := range keyTerms() {
		if got := keyTerm(name); got != term {
			t.Errorf("keyTerm(%q) made a new term", name)
		}
	}
	for _, other := range []string{"", "x", "nzme", "nam", "names_", "contexts", "Name", "server\x00"} {
		if got := keyTerm(other); got.Value.Compare(ast.String(other)) != 0 {
			t.Errorf("keyTerm(%q) = %v", other, got)
		}
	}
}

// TestSharedObject: a Shared object is added to inputs made on many
// goroutines at once (go test -race checks that adding it writes nothing)
// and is the same value in each.
func TestSharedObject(t *testing.T) {
	shared := NewObject(1)
	shared.AddBool("parsed", false)
	shared.Shared()
	want, err := NewValue(map[string]any{"name": "s", "url": map[string]any{"parsed": false}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			o := NewObject(2)
			o.AddString("name", "s")
			o.AddObject("url", shared)
			if got := o.Value(); !got.Equal(want) {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
	wg.Wait()
}
