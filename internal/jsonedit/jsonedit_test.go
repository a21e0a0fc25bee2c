package jsonedit

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

func TestApply(t *testing.T) {
	data := []byte("0123456789")
	got, err := Apply(data, []Edit{{6, 8, []byte("x")}, {2, 2, []byte("A")}, {2, 4, []byte("B")}, {2, 2, []byte("C")}, {8, 8, []byte("!")}})
	if err != nil || string(got) != "01ACB45x!89" {
		t.Errorf("Apply = %q, %v", got, err)
	}
	for _, bad := range [][]Edit{{{1, 5, nil}, {4, 6, nil}}, {{5, 4, nil}}, {{9, 11, nil}}} {
		if _, err := Apply(data, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

func TestResolve(t *testing.T) {
	root, _, err := jsonc.Parse([]byte(`{"a": {"b/c": {"d~e": 1}, "x": 2, "x": 3}}`), jsonc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := Resolve(root, "/a/b~1c/d~0e"); err != nil || m.Key != "d~e" {
		t.Errorf("Resolve = %+v, %v", m, err)
	}
	if m, err := Resolve(root, "/a/x"); err != nil || m.Value.Str != "3" {
		t.Errorf("duplicate key: %+v, %v", m, err)
	}
	for _, p := range []string{"", "a", "/b", "/a/x/y", "/a/b~1c/d~0e/f"} {
		if _, err := Resolve(root, p); err == nil {
			t.Errorf("%q: no error", p)
		}
	}
}

func TestLayoutHelpers(t *testing.T) {
	data := []byte("{\r\n\t\t\"a\": 1, \"b\": 2\r\n}")
	a := 5
	if ind, alone := Indent(data, a); ind != "\t\t" || !alone {
		t.Errorf("Indent = %q %v", ind, alone)
	}
	if _, alone := Indent(data, 13); alone {
		t.Error("b is not alone on its line")
	}
	if nl := Newline(data, a); nl != "\r\n" {
		t.Errorf("Newline = %q", nl)
	}
	if nl := Newline([]byte(`{"a": 1}`), 2); nl != "\n" {
		t.Errorf("Newline = %q", nl)
	}
	if got := string(String("a<b>&\"\\é\u2028")); got != `"a<b>&\"\\é\u2028"` {
		t.Errorf("String = %s", got)
	}
}
