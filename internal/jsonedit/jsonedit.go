package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// Edit replaces data[Start:End] by Text; Start == End inserts.
type Edit struct {
	Start, End int
	Text       []byte
}

// Apply returns data with the edits applied. Edits may come in any order; two
// insertions at one offset keep their given order, and an insertion at the
// start or end of a replaced span goes before or after it. Overlapping edits
// are an error.
func Apply(data []byte, edits []Edit) ([]byte, error) {
	sorted := make([]Edit, len(edits))
	copy(sorted, edits)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		// At one offset an insertion comes before a replacement that starts
		// there.
		return a.End-a.Start == 0 && b.End-b.Start > 0
	})
	var out bytes.Buffer
	out.Grow(len(data) + 256)
	at := 0
	for _, e := range sorted {
		if e.Start < at || e.End < e.Start || e.End > len(data) {
			return nil, fmt.Errorf("jsonedit: edit [%d,%d) overlaps another edit or leaves the document", e.Start, e.End)
		}
		out.Write(data[at:e.Start])
		out.Write(e.Text)
		at = e.End
	}
	out.Write(data[at:])
	return out.Bytes(), nil
}

// Resolve returns the member an RFC 6901 pointer names inside root (the
// object member whose value the pointer's last token selects), or an error.
// A duplicated key resolves to its winning (last) value, as jsonc keeps it.
// Array indices are not supported: server entries live in objects.
func Resolve(root *jsonc.Value, pointer string) (*jsonc.Member, error) {
	if pointer == "" || pointer[0] != '/' {
		return nil, fmt.Errorf("jsonedit: pointer %q does not name a member", pointer)
	}
	v := root
	var m *jsonc.Member
	for _, tok := range strings.Split(pointer[1:], "/") {
		key := strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if v == nil || v.Kind != jsonc.Object {
			return nil, fmt.Errorf("jsonedit: %s: not an object at %q", pointer, key)
		}
		if m = v.Member(key); m == nil {
			return nil, fmt.Errorf("jsonedit: %s: no member %q", pointer, key)
		}
		v = m.Value
	}
	return m, nil
}

// String returns the JSON text of s, without the HTML escaping of
// encoding/json (<, > and & stay as they are).
func String(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		// Encoding a string cannot fail; keep a valid token anyway.
		return []byte(strconv.Quote(s))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// LineStart returns the offset of the first byte of the line holding off.
func LineStart(data []byte, off int) int {
	return bytes.LastIndexByte(data[:off], '\n') + 1
}

// Indent returns the spaces and tabs that precede off on its line, and
// whether nothing else precedes it (off starts its line's text).
func Indent(data []byte, off int) (indent string, alone bool) {
	start := LineStart(data, off)
	pre := data[start:off]
	if len(bytes.Trim(pre, " \t")) != 0 {
		return "", false
	}
	return string(pre), true
}

// Newline returns the line ending in use around off: "\r\n" when the nearest
// line end before off (or, failing that, the first in the document) is CRLF,
// else "\n".
func Newline(data []byte, off int) string {
	i := bytes.LastIndexByte(data[:off], '\n')
	if i < 0 {
		i = bytes.IndexByte(data, '\n')
	}
	if i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
