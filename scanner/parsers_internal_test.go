package scanner

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// checkParsed verifies the shape every document parser promises: either a
// tree or one error, never both; every position inside the document.
func checkParsed(t *testing.T, data []byte, root *jsonc.Value, ferr *reports.FileError) {
	t.Helper()
	lines := bytes.Count(data, []byte("\n")) + 1
	if (root == nil) == (ferr == nil) {
		t.Fatalf("want exactly one of a tree and an error, got %v and %v", root, ferr)
	}
	if ferr != nil {
		if ferr.Message == "" || ferr.Line < 0 || ferr.Line > lines || (ferr.Line > 0) != (ferr.Column > 0) {
			t.Fatalf("bad error %+v for a %d-line document", ferr, lines)
		}
		return
	}
	nodes := 0
	var walk func(v *jsonc.Value)
	walk = func(v *jsonc.Value) {
		if nodes++; nodes > 16*len(data)+2048 {
			t.Fatalf("tree larger than the input allows")
		}
		if v.Pos.Line < 1 || v.Pos.Line > lines || v.Pos.Col < 1 {
			t.Fatalf("value at %d:%d outside the %d-line document", v.Pos.Line, v.Pos.Col, lines)
		}
		for _, e := range v.Elems {
			walk(e)
		}
		for _, m := range v.Members {
			if m.KeyPos.Line < 1 || m.KeyPos.Line > lines || m.KeyPos.Col < 1 {
				t.Fatalf("key %q at %d:%d outside the %d-line document", m.Key, m.KeyPos.Line, m.KeyPos.Col, lines)
			}
			walk(m.Value)
		}
	}
	walk(root)
}

// FuzzParseTOML fuzzes the TOML reader alone (many more executions per second
// than FuzzCodexTOML, which scans a whole tree per input).
func FuzzParseTOML(f *testing.F) {
	for _, s := range []string{
		"[mcp_servers.a]\ncommand = \"x\"\nargs = [\"a\", [1, 2], {k = 1}]\n[[t]]\n[[t]]\nx.y.z = 1\n",
		"a = { b = { c = [ { d = 1979-05-27 } ] } }\n", "[a]\n[a.b]\n[[a.c]]\n", "a = '''\nx'''\n", "a = [\n# c\n1,\n]\n", "a = 1\na = 2\n", "[",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, ferr := parseTOML("f.toml", data)
		checkParsed(t, data, root, ferr)
	})
}

// FuzzParseYAML fuzzes the YAML reader alone, including the error locator.
func FuzzParseYAML(f *testing.F) {
	for _, s := range []string{
		"mcpServers:\n  - name: a\n    command: x\n    args: [a, \"b\", 'c']\n    env: {K: 1}\n", "a: &a [x]\nb: [*a, *a]\n", "a: &a [*a]\n",
		"? [a]\n: b\n", "a: b: c\n", "- a\nb: c\n", "a: |\n  x\n  y\n", "%YAML 1.2\n---\na: 1\n...\n---\nb: 2\n", "a: !!binary aGk=\nb: !!bool yes\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, ferr := parseYAML("f.yaml", data)
		checkParsed(t, data, root, ferr)
	})
}

// buildTOML runs the tree builder alone, as it runs for documents over
// maxTOMLDecode, and returns its first error.
func buildTOML(data []byte) *tomlError {
	b := &tomlBuilder{ix: jsonc.NewLineIndex(data), root: &jsonc.Value{Kind: jsonc.Object}, keys: map[*jsonc.Value]map[string]int{}, kind: map[*jsonc.Value]tomlKind{}}
	b.cur = b.root
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		if err := b.expression(p.Expression()); err != nil {
			return err
		}
	}
	return nil
}

// TestTOMLBuilderRules checks that the builder enforces TOML's redefinition
// rules as go-toml's decoder does, so that large documents (validated by the
// builder alone) are judged the same way.
func TestTOMLBuilderRules(t *testing.T) {
	for _, c := range []struct {
		doc string
		ok  bool
	}{
		{"[a]\n[a]\n", false}, {"[a.b]\n[a]\n", true}, {"[a]\nb.c=1\n[a.b]\n", false}, {"[a]\nb.c=1\n[a.b.d]\n", true},
		{"a={b=1}\n[a]\n", false}, {"a={b=1}\na.c=1\n", false}, {"a=[]\n[[a]]\n", false}, {"[[a]]\n[[a]]\n[a.b]\n", true},
		{"a.b=1\na.c=2\n", true}, {"a.b=1\na.b.c=2\n", false}, {"[a.b.c]\n[a]\nb.d=1\n", false}, {"a = {x.y = 1, x.z = 2}\n", true},
		{"[[a]]\n[a]\n", false}, {"a=1\n[a]\n", false}, {"a = {b = {c = 1}}\n[a.b.d]\n", false}, {"a=1\na=2\n", false},
		{"[mcp_servers.x]\ncommand='a'\n[mcp_servers.x.env]\nK='v'\n[mcp_servers.y]\nurl='u'\n", true},
	} {
		_, decoded := parseTOML("f.toml", []byte(c.doc))
		built := buildTOML([]byte(c.doc))
		if (decoded == nil) != c.ok || (built == nil) != c.ok {
			t.Errorf("%q: go-toml %v, builder %v, want ok=%v", c.doc, decoded, built, c.ok)
		}
	}
}

// TestTOMLLargeLinear checks that a document with many keys in one table
// (over maxTOMLDecode) parses quickly: go-toml's own tracker is quadratic.
func TestTOMLLargeLinear(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("[mcp_servers.a]\ncommand = \"x\"\n")
	for i := 0; b.Len() <= 2*maxTOMLDecode; i++ {
		b.WriteString("k" + strconv.Itoa(i) + " = 1\n")
	}
	start := time.Now()
	root, ferr := parseTOML("f.toml", b.Bytes())
	if ferr != nil || root == nil {
		t.Fatal(ferr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("parsing %d bytes took %v", b.Len(), d)
	}
}
