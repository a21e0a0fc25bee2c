package jsonc

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "unknown"
}

// Pos is a position in the source: a byte offset and a 1-based line and column.
// Columns count Unicode code points, so they match what editors show for
// non-ASCII text (SARIF columnKind "unicodeCodePoints").
type Pos struct {
	Offset int
	Line   int
	Col    int
}

// Value is one parsed JSON value.
type Value struct {
	Pos     Pos      // position of the first byte of the value
	End     int      // byte offset just past the value
	Str     string   // decoded string, or the literal text of a number
	Elems   []*Value // for Array
	Members []Member // for Object, in source order of each key's first occurrence
	Kind    Kind
	Bool    bool // for Bool
}

// Member is one object member. When a key occurs more than once, the last value
// wins and keeps the position of the first occurrence, as JSON.parse does;
// Dups records the positions of the later occurrences.
type Member struct {
	Key    string
	KeyPos Pos
	Value  *Value
	// dups is behind a pointer: repeated keys are rare, and a member is
	// one of tens of thousands in a large document.
	dups *[]Pos
}

// Dups returns the positions of the later occurrences of the key, if any.
func (m *Member) Dups() []Pos {
	if m.dups == nil {
		return nil
	}
	return *m.dups
}

// addDup records a later occurrence of the key at p.
func (m *Member) addDup(p Pos) {
	if m.dups == nil {
		m.dups = new([]Pos)
	}
	*m.dups = append(*m.dups, p)
}

// Get returns the value of the member with exactly this key, or nil. Matching is
// exact and case-sensitive.
func (v *Value) Get(key string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Member returns the member with exactly this key, or nil.
func (v *Value) Member(key string) *Member {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == key {
			return &v.Members[i]
		}
	}
	return nil
}

// IsString reports whether v is a JSON string.
func (v *Value) IsString() bool { return v != nil && v.Kind == String }

// StringSlice returns the elements of an array of strings. ok is false when v is
// not an array or holds anything but strings.
func (v *Value) StringSlice() (out []string, ok bool) {
	if v == nil || v.Kind != Array {
		return nil, false
	}
	out = make([]string, 0, len(v.Elems))
	for _, e := range v.Elems {
		if e.Kind != String {
			return nil, false
		}
		out = append(out, e.Str)
	}
	return out, true
}

// Interface converts v into the shapes encoding/json produces (map[string]any,
// []any, string, float64 via json.Number text kept as string is avoided: numbers
// become float64 when they fit, else their literal text).
func (v *Value) Interface() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Bool
	case Number:
		if f, err := strconv.ParseFloat(v.Str, 64); err == nil {
			return f
		}
		return v.Str
	case String:
		return v.Str
	case Array:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = e.Interface()
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = m.Value.Interface()
		}
		return out
	}
	return nil
}

// Options selects the dialect.
type Options struct {
	// JSONC allows // and /* */ comments and trailing commas in objects and
	// arrays, as VS Code, Zed and Cursor do.
	JSONC bool
	// MaxDepth caps nesting; 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxValues caps the values of the document and MaxElements the
	// elements or members of one array or object; 0 means no cap. A
	// document past either is refused as soon as the parser gets there, at
	// the cost of what it read so far.
	MaxValues, MaxElements int
	// Element, when set, is called on the parser's goroutine with each
	// complete element of an array, as soon as it is parsed: the key of
	// the member the array is the value of ("" for an array in an array
	// or at the top), the array's nesting depth (1 at the top) and the
	// element, which the parser does not change afterwards. Consumers
	// on other goroutines may read the element from then on.
	Element func(key string, depth int, elem *Value)
}

// DefaultMaxDepth bounds nesting so that hostile input cannot exhaust the stack.
const DefaultMaxDepth = 512

// SyntaxError is a positioned parse error.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }

// Warning is a problem that does not stop parsing, such as invalid UTF-8 (which
// is decoded to U+FFFD, as Node.js does when it reads the file).
type Warning struct {
	Pos Pos
	Msg string
}

// Parse parses one JSON document. It never panics; malformed input gives a
// *SyntaxError. A leading UTF-8 byte order mark is skipped.
func Parse(data []byte, opts Options) (*Value, []Warning, error) {
	p := &parser{data: data, opts: opts, line: 1, lineStart: 0}
	if p.opts.MaxDepth <= 0 {
		p.opts.MaxDepth = DefaultMaxDepth
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.off = 3
		p.lineStart = 3
	}
	v, err := p.document()
	return v, p.warnings, err
}

type parser struct {
	data      []byte
	opts      Options
	off       int
	line      int
	lineStart int // offset of the first byte of the current line
	depth     int
	values    int
	warnings  []Warning

	// Column cache: the rune count of the current line up to colOff, so that
	// positions on a single huge line (minified JSON) cost O(n) in total.
	colOff   int
	colRunes int

	// Allocation: values come from slabs, and the members and elements of
	// the containers being parsed from shared stacks copied out at each
	// container's end, so a document costs a few large allocations instead
	// of one per value and a growing slice per container (tool lists of
	// megabytes are parsed on the proxy's hot path).
	slab    []Value
	members []Member
	elems   []*Value
	keys    map[string]string // interned object keys: schemas repeat a few

	memberKey string // the key of the member whose value is being parsed (Options.Element)
}

// newValue returns a zeroed value from the current slab.
func (p *parser) newValue(kind Kind, start Pos) *Value {
	if len(p.slab) == cap(p.slab) {
		n := 2 * cap(p.slab)
		if n < 8 {
			n = 8
		}
		if n > 1024 {
			n = 1024
		}
		p.slab = make([]Value, 0, n)
	}
	p.slab = p.slab[:len(p.slab)+1]
	v := &p.slab[len(p.slab)-1]
	v.Kind, v.Pos = kind, start
	return v
}

// maxInternedKey bounds the keys worth interning, and maxInternedKeys the
// table, so that a document of unique keys costs no more than without it.
const (
	maxInternedKey  = 32
	maxInternedKeys = 4096
)

// pos returns the position of byte offset off, which must be on the current line.
func (p *parser) posAt(off int) Pos {
	if p.colOff < p.lineStart || p.colOff > off {
		p.colOff, p.colRunes = p.lineStart, 0
	}
	p.colRunes += utf8.RuneCount(p.data[p.colOff:off])
	p.colOff = off
	return Pos{Offset: off, Line: p.line, Col: 1 + p.colRunes}
}

func (p *parser) pos() Pos { return p.posAt(p.off) }

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Pos: p.pos(), Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) document() (*Value, error) {
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.off >= len(p.data) {
		return nil, p.errorf("unexpected end of input: the file is empty")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.off < len(p.data) {
		return nil, p.errorf("unexpected %s after the top-level value", p.describe())
	}
	return v, nil
}

// describe names the byte at the current offset for error messages.
func (p *parser) describe() string {
	if p.off >= len(p.data) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.data[p.off:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", p.data[p.off])
	}
	return strconv.QuoteRune(r)
}

// space skips whitespace and, in JSONC mode, comments, tracking lines.
func (p *parser) space() error {
	for p.off < len(p.data) {
		switch c := p.data[p.off]; c {
		case ' ', '\t', '\r':
			p.off++
		case '\n':
			p.off++
			p.line++
			p.lineStart = p.off
		case '/':
			if !p.opts.JSONC || p.off+1 >= len(p.data) {
				return p.errorf("unexpected %s", p.describe())
			}
			switch p.data[p.off+1] {
			case '/':
				for p.off < len(p.data) && p.data[p.off] != '\n' {
					p.off++
				}
			case '*':
				start := p.pos()
				p.off += 2
				for {
					if p.off+1 >= len(p.data) {
						return &SyntaxError{Pos: start, Msg: "unterminated block comment"}
					}
					if p.data[p.off] == '*' && p.data[p.off+1] == '/' {
						p.off += 2
						break
					}
					if p.data[p.off] == '\n' {
						p.line++
						p.lineStart = p.off + 1
					}
					p.off++
				}
			default:
				return p.errorf("unexpected %s", p.describe())
			}
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value() (*Value, error) {
	if p.off >= len(p.data) {
		return nil, p.errorf("unexpected end of input, expected a value")
	}
	if p.values++; p.opts.MaxValues > 0 && p.values > p.opts.MaxValues {
		return nil, p.errorf("more than %d values in the document", p.opts.MaxValues)
	}
	start := p.pos()
	switch c := p.data[p.off]; {
	case c == '{':
		return p.object(start)
	case c == '[':
		return p.array(start)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		v := p.newValue(String, start)
		v.End, v.Str = p.off, s
		return v, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number(start)
	case c == 't':
		return p.literal(start, "true", Bool, true)
	case c == 'f':
		return p.literal(start, "false", Bool, false)
	case c == 'n':
		return p.literal(start, "null", Null, false)
	}
	return nil, p.errorf("unexpected %s, expected a value", p.describe())
}

func (p *parser) literal(start Pos, word string, kind Kind, b bool) (*Value, error) {
	if !bytes.HasPrefix(p.data[p.off:], []byte(word)) {
		return nil, p.errorf("invalid literal, expected %q", word)
	}
	p.off += len(word)
	v := p.newValue(kind, start)
	v.End, v.Bool = p.off, b
	return v, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > p.opts.MaxDepth {
		return p.errorf("nesting deeper than %d levels", p.opts.MaxDepth)
	}
	return nil
}

func (p *parser) object(start Pos) (*Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.off++ // {
	v := p.newValue(Object, start)
	base := len(p.members)
	defer func() {
		// On success the members were copied out; on error they are dropped.
		clear(p.members[base:])
		p.members = p.members[:base]
	}()
	var index map[string]int // built lazily: most objects are small
	for first := true; ; first = false {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.off >= len(p.data) {
			return nil, p.errorf("unexpected end of input in object starting at %d:%d", start.Line, start.Col)
		}
		if p.data[p.off] == '}' && (first || p.opts.JSONC) {
			p.off++
			v.End = p.off
			v.Members = p.popMembers(base)
			return v, nil
		}
		if p.data[p.off] != '"' {
			return nil, p.errorf("unexpected %s, expected a string key", p.describe())
		}
		keyPos := p.pos()
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.off >= len(p.data) || p.data[p.off] != ':' {
			return nil, p.errorf("unexpected %s, expected ':' after key %q", p.describe(), key)
		}
		p.off++
		if err := p.space(); err != nil {
			return nil, err
		}
		p.memberKey = key
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		members := p.members[base:]
		if index == nil && len(members) >= 8 {
			index = make(map[string]int, 16)
			for i, m := range members {
				index[m.Key] = i
			}
		}
		dup := -1
		if index != nil {
			if i, ok := index[key]; ok {
				dup = i
			}
		} else {
			for i := range members {
				if members[i].Key == key {
					dup = i
					break
				}
			}
		}
		if dup >= 0 {
			members[dup].Value = val
			members[dup].addDup(keyPos)
		} else {
			if index != nil {
				index[key] = len(members)
			}
			if p.opts.MaxElements > 0 && len(members) >= p.opts.MaxElements {
				return nil, &SyntaxError{Pos: start, Msg: fmt.Sprintf("object of more than %d members", p.opts.MaxElements)}
			}
			p.members = append(p.members, Member{Key: key, KeyPos: keyPos, Value: val})
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.off >= len(p.data) {
			return nil, p.errorf("unexpected end of input in object starting at %d:%d", start.Line, start.Col)
		}
		switch p.data[p.off] {
		case ',':
			p.off++
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.off < len(p.data) && p.data[p.off] == '}' && !p.opts.JSONC {
				return nil, p.errorf("trailing comma before '}'")
			}
		case '}':
			p.off++
			v.End = p.off
			v.Members = p.popMembers(base)
			return v, nil
		default:
			return nil, p.errorf("unexpected %s, expected ',' or '}'", p.describe())
		}
	}
}

func (p *parser) array(start Pos) (*Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.off++ // [
	v := p.newValue(Array, start)
	key := p.memberKey
	base := len(p.elems)
	defer func() {
		clear(p.elems[base:])
		p.elems = p.elems[:base]
	}()
	for first := true; ; first = false {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.off >= len(p.data) {
			return nil, p.errorf("unexpected end of input in array starting at %d:%d", start.Line, start.Col)
		}
		if p.data[p.off] == ']' && (first || p.opts.JSONC) {
			p.off++
			v.End = p.off
			v.Elems = p.popElems(base)
			return v, nil
		}
		if p.opts.MaxElements > 0 && len(p.elems)-base >= p.opts.MaxElements {
			return nil, &SyntaxError{Pos: start, Msg: fmt.Sprintf("array of more than %d elements", p.opts.MaxElements)}
		}
		p.memberKey = ""
		e, err := p.value()
		if err != nil {
			return nil, err
		}
		p.elems = append(p.elems, e)
		if p.opts.Element != nil {
			p.opts.Element(key, p.depth, e)
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.off >= len(p.data) {
			return nil, p.errorf("unexpected end of input in array starting at %d:%d", start.Line, start.Col)
		}
		switch p.data[p.off] {
		case ',':
			p.off++
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.off < len(p.data) && p.data[p.off] == ']' && !p.opts.JSONC {
				return nil, p.errorf("trailing comma before ']'")
			}
		case ']':
			p.off++
			v.End = p.off
			v.Elems = p.popElems(base)
			return v, nil
		default:
			return nil, p.errorf("unexpected %s, expected ',' or ']'", p.describe())
		}
	}
}

func (p *parser) number(start Pos) (*Value, error) {
	i := p.off
	if p.data[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(p.data) && '0' <= p.data[i] && p.data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(p.data) && p.data[i] == '0':
		i++
	case digits() == 0:
		p.off = i
		return nil, p.errorf("invalid number")
	}
	if i < len(p.data) && p.data[i] == '.' {
		i++
		if digits() == 0 {
			p.off = i
			return nil, p.errorf("invalid number: digits expected after '.'")
		}
	}
	if i < len(p.data) && (p.data[i] == 'e' || p.data[i] == 'E') {
		i++
		if i < len(p.data) && (p.data[i] == '+' || p.data[i] == '-') {
			i++
		}
		if digits() == 0 {
			p.off = i
			return nil, p.errorf("invalid number: digits expected in exponent")
		}
	}
	v := p.newValue(Number, start)
	v.Str = string(p.data[p.off:i])
	p.off = i
	v.End = i
	return v, nil
}

// popMembers returns a copy of the members stacked since base (nil for
// none, as append would have left it); the deferred cleanup pops them.
func (p *parser) popMembers(base int) []Member {
	if len(p.members) == base {
		return nil
	}
	return slices.Clone(p.members[base:])
}

// popElems is popMembers for array elements.
func (p *parser) popElems(base int) []*Value {
	if len(p.elems) == base {
		return nil
	}
	return slices.Clone(p.elems[base:])
}

// key decodes an object key, interning short keys without escapes.
func (p *parser) key() (string, error) {
	i := p.off + 1
	for end := min(len(p.data), i+maxInternedKey+1); i < end; i++ {
		c := p.data[i]
		if c == '"' {
			b := p.data[p.off+1 : i]
			if k, ok := p.keys[string(b)]; ok {
				p.off = i + 1
				return k, nil
			}
			k := string(b)
			if p.keys == nil {
				p.keys = make(map[string]string, 64)
			}
			if len(p.keys) < maxInternedKeys {
				p.keys[k] = k
			}
			p.off = i + 1
			return k, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
	}
	return p.string()
}

var errUnterminated = errors.New("unterminated string")

// string decodes a JSON string starting at the opening quote. Invalid UTF-8 is
// replaced by U+FFFD with a warning; lone surrogate escapes become U+FFFD.
func (p *parser) string() (string, error) {
	start := p.pos()
	p.off++ // opening quote
	i := p.off
	// Fast path: no escapes and valid ASCII.
	for i < len(p.data) {
		c := p.data[i]
		if c == '"' {
			s := string(p.data[p.off:i])
			p.off = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		i++
	}
	// The decoded text is about as long as the raw one (escapes shrink,
	// only an invalid byte grows, to U+FFFD): size the builder once from
	// where the string ends, or its line does if it does not, rather than
	// doubling it byte by byte.
	end := i
	for end < len(p.data) && p.data[end] != '"' && p.data[end] != '\n' {
		if p.data[end] == '\\' {
			end++
		}
		end++
	}
	var b strings.Builder
	b.Grow(min(end, len(p.data)) - p.off)
	b.Write(p.data[p.off:i])
	p.off = i
	for {
		if p.off >= len(p.data) {
			return "", &SyntaxError{Pos: start, Msg: errUnterminated.Error()}
		}
		c := p.data[p.off]
		switch {
		case c == '"':
			p.off++
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case c == '\n':
			return "", &SyntaxError{Pos: start, Msg: "unterminated string (newline inside a string)"}
		case c < 0x20:
			return "", p.errorf("control character U+%04X inside a string must be escaped", c)
		case c < 0x80:
			b.WriteByte(c)
			p.off++
		default:
			r, size := utf8.DecodeRune(p.data[p.off:])
			if r == utf8.RuneError && size == 1 {
				p.warnings = append(p.warnings, Warning{Pos: p.pos(), Msg: fmt.Sprintf("invalid UTF-8 byte 0x%02x", c)})
			}
			b.WriteRune(r)
			p.off += size
		}
	}
}

func (p *parser) escape(b *strings.Builder) error {
	if p.off+1 >= len(p.data) {
		return p.errorf("unterminated escape sequence")
	}
	c := p.data[p.off+1]
	switch c {
	case '"', '\\', '/':
		b.WriteByte(c)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, ok := p.hex4(p.off + 2)
		if !ok {
			return p.errorf("invalid \\u escape")
		}
		p.off += 6
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 && p.off+6 <= len(p.data) && p.data[p.off] == '\\' && p.data[p.off+1] == 'u' {
				if r2, ok := p.hex4(p.off + 2); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b.WriteRune(dec)
						p.off += 6
						return nil
					}
				}
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
		return nil
	default:
		return p.errorf("invalid escape sequence \\%c", c)
	}
	p.off += 2
	return nil
}

func (p *parser) hex4(i int) (rune, bool) {
	if i+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[i : i+4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c-'a') + 10
		case 'A' <= c && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}

// PointerToken escapes one reference token of an RFC 6901 JSON pointer.
func PointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Pointer joins reference tokens into an RFC 6901 JSON pointer.
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(PointerToken(t))
	}
	return b.String()
}
