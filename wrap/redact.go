package wrap

import (
	"sort"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/jsonquote"
	"github.com/mcpguard/mcpguard/internal/secrets"
)

// redactDocument is a configuration file's text with its secrets hidden as
// every report hides them (one secret definition, secrets.Detector): a
// member whose value Secret calls a secret under its key (an env value, a
// header), the secrets ScanArgs finds in an array of strings (an argv),
// those ScanURL and ScanText find in any other string, and tokens used as
// keys (a server named by a token). Everything else keeps its bytes, so a
// diff of two redacted texts shows what changed and no secret. Text that
// does not parse has the tokens of known formats hidden, wherever they are.
func redactDocument(det *secrets.Detector, data []byte, jsoncMode bool) []byte {
	root, _, err := jsonc.Parse(data, jsonc.Options{JSONC: jsoncMode})
	if err != nil || root == nil {
		return []byte(det.RedactText(string(data)))
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	replace := func(start, end int, s string) {
		if start >= 0 && end <= len(data) && start < end && data[start] == '"' {
			edits = append(edits, edit{start, end, string(jsonquote.Append(nil, s, false))})
		}
	}
	text := func(s string) string {
		if out, found := det.ScanURL(s); len(found) > 0 {
			return out
		}
		return det.RedactText(s)
	}
	var walk func(v *jsonc.Value, key string, member bool)
	walk = func(v *jsonc.Value, key string, member bool) {
		switch v.Kind {
		case jsonc.String:
			out := text(v.Str)
			if member {
				if _, ok := det.Secret(key, v.Str); ok {
					out = secrets.Redacted
				}
			}
			if out != v.Str {
				replace(v.Pos.Offset, v.End, out)
			}
		case jsonc.Array:
			var strs []string
			var at []*jsonc.Value
			for _, e := range v.Elems {
				if e.Kind == jsonc.String {
					strs, at = append(strs, e.Str), append(at, e)
				} else {
					walk(e, "", false)
				}
			}
			if len(strs) > 0 {
				out, _ := det.ScanArgs(strs)
				for i, e := range at {
					if out[i] != e.Str {
						replace(e.Pos.Offset, e.End, out[i])
					}
				}
			}
		case jsonc.Object:
			for i := range v.Members {
				m := &v.Members[i]
				if out := det.RedactText(m.Key); out != m.Key {
					replace(m.KeyPos.Offset, stringEnd(data, m.KeyPos.Offset), out)
				}
				walk(m.Value, m.Key, true)
			}
		}
	}
	walk(root, "", false)
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	out := make([]byte, 0, len(data))
	last := 0
	for _, e := range edits {
		if e.start < last {
			continue
		}
		out = append(append(out, data[last:e.start]...), e.text...)
		last = e.end
	}
	out = append(out, data[last:]...)
	// What the structure does not reach (an earlier value of a key written
	// twice, a comment): the tokens of known formats.
	return []byte(det.RedactText(string(out)))
}

// stringEnd is the offset just past the JSON string literal that starts at
// data[start] (a quote), or start when there is none.
func stringEnd(data []byte, start int) int {
	if start < 0 || start >= len(data) || data[start] != '"' {
		return start
	}
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return start
}
