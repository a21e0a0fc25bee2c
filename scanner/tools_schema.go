package scanner

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// toolParam is one top-level property of a tool's inputSchema.
type toolParam struct {
	name     string
	words    []string
	ptr      string // pointer of the property's key
	pos      jsonc.Pos
	desc     string // its description, "" when none
	types    []string
	format   string
	required bool
	// freeForm is an object parameter that accepts any keys.
	freeForm bool
}

// toolParams lists the top-level parameters of t's inputSchema.
func toolParams(t *ToolInfo) []toolParam {
	schema := t.Value.Get("inputSchema")
	props := schema.Get("properties")
	if props == nil || props.Kind != jsonc.Object {
		return nil
	}
	required := map[string]bool{}
	if req, ok := schema.Get("required").StringSlice(); ok {
		for _, r := range req {
			required[r] = true
		}
	}
	base := t.Pointer + "/inputSchema/properties/"
	out := make([]toolParam, 0, len(props.Members))
	for _, m := range props.Members {
		p := toolParam{name: m.Key, words: splitIdent(m.Key), ptr: base + jsonc.PointerToken(m.Key), pos: m.KeyPos, required: required[m.Key]}
		v := m.Value
		if d := v.Get("description"); d.IsString() {
			p.desc = strings.TrimSpace(d.Str)
		}
		if f := v.Get("format"); f.IsString() {
			p.format = strings.ToLower(f.Str)
		}
		switch ty := v.Get("type"); {
		case ty.IsString():
			p.types = []string{ty.Str}
		case ty != nil && ty.Kind == jsonc.Array:
			p.types, _ = ty.StringSlice()
		}
		if tlHas(p.types, "object") {
			pp := v.Get("properties")
			ap := v.Get("additionalProperties")
			noProps := pp == nil || (pp.Kind == jsonc.Object && len(pp.Members) == 0)
			closed := ap != nil && ap.Kind == jsonc.Bool && !ap.Bool
			p.freeForm = noProps && !closed
		}
		out = append(out, p)
	}
	return out
}

func tlHas(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// covertWords name parameters that serve as side channels (MCP-Shield's
// list, threats.md §2.2); fillerWords may accompany them ("debug_info").
var (
	covertWords = tlSet(strings.Fields(`sidenote sidenotes side note notes feedback details detail extra additional metadata meta debug
		context annotation annotations reasoning remark remarks`))
	fillerWords = tlSet(strings.Fields(`info information data field text string params args extra additional user optional any misc other`))
)

// isCovert reports whether a parameter's words are all covert or filler
// words, with at least one covert word ("sidenote", "debug_info",
// "additional_context"; not "note_id" or "context_lines").
func isCovert(words []string) bool {
	covert := false
	for _, w := range words {
		switch {
		case covertWords[w]:
			covert = true
		case fillerWords[w]:
		default:
			return false
		}
	}
	// "side note" alone: "side" is only covert next to "note".
	if len(words) == 1 && words[0] == "side" {
		return false
	}
	return covert
}

// Weights of covert parameters.
const (
	covertUnexplained = 1.25 // no description, not mentioned by the tool
	covertUnmentioned = 0.5  // described, but the tool never mentions it
	covertRequired    = 0.5  // required: the model must fill it
	covertFreeForm    = 0.5  // an object that takes anything
	covertRouted      = 1.0  // the description routes data into it
)

// flowVerb marks a sentence that tells the model to put data somewhere.
var flowVerb = regexp.MustCompile(`\b(?:pass|send|include|put|attach|append|insert|copy|fill|use|provide|add|write)\b`)

// covertParams scores side-channel parameters (famCovert) and directives
// that route data into them (famDirective). desc is the tool
// description's match view.
func covertParams(t *ToolInfo, desc string) []toolSignal {
	var out []toolSignal
	for _, p := range toolParams(t) {
		if !isCovert(p.words) {
			continue
		}
		phrase := strings.Join(p.words, " ")
		mentioned := desc != "" && (tlContainsWord(desc, strings.ToLower(p.name)) || tlContainsWord(desc, phrase))
		w := 0.0
		switch {
		case !mentioned && p.desc == "":
			w = covertUnexplained
		case !mentioned:
			w = covertUnmentioned
		}
		if p.required {
			w += covertRequired
		}
		if p.freeForm {
			w += covertFreeForm
		}
		if mentioned {
			if m, ok := directiveTo(desc, strings.ToLower(p.name), phrase); ok {
				// The description routes data into it: a sink, not a mention.
				w += covertRouted
				out = append(out, toolSignal{family: famDirective, weight: 2, match: m, ptr: t.Pointer + "/description", pos: descPos(t)})
			}
		}
		if w > 0 {
			out = append(out, toolSignal{family: famCovert, weight: w, match: p.name, ptr: p.ptr, pos: p.pos})
		}
	}
	return out
}

func descPos(t *ToolInfo) jsonc.Pos {
	if d := t.Value.Get("description"); d != nil {
		return d.Pos
	}
	return t.Value.Pos
}

// directiveTo finds a sentence of desc that names the parameter as a
// destination ("pass its content as 'sidenote'", "use the 'metadata'
// field to send ..."): the name quoted, after "as", or before "field" or
// "parameter", together with a data-flow verb.
func directiveTo(desc, name, phrase string) (string, bool) {
	for _, s := range tlSentences(desc) {
		named := false
		for _, n := range []string{name, phrase} {
			for _, q := range []string{"'" + n + "'", `"` + n + `"`, "`" + n + "`", "as " + n, n + " field", n + " parameter", n + " param", n + " argument"} {
				if strings.Contains(s, q) {
					named = true
				}
			}
		}
		if named && flowVerb.MatchString(s) {
			return tlClip(s, 80), true
		}
	}
	return "", false
}

// splitSentences splits a match view at sentence ends.
func tlSentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			out = append(out, strings.TrimSpace(s[start:i+1]))
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, strings.TrimSpace(s[start:]))
	}
	return out
}

// containsWord reports whether w occurs in s between word boundaries.
func tlContainsWord(s, w string) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		k := strings.Index(s[i:], w)
		if k < 0 {
			return false
		}
		k += i
		end := k + len(w)
		if (k == 0 || !tlWordByte(s[k-1])) && (end == len(s) || !tlWordByte(s[end])) {
			return true
		}
		i = k + 1
	}
}

func tlWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// standardTypes are JSON Schema's types.
var standardTypes = tlSet([]string{"string", "number", "integer", "boolean", "object", "array", "null"})

// schemaAnomalies reports Full-Schema Poisoning shapes (CyberArk): a
// non-standard "type", "required" entries that are not properties,
// non-standard keys carrying prose, and prose in enum, const or pattern.
func schemaAnomalies(t *ToolInfo) []toolSignal {
	var out []toolSignal
	for _, k := range []string{"inputSchema", "outputSchema"} {
		if v := t.Value.Get(k); v != nil {
			walkSchema(v, t.Pointer+"/"+k, 0, &out)
		}
	}
	return out
}

const maxSchemaDepth = 64

func walkSchema(v *jsonc.Value, ptr string, depth int, out *[]toolSignal) {
	if v.Kind != jsonc.Object || depth > maxSchemaDepth || len(*out) > 64 {
		return
	}
	props := v.Get("properties")
	for i := range v.Members {
		m := &v.Members[i]
		mptr := ptr + "/" + jsonc.PointerToken(m.Key)
		switch {
		case m.Key == "type":
			types := []*jsonc.Value{m.Value}
			if m.Value.Kind == jsonc.Array {
				types = m.Value.Elems
			}
			for _, ty := range types {
				if ty.Kind != jsonc.String || !standardTypes[ty.Str] {
					*out = append(*out, toolSignal{family: famSchema, weight: 2, match: "type " + tlClip(tlValueText(ty), 60), ptr: mptr, pos: ty.Pos})
				}
			}
		case m.Key == "required" && m.Value.Kind == jsonc.Array && props != nil && props.Kind == jsonc.Object:
			for j, e := range m.Value.Elems {
				if e.Kind != jsonc.String || props.Member(e.Str) == nil {
					*out = append(*out, toolSignal{family: famSchema, weight: 1.5, match: "required " + tlClip(tlValueText(e), 60),
						ptr: fmt.Sprintf("%s/%d", mptr, j), pos: e.Pos})
				}
			}
		case m.Key == "enum" || m.Key == "const" || m.Key == "pattern":
			proseIn(m.Value, mptr, out)
		case !schemaKeywords[m.Key] && !strings.HasPrefix(m.Key, "x-"):
			if m.Value.Kind == jsonc.String && len(strings.Fields(m.Value.Str)) >= 3 {
				*out = append(*out, toolSignal{family: famSchema, weight: 1, match: "non-standard key " + tlClip(m.Key, 40), ptr: mptr, pos: m.KeyPos})
			}
		case schemaMaps[m.Key] && m.Value.Kind == jsonc.Object:
			for j := range m.Value.Members {
				pm := &m.Value.Members[j]
				walkSchema(pm.Value, mptr+"/"+jsonc.PointerToken(pm.Key), depth+1, out)
			}
		case schemaMany[m.Key] && m.Value.Kind == jsonc.Array:
			for j, e := range m.Value.Elems {
				walkSchema(e, fmt.Sprintf("%s/%d", mptr, j), depth+1, out)
			}
		case schemaOne[m.Key]:
			walkSchema(m.Value, mptr, depth+1, out)
		}
	}
}

// proseIn flags sentences (eight words or more) in enum, const or pattern.
func proseIn(v *jsonc.Value, ptr string, out *[]toolSignal) {
	vals := []*jsonc.Value{v}
	if v.Kind == jsonc.Array {
		vals = v.Elems
	}
	for j, e := range vals {
		if e.Kind == jsonc.String && len(strings.Fields(e.Str)) >= 8 {
			p := ptr
			if v.Kind == jsonc.Array {
				p = fmt.Sprintf("%s/%d", ptr, j)
			}
			*out = append(*out, toolSignal{family: famSchema, weight: 1, match: "prose " + tlClip(e.Str, 60), ptr: p, pos: e.Pos})
		}
	}
}

// valueText renders a scalar for evidence.
func tlValueText(v *jsonc.Value) string {
	switch v.Kind {
	case jsonc.String:
		return v.Str
	case jsonc.Number:
		return v.Str
	case jsonc.Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	}
	return v.Kind.String()
}
