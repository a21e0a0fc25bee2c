package toolcheck

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

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

// toolText is one string value or object key of a tool. Its JSON pointer
// is a span of the collector's buffer, made a string only where it is
// kept (textCollector.pointer): a listing has tens of thousands of texts
// and findings on a few.
type toolText struct {
	span ptrSpan
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
var schemaKeywords = lazyWordSet(`
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
`)

// lazyWordSet is the set of the whitespace-separated words, built on first
// use (the package builds nothing at initialisation: see doc.go).
func lazyWordSet(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool { return tlSet(strings.Fields(words)) })
}

// lazySet is the set of list, built on first use.
func lazySet(list ...string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool { return tlSet(list) })
}

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
	schemaMaps = lazySet("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
	schemaOne  = lazySet("additionalProperties", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "items",
		"additionalItems", "contains", "not", "if", "then", "else", "contentSchema")
	schemaMany = lazySet("allOf", "anyOf", "oneOf", "prefixItems", "items")
	valueWords = lazySet("enum", "const", "default", "examples", "example", "pattern")
)

// kwFlags say which of the keyword sets above a key is in.
type kwFlags uint8

const (
	kwKnown kwFlags = 1 << iota // schemaKeywords
	kwMap                       // schemaMaps
	kwOne                       // schemaOne
	kwMany                      // schemaMany
	kwValue                     // valueWords
)

// schemaKeywordFlags answers for every schema member with one lookup what
// the sets answer with up to five.
var schemaKeywordFlags = sync.OnceValue(func() map[string]kwFlags {
	m := map[string]kwFlags{}
	for _, set := range []struct {
		words map[string]bool
		flag  kwFlags
	}{{schemaKeywords(), kwKnown}, {schemaMaps(), kwMap}, {schemaOne(), kwOne}, {schemaMany(), kwMany}, {valueWords(), kwValue}} {
		for w := range set.words {
			m[w] |= set.flag
		}
	}
	return m
})

// collectTexts lists every string value and object key of the tool object,
// with roles. Traversal is bounded by the document (jsonc caps depth). The
// result is valid until the next call.
//
// A tool has thousands of texts in a large schema, each with a pointer
// that extends its parent's. The pointers are written to one byte buffer
// (c.buf, reused from tool to tool), and each text holds its span.
func (c *textCollector) collectTexts(t *Tool) []toolText {
	c.buf, c.texts = c.buf[:0], c.texts[:0]
	c.buf = append(c.buf, t.Pointer...)
	root := ptrSpan{0, len(c.buf)}
	for i := range t.Value.Members {
		m := &t.Value.Members[i]
		ptr := c.child(root, m.Key)
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
					aptr := c.child(ptr, am.Key)
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
	if len(c.texts) == 0 {
		return nil
	}
	return c.texts
}

// textCollector is collectTexts' state, reused across the tools of one
// analysis: the texts it returns, and their pointers, are valid until its
// next call.
type textCollector struct {
	buf   []byte // pointers
	texts []toolText
}

// ptrSpan is a pointer collected in c.buf[start:end].
type ptrSpan struct{ start, end int }

// pointer returns the JSON pointer of a text of the last collectTexts.
func (c *textCollector) pointer(tx *toolText) string {
	return string(c.buf[tx.span.start:tx.span.end])
}

// pointerIs reports whether a text of the last collectTexts is at ptr.
func (c *textCollector) pointerIs(tx *toolText, ptr string) bool {
	return string(c.buf[tx.span.start:tx.span.end]) == ptr
}

// child returns the pointer of the member key of the value at parent.
func (c *textCollector) child(parent ptrSpan, key string) ptrSpan {
	start := len(c.buf)
	c.buf = append(c.buf, c.buf[parent.start:parent.end]...)
	c.buf = append(c.buf, '/')
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '~':
			c.buf = append(c.buf, '~', '0')
		case '/':
			c.buf = append(c.buf, '~', '1')
		default:
			c.buf = append(c.buf, key[i])
		}
	}
	return ptrSpan{start, len(c.buf)}
}

// elem returns the pointer of the i-th element of the array at parent.
func (c *textCollector) elem(parent ptrSpan, i int) ptrSpan {
	start := len(c.buf)
	c.buf = append(c.buf, c.buf[parent.start:parent.end]...)
	c.buf = append(c.buf, '/')
	c.buf = strconv.AppendInt(c.buf, int64(i), 10)
	return ptrSpan{start, len(c.buf)}
}

func (c *textCollector) add(s string, ptr ptrSpan, p jsonc.Pos, role textRole, key bool) {
	if s == "" {
		return
	}
	c.texts = append(c.texts, toolText{span: ptr, text: s, role: role, pos: p, key: key})
}

// key records an object key. Only keys that are not plain schema or MCP
// vocabulary carry meaning worth matching; they are all recorded, roles
// tell them apart.
func (c *textCollector) key(k string, ptr ptrSpan, p jsonc.Pos, role textRole) {
	c.add(k, ptr, p, role, true)
}

// value records every string under v with one role; objects' keys become
// roleKey texts (roleMeta under _meta).
func (c *textCollector) value(v *jsonc.Value, ptr ptrSpan, role textRole) {
	switch v.Kind {
	case jsonc.String:
		c.add(v.Str, ptr, v.Pos, role, false)
	case jsonc.Array:
		for i, e := range v.Elems {
			c.value(e, c.elem(ptr, i), role)
		}
	case jsonc.Object:
		keyRole := roleKey
		if role == roleMeta {
			keyRole = roleMeta
		}
		for i := range v.Members {
			m := &v.Members[i]
			mptr := c.child(ptr, m.Key)
			c.key(m.Key, mptr, m.KeyPos, keyRole)
			c.value(m.Value, mptr, role)
		}
	}
}

// schema walks a JSON Schema, giving property names, prose and values
// their roles.
func (c *textCollector) schema(v *jsonc.Value, ptr ptrSpan, depth int) {
	if v.Kind != jsonc.Object {
		c.value(v, ptr, roleSchemaValue)
		return
	}
	for i := range v.Members {
		m := &v.Members[i]
		mptr := c.child(ptr, m.Key)
		kw := schemaKeywordFlags()[m.Key]
		if kw&kwKnown == 0 {
			c.key(m.Key, mptr, m.KeyPos, roleKey)
			c.value(m.Value, mptr, roleSchemaText)
			continue
		}
		switch {
		case kw&kwMap != 0 && m.Value.Kind == jsonc.Object:
			for j := range m.Value.Members {
				pm := &m.Value.Members[j]
				pptr := c.child(mptr, pm.Key)
				role := roleKey
				if m.Key == "properties" {
					role = roleParamName
				}
				c.key(pm.Key, pptr, pm.KeyPos, role)
				c.schema(pm.Value, pptr, depth+1)
			}
		case kw&kwMany != 0 && m.Value.Kind == jsonc.Array:
			for j, e := range m.Value.Elems {
				c.schema(e, c.elem(mptr, j), depth+1)
			}
		case kw&kwOne != 0 && m.Value.Kind == jsonc.Object:
			c.schema(m.Value, mptr, depth+1)
		case m.Key == "description" || m.Key == "title" || m.Key == "$comment" || m.Key == "markdownDescription" ||
			m.Key == "deprecationMessage" || m.Key == "errorMessage" || m.Key == "patternErrorMessage":
			c.value(m.Value, mptr, roleSchemaText)
		case m.Key == "required":
			c.value(m.Value, mptr, roleRequired)
		case kw&kwValue != 0:
			c.value(m.Value, mptr, roleSchemaValue)
		default:
			c.value(m.Value, mptr, roleSchemaValue)
		}
	}
}

// matchView is the text the phrase heuristics read (threats.md §0 rule 1):
// the analysis view (NFKC, case-folded, invisible characters removed, exotic
// spaces as U+0020), with letters that are confusable with ASCII letters
// (Cyrillic "і", Greek "ο") replaced by them, and whitespace runs collapsed
// to one space. It is never shown or forwarded.
func matchView(s string) string {
	if tlPrintableASCII(s) {
		// Analysis lower-cases printable ASCII; do that while collapsing.
		return collapseASCIISpace(s, true)
	}
	a := mcpunicode.Analysis(s)
	if tlIsASCII(a) {
		return collapseASCIISpace(a, false)
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
		if r >= 0x80 && r < 0x2000 {
			if f := asciiFold(r); f != "" {
				b.WriteString(f)
				continue
			}
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

// asciiFoldTable holds, per rune of U+0080..U+1FFF, what asciiFold
// returns for it, made on the rune's first use.
type asciiFoldTable [0x2000 - 0x80]atomic.Pointer[string]

var asciiFolds = sync.OnceValue(func() *asciiFoldTable { return new(asciiFoldTable) })

// asciiFold returns the lower-cased ASCII letters matchView writes for a
// rune r of U+0080..U+1FFF whose TR39 skeleton is 1 to 3 ASCII letters or
// digits, or "". The skeleton of a rune never changes, so it is computed
// once per rune (two NFD passes and a builder each time were a tenth of a
// non-English listing's analysis); two goroutines may both compute it and
// store the same string.
func asciiFold(r rune) string {
	p := &asciiFolds()[r-0x80]
	if f := p.Load(); f != nil {
		return *f
	}
	f := ""
	if sk := mcpunicode.Skeleton(string(r)); len(sk) > 0 && len(sk) <= 3 && tlASCIIWord(sk) {
		f = strings.ToLower(sk)
	}
	p.Store(&f)
	return f
}

// collapseASCIISpace is matchView's whitespace rule for ASCII text: runs of
// white space (unicode.IsSpace: TAB, LF, VT, FF, CR and space) become one
// space, none at either end; lower also lower-cases letters. Text that
// needs no change is returned as is.
func collapseASCIISpace(a string, lower bool) string {
	clean := true
	prevSpace := true // a leading space needs a change
	for i := 0; i < len(a) && clean; i++ {
		switch c := a[i]; {
		case c == ' ':
			clean = !prevSpace
			prevSpace = true
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			clean = false
		case lower && 'A' <= c && c <= 'Z':
			clean = false
		default:
			prevSpace = false
		}
	}
	if clean && (len(a) == 0 || !prevSpace) {
		return a
	}
	b := make([]byte, 0, len(a))
	space := false
	for i := 0; i < len(a); i++ {
		switch c := a[i]; c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			if !space && len(b) > 0 {
				b = append(b, ' ')
			}
			space = true
		default:
			if lower && 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			space = false
			b = append(b, c)
		}
	}
	for len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return string(b)
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
	if tlPrintableASCII(s) {
		return splitIdentASCII(s)
	}
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

// tlPrintableASCII reports whether s holds only printable ASCII, TAB and
// LF: text that Sanitize returns unchanged and Analysis only lower-cases.
func tlPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t' && c != '\n') || c >= 0x7F {
			return false
		}
	}
	return true
}

// splitIdentASCII is splitIdent for printable ASCII: the same humps, with
// ASCII letter and digit classes, and each word (letters and digits only,
// which Analysis lower-cases and tlWords keeps whole) a slice of the
// lower-cased identifier.
func splitIdentASCII(s string) []string {
	lower := strings.ToLower(s)
	var words []string
	start := -1 // start of the current word, -1 for none
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIIAlnum(c) {
			if start >= 0 {
				words = append(words, lower[start:i])
				start = -1
			}
			continue
		}
		switch {
		case start < 0:
			start = i
		case identBreak(s, i):
			words = append(words, lower[start:i])
			start = i
		}
	}
	if start >= 0 {
		words = append(words, lower[start:])
	}
	return words
}

func isASCIIUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isASCIILower(c byte) bool { return 'a' <= c && c <= 'z' }
func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }
func isASCIIAlnum(c byte) bool { return isASCIIUpper(c) || isASCIILower(c) || isASCIIDigit(c) }

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
	if tlPrintableASCII(name) {
		return joinIdentASCII(name, false)
	}
	return strings.Join(splitIdent(name), "")
}

// appendIdentKeyASCII appends identKey(s) of printable ASCII s to dst:
// its letters and digits, lower-cased (joinIdentASCII without spaces).
func appendIdentKeyASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isASCIIUpper(c):
			dst = append(dst, c+'a'-'A')
		case isASCIILower(c) || isASCIIDigit(c):
			dst = append(dst, c)
		}
	}
	return dst
}

// identView is the match view of an identifier: its words joined by
// spaces ("content_from_reading_ssh_id_rsa" → "content from reading ssh id
// rsa"), "" when it has none.
func identView(s string) string {
	var v string
	if tlPrintableASCII(s) {
		v = joinIdentASCII(s, true)
	} else {
		v = strings.Join(splitIdent(s), " ")
	}
	return dotWords(v)
}

// dotWords spells the word "dot" before another as the dot an identifier
// cannot hold ("contents_of_dot_npmrc" → "contents of .npmrc"), so that a
// dot-file named in a key reads as the file.
func dotWords(v string) string {
	if !strings.HasPrefix(v, "dot ") && !strings.Contains(v, " dot ") {
		return v
	}
	w := strings.Fields(v)
	out := w[:0]
	for i := 0; i < len(w); i++ {
		if w[i] == "dot" && i+1 < len(w) {
			out = append(out, "."+w[i+1])
			i++
			continue
		}
		out = append(out, w[i])
	}
	return strings.Join(out, " ")
}

// joinIdentASCII is strings.Join(splitIdentASCII(s), sep) with sep a space
// (or nothing), without the slice of words: s itself when it is already
// that.
func joinIdentASCII(s string, space bool) string {
	same := len(s) > 0
	for i := 0; i < len(s) && same; i++ {
		c := s[i]
		switch {
		case !isASCIILower(c) && !isASCIIDigit(c):
			same = false
		case space && i > 0 && isASCIIDigit(c) != isASCIIDigit(s[i-1]):
			same = false // "v2" reads "v 2"
		}
	}
	if same {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	start := -1 // start of the current word, -1 for none
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIIAlnum(c) {
			start = -1
			continue
		}
		if start < 0 || identBreak(s, i) {
			if len(b) > 0 && space {
				b = append(b, ' ')
			}
			start = i
		}
		if isASCIIUpper(c) {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// identBreak reports whether a new word starts at s[i], a letter or digit
// after another (splitIdent's humps, in ASCII).
func identBreak(s string, i int) bool {
	c, prev := s[i], s[i-1]
	return isASCIIUpper(c) && isASCIILower(prev) ||
		isASCIIUpper(c) && isASCIIUpper(prev) && i+1 < len(s) && isASCIILower(s[i+1]) ||
		isASCIIDigit(c) != isASCIIDigit(prev)
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

// toolCache holds what several rules of one tool read: the match views of
// its description and titles (poisoning, annotations, size), its split
// name and its parameters. reset empties it for the next tool.
type toolCache struct {
	keys, views [4]string
	n           int
	words       []string
	haveWords   bool
	paramList   []toolParam
	haveParams  bool
	// descAux are the auxiliary patterns (phraseScratch.aux) the
	// description's view admits, when haveDescAux.
	descAux     uint32
	haveDescAux bool
	// descSigs are the phrase signals of the description's view (as
	// matchPhrases returned them), when haveDescSigs: the size rules
	// compare them with the part Claude Code keeps.
	descSigs     []toolSignal
	haveDescSigs bool
}

func (c *toolCache) reset() { *c = toolCache{} }

// view returns matchView(s), computed once per tool for the last few
// strings asked for.
func (c *toolCache) view(s string) string {
	for i := 0; i < c.n && i < len(c.keys); i++ {
		if c.keys[i] == s {
			return c.views[i]
		}
	}
	v := matchView(s)
	k := c.n % len(c.keys)
	c.keys[k], c.views[k] = s, v
	c.n++
	return v
}

// nameWords returns splitIdent(t.Name).
func (c *toolCache) nameWords(t *Tool) []string {
	if !c.haveWords {
		c.words, c.haveWords = splitIdent(t.Name), true
	}
	return c.words
}

// params returns toolParams(t); callers must not modify the result.
func (c *toolCache) params(t *Tool) []toolParam {
	if !c.haveParams {
		c.paramList, c.haveParams = toolParams(t), true
	}
	return c.paramList
}

// admits reports whether the description's view may match the auxiliary
// pattern bit: false only when the view was read and lacks its literals.
func (c *toolCache) admits(bit uint32) bool { return !c.haveDescAux || c.descAux&bit != 0 }

// admitted is re.FindString(view) for the description's view and its
// auxiliary pattern bit.
func (c *toolCache) admitted(bit uint32, re *litRegexp, view string) string {
	if !c.admits(bit) {
		return ""
	}
	return re.FindString(view)
}
