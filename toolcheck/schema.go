package toolcheck

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// toolParam is one top-level property of a tool's inputSchema.
type toolParam struct {
	name  string
	words []string
	base  string // the properties' pointer, for ptr
	pos   jsonc.Pos
	desc  string // its description, "" when none
	// object: "object" is among its types.
	object   bool
	format   string
	required bool
	// freeForm is an object parameter that accepts any keys.
	freeForm bool
	// closed: the value is one of a closed set (an enum or const, or only
	// boolean, integer, number or null types), so it cannot carry text
	// the model writes.
	closed bool
}

// ptr returns the pointer of the property's key (built only for the few
// parameters a signal names).
func (p *toolParam) ptr() string { return p.base + jsonc.PointerToken(p.name) }

// toolParams lists the top-level parameters of t's inputSchema.
func toolParams(t *Tool) []toolParam {
	schema := t.Value.Get("inputSchema")
	props := schema.Get("properties")
	if props == nil || props.Kind != jsonc.Object {
		return nil
	}
	req, _ := schema.Get("required").StringSlice()
	var reqSet map[string]bool
	if len(req) > 8 {
		reqSet = tlSet(req) // a long list: spare a scan per parameter
	}
	base := t.Pointer + "/inputSchema/properties/"
	out := make([]toolParam, 0, len(props.Members))
	for _, m := range props.Members {
		p := toolParam{name: m.Key, words: splitIdent(m.Key), base: base, pos: m.KeyPos}
		if reqSet != nil {
			p.required = reqSet[m.Key]
		} else {
			p.required = tlHas(req, m.Key)
		}
		v := m.Value
		if d := v.Get("description"); d.IsString() {
			p.desc = strings.TrimSpace(d.Str)
		}
		if f := v.Get("format"); f.IsString() {
			p.format = strings.ToLower(f.Str)
		}
		switch ty := v.Get("type"); {
		case ty.IsString():
			p.object = ty.Str == "object"
		case ty != nil && ty.Kind == jsonc.Array:
			types, _ := ty.StringSlice()
			p.object = tlHas(types, "object")
		}
		p.closed = closedValue(v)
		if p.object {
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

// closedValue reports whether schema v admits only values from a closed
// set: an enum or const, or a type list of only boolean, integer, number
// and null.
func closedValue(v *jsonc.Value) bool {
	if e := v.Get("enum"); e != nil && e.Kind == jsonc.Array && len(e.Elems) > 0 {
		return true
	}
	if v.Get("const") != nil {
		return true
	}
	ty := v.Get("type")
	var types []string
	switch {
	case ty.IsString():
		types = []string{ty.Str}
	case ty != nil && ty.Kind == jsonc.Array:
		types, _ = ty.StringSlice()
	}
	if len(types) == 0 {
		return false
	}
	for _, t := range types {
		switch t {
		case "boolean", "integer", "number", "null":
		default:
			return false
		}
	}
	return true
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
	covertWords = lazyWordSet(`sidenote sidenotes side note notes feedback details detail extra additional metadata meta debug
		context annotation annotations reasoning remark remarks`)
	fillerWords = lazyWordSet(`info information data field text string params args extra additional user optional any misc other`)
)

// isCovert reports whether a parameter's words are all covert or filler
// words, with at least one covert word ("sidenote", "debug_info",
// "additional_context"; not "note_id" or "context_lines").
func isCovert(words []string) bool {
	covert := false
	for _, w := range words {
		switch {
		case covertWords()[w]:
			covert = true
		case fillerWords()[w]:
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

// flowVerbExpr marks a sentence that tells the model to put data
// somewhere.
const flowVerbExpr = `\b(?:pass|send|include|put|attach|append|insert|copy|fill|use|provide|add|write)\b`

// covertParams scores side-channel parameters (famCovert) and directives
// that route data into them (famDirective). desc is the tool
// description's match view.
func (a *toolAnalysis) covertParams(t *Tool, desc string) []toolSignal {
	var out []toolSignal
	for _, p := range a.cur.params(t) {
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
			if m, ok := directiveTo(a.m.flowVerb, desc, strings.ToLower(p.name), phrase); ok {
				// The description routes data into it: a sink, not a mention.
				w += covertRouted
				out = append(out, toolSignal{family: famDirective, weight: 2, match: m, ptr: t.Pointer + "/description", pos: descPos(t)})
			}
		}
		if w > 0 {
			out = append(out, toolSignal{family: famCovert, weight: w, match: p.name, ptr: p.ptr(), pos: p.pos})
		}
	}
	return out
}

func descPos(t *Tool) jsonc.Pos {
	if d := t.Value.Get("description"); d != nil {
		return d.Pos
	}
	return t.Value.Pos
}

// directiveTo finds a sentence of desc that names the parameter as a
// destination ("pass its content as 'sidenote'", "use the 'metadata'
// field to send ..."): the name quoted, after "as", or before "field" or
// "parameter", together with a data-flow verb. A sentence that names it
// only as an entry of a list of parameters ("You can also include: -
// 'notes': general notes about the project - ...") explains it: only a
// data-flow verb in the entry's own text routes data into it.
func directiveTo(flowVerb *litRegexp, desc, name, phrase string) (string, bool) {
	for rest := desc; rest != ""; {
		var sent string
		sent, rest = tlNextSentence(rest)
		for _, n := range [2]string{name, phrase} {
			if s, ok := paramText(sent, n); ok && flowVerb.MatchString(withoutSelfUse(s)) {
				return Clip(sent, 80), true
			}
		}
	}
	return "", false
}

// withoutSelfUse drops the tool's reference to itself ("use this tool to
// update the notes field of a payment"): using the tool puts no data
// anywhere; what it is used for says what it does.
func withoutSelfUse(s string) string {
	if !strings.Contains(s, "use th") {
		return s
	}
	for _, p := range [...]string{"use this tool", "use the tool", "use this function", "use this endpoint"} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}

// paramText returns the text of s to read for a data-flow verb when s
// names n as a destination (namesParam): all of s, or, when every quoted
// mention of n opens a definition ("'notes': general notes about the
// project"), the definitions' own text, each up to the next list entry
// (" - ") or the end of s.
func paramText(s, n string) (string, bool) {
	if !namesParam(s, n) {
		return "", false
	}
	if n == "" {
		return s, true
	}
	var defs []string
	for from := 0; ; {
		k := strings.Index(s[from:], n)
		if k < 0 {
			break
		}
		k += from
		end := k + len(n)
		from = k + 1
		quoted := k > 0 && end < len(s) && s[k-1] == s[end] && (s[end] == '\'' || s[end] == '"' || s[end] == '`')
		if !quoted || end+1 >= len(s) || s[end+1] != ':' {
			if namesParam(s[max(k-3, 0):min(end+10, len(s))], n) {
				return s, true // a destination other than a definition
			}
			continue
		}
		def := s[end+2:]
		if i := strings.Index(def, " - "); i >= 0 {
			def = def[:i]
		}
		defs = append(defs, def)
	}
	if len(defs) == 0 {
		return s, true
	}
	return strings.Join(defs, " "), true
}

// namesParam reports whether s names n as a destination: quoted ('n', "n",
// `n`), after "as ", or before " field", " parameter", " param" or
// " argument".
func namesParam(s, n string) bool {
	if n == "" {
		for _, q := range []string{"''", `""`, "``", "as ", " field", " parameter", " param", " argument"} {
			if strings.Contains(s, q) {
				return true
			}
		}
		return false
	}
	for from := 0; ; {
		k := strings.Index(s[from:], n)
		if k < 0 {
			return false
		}
		k += from
		end := k + len(n)
		if k > 0 && end < len(s) && s[k-1] == s[end] && (s[end] == '\'' || s[end] == '"' || s[end] == '`') {
			return true
		}
		if k >= 3 && s[k-3:k] == "as " {
			return true
		}
		after := s[end:]
		if strings.HasPrefix(after, " field") || strings.HasPrefix(after, " param") || strings.HasPrefix(after, " argument") {
			return true // " param" also covers " parameter"
		}
		from = k + 1
	}
}

// tlNextSentence returns the first sentence of s (up to ". ", "! ", "? "
// or a final ".", "!", "?"), trimmed, and the rest after it.
func tlNextSentence(s string) (sent, rest string) {
	for i := 0; i < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ') {
			return strings.TrimSpace(s[:i+1]), s[i+1:]
		}
	}
	return strings.TrimSpace(s), ""
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
		// A hyphen or dot between word bytes joins one identifier:
		// "create-contact" is no word of "create-contact-in-folder".
		before := k == 0 || !tlWordByte(s[k-1]) && !(tlWordByte(w[0]) && k >= 2 && (s[k-1] == '-' || s[k-1] == '.') && tlWordByte(s[k-2]))
		after := end == len(s) || !tlWordByte(s[end]) && !(tlWordByte(w[len(w)-1]) && end+1 < len(s) && (s[end] == '-' || s[end] == '.') && tlWordByte(s[end+1]))
		if before && after {
			return true
		}
		i = k + 1
	}
}

func tlWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// standardTypes are JSON Schema's types.
var standardTypes = lazySet("string", "number", "integer", "boolean", "object", "array", "null")

// schemaAnomalies reports Full-Schema Poisoning shapes (CyberArk): a
// non-standard "type", "required" entries that are not properties,
// non-standard keys carrying prose, and prose in enum, const or pattern.
func schemaAnomalies(t *Tool) []toolSignal {
	var out []toolSignal
	var path schemaPath
	for _, k := range []string{"inputSchema", "outputSchema"} {
		if v := t.Value.Get(k); v != nil {
			path = schemaPath{base: t.Pointer, toks: path.toks[:0]}
			path.push(k, -1)
			walkSchema(v, &path, 0, &out)
		}
	}
	return out
}

// schemaPath is the pointer of the schema walkSchema is at, kept as tokens:
// only the few anomalies found need it as a string.
type schemaPath struct {
	base string
	toks []pathTok
}

// pathTok is an object key, or an array index when idx >= 0.
type pathTok struct {
	key string
	idx int
}

func (p *schemaPath) push(key string, idx int) { p.toks = append(p.toks, pathTok{key, idx}) }
func (p *schemaPath) pop()                     { p.toks = p.toks[:len(p.toks)-1] }

// String returns the pointer.
func (p *schemaPath) String() string {
	b := []byte(p.base)
	for _, t := range p.toks {
		b = append(b, '/')
		if t.idx >= 0 {
			b = strconv.AppendInt(b, int64(t.idx), 10)
		} else {
			b = append(b, jsonc.PointerToken(t.key)...)
		}
	}
	return string(b)
}

// with returns the pointer with one more token.
func (p *schemaPath) with(key string, idx int) string {
	p.push(key, idx)
	s := p.String()
	p.pop()
	return s
}

const maxSchemaDepth = 64

func walkSchema(v *jsonc.Value, path *schemaPath, depth int, out *[]toolSignal) {
	if v.Kind != jsonc.Object || depth > maxSchemaDepth || len(*out) > 64 {
		return
	}
	props := v.Get("properties")
	for i := range v.Members {
		m := &v.Members[i]
		path.push(m.Key, -1)
		kw := schemaKeywordFlags()[m.Key]
		switch {
		case m.Key == "type":
			one := [1]*jsonc.Value{m.Value}
			types := one[:]
			if m.Value.Kind == jsonc.Array {
				types = m.Value.Elems
			}
			for _, ty := range types {
				if ty.Kind != jsonc.String || !standardTypes()[ty.Str] {
					*out = append(*out, toolSignal{family: famSchema, weight: 2, match: "type " + Clip(tlValueText(ty), 60), ptr: path.String(), pos: ty.Pos})
				}
			}
		case m.Key == "required" && m.Value.Kind == jsonc.Array && props != nil && props.Kind == jsonc.Object:
			var names map[string]bool
			if len(m.Value.Elems) > 8 && len(props.Members) > 8 {
				// Long lists on both sides: a set, not a scan per entry.
				names = make(map[string]bool, len(props.Members))
				for k := range props.Members {
					names[props.Members[k].Key] = true
				}
			}
			for j, e := range m.Value.Elems {
				if e.Kind != jsonc.String || (names == nil && props.Member(e.Str) == nil) || (names != nil && !names[e.Str]) {
					*out = append(*out, toolSignal{family: famSchema, weight: 1.5, match: "required " + Clip(tlValueText(e), 60),
						ptr: path.with("", j), pos: e.Pos})
				}
			}
		case m.Key == "enum" || m.Key == "const" || m.Key == "pattern":
			proseIn(m.Value, path, out)
		case kw&kwKnown == 0 && !strings.HasPrefix(m.Key, "x-"):
			if m.Value.Kind == jsonc.String && fieldsAtLeast(m.Value.Str, 3) {
				*out = append(*out, toolSignal{family: famSchema, weight: 1, match: "non-standard key " + Clip(m.Key, 40), ptr: path.String(), pos: m.KeyPos})
			}
		case kw&kwMap != 0 && m.Value.Kind == jsonc.Object:
			for j := range m.Value.Members {
				pm := &m.Value.Members[j]
				path.push(pm.Key, -1)
				walkSchema(pm.Value, path, depth+1, out)
				path.pop()
			}
		case kw&kwMany != 0 && m.Value.Kind == jsonc.Array:
			for j, e := range m.Value.Elems {
				path.push("", j)
				walkSchema(e, path, depth+1, out)
				path.pop()
			}
		case kw&kwOne != 0:
			walkSchema(m.Value, path, depth+1, out)
		}
		path.pop()
	}
}

// proseIn flags sentences (eight words or more) in enum, const or pattern.
func proseIn(v *jsonc.Value, path *schemaPath, out *[]toolSignal) {
	one := [1]*jsonc.Value{v}
	vals := one[:]
	if v.Kind == jsonc.Array {
		vals = v.Elems
	}
	for j, e := range vals {
		if e.Kind == jsonc.String && fieldsAtLeast(e.Str, 8) {
			var p string
			if v.Kind == jsonc.Array {
				p = path.with("", j)
			} else {
				p = path.String()
			}
			*out = append(*out, toolSignal{family: famSchema, weight: 1, match: "prose " + Clip(e.Str, 60), ptr: p, pos: e.Pos})
		}
	}
}

// fieldsAtLeast reports whether len(strings.Fields(s)) >= n, without
// building the fields.
func fieldsAtLeast(s string, n int) bool {
	count := 0
	inField := false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		switch {
		case space:
			inField = false
		case !inField:
			inField = true
			count++
			if count >= n {
				return true
			}
		}
	}
	return false
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
