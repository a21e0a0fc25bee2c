package scanner

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// textRole says where in a tool a string sits.
type textRole uint8

const (
	roleOther       textRole = iota
	roleName                 // /name
	roleTitle                // /title
	roleDescription          // /description
	roleAnnTitle             // /annotations/title
	roleParamName            // a key of a schema's "properties"
	roleSchemaText           // description, title, $comment of a schema
	roleSchemaValue          // enum, const, default, examples, pattern values
	roleRequired             // an entry of a schema's "required"
	roleKey                  // any other object key
	roleMeta                 // anything under _meta
)

// toolText is one string value or object key of a tool.
type toolText struct {
	ptr  string
	text string
	role textRole
	pos  jsonc.Pos
	key  bool
	// view is the matching view (see matchView), computed once.
	view string
}

// schemaKeywords are the JSON Schema keywords of drafts 4 to 2020-12, plus
// widespread vendor annotations (OpenAPI, VS Code, Pydantic, zod, Google).
// Other keys inside a schema are non-standard: models read them as prose
// (CyberArk's Full-Schema Poisoning).
var schemaKeywords = tlSet(strings.Fields(`
	$schema $id id $ref $defs definitions $anchor $dynamicRef $dynamicAnchor $vocabulary $comment $recursiveRef $recursiveAnchor
	type enum const default examples title description readOnly writeOnly deprecated format contentEncoding contentMediaType contentSchema
	properties patternProperties additionalProperties propertyNames required dependentRequired dependentSchemas dependencies
	unevaluatedProperties unevaluatedItems minProperties maxProperties
	items prefixItems additionalItems contains minContains maxContains minItems maxItems uniqueItems
	allOf anyOf oneOf not if then else
	minimum maximum exclusiveMinimum exclusiveMaximum multipleOf minLength maxLength pattern
	nullable example discriminator xml externalDocs
	markdownDescription enumDescriptions markdownEnumDescriptions deprecationMessage errorMessage doNotSuggest defaultSnippets patternErrorMessage
	propertyOrdering strict
`))

func tlSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// schemaMaps are keywords whose value maps names to schemas; schemaOne
// hold one schema; schemaMany an array of schemas.
var (
	schemaMaps = tlSet([]string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"})
	schemaOne  = tlSet([]string{"additionalProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "items",
		"additionalItems", "contains", "not", "if", "then", "else", "contentSchema"})
	schemaMany = tlSet([]string{"allOf", "anyOf", "oneOf", "prefixItems", "items"})
	valueWords = tlSet([]string{"enum", "const", "default", "examples", "example", "pattern"})
)

// collectTexts lists every string value and object key of the tool object,
// with roles. Traversal is bounded by the document (jsonc caps depth).
func collectTexts(t *ToolInfo) []toolText {
	var out []toolText
	c := &textCollector{out: &out}
	for i := range t.Value.Members {
		m := &t.Value.Members[i]
		ptr := t.Pointer + "/" + jsonc.PointerToken(m.Key)
		c.key(m.Key, ptr, m.KeyPos, roleKey)
		switch m.Key {
		case "name":
			c.value(m.Value, ptr, roleName)
		case "title":
			c.value(m.Value, ptr, roleTitle)
		case "description":
			c.value(m.Value, ptr, roleDescription)
		case "inputSchema", "outputSchema":
			c.schema(m.Value, ptr, 0)
		case "annotations":
			if m.Value.Kind == jsonc.Object {
				for j := range m.Value.Members {
					am := &m.Value.Members[j]
					aptr := ptr + "/" + jsonc.PointerToken(am.Key)
					c.key(am.Key, aptr, am.KeyPos, roleKey)
					role := roleOther
					if am.Key == "title" {
						role = roleAnnTitle
					}
					c.value(am.Value, aptr, role)
				}
			} else {
				c.value(m.Value, ptr, roleOther)
			}
		case "_meta":
			c.value(m.Value, ptr, roleMeta)
		default:
			c.value(m.Value, ptr, roleOther)
		}
	}
	return out
}

type textCollector struct {
	out *[]toolText
}

func (c *textCollector) add(s, ptr string, p jsonc.Pos, role textRole, key bool) {
	if s == "" {
		return
	}
	*c.out = append(*c.out, toolText{ptr: ptr, text: s, role: role, pos: p, key: key})
}

// key records an object key. Only keys that are not plain schema or MCP
// vocabulary carry meaning worth matching; they are all recorded, roles
// tell them apart.
func (c *textCollector) key(k, ptr string, p jsonc.Pos, role textRole) {
	c.add(k, ptr, p, role, true)
}

// value records every string under v with one role; objects' keys become
// roleKey texts (roleMeta under _meta).
func (c *textCollector) value(v *jsonc.Value, ptr string, role textRole) {
	switch v.Kind {
	case jsonc.String:
		c.add(v.Str, ptr, v.Pos, role, false)
	case jsonc.Array:
		for i, e := range v.Elems {
			c.value(e, ptr+"/"+tlItoa(i), role)
		}
	case jsonc.Object:
		keyRole := roleKey
		if role == roleMeta {
			keyRole = roleMeta
		}
		for i := range v.Members {
			m := &v.Members[i]
			mptr := ptr + "/" + jsonc.PointerToken(m.Key)
			c.key(m.Key, mptr, m.KeyPos, keyRole)
			c.value(m.Value, mptr, role)
		}
	}
}

// schema walks a JSON Schema, giving property names, prose and values
// their roles.
func (c *textCollector) schema(v *jsonc.Value, ptr string, depth int) {
	if v.Kind != jsonc.Object {
		c.value(v, ptr, roleSchemaValue)
		return
	}
	for i := range v.Members {
		m := &v.Members[i]
		mptr := ptr + "/" + jsonc.PointerToken(m.Key)
		if !schemaKeywords[m.Key] {
			c.key(m.Key, mptr, m.KeyPos, roleKey)
			c.value(m.Value, mptr, roleSchemaText)
			continue
		}
		switch {
		case schemaMaps[m.Key] && m.Value.Kind == jsonc.Object:
			for j := range m.Value.Members {
				pm := &m.Value.Members[j]
				pptr := mptr + "/" + jsonc.PointerToken(pm.Key)
				role := roleKey
				if m.Key == "properties" {
					role = roleParamName
				}
				c.key(pm.Key, pptr, pm.KeyPos, role)
				c.schema(pm.Value, pptr, depth+1)
			}
		case schemaMany[m.Key] && m.Value.Kind == jsonc.Array:
			for j, e := range m.Value.Elems {
				c.schema(e, mptr+"/"+tlItoa(j), depth+1)
			}
		case schemaOne[m.Key] && m.Value.Kind == jsonc.Object:
			c.schema(m.Value, mptr, depth+1)
		case m.Key == "description" || m.Key == "title" || m.Key == "$comment" || m.Key == "markdownDescription" ||
			m.Key == "deprecationMessage" || m.Key == "errorMessage" || m.Key == "patternErrorMessage":
			c.value(m.Value, mptr, roleSchemaText)
		case m.Key == "required":
			c.value(m.Value, mptr, roleRequired)
		case valueWords[m.Key]:
			c.value(m.Value, mptr, roleSchemaValue)
		default:
			c.value(m.Value, mptr, roleSchemaValue)
		}
	}
}

func tlItoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	return string(b[n:])
}

// matchView is the text the phrase heuristics read (threats.md §0 rule 1):
// the analysis view (NFKC, case-folded, invisible characters removed, exotic
// spaces as U+0020), with letters that are confusable with ASCII letters
// (Cyrillic "і", Greek "ο") replaced by them, and whitespace runs collapsed
// to one space. It is never shown or forwarded.
func matchView(s string) string {
	a := mcpunicode.Analysis(s)
	ascii := true
	for i := 0; i < len(a); i++ {
		if a[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var b strings.Builder
	b.Grow(len(a))
	space := false
	for _, r := range a {
		if unicode.IsSpace(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		if !ascii && r >= 0x80 && r < 0x2000 {
			if sk := mcpunicode.Skeleton(string(r)); len(sk) > 0 && len(sk) <= 3 && tlASCIIWord(sk) {
				b.WriteString(strings.ToLower(sk))
				continue
			}
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

func tlASCIIWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// splitIdent splits an identifier into lower-case words: snake_case,
// kebab-case, dotted, camelCase and PascalCase, acronyms ("HTTPServer" →
// "http", "server") and letter/digit boundaries. Humps are found on the
// output view (before case folding); each word is then read through the
// analysis view, so fullwidth and math letters split like ASCII.
func splitIdent(s string) []string {
	s = mcpunicode.Sanitize(s)
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, tlWords(mcpunicode.Analysis(string(cur)))...)
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// splitWords splits text into lower-case words of letters and digits.
func tlWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// identKey is the comparison form of a tool name for shadowing: the
// analysis view with every separator removed ("read_file", "readFile",
// "READ-FILE" → "readfile").
func identKey(name string) string {
	return strings.Join(splitIdent(name), "")
}

// sentences splits a match view into sentences at ". ", "! ", "? ", ";"
// and line breaks (the match view has none; callers split raw text first).
func tlFirstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '!', '?', ';':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' {
				return s[:i]
			}
		case '\n':
			if i > 0 {
				return s[:i]
			}
		}
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}
