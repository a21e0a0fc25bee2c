package mcpio

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Message is one JSON-RPC frame as a client built on JSON.parse reads it
// (the official TypeScript SDK): a single message (Envelope) or a batch
// (Batch), fully validated, whatever its nesting depth.
type Message struct {
	Envelope
	// Batch holds the raw elements of a JSON array frame; nil otherwise.
	Batch [][]byte
	// Ambiguous names a top-level member that some decoder would read as
	// an envelope member while JSON.parse does not: a case variant such as
	// "METHOD" or "paramſ" (Go's encoding/json matches keys
	// case-insensitively, with Unicode folding). Empty when there is none.
	Ambiguous string
	// InvalidUTF8 reports bytes that are not UTF-8 inside strings, which a
	// client decodes to U+FFFD; LoneSurrogate reports a \uD800-\uDFFF
	// escape without its pair, which JSON.parse keeps as it is. The proxy
	// normalizes both before analysing what the client will see.
	InvalidUTF8, LoneSurrogate bool
	// Repeated is "result" or "id" when the top-level object holds that
	// member more than once (keys compared as decoded): JSON.parse keeps
	// the last, a decoder that takes the first match reads the other.
	Repeated string
	// RepeatedCall is "method" or "params" when the object holds that
	// member more than once: a request or notification that a decoder
	// taking the first match reads as another method, or with other
	// params, than JSON.parse does.
	RepeatedCall string
}

// ParseError is a frame that is not one complete JSON value. ID is the
// raw id of the message when it could be read before the error.
type ParseError struct {
	Offset int
	Reason string
	ID     []byte
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s at byte %d", e.Reason, e.Offset) }

// ParseMessage validates frame as one JSON value with JSON.parse's grammar
// (no BOM, no trailing data, escapes and numbers as RFC 8259 has them) and
// reads its top level: the envelope members of an object, last occurrence
// winning as in JavaScript, or the elements of an array. Nesting is walked
// with an explicit stack: no depth makes it give up.
func ParseMessage(frame []byte) (Message, error) {
	p := &jsonParser{b: frame}
	var m Message
	p.space()
	if p.i >= len(p.b) {
		return m, p.fail("empty message", nil)
	}
	switch p.b[p.i] {
	case '{':
		if err := p.envelope(&m); err != nil {
			return m, err
		}
	case '[':
		p.i++
		p.space()
		if p.peek(']') {
			p.i++
		} else {
			for {
				p.space()
				start := p.i
				if err := p.skipValue(); err != nil {
					return m, err
				}
				m.Batch = append(m.Batch, p.b[start:p.i])
				p.space()
				if p.peek(',') {
					p.i++
					continue
				}
				if p.peek(']') {
					p.i++
					break
				}
				return m, p.fail("expected ',' or ']' in the batch", nil)
			}
		}
		if m.Batch == nil {
			m.Batch = [][]byte{}
		}
	default:
		if err := p.skipValue(); err != nil {
			return m, err
		}
	}
	p.space()
	if p.i != len(p.b) {
		return m, p.fail("data after the JSON value", m.ID)
	}
	m.InvalidUTF8, m.LoneSurrogate = p.invalidUTF8, p.loneSurrogate
	return m, nil
}

// envelopeKeys are the members a JSON-RPC decoder looks for.
var envelopeKeys = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// envelope reads a top-level object.
func (p *jsonParser) envelope(m *Message) error {
	p.i++ // {
	p.space()
	if p.peek('}') {
		p.i++
		return nil
	}
	var seen [2]bool     // "id", "result"
	var seenCall [2]bool // "method", "params"
	for {
		p.space()
		key, err := p.key()
		if err != nil {
			return p.withID(err, m.ID)
		}
		p.space()
		if !p.peek(':') {
			return p.fail("expected ':' after a key", m.ID)
		}
		p.i++
		p.space()
		start := p.i
		if err := p.skipValue(); err != nil {
			return p.withID(err, m.ID)
		}
		raw := p.b[start:p.i]
		switch key {
		case "id", "result":
			i := 0
			if key == "result" {
				i = 1
			}
			if seen[i] && m.Repeated != "result" {
				m.Repeated = key
			}
			seen[i] = true
		case "method", "params":
			i := 0
			if key == "params" {
				i = 1
			}
			if seenCall[i] && m.RepeatedCall == "" {
				m.RepeatedCall = key
			}
			seenCall[i] = true
		}
		switch key {
		case "id":
			m.ID = nil
			if !bytes.Equal(raw, []byte("null")) {
				m.ID = raw
			}
		case "method":
			m.Method = ""
			if s, ok := decodeString(raw); ok {
				m.Method = s
			}
		case "params":
			m.Params = raw
		case "result":
			m.Result = raw
		case "error":
			m.HasError = true
		case "jsonrpc":
		default:
			for _, k := range envelopeKeys {
				if strings.EqualFold(key, k) && m.Ambiguous == "" {
					m.Ambiguous = key
				}
			}
		}
		p.space()
		if p.peek(',') {
			p.i++
			continue
		}
		if p.peek('}') {
			p.i++
			return nil
		}
		return p.fail("expected ',' or '}' after a member", m.ID)
	}
}

// jsonParser validates JSON text without building values.
type jsonParser struct {
	b                          []byte
	i                          int
	invalidUTF8, loneSurrogate bool
}

func (p *jsonParser) fail(reason string, id []byte) error {
	return &ParseError{Offset: p.i, Reason: reason, ID: id}
}

func (p *jsonParser) withID(err error, id []byte) error {
	if pe, ok := err.(*ParseError); ok && pe.ID == nil {
		pe.ID = id
	}
	return err
}

func (p *jsonParser) peek(c byte) bool { return p.i < len(p.b) && p.b[p.i] == c }

// space skips JSON whitespace (and nothing else: JSON.parse rejects a BOM
// and the other Unicode spaces).
func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// skipValue validates one value of any depth; containers are tracked on an
// explicit stack.
func (p *jsonParser) skipValue() error {
	var stack []byte
	for {
		p.space()
		if p.i >= len(p.b) {
			return p.fail("unexpected end of the message", nil)
		}
		switch c := p.b[p.i]; {
		case c == '{':
			p.i++
			p.space()
			if p.peek('}') {
				p.i++
				break
			}
			stack = append(stack, '{')
			if err := p.memberKey(); err != nil {
				return err
			}
			continue
		case c == '[':
			p.i++
			p.space()
			if p.peek(']') {
				p.i++
				break
			}
			stack = append(stack, '[')
			continue
		case c == '"':
			if err := p.string(); err != nil {
				return err
			}
		case c == '-' || c >= '0' && c <= '9':
			if err := p.number(); err != nil {
				return err
			}
		case c == 't':
			if err := p.literal("true"); err != nil {
				return err
			}
		case c == 'f':
			if err := p.literal("false"); err != nil {
				return err
			}
		case c == 'n':
			if err := p.literal("null"); err != nil {
				return err
			}
		default:
			return p.fail(fmt.Sprintf("unexpected byte 0x%02x", c), nil)
		}
		// A value ended: close containers, or go on to the next member.
		for {
			if len(stack) == 0 {
				return nil
			}
			p.space()
			top := stack[len(stack)-1]
			if p.peek(',') {
				p.i++
				if top == '{' {
					if err := p.memberKey(); err != nil {
						return err
					}
				}
				break
			}
			if top == '{' && p.peek('}') || top == '[' && p.peek(']') {
				p.i++
				stack = stack[:len(stack)-1]
				continue
			}
			if top == '{' {
				return p.fail("expected ',' or '}' in an object", nil)
			}
			return p.fail("expected ',' or ']' in an array", nil)
		}
	}
}

// memberKey reads `"key" :` inside an object.
func (p *jsonParser) memberKey() error {
	p.space()
	if !p.peek('"') {
		return p.fail("expected a string key", nil)
	}
	if err := p.string(); err != nil {
		return err
	}
	p.space()
	if !p.peek(':') {
		return p.fail("expected ':' after a key", nil)
	}
	p.i++
	return nil
}

// key reads and decodes a key.
func (p *jsonParser) key() (string, error) {
	if !p.peek('"') {
		return "", p.fail("expected a string key", nil)
	}
	start := p.i
	if err := p.string(); err != nil {
		return "", err
	}
	s, _ := decodeString(p.b[start:p.i])
	return s, nil
}

// string validates a string: escapes, no raw control character.
func (p *jsonParser) string() error {
	p.i++ // opening quote
	for p.i < len(p.b) {
		// Plain ASCII in a loop of its own, on locals: most of a large
		// message is the text of its strings.
		i, b := p.i, p.b
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		p.i = i
		if p.i >= len(p.b) {
			break
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return nil
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return p.fail("unterminated escape", nil)
			}
			switch p.b[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				r, ok := hex4(p.b, p.i+2)
				if !ok {
					return p.fail("invalid \\u escape", nil)
				}
				p.i += 6
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(0), false
					if r < 0xDC00 && p.i+6 <= len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
						r2, ok2 = hex4(p.b, p.i+2)
					}
					if ok2 && r2 >= 0xDC00 && r2 <= 0xDFFF {
						p.i += 6
					} else {
						p.loneSurrogate = true
					}
				}
			default:
				return p.fail("invalid escape", nil)
			}
		case c < 0x20:
			return p.fail(fmt.Sprintf("control character 0x%02x in a string", c), nil)
		case c < 0x80:
			p.i++
		default:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size == 1 {
				p.invalidUTF8 = true
			}
			p.i += size
		}
	}
	return p.fail("unterminated string", nil)
}

// plainByte marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// number validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (p *jsonParser) number() error {
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.peek('-') {
		p.i++
	}
	switch {
	case p.peek('0'):
		p.i++
	case digits() == 0:
		return p.fail("invalid number", nil)
	}
	if p.peek('.') {
		p.i++
		if digits() == 0 {
			return p.fail("invalid number", nil)
		}
	}
	if p.peek('e') || p.peek('E') {
		p.i++
		if p.peek('+') || p.peek('-') {
			p.i++
		}
		if digits() == 0 {
			return p.fail("invalid number", nil)
		}
	}
	return nil
}

func (p *jsonParser) literal(word string) error {
	if !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return p.fail("invalid literal", nil)
	}
	p.i += len(word)
	return nil
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
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

// decodeString decodes a valid JSON string literal (quotes included). Lone
// surrogates become U+FFFD.
func decodeString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body), true
	}
	var b strings.Builder
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		switch body[i+1] {
		case '"', '\\', '/':
			b.WriteByte(body[i+1])
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
			r, ok := hex4(body, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(body, i+2); ok && i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b.WriteRune(dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}

// ObjectMembers returns the keys (decoded, in order, repeats included) and
// raw values of a JSON object's top level; ok is false when raw is not a
// valid object.
func ObjectMembers(raw []byte) (keys []string, values [][]byte, ok bool) {
	p := &jsonParser{b: raw}
	p.space()
	if !p.peek('{') {
		return nil, nil, false
	}
	p.i++
	p.space()
	if p.peek('}') {
		p.i++
		p.space()
		return nil, nil, p.i == len(p.b)
	}
	for {
		p.space()
		key, err := p.key()
		if err != nil {
			return nil, nil, false
		}
		p.space()
		if !p.peek(':') {
			return nil, nil, false
		}
		p.i++
		p.space()
		start := p.i
		if p.skipValue() != nil {
			return nil, nil, false
		}
		keys, values = append(keys, key), append(values, p.b[start:p.i])
		p.space()
		if p.peek(',') {
			p.i++
			continue
		}
		if p.peek('}') {
			p.i++
			p.space()
			return keys, values, p.i == len(p.b)
		}
		return nil, nil, false
	}
}

// IDKeys returns the keys under which a request or response id is matched:
// its JSON value (a decoded string or a canonical number), and the number
// JavaScript's Number() makes of it, which is how the TypeScript SDK
// matches a response to its request (Number("1") and 1.0 both find
// request 1).
func IDKeys(raw []byte) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		s, ok := decodeString(raw)
		if !ok {
			return []string{"raw:" + string(raw)}
		}
		keys := []string{"s:" + s}
		if f, ok := jsNumber(s); ok {
			keys = append(keys, numberKey(f))
		}
		return keys
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil || math.IsInf(f, 0) {
		return []string{numberKey(f)}
	}
	return []string{"raw:" + string(raw)}
}

func numberKey(f float64) string {
	if f == 0 {
		f = 0 // -0 is 0 to JavaScript's Map
	}
	return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
}

// jsNumber is JavaScript's Number(string): surrounding white space is
// ignored, "" is 0, 0x/0o/0b prefixes and Infinity are read; NaN is not a
// number (ok false).
func jsNumber(s string) (float64, bool) {
	s = strings.TrimFunc(s, jsSpace)
	if s == "" {
		return 0, true
	}
	for _, pre := range []struct {
		p    string
		base int
	}{{"0x", 16}, {"0X", 16}, {"0o", 8}, {"0O", 8}, {"0b", 2}, {"0B", 2}} {
		if rest, ok := strings.CutPrefix(s, pre.p); ok {
			if rest == "" || strings.ContainsAny(rest, "_+-") {
				return 0, false
			}
			v, err := strconv.ParseUint(rest, pre.base, 64)
			if err != nil {
				// Beyond 64 bits JavaScript still has a (rounded) number.
				f, ok := bigUint(rest, pre.base)
				return f, ok
			}
			return float64(v), true
		}
	}
	switch strings.TrimLeft(s, "+-") {
	case "Infinity":
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	// StrDecimalLiteral: digits with an optional dot and exponent; Go's
	// ParseFloat also takes what JavaScript does not (hex floats, "inf",
	// underscores), so those are excluded first.
	if strings.ContainsAny(s, "xXpP_iInN") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func bigUint(digits string, base int) (float64, bool) {
	f := 0.0
	for _, c := range digits {
		d, err := strconv.ParseUint(string(c), base, 8)
		if err != nil {
			return 0, false
		}
		f = f*float64(base) + float64(d)
	}
	return f, true
}

// jsSpace is JavaScript's WhiteSpace and LineTerminator.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// Normalize returns raw (valid JSON) with what a client would decode
// differently from the analysis made explicit: every byte that is not UTF-8
// becomes U+FFFD, and every lone surrogate escape \uD800-\uDFFF becomes
// \ufffd. The analysis decodes both to U+FFFD; after Normalize the client
// sees exactly that too. It returns raw itself when there is nothing to do.
func Normalize(raw []byte) []byte {
	var out []byte // allocated at the first change
	last := 0
	emit := func(upto int, repl string, resume int) {
		if out == nil {
			out = make([]byte, 0, len(raw)+16)
		}
		out = append(out, raw[last:upto]...)
		out = append(out, repl...)
		last = resume
	}
	inString := false
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case !inString:
			if c == '"' {
				inString = true
			}
			i++
		case c == '"':
			inString = false
			i++
		case c == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			r, ok := hex4(raw, i+2)
			if ok && utf16.IsSurrogate(r) {
				if r < 0xDC00 && i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					if r2, ok := hex4(raw, i+8); ok && r2 >= 0xDC00 && r2 <= 0xDFFF {
						i += 12
						continue
					}
				}
				emit(i, `\ufffd`, i+6)
			}
			i += 6
		case c == '\\':
			i += 2
		case c < 0x80:
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				emit(i, "\uFFFD", i+1)
			}
			i += size
		}
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}
