package scanner

import (
	"os"
	"path/filepath"
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

// TestEntryNames: a location may be in a directory when its first element
// is one of the directory's names in any case, is a pattern, or the
// directory could not be listed.
func TestEntryNames(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{".Cursor", "opencode.json"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := namesOf(entries)
	for rel, want := range map[string]bool{
		".cursor/mcp.json": true, "opencode.json": true, ".vscode/mcp.json": false, "opencode.jsonc": false,
		"*.json": true, ".continue/mcpServers/*.json": false,
	} {
		if got := names.mayHold(location{rel: rel}); got != want {
			t.Errorf("mayHold(%q) = %v, want %v", rel, got, want)
		}
		if !entryNames(nil).mayHold(location{rel: rel}) {
			t.Errorf("a directory that could not be listed rules out %q", rel)
		}
		if !names.mayHold(location{rel: rel, env: "CODEX_HOME"}) {
			t.Errorf("%q, which a variable may move, is ruled out", rel)
		}
	}
}
