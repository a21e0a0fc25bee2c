package scanner

import (
	"fmt"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// duplicateKeys reports every member written twice in one object of a JSON
// configuration file (MCPG-C008). The clients parse with JSON.parse or a
// parser that behaves like it: the last value wins, while a reviewer
// reading the file (or a diff of it) sees the first, so
// {"a": {"command": "safe"}, "a": {"command": "evil"}} runs evil.
func (sc *scan) duplicateKeys(path string, root *jsonc.Value) {
	if root == nil || !hasDuplicateKeys(root) {
		return
	}
	type item struct {
		v   *jsonc.Value
		ptr string
	}
	stack := []item{{root, ""}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch it.v.Kind {
		case jsonc.Array:
			for i, e := range it.v.Elems {
				stack = append(stack, item{e, fmt.Sprintf("%s/%d", it.ptr, i)})
			}
		case jsonc.Object:
			for i := range it.v.Members {
				m := &it.v.Members[i]
				ptr := it.ptr + "/" + jsonc.PointerToken(m.Key)
				stack = append(stack, item{m.Value, ptr})
				dups := m.Dups()
				if len(dups) == 0 {
					continue
				}
				last := dups[len(dups)-1]
				where := make([]string, 0, 1+len(dups))
				where = append(where, fmt.Sprintf("%d:%d", m.KeyPos.Line, m.KeyPos.Col))
				for _, d := range dups {
					where = append(where, fmt.Sprintf("%d:%d", d.Line, d.Col))
				}
				sc.fileFindingEvidence("MCPG-C008", cfgfile.Loc(path, ptr, m.KeyPos),
					fmt.Sprintf("key %q is written %d times in one object (at %s); the client uses the last value, at %d:%d, while a reader sees the first",
						m.Key, 1+len(dups), strings.Join(where, ", "), last.Line, last.Col),
					map[string]any{"key": m.Key, "positions": where, "used": fmt.Sprintf("%d:%d", last.Line, last.Col)}, "dup", m.Key)
			}
		}
	}
}

// hasDuplicateKeys reports whether an object under v repeats a key. Few
// documents do, and the walk above builds a JSON pointer for every value
// it visits: this one builds none, and the walk runs only on a document
// it finds a repeat in.
func hasDuplicateKeys(v *jsonc.Value) bool {
	stack := []*jsonc.Value{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v.Kind {
		case jsonc.Array:
			stack = append(stack, v.Elems...)
		case jsonc.Object:
			for i := range v.Members {
				if len(v.Members[i].Dups()) > 0 {
					return true
				}
				stack = append(stack, v.Members[i].Value)
			}
		}
	}
	return false
}
