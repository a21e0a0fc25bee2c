package scanner

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// TestHasDuplicateKeys: a key repeated at any depth, inside objects and
// arrays, is found; a document without one is passed over.
func TestHasDuplicateKeys(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{`{}`, false},
		{`[]`, false},
		{`{"a": 1, "b": {"a": 1, "c": [1, {"a": 2}]}}`, false},
		{`{"a": 1, "a": 2}`, true},
		{`{"x": {"y": {"z": 1, "z": 2}}}`, true},
		{`{"x": [1, [2, {"k": 1, "k": 1}]]}`, true},
		{`[{"k": 1}, {"k": 2}, {"j": {"k": 1, "k": 2}}]`, true},
	} {
		v, _, err := jsonc.Parse([]byte(c.doc), jsonc.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		if got := hasDuplicateKeys(v); got != c.want {
			t.Errorf("%s: %v, want %v", c.doc, got, c.want)
		}
	}
}
