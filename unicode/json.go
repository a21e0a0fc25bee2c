package unicode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the JSON functions.
const (
	// DefaultMaxDepth is the default nesting limit of ScanJSON and
	// SanitizeJSON; deeper documents are rejected with ErrTooDeep.
	DefaultMaxDepth = 1000
	// DefaultMaxFindings is the default cap on the findings of one ScanJSON call.
	DefaultMaxFindings = 1000
)

// ErrTooDeep is returned (wrapped in a *SyntaxError) for documents nested
// deeper than the Scanner's MaxDepth.
var ErrTooDeep = errors.New("unicode: JSON nesting too deep")

// ErrTooLarge is returned for JSON documents of 512 MiB or more.
var ErrTooLarge = errors.New("unicode: JSON document too large")

// SyntaxError is a malformed JSON document, located by byte offset.
type SyntaxError struct {
	Offset int // byte offset of the problem
	Msg    string
	Err    error // ErrTooDeep, or nil
}

// Error formats the error with its byte offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("unicode: invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Unwrap returns ErrTooDeep for a nesting error.
func (e *SyntaxError) Unwrap() error { return e.Err }

// IsCleanJSON is the fast path over a raw JSON document: it reports
// whether b is all printable ASCII (plus TAB, LF and CR) and every escape
// in it decodes to printable ASCII. \uXXXX escapes of U+0020..007E (Go's
// \u003c, \u0026, ...) and \" \\ \/ \n \t are fine; \b, \f and \r decode to
// controls and \u escapes of anything else may hide characters, so they
// make b unclean. JSON carries every hidden character either as a byte >=
// 0x80 or as such an escape (threats.md §0 rule 4, §8), so a clean
// document needs no further Unicode work and can be forwarded as is.
//
// IsCleanJSON does not validate JSON (a raw control byte inside a string
// makes the document invalid, and strict parsers reject it). It does not
// allocate and runs at several GB/s.
func IsCleanJSON(b []byte) bool {
	// Pass 1: every byte printable ASCII, TAB, LF or CR. 32 bytes per
	// iteration; the exact control test only runs when a word may hold a
	// control byte (pretty-printed JSON has a newline per line).
	p := b
	for len(p) >= 32 {
		w0 := binary.LittleEndian.Uint64(p[0:8])
		w1 := binary.LittleEndian.Uint64(p[8:16])
		w2 := binary.LittleEndian.Uint64(p[16:24])
		w3 := binary.LittleEndian.Uint64(p[24:32])
		if (w0|w1|w2|w3)&hiBits != 0 {
			return false
		}
		if ctlMask(w0)|ctlMask(w1)|ctlMask(w2)|ctlMask(w3) != 0 &&
			!(benignControls(w0) && benignControls(w1) && benignControls(w2) && benignControls(w3)) {
			return false
		}
		p = p[32:]
	}
	for _, c := range p {
		if c >= 0x7F || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			return false
		}
	}
	// Pass 2: every escape decodes to printable ASCII. bytes.IndexByte is
	// vectorized, and escapes are rare in most documents.
	for i := 0; ; {
		k := bytes.IndexByte(b[i:], '\\')
		if k < 0 {
			return true
		}
		j := i + k
		if j+1 >= len(b) {
			return false
		}
		switch b[j+1] {
		case 'u':
			if j+6 > len(b) {
				return false
			}
			v, ok := hex4(b[j+2 : j+6])
			if !ok || v < 0x20 || v > 0x7E {
				return false
			}
			i = j + 6
		case '"', '\\', '/', 'n', 't':
			i = j + 2
		default: // \b, \f, \r decode to controls; anything else is invalid
			return false
		}
	}
}

const (
	hiBits  = 0x8080808080808080
	lo7Bits = 0x7F7F7F7F7F7F7F7F
)

// ctlMask sets the high bit of every byte of the ASCII word w that is a
// control (< 0x20) or DEL. The test is exact per byte: no carry crosses a
// byte boundary when all bytes are below 0x80.
func ctlMask(w uint64) uint64 {
	return (^(w + 0x6060606060606060) | (w + 0x0101010101010101)) & hiBits
}

// benignControls reports whether every control byte of the ASCII word w
// is TAB, LF or CR (whitespace of pretty-printed JSON).
func benignControls(w uint64) bool {
	m := ctlMask(w)
	for m != 0 {
		switch byte(w >> (bits.TrailingZeros64(m) &^ 7)) {
		case '\t', '\n', '\r':
		default:
			return false
		}
		m &= m - 1
	}
	return true
}

// stringMask sets the high bit of the bytes that end the fast scan of a
// string's content: '"', '\\', a control byte or DEL, and (with hiBit)
// bytes >= 0x80. Like ctlMask it is exact per byte.
func stringMask(w uint64, hiBit uint64) uint64 {
	low := w & lo7Bits
	ctl := ^(low + 0x6060606060606060) | (low + 0x0101010101010101)
	q := w ^ 0x2222222222222222
	q = ^((q & lo7Bits) + lo7Bits | q)
	bs := w ^ 0x5C5C5C5C5C5C5C5C
	bs = ^((bs & lo7Bits) + lo7Bits | bs)
	return ((w & hiBit) | ((ctl | q | bs) &^ w)) & hiBits
}

// nextSpecial returns the index of the first byte at or after j that ends
// the fast scan of a string's content ('"', '\\', a control byte, DEL and,
// with hiBit, bytes >= 0x80), or len(b). Short strings are settled by one
// SWAR word; longer ones use the vectorized bytes.IndexByte for the quote
// and the backslash and a cheaper SWAR test for the rest.
func nextSpecial(b []byte, j int, hiBit uint64) int {
	n := len(b)
	for ; j+8 <= n; j += 8 {
		if m := stringMask(binary.LittleEndian.Uint64(b[j:]), hiBit); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < n; j++ {
		if c := b[j]; c == '"' || c == '\\' || c < 0x20 || c == 0x7F || (c >= 0x80 && hiBit != 0) {
			return j
		}
	}
	return n
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var v rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// ScanJSON scans every string value and object key of the JSON document b
// with the default Scanner.
func ScanJSON(b []byte) ([]Finding, error) { return Scanner{}.ScanJSON(b) }

// SanitizeJSON returns the output view of the JSON document b with the
// default Scanner.
func SanitizeJSON(b []byte) (out []byte, changed bool, err error) {
	return Scanner{}.SanitizeJSON(b)
}

// ScanJSON scans every string value and every object key of the JSON
// document b, at any depth, straight from the bytes (escapes and surrogate
// pairs decoded inline). Each finding carries the RFC 6901 pointer of its
// string or key and the byte offset in b. Duplicate object keys (compared
// after decoding escapes, and again after sanitizing) are reported as
// KindDuplicateKey: Go, JavaScript and Python keep the last one, a
// validator may read the first.
//
// A malformed document yields a *SyntaxError together with the findings
// of the part before the error.
func (sc Scanner) ScanJSON(b []byte) ([]Finding, error) {
	fs, _, err := sc.scan(b, false)
	return fs, err
}

// scan walks b reporting findings and, with fix, collecting the edits of
// its output view.
func (sc Scanner) scan(b []byte, fix bool) ([]Finding, *jsonWalker, error) {
	if len(b) >= maxAnalyzed {
		return nil, nil, ErrTooLarge
	}
	w := sc.walker(b, true, fix)
	err := w.walk()
	if w.omitted > 0 && len(w.findings) > 0 {
		w.findings[len(w.findings)-1].Evidence["omitted_findings"] = w.omitted
	}
	return w.findings, w, err
}

// SanitizeJSON returns b with the hostile code points and escape sequences
// removed from every string value and object key, exactly as Sanitize does
// for a string, and every other byte unchanged: whitespace, key order,
// number formats and the escapes of untouched text stay as they were.
// Invalid UTF-8 bytes and lone surrogate escapes become U+FFFD. Raw LS, PS
// and NEL are rewritten as \u2028, \u2029 and \u0085 escapes (the string
// value is unchanged, line-splitting clients are protected; threats.md §1
// row 10). The result is valid UTF-8, valid JSON when b is, and
// SanitizeJSON(out) returns out unchanged.
//
// When nothing needs to change, out is b itself (not a copy) and changed
// is false; a clean document (IsCleanJSON) is returned without parsing. A
// malformed document that is not clean yields a *SyntaxError and no output.
func (sc Scanner) SanitizeJSON(b []byte) (out []byte, changed bool, err error) {
	if IsCleanJSON(b) {
		return b, false, nil
	}
	if len(b) >= maxAnalyzed {
		return nil, false, ErrTooLarge
	}
	w := sc.walker(b, false, true)
	if err := w.walk(); err != nil {
		return nil, false, err
	}
	out, changed = w.output()
	return out, changed, nil
}

// ScanSanitizeJSON is ScanJSON and SanitizeJSON in one walk of b, for a
// caller that needs both (the proxy analyses a listing and forwards its
// output view): fs and err are what ScanJSON returns, out and changed what
// SanitizeJSON returns. When err is not nil, out is nil and changed false.
func (sc Scanner) ScanSanitizeJSON(b []byte) (fs []Finding, out []byte, changed bool, err error) {
	fs, w, err := sc.scan(b, true)
	if err != nil {
		return fs, nil, false, err
	}
	out, changed = w.output()
	return fs, out, changed, nil
}

// output applies the walk's edits to a copy of the document; with none it
// returns the document itself.
func (w *jsonWalker) output() (out []byte, changed bool) {
	b := w.b
	if len(w.edits) == 0 {
		return b, false
	}
	size := len(b)
	for _, e := range w.edits {
		size += len(e.repl) - (e.end - e.start)
	}
	out = make([]byte, 0, size)
	prev := 0
	for _, e := range w.edits {
		out = append(out, b[prev:e.start]...)
		out = append(out, e.repl...)
		prev = e.end
	}
	out = append(out, b[prev:]...)
	return out, true
}

type frame struct {
	obj              bool
	index            int // array: index of the current element
	keyStart, keyEnd int // object: the current member's key content in b
	keyRaw           bool
	keysFrom         int // first entry of this object in walker.keys
	// Large objects only: decoded and sanitized key -> last entry.
	exact, clean map[string]int
}

// keyRef is one object key for the duplicate check: 24 bytes, because a
// tools/list has thousands of keys. A key without escapes or hidden
// characters is its own decoded and sanitized value (start:end in the
// document); the others have both values in the walker's arena (esc >= 0).
type keyRef struct {
	fp         uint64 // length and first bytes of the sanitized key
	start, end int32  // key content in the document, without the quotes
	esc        int32  // index into jsonWalker.escKeys, or -1
}

// escKey holds the decoded and the sanitized value of a key that needed
// decoding, as spans of the walker's arena.
type escKey struct{ dec, san span }

// fingerprint packs the length and the first 7 bytes of a key, so that the
// duplicate check compares one integer for most pairs of different keys.
func fingerprint(s []byte) uint64 {
	fp := uint64(len(s)) << 56
	for k := 0; k < len(s) && k < 7; k++ {
		fp |= uint64(s[k]) << (8 * k)
	}
	return fp
}

// rawFingerprint is fingerprint(b[start:end]) with one load when the
// document has 8 bytes from start on (it nearly always does: the closing
// quote and the value follow the key).
func (w *jsonWalker) rawFingerprint(start, end int) uint64 {
	n := end - start
	if start+8 > len(w.b) {
		return fingerprint(w.b[start:end])
	}
	x := binary.LittleEndian.Uint64(w.b[start:])
	if n < 7 {
		x &= 1<<(8*uint(n)) - 1
	} else {
		x &= 1<<56 - 1
	}
	return x | uint64(n)<<56
}

type span struct {
	start, end int32
	arena      bool
}

type edit struct {
	start, end int
	repl       string
}

// jsonWalker is a small validating JSON tokenizer (RFC 8259) that keeps an
// explicit stack instead of recursing, so nesting depth costs memory only
// up to MaxDepth and never the goroutine stack.
type jsonWalker struct {
	b           []byte
	report, fix bool
	maxDepth    int
	maxFindings int
	an          *analyzer
	stack       []frame
	keys        []keyRef
	escKeys     []escKey
	arena       []byte
	findings    []Finding
	omitted     int
	edits       []edit
}

func (sc Scanner) walker(b []byte, report, fix bool) *jsonWalker {
	w := &jsonWalker{b: b, report: report, fix: fix, maxDepth: sc.MaxDepth, maxFindings: sc.MaxFindings}
	if w.maxDepth <= 0 {
		w.maxDepth = DefaultMaxDepth
	}
	if w.maxFindings <= 0 {
		w.maxFindings = DefaultMaxFindings
	}
	w.an = sc.analyzer(report)
	return w
}

func (w *jsonWalker) syntax(off int, msg string) error {
	return &SyntaxError{Offset: off, Msg: msg}
}

func skipWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i // compact JSON: no whitespace at all
	}
	for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == 0x2020202020202020 {
		i += 8
	}
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func (w *jsonWalker) walk() error {
	b := w.b
	n := len(b)
	i := skipWS(b, 0)
	var err error
value:
	for {
		if i >= n {
			return w.syntax(i, "unexpected end of input")
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if len(w.stack) >= w.maxDepth {
				return &SyntaxError{Offset: i, Msg: fmt.Sprintf("nesting deeper than %d", w.maxDepth), Err: ErrTooDeep}
			}
			w.stack = append(w.stack, frame{obj: c == '{', keysFrom: len(w.keys)})
			i = skipWS(b, i+1)
			if i < n && b[i] == c+2 { // '}' or ']'
				i++
				w.pop()
				break
			}
			if c == '{' {
				if i, err = w.member(i); err != nil {
					return err
				}
			}
			continue value
		case c == '"':
			if i, err = w.str(i, false); err != nil {
				return err
			}
		case c == '-' || (c >= '0' && c <= '9'):
			j, ok := scanNumber(b, i)
			if !ok {
				return w.syntax(i, "invalid number")
			}
			i = j
		case c == 't' || c == 'f' || c == 'n':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			if !bytes.HasPrefix(b[i:], []byte(lit)) {
				return w.syntax(i, "invalid literal")
			}
			i += len(lit)
		default:
			return w.syntax(i, fmt.Sprintf("unexpected character %q", c))
		}
		// After a value: a comma, the end of the enclosing container, or
		// the end of the document.
		for {
			i = skipWS(b, i)
			if len(w.stack) == 0 {
				if i != n {
					return w.syntax(i, "data after the JSON value")
				}
				return nil
			}
			if i >= n {
				return w.syntax(i, "unexpected end of input")
			}
			top := &w.stack[len(w.stack)-1]
			switch c := b[i]; {
			case c == ',':
				i = skipWS(b, i+1)
				if top.obj {
					if i, err = w.member(i); err != nil {
						return err
					}
				} else {
					top.index++
				}
				continue value
			case c == '}' && top.obj, c == ']' && !top.obj:
				i++
				w.pop()
			default:
				return w.syntax(i, "expected ',' or the end of the container")
			}
		}
	}
}

func (w *jsonWalker) pop() {
	f := w.stack[len(w.stack)-1]
	if f.obj {
		// The keys of a closed object are not needed any more; the arena
		// is cleared only at the outermost level to keep spans valid.
		w.keys = w.keys[:f.keysFrom]
		if len(w.keys) == 0 {
			w.arena = w.arena[:0]
			w.escKeys = w.escKeys[:0]
		}
	}
	w.stack = w.stack[:len(w.stack)-1]
}

// member parses `"key" :` at i and returns the index of the value.
func (w *jsonWalker) member(i int) (int, error) {
	if i >= len(w.b) || w.b[i] != '"' {
		return i, w.syntax(i, "expected an object key")
	}
	i, err := w.str(i, true)
	if err != nil {
		return i, err
	}
	i = skipWS(w.b, i)
	if i >= len(w.b) || w.b[i] != ':' {
		return i, w.syntax(i, "expected ':' after an object key")
	}
	return skipWS(w.b, i+1), nil
}

func scanNumber(b []byte, i int) (int, bool) {
	n := len(b)
	digits := func() bool {
		s := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < n && b[i] == '0':
		i++
	case i < n && b[i] >= '1' && b[i] <= '9':
		digits()
	default:
		return i, false
	}
	if i < n && b[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// str scans the string token at b[i] == '"' and returns the index after
// its closing quote. Only strings that may hide something (non-ASCII
// bytes, escapes of anything but printable ASCII) are decoded and
// analyzed; keys are recorded for the duplicate check.
func (w *jsonWalker) str(i int, isKey bool) (int, error) {
	b := w.b
	n := len(b)
	start := i + 1
	j := start
	dirty, escaped := false, false
	hiBit := uint64(0x8080808080808080)
	for {
		j = nextSpecial(b, j, hiBit)
		if j >= n {
			return j, w.syntax(i, "unterminated string")
		}
		c := b[j]
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			escaped = true
			if j+1 >= n {
				return j, w.syntax(j, "unterminated string")
			}
			switch b[j+1] {
			case 'u':
				v, ok := hex4(b[j+2 : min(n, j+6)])
				if !ok {
					return j, w.syntax(j, "invalid \\u escape")
				}
				if v < 0x20 || v > 0x7E {
					dirty = true
				}
				j += 6
			case 'b', 'f', 'r':
				dirty = true
				j += 2
			case '"', '\\', '/', 'n', 't':
				j += 2
			default:
				return j, w.syntax(j, "invalid escape")
			}
		case c < 0x20:
			return j, w.syntax(j, "control character in string")
		case c == 0x7F:
			dirty = true // DEL is valid JSON but a control character
			j++
		case c >= utf8.RuneSelf:
			// Non-ASCII: decode and analyze this string; its remaining
			// non-ASCII bytes need not stop the fast loop.
			dirty = true
			hiBit = 0
			j++
		default:
			j++
		}
	}
	end := j
	if isKey {
		// Set the member's key before analyzing it, so that findings in
		// the key get the member's pointer.
		top := &w.stack[len(w.stack)-1]
		top.keyStart, top.keyEnd, top.keyRaw = start, end, !escaped && !dirty
	}
	if dirty && !quietJSONString(b[start:end]) {
		w.analyze(start, end, isKey)
	}
	if isKey && w.report {
		w.recordKey(start, end, escaped || dirty)
	}
	return end + 1, nil
}

// quietJSONString is the second-level fast path for a string that is not
// pure ASCII: it decodes the content (escapes and surrogate pairs inline)
// and reports whether every code point is ordinary (class clsNone), so that
// German, Chinese or Hebrew prose needs no analyzer run.
func quietJSONString(c []byte) bool {
	for i := 0; i < len(c); {
		b := c[i]
		switch {
		case b == '\\':
			switch c[i+1] {
			case 'u':
				r, _ := hex4(c[i+2 : i+6])
				i += 6
				if r >= 0xD800 && r < 0xDC00 && i+6 <= len(c) && c[i] == '\\' && c[i+1] == 'u' {
					if lo, ok := hex4(c[i+2 : i+6]); ok && lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
						i += 6
					}
				}
				if r < 0x20 || classOf(r) != clsNone {
					return false
				}
			case 'b', 'f', 'r':
				return false
			default:
				i += 2
			}
		case b < utf8.RuneSelf:
			if b == 0x7F {
				return false
			}
			i++
		default:
			r, size := utf8.DecodeRune(c[i:])
			if (r == utf8.RuneError && size == 1) || classOf(r) != clsNone {
				return false
			}
			i += size
		}
	}
	return true
}

// analyze runs the analyzer on the string content b[start:end].
func (w *jsonWalker) analyze(start, end int, isKey bool) {
	a := w.an
	a.loadJSON(w.b, start, end)
	a.identifier = isKey || w.identifierValue()
	if !a.run() {
		return
	}
	if w.fix {
		w.addEdits()
	}
	if w.report {
		a.group()
		if len(a.events) == 0 {
			return // only legitimate uses (an RLM in Arabic, a ZWJ in an emoji)
		}
		if len(w.findings) >= w.maxFindings {
			w.omitted += len(a.events)
			return
		}
		w.findings = a.findings(w.findings, w.pointer(), isKey)
		if over := len(w.findings) - w.maxFindings; over > 0 {
			w.omitted += over
			w.findings = w.findings[:w.maxFindings]
		}
	}
}

// identifierValue reports whether the string value at the current
// position names something rather than saying something: a name, a type,
// a URI or URL, an enum or const value, a required property's name.
func (w *jsonWalker) identifierValue() bool {
	n := len(w.stack)
	if n == 0 {
		return false
	}
	key := func(f frame) string {
		if !f.obj || !f.keyRaw {
			return ""
		}
		return string(w.b[f.keyStart:f.keyEnd])
	}
	switch key(w.stack[n-1]) {
	case "name", "type", "uri", "url", "const", "mimeType":
		return true
	}
	if top := w.stack[n-1]; !top.obj && n >= 2 {
		switch key(w.stack[n-2]) {
		case "enum", "required":
			return true
		}
	}
	return false
}

// addEdits turns the analyzer's decisions into byte edits of the document.
func (w *jsonWalker) addEdits() {
	a := w.an
	for i, c := range a.cps {
		start, end := int(c.off), int(c.off)+int(c.size)
		escapedCP := w.b[start] == '\\'
		switch {
		case a.act[i] == drop:
			if k := len(w.edits) - 1; k >= 0 && w.edits[k].end == start && w.edits[k].repl == "" {
				w.edits[k].end = end // merge adjacent removals
				continue
			}
			w.edits = append(w.edits, edit{start, end, ""})
		case a.act[i] == replace:
			repl := "\uFFFD"
			if escapedCP {
				repl = `\ufffd` // keep an all-ASCII document all ASCII
			}
			w.edits = append(w.edits, edit{start, end, repl})
		case a.cls[i] == clsLineSep && !escapedCP:
			w.edits = append(w.edits, edit{start, end, fmt.Sprintf(`\u%04x`, c.r)})
		}
	}
}

// loadJSON decodes the JSON string content b[start:end] (already
// validated by the tokenizer) into a.cps with document offsets.
func (a *analyzer) loadJSON(b []byte, start, end int) {
	a.identifier = false
	// One code point per byte that starts one (escapes make fewer): sized
	// once, the slice is not grown code point by code point.
	n := 0
	for _, c := range b[start:end] {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	if cap(a.cps) < n {
		a.cps = make([]cp, 0, n)
	}
	a.cps = a.cps[:0]
	doff := 0
	for i := start; i < end; {
		c := b[i]
		r, size := rune(c), 1
		switch {
		case c == '\\':
			size = 2
			switch b[i+1] {
			case 'u':
				r, _ = hex4(b[i+2 : i+6])
				size = 6
				if r >= 0xD800 && r < 0xDC00 && i+12 <= end && b[i+6] == '\\' && b[i+7] == 'u' {
					if lo, ok := hex4(b[i+8 : i+12]); ok && lo >= 0xDC00 && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
						size = 12
					}
				}
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default: // '"', '\\', '/'
				r = rune(b[i+1])
			}
		case c >= utf8.RuneSelf:
			r, size = utf8.DecodeRune(b[i:end])
			if r == utf8.RuneError && size == 1 {
				r = invalidByte(c)
			}
		}
		a.cps = append(a.cps, cp{r: r, size: int32(size), off: int32(i), doff: int32(doff)})
		if r < 0 || (r >= 0xD800 && r <= 0xDFFF) {
			doff += 3 // decoders substitute U+FFFD
		} else {
			doff += utf8.RuneLen(r)
		}
		i += size
	}
}

// pointer returns the RFC 6901 JSON pointer of the current position.
func (w *jsonWalker) pointer() string {
	var sb strings.Builder
	for _, f := range w.stack {
		sb.WriteByte('/')
		if !f.obj {
			sb.WriteString(strconv.Itoa(f.index))
			continue
		}
		key := string(w.b[f.keyStart:f.keyEnd])
		if !f.keyRaw {
			key = decodeJSONString(w.b[f.keyStart:f.keyEnd])
		}
		for _, r := range key {
			switch r {
			case '~':
				sb.WriteString("~0")
			case '/':
				sb.WriteString("~1")
			default:
				sb.WriteRune(r)
			}
		}
	}
	return sb.String()
}

// decodeJSONString decodes validated JSON string content; invalid UTF-8
// and lone surrogates become U+FFFD, as encoding/json does.
func decodeJSONString(content []byte) string {
	var a analyzer
	a.loadJSON(content, 0, len(content))
	var sb strings.Builder
	for _, c := range a.cps {
		r := c.r
		if r < 0 || (r >= 0xD800 && r <= 0xDFFF) {
			r = utf8.RuneError
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// recordKey remembers the key b[start:end] of the current object and
// reports it when an earlier key of the same object is equal, either as
// decoded or after sanitizing (two keys that differ only in hidden
// characters collapse into one when a client strips them).
func (w *jsonWalker) recordKey(start, end int, needsDecoding bool) {
	top := &w.stack[len(w.stack)-1]
	ref := keyRef{start: int32(start), end: int32(end), esc: -1}
	if needsDecoding {
		dec := decodeJSONString(w.b[start:end])
		e := escKey{dec: w.store(dec)}
		e.san = e.dec
		if san := Sanitize(dec); san != dec {
			e.san = w.store(san)
		}
		ref.esc = int32(len(w.escKeys))
		w.escKeys = append(w.escKeys, e)
		ref.fp = fingerprint(w.bytes(e.san))
	} else {
		ref.fp = w.rawFingerprint(start, end)
	}
	siblings := w.keys[top.keysFrom:]
	if top.exact == nil && len(siblings) >= 32 {
		// Large objects switch from a linear search to maps.
		top.exact = make(map[string]int, 2*len(siblings))
		top.clean = make(map[string]int, 2*len(siblings))
		for k, s := range siblings {
			top.exact[string(w.decoded(s))] = top.keysFrom + k
			top.clean[string(w.sanitized(s))] = top.keysFrom + k
		}
	}
	// An exact duplicate wins over one that only appears after sanitizing.
	exact, clean := -1, -1
	if top.exact != nil {
		if k, ok := top.exact[string(w.decoded(ref))]; ok {
			exact = k
		}
		if k, ok := top.clean[string(w.sanitized(ref))]; ok {
			clean = k
		}
		top.exact[string(w.decoded(ref))] = len(w.keys)
		top.clean[string(w.sanitized(ref))] = len(w.keys)
	} else {
		for k := len(siblings) - 1; k >= 0 && exact < 0; k-- {
			if siblings[k].fp != ref.fp || string(w.sanitized(siblings[k])) != string(w.sanitized(ref)) {
				continue
			}
			if string(w.decoded(siblings[k])) == string(w.decoded(ref)) {
				exact = top.keysFrom + k
			} else if clean < 0 {
				clean = top.keysFrom + k
			}
		}
	}
	w.keys = append(w.keys, ref)
	switch {
	case exact >= 0:
		w.duplicate(w.keys[exact], ref)
	case clean >= 0:
		w.duplicate(w.keys[clean], ref)
	}
}

func (w *jsonWalker) store(s string) span {
	st := len(w.arena)
	w.arena = append(w.arena, s...)
	return span{int32(st), int32(len(w.arena)), true}
}

// decoded and sanitized return the values of key k.
func (w *jsonWalker) decoded(k keyRef) []byte {
	if k.esc < 0 {
		return w.b[k.start:k.end]
	}
	return w.bytes(w.escKeys[k.esc].dec)
}

func (w *jsonWalker) sanitized(k keyRef) []byte {
	if k.esc < 0 {
		return w.b[k.start:k.end]
	}
	return w.bytes(w.escKeys[k.esc].san)
}

func (w *jsonWalker) bytes(s span) []byte {
	if s.arena {
		return w.arena[s.start:s.end]
	}
	return w.b[s.start:s.end]
}

func (w *jsonWalker) duplicate(first, second keyRef) {
	if len(w.findings) >= w.maxFindings {
		w.omitted++
		return
	}
	info := kindInfo[kDuplicateKey]
	afterSanitize := string(w.decoded(first)) != string(w.decoded(second))
	msg := info.what + " " + quoteShort(string(w.decoded(second)), 60) + ": parsers disagree on which value counts"
	if afterSanitize {
		msg = info.what + " " + quoteShort(string(w.sanitized(second)), 60) + " once hidden characters are removed"
	}
	w.findings = append(w.findings, Finding{
		Rule:     info.rule,
		Severity: info.severity,
		Kind:     info.name,
		Message:  msg,
		Pointer:  w.pointer(),
		IsKey:    true,
		Offset:   int(second.start) - 1,
		Length:   int(second.end-second.start) + 2,
		Count:    1,
		Evidence: map[string]any{
			"kind":           info.name,
			"first_offset":   int(first.start) - 1,
			"after_sanitize": afterSanitize,
		},
	})
}
