package pins

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/chunks"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/toolcheck"
)

// Pins (MCPG-T003, docs/threats.md §4): a SHA-256 of the canonical form of
// every tool definition and of the server's launch surface, so that a rug
// pull (a tool that changes after it was approved) shows up as a diff of
// that tool's fields, and re-serialization (key order, whitespace, number
// spelling) is not drift. This file defines the format the proxy stores
// and enforces and the approval operations on it; pinstore.go stores pin
// files (docs/pins.md).
//
// # Canonical JSON
//
// CanonicalJSON follows RFC 8785 (JSON Canonicalization Scheme): object
// members sorted by the UTF-16 code units of their names, no insignificant
// whitespace, strings with only the mandatory escapes (\" \\ \b \f \n \r
// \t, other controls as \u00xx) and every other character as UTF-8,
// numbers as ECMAScript's Number.prototype.toString prints the IEEE double
// (1.0, 1e0 and 10E-1 are all 1; 1e21 is 1e+21). Two deviations, both for
// hostile input: a number beyond the double range keeps its literal text,
// and of duplicate member names the last one counts (as JavaScript, Go and
// Python read them; ScanJSON reports duplicates as T001).
//
// # What is pinned
//
// Per tool, the members name, title, description, inputSchema,
// outputSchema, annotations and _meta (absent members stay absent; a
// flipped readOnlyHint is drift). Per server, the launch surface: client,
// scope, transport, command, args and URL (redacted: secrets never enter a
// pin, a keyed hash of the raw text detects their change), cwd, the names
// of env variables and headers, and a keyed hash per env value. The key is
// a secret of the pin store (NewKey), never written into the pin, so a
// pin file reveals neither values nor, by brute force, short ones.

// FormatVersion is the version of the pin format (Set.Version).
const FormatVersion = 1

// pinnedToolFields are the members of a tool definition a pin covers, in
// the order Diff reports them.
var pinnedToolFields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"}

// ToolPin pins one tool definition.
type ToolPin struct {
	// Name is the tool's name.
	Name string `json:"name"`
	// SHA256 is the hex SHA-256 of the canonical definition (the pinned
	// members only).
	SHA256 string `json:"sha256"`
	// Fields holds the hex SHA-256 of the canonical value of each pinned
	// member that is present, so that Diff names what changed.
	Fields map[string]string `json:"fields"`
	// Definition is the canonical definition itself (optional). With it,
	// Diff reports what changed inside a field (JSON pointers, old and new
	// values); tool definitions hold no secrets.
	Definition json.RawMessage `json:"definition,omitempty"`
}

// Launch is a server's launch surface as the caller knows it (from a
// scanned configuration or the proxy's command line). Env values and the
// raw args and URL never leave PinLaunch except as keyed hashes.
type Launch struct {
	Client    string
	Scope     string
	Transport string
	Command   string
	Args      []string
	Cwd       string
	Env       map[string]string
	URL       string
	// HeaderKeys are the names of HTTP headers; their values are not pinned
	// (credentials rotate).
	HeaderKeys []string
}

// LaunchPin is a pinned launch surface. It holds no secret value.
type LaunchPin struct {
	Client    string `json:"client,omitempty"`
	Scope     string `json:"scope,omitempty"`
	Transport string `json:"transport,omitempty"`
	Command   string `json:"command,omitempty"`
	// Args are redacted (values after credential flags, known token
	// formats); ArgsHMAC is a keyed hash of the raw argument list.
	Args     []string `json:"args"`
	ArgsHMAC string   `json:"args_hmac,omitempty"`
	Cwd      string   `json:"cwd,omitempty"`
	// EnvKeys are the sorted env names; EnvHMAC maps each to a keyed hash of
	// its value.
	EnvKeys []string          `json:"env_keys"`
	EnvHMAC map[string]string `json:"env_hmac,omitempty"`
	// URL is redacted (userinfo, credential-like query parameters); URLHMAC
	// is a keyed hash of the raw URL.
	URL        string   `json:"url,omitempty"`
	URLHMAC    string   `json:"url_hmac,omitempty"`
	HeaderKeys []string `json:"header_keys"`
	// SHA256 is the hex SHA-256 of the canonical JSON of all other fields.
	SHA256 string `json:"sha256"`
}

// Pin is everything pinned about one server.
type Pin struct {
	// Server names the server (the key under which a Set stores it).
	Server string `json:"server"`
	// Launch is the launch surface, when known.
	Launch *LaunchPin `json:"launch,omitempty"`
	// Initialize is the hex SHA-256 of the canonical serverInfo and
	// instructions of the initialize result, when known (PinInitialize).
	Initialize string `json:"initialize_sha256,omitempty"`
	// Tools are sorted by name.
	Tools []ToolPin `json:"tools"`
	// SHA256 covers the launch hash, the initialize hash and every tool
	// hash: equal pins have equal hashes.
	SHA256 string `json:"sha256"`
}

// Set is the content of a pin file: pins keyed by a server identity the
// caller chooses (e.g. "claude-code/user/github" or the proxy's --name).
// Its JSON encoding is stable: map keys sorted, tools sorted by name.
type Set struct {
	Version int `json:"version"`
	// Pins are the approved states: what the first use trusted or a person
	// approved.
	Pins map[string]*Pin `json:"pins"`
	// Pending holds, per server, the latest observed state that differs
	// from the approved one. The proxy records it so that
	// `mcpguard pins approve NAME` can promote exactly what was seen, and a
	// person can review the diff before that. Files written before Pending
	// existed have no such member.
	Pending map[string]*Pin `json:"pending,omitempty"`
}

// NewSet returns an empty pin set of the current version.
func NewSet() *Set { return &Set{Version: FormatVersion, Pins: map[string]*Pin{}} }

// ParseSet decodes a pin file. It is strict, because a pin file is
// written by mcpguard only and a file it does not fully understand must not
// be half-trusted: unknown members, trailing data and null pins are errors,
// and so is an unknown version (a newer mcpguard's pins must not be
// silently misread). Syntax and type errors wrap *json.SyntaxError or
// *json.UnmarshalTypeError, whose offsets locate them.
func ParseSet(data []byte) (*Set, error) {
	var ps Set
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ps); err != nil {
		return nil, fmt.Errorf("parse pins: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("parse pins: data after the pin set at offset %d", dec.InputOffset())
	}
	if ps.Version != FormatVersion {
		return nil, fmt.Errorf("parse pins: version %d, want %d", ps.Version, FormatVersion)
	}
	for _, m := range []struct {
		name string
		pins map[string]*Pin
	}{{"pins", ps.Pins}, {"pending", ps.Pending}} {
		for k, p := range m.pins {
			if p == nil {
				return nil, fmt.Errorf("parse pins: %s[%q] is null", m.name, k)
			}
		}
	}
	if ps.Pins == nil {
		ps.Pins = map[string]*Pin{}
	}
	if len(ps.Pending) == 0 {
		ps.Pending = nil
	}
	return &ps, nil
}

// ErrNoPendingPin reports that a server has no observed change to approve.
var ErrNoPendingPin = errors.New("scanner: no change pending approval")

// Approve promotes the pending state of server name to its approved pin and
// returns what changed against the previous approved pin (everything is
// Added when there was none). Without a pending state it returns an error
// wrapping ErrNoPendingPin and changes nothing.
func (ps *Set) Approve(name string) (*PinDiff, error) {
	cur := ps.Pending[name]
	if cur == nil {
		return nil, fmt.Errorf("approve %q: %w", name, ErrNoPendingPin)
	}
	d := DiffPins(ps.Pins[name], cur)
	if d.Server == "" {
		d.Server = name
	}
	if ps.Pins == nil {
		ps.Pins = map[string]*Pin{}
	}
	ps.Pins[name] = cur
	ps.deletePending(name)
	return d, nil
}

// Forget removes server name's approved and pending pins, so that the next
// observation trusts it again on first use. It reports whether anything was
// removed.
func (ps *Set) Forget(name string) bool {
	_, pinned := ps.Pins[name]
	_, pending := ps.Pending[name]
	delete(ps.Pins, name)
	ps.deletePending(name)
	return pinned || pending
}

// Names returns the servers that have an approved or a pending pin, sorted.
func (ps *Set) Names() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]*Pin{ps.Pins, ps.Pending} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// deletePending removes a pending state and leaves Pending nil when it is
// empty, so that the file keeps its pre-Pending shape.
func (ps *Set) deletePending(name string) {
	delete(ps.Pending, name)
	if len(ps.Pending) == 0 {
		ps.Pending = nil
	}
}

// MarshalIndent encodes the pin set for a file: indented, HTML escaping
// off, trailing newline.
func (ps *Set) MarshalIndent() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ps); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// NewKey returns a fresh 32-byte key for the keyed hashes of a pin
// store. Keep it beside the pin file with owner-only permissions, never in
// it.
func NewKey() ([]byte, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("generate pin key: %w", err)
	}
	return k, nil
}

// CanonicalJSON returns the canonical form of a JSON document (see the
// file comment). Malformed JSON is an error.
func CanonicalJSON(data []byte) ([]byte, error) {
	v, _, err := jsonc.Parse(data, jsonc.Options{})
	if err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	return appendCanonical(nil, v), nil
}

// appendCanonical appends v in canonical form. The last of duplicate
// names wins (jsonc keeps it), which jsonc already resolved.
func appendCanonical(b []byte, v *jsonc.Value) []byte {
	switch v.Kind {
	case jsonc.Null:
		b = append(b, "null"...)
	case jsonc.Bool:
		if v.Bool {
			b = append(b, "true"...)
		} else {
			b = append(b, "false"...)
		}
	case jsonc.Number:
		b = append(b, canonicalNumber(v.Str)...)
	case jsonc.String:
		b = appendCanonicalString(b, v.Str)
	case jsonc.Array:
		b = append(b, '[')
		for i, e := range v.Elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		b = append(b, ']')
	case jsonc.Object:
		b = append(b, '{')
		if slices.IsSortedFunc(v.Members, func(x, y jsonc.Member) int { return utf16Compare(x.Key, y.Key) }) {
			// Keys are unique (jsonc keeps the last of a repeated key):
			// members in order need no sorted copy.
			for i := range v.Members {
				b = appendCanonicalMember(b, i, &v.Members[i])
			}
		} else {
			ms := make([]*jsonc.Member, len(v.Members))
			for i := range v.Members {
				ms[i] = &v.Members[i]
			}
			slices.SortStableFunc(ms, func(x, y *jsonc.Member) int { return utf16Compare(x.Key, y.Key) })
			for i, m := range ms {
				b = appendCanonicalMember(b, i, m)
			}
		}
		b = append(b, '}')
	}
	return b
}

// appendCanonicalMember appends the i-th member of an object in canonical
// order.
func appendCanonicalMember(b []byte, i int, m *jsonc.Member) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	b = appendCanonicalString(b, m.Key)
	b = append(b, ':')
	return appendCanonical(b, m.Value)
}

// utf16Compare orders strings by UTF-16 code units (RFC 8785 §3.2.3).
func utf16Compare(a, b string) int {
	// Where the strings first differ in an ASCII byte of each (or one
	// ends after an ASCII byte), the runes before are the same in both
	// and the order is the bytes' (or the lengths'): member keys are
	// compared for every object of every pin, and almost all are ASCII.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case i < len(a) && i < len(b):
		if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
			return cmp.Compare(a[i], b[i])
		}
	case i == 0 || a[i-1] < utf8.RuneSelf:
		return cmp.Compare(len(a), len(b))
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return cmp.Compare(ua[i], ub[i])
		}
	}
	return cmp.Compare(len(ua), len(ub))
}

func appendCanonicalString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0 // s[start:i] is pending: bytes written as they are
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		start = i + 1
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xF])
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// canonicalNumber prints a JSON number literal as ECMAScript prints the
// double it denotes. A literal beyond the double range keeps its text.
func canonicalNumber(lit string) string {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return strings.ToLower(lit)
	}
	return esNumber(f)
}

// esNumber is ECMAScript's Number::toString(x) for finite x.
func esNumber(x float64) string {
	if x == 0 {
		return "0" // also -0
	}
	if x < 0 {
		return "-" + esNumber(-x)
	}
	// Shortest round-trip digits and exponent: x = 0.d1d2...dk × 10^n.
	e := strconv.FormatFloat(x, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	p, _ := strconv.Atoi(exp)
	n := p + 1
	k := len(digits)
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	sign := "+"
	if n-1 < 0 {
		sign = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return digits + "e" + sign + ex
	}
	return digits[:1] + "." + digits[1:] + "e" + sign + ex
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// PinTool pins one tool object (a toolcheck.Tool's Value). withDefinition keeps
// the canonical definition in the pin for readable diffs.
func PinTool(tool *jsonc.Value, withDefinition bool) (ToolPin, error) {
	var b []byte
	return pinTool(&b, tool, withDefinition)
}

// canonicalPinnedFields are pinnedToolFields in the order of their keys in
// canonical JSON (UTF-16 code units; the names are ASCII).
var canonicalPinnedFields = func() []string {
	s := slices.Clone(pinnedToolFields)
	slices.Sort(s)
	return s
}()

// pinTool pins tool using *scratch as its buffer. The definition is written once in
// canonical form; each field's hash covers its value's bytes within it,
// which are the value's own canonical form.
func pinTool(scratch *[]byte, tool *jsonc.Value, withDefinition bool) (ToolPin, error) {
	if tool == nil || tool.Kind != jsonc.Object {
		return ToolPin{}, errors.New("pin tool: not a JSON object")
	}
	p := ToolPin{Fields: make(map[string]string, len(pinnedToolFields))}
	if n := tool.Get("name"); n.IsString() {
		p.Name = n.Str
	}
	b := append((*scratch)[:0], '{')
	for _, f := range canonicalPinnedFields {
		m := tool.Member(f)
		if m == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendCanonicalString(b, f)
		b = append(b, ':')
		start := len(b)
		b = appendCanonical(b, m.Value)
		p.Fields[f] = sha256Hex(b[start:])
	}
	b = append(b, '}')
	*scratch = b
	p.SHA256 = sha256Hex(b)
	if withDefinition {
		p.Definition = json.RawMessage(slices.Clone(b))
	}
	return p, nil
}

// PinTools pins every tool of a report, sorted by name (tools without a
// name pin under "").
func PinTools(rep *toolcheck.Report, withDefinition bool) []ToolPin {
	return PinToolsWith(rep, withDefinition, nil)
}

// EarlyPins pins tool objects one at a time as a parse completes them
// (toolcheck.Options.Early), for PinToolsWith. Not safe for concurrent
// use; PinToolsWith may read it once its calls to Pin are over.
type EarlyPins struct {
	buf            []byte
	pins           map[*jsonc.Value]ToolPin
	withDefinition bool
}

// NewEarlyPins returns an empty EarlyPins for PinToolsWith's
// withDefinition.
func NewEarlyPins(withDefinition bool) *EarlyPins {
	return &EarlyPins{pins: map[*jsonc.Value]ToolPin{}, withDefinition: withDefinition}
}

// Pin pins one tool object.
func (e *EarlyPins) Pin(tool *jsonc.Value) {
	if p, err := pinTool(&e.buf, tool, e.withDefinition); err == nil {
		e.pins[tool] = p
	}
}

// PinToolsWith is PinTools, taking the pins of the report's tools that
// early made already (nil: none).
func PinToolsWith(rep *toolcheck.Report, withDefinition bool, early *EarlyPins) []ToolPin {
	if early != nil && early.withDefinition != withDefinition {
		early = nil
	}
	pins := make([]ToolPin, len(rep.Tools))
	ok := make([]bool, len(rep.Tools))
	pinRange := func() func(c, lo, hi int) {
		var b []byte
		return func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				if early != nil {
					if p, found := early.pins[rep.Tools[i].Value]; found {
						pins[i], ok[i] = p, true
						continue
					}
				}
				p, err := pinTool(&b, rep.Tools[i].Value, withDefinition)
				pins[i], ok[i] = p, err == nil
			}
		}
	}
	if chunks.Worth(rep.Size(), len(rep.Tools)) {
		chunks.Run(len(rep.Tools), pinRange)
	} else {
		pinRange()(0, 0, len(rep.Tools))
	}
	out := make([]ToolPin, 0, len(rep.Tools))
	for i, p := range pins {
		if ok[i] {
			out = append(out, p)
		}
	}
	sortToolPins(out)
	return out
}

// sortToolPins orders pins by name, stably; a listing is often in order
// already.
func sortToolPins(tools []ToolPin) {
	byName := func(x, y ToolPin) int { return strings.Compare(x.Name, y.Name) }
	if !slices.IsSortedFunc(tools, byName) {
		slices.SortStableFunc(tools, byName)
	}
}

// PinLaunch pins a launch surface. key keys the hashes of env values and of
// the raw args and URL; with a nil key those hashes are left out (and a
// changed secret value goes unnoticed). det redacts; nil uses the default
// detector.
func PinLaunch(l Launch, key []byte, det *secrets.Detector) LaunchPin {
	if det == nil {
		det = secrets.NewDetector()
	}
	p := LaunchPin{Client: l.Client, Scope: l.Scope, Transport: l.Transport, Command: det.RedactText(l.Command),
		Args: det.RedactArgs(l.Args), Cwd: l.Cwd, URL: det.RedactURL(l.URL), EnvKeys: []string{}, HeaderKeys: []string{}}
	if p.Args == nil {
		p.Args = []string{}
	}
	for k := range l.Env {
		p.EnvKeys = append(p.EnvKeys, k)
	}
	sort.Strings(p.EnvKeys)
	p.HeaderKeys = append(p.HeaderKeys, l.HeaderKeys...)
	sort.Strings(p.HeaderKeys)
	if key != nil {
		mac := func(parts ...string) string {
			h := hmac.New(sha256.New, key)
			for _, s := range parts {
				h.Write([]byte(s))
				h.Write([]byte{0})
			}
			return hex.EncodeToString(h.Sum(nil))
		}
		if len(l.Env) > 0 {
			p.EnvHMAC = map[string]string{}
			for k, v := range l.Env {
				p.EnvHMAC[k] = mac("env", k, v)
			}
		}
		p.ArgsHMAC = mac(append([]string{"args"}, l.Args...)...)
		if l.URL != "" {
			p.URLHMAC = mac("url", l.URL)
		}
	}
	p.SHA256 = ""
	raw, _ := json.Marshal(p)
	c, _ := CanonicalJSON(raw)
	p.SHA256 = sha256Hex(c)
	return p
}

// PinInitialize hashes the identity a server announces in its initialize
// result: serverInfo and instructions (a JSON-RPC response or the bare
// result). Capabilities and protocol version are negotiated, not pinned.
func PinInitialize(result []byte) (string, error) {
	v, _, err := jsonc.Parse(result, jsonc.Options{})
	if err != nil {
		return "", fmt.Errorf("pin initialize: %w", err)
	}
	if r := v.Get("result"); r != nil && r.Kind == jsonc.Object {
		v = r
	}
	if v.Kind != jsonc.Object {
		return "", errors.New("pin initialize: not a JSON object")
	}
	def := &jsonc.Value{Kind: jsonc.Object}
	for _, f := range []string{"serverInfo", "instructions"} {
		if m := v.Member(f); m != nil {
			def.Members = append(def.Members, jsonc.Member{Key: f, Value: m.Value})
		}
	}
	return sha256Hex(appendCanonical(nil, def)), nil
}

// NewPin assembles a server's pin. tools are sorted by name.
func NewPin(server string, launch *LaunchPin, initialize string, tools []ToolPin) *Pin {
	p := &Pin{Server: server, Launch: launch, Initialize: initialize, Tools: append([]ToolPin{}, tools...)}
	sortToolPins(p.Tools)
	h := sha256.New()
	if launch != nil {
		h.Write([]byte(launch.SHA256))
	}
	h.Write([]byte{0})
	h.Write([]byte(initialize))
	h.Write([]byte{0})
	for _, t := range p.Tools {
		h.Write([]byte(t.Name))
		h.Write([]byte{0})
		h.Write([]byte(t.SHA256))
		h.Write([]byte{0})
	}
	p.SHA256 = hex.EncodeToString(h.Sum(nil))
	return p
}

// PinDiff is what changed between a pinned and a current Pin.
type PinDiff struct {
	Server string `json:"server"`
	// Launch lists the changed launch fields ("command", "args", "env:KEY",
	// "env_keys", "url", "cwd", ...).
	Launch []string `json:"launch,omitempty"`
	// Initialize is true when serverInfo or instructions changed.
	Initialize bool `json:"initialize,omitempty"`
	// Added and Removed are tool names new or gone since the pin.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Changed are the tools whose definition changed.
	Changed []ToolChange `json:"changed,omitempty"`
}

// ToolChange is one changed tool.
type ToolChange struct {
	Name string `json:"name"`
	// Fields are the changed pinned members, in pinnedToolFields order.
	Fields []string `json:"fields"`
	// Details locate changes inside the fields when both pins carry their
	// definitions (at most 32).
	Details []FieldChange `json:"details,omitempty"`
}

// FieldChange is one changed value inside a tool definition. Old or New is
// absent when the value was added or removed; long strings are clipped.
type FieldChange struct {
	Pointer string `json:"pointer"` // into the tool definition, e.g. /annotations/readOnlyHint
	Old     any    `json:"old,omitempty"`
	New     any    `json:"new,omitempty"`
}

// Empty reports whether nothing changed.
func (d *PinDiff) Empty() bool {
	return d == nil || len(d.Launch) == 0 && !d.Initialize && len(d.Added) == 0 && len(d.Removed) == 0 && len(d.Changed) == 0
}

// UnapprovedTools are the tools a proxy in enforce mode blocks until the
// change is approved: changed and added ones.
func (d *PinDiff) UnapprovedTools() []string {
	var out []string
	for _, c := range d.Changed {
		out = append(out, c.Name)
	}
	out = append(out, d.Added...)
	sort.Strings(out)
	return out
}

// DiffPins compares a pinned server with its current state. A nil old pin
// means nothing was pinned: every current tool is Added.
func DiffPins(old, cur *Pin) *PinDiff {
	d := &PinDiff{}
	if cur != nil {
		d.Server = cur.Server
	}
	if old == nil {
		old = &Pin{}
	}
	if cur == nil {
		cur = &Pin{}
	}
	if old.Launch != nil && cur.Launch != nil && old.Launch.SHA256 != cur.Launch.SHA256 {
		d.Launch = diffLaunch(old.Launch, cur.Launch)
	}
	d.Initialize = old.Initialize != "" && cur.Initialize != "" && old.Initialize != cur.Initialize
	// Tools match by name; a name a server repeats (which T002 reports)
	// matches by occurrence.
	oldKeys, curKeys := pinKeys(old.Tools), pinKeys(cur.Tools)
	oldBy := make(map[string]*ToolPin, len(old.Tools))
	for i := range old.Tools {
		oldBy[oldKeys[i]] = &old.Tools[i]
	}
	curBy := make(map[string]bool, len(cur.Tools))
	for i := range cur.Tools {
		t := &cur.Tools[i]
		curBy[curKeys[i]] = true
		o, ok := oldBy[curKeys[i]]
		switch {
		case !ok:
			d.Added = append(d.Added, t.Name)
		case o.SHA256 != t.SHA256:
			d.Changed = append(d.Changed, diffTool(o, t))
		}
	}
	for i, t := range old.Tools {
		if !curBy[oldKeys[i]] {
			d.Removed = append(d.Removed, t.Name)
		}
	}
	return d
}

// pinKeys returns "name" for the first tool of a name and "name\x00N" for
// its N-th repetition.
func pinKeys(tools []ToolPin) []string {
	seen := make(map[string]int, len(tools))
	out := make([]string, len(tools))
	for i, t := range tools {
		n := seen[t.Name]
		seen[t.Name] = n + 1
		out[i] = t.Name
		if n > 0 {
			out[i] = t.Name + "\x00" + strconv.Itoa(n)
		}
	}
	return out
}

func diffLaunch(a, b *LaunchPin) []string {
	var out []string
	cmp := func(name string, x, y any) {
		xa, _ := json.Marshal(x)
		ya, _ := json.Marshal(y)
		if !bytes.Equal(xa, ya) {
			out = append(out, name)
		}
	}
	cmp("client", a.Client, b.Client)
	cmp("scope", a.Scope, b.Scope)
	cmp("transport", a.Transport, b.Transport)
	cmp("command", a.Command, b.Command)
	cmp("args", []any{a.Args, a.ArgsHMAC}, []any{b.Args, b.ArgsHMAC})
	cmp("cwd", a.Cwd, b.Cwd)
	cmp("env_keys", a.EnvKeys, b.EnvKeys)
	for _, k := range b.EnvKeys {
		if av, ok := a.EnvHMAC[k]; ok && av != b.EnvHMAC[k] {
			out = append(out, "env:"+k)
		}
	}
	cmp("url", []any{a.URL, a.URLHMAC}, []any{b.URL, b.URLHMAC})
	cmp("header_keys", a.HeaderKeys, b.HeaderKeys)
	if len(out) == 0 {
		out = []string{"launch"} // e.g. a pin written by another version
	}
	return out
}

func diffTool(o, t *ToolPin) ToolChange {
	c := ToolChange{Name: t.Name}
	for _, f := range pinnedToolFields {
		if o.Fields[f] != t.Fields[f] {
			c.Fields = append(c.Fields, f)
		}
	}
	if len(o.Definition) > 0 && len(t.Definition) > 0 {
		var a, b any
		da := json.NewDecoder(bytes.NewReader(o.Definition))
		da.UseNumber()
		db := json.NewDecoder(bytes.NewReader(t.Definition))
		db.UseNumber()
		if da.Decode(&a) == nil && db.Decode(&b) == nil {
			diffValues("", a, b, &c.Details)
		}
	}
	return c
}

const maxFieldChanges = 32

// diffValues appends the differences between a and b under ptr.
func diffValues(ptr string, a, b any, out *[]FieldChange) {
	if len(*out) >= maxFieldChanges {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			av, ain := am[k]
			bv, bin := bm[k]
			p := ptr + "/" + jsonc.PointerToken(k)
			switch {
			case !ain:
				*out = append(*out, FieldChange{Pointer: p, New: clipValue(bv)})
			case !bin:
				*out = append(*out, FieldChange{Pointer: p, Old: clipValue(av)})
			default:
				diffValues(p, av, bv, out)
			}
			if len(*out) >= maxFieldChanges {
				return
			}
		}
		return
	}
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	if !bytes.Equal(aj, bj) {
		*out = append(*out, FieldChange{Pointer: ptr, Old: clipValue(a), New: clipValue(b)})
	}
}

// clipValue shortens strings and summarizes containers for evidence.
func clipValue(v any) any {
	switch x := v.(type) {
	case string:
		return toolcheck.Clip(x, 200)
	case map[string]any:
		return fmt.Sprintf("{object with %d members}", len(x))
	case []any:
		return fmt.Sprintf("[array of %d]", len(x))
	case nil:
		return "null"
	}
	return v
}

// Findings turns the diff into MCPG-T003 findings, located by locate (a
// tool's location in the current tools/list; toolcheck.Report.Location fits)
// or at base. Changed and added tools and a changed launch surface are
// errors; removed tools are notes (a removal is no threat, but it is
// drift).
func (d *PinDiff) Findings(base reports.Location, locate func(tool string) (reports.Location, bool), serverID string) []reports.Finding {
	if d.Empty() {
		return nil
	}
	var out []reports.Finding
	at := func(tool string) reports.Location {
		if locate != nil {
			if l, ok := locate(tool); ok {
				return l
			}
		}
		return base
	}
	label := toolcheck.QuoteName(d.Server)
	if len(d.Launch) > 0 {
		f := reports.NewFinding(ruleT003, base, serverID, fmt.Sprintf("server %s: launch surface changed since it was pinned (%s)", label, strings.Join(d.Launch, ", ")), "launch")
		f.Evidence = map[string]any{"kind": "launch", "server": d.Server, "fields": d.Launch}
		out = append(out, f)
	}
	if d.Initialize {
		f := reports.NewFinding(ruleT003, base, serverID, fmt.Sprintf("server %s: serverInfo or instructions changed since they were pinned", label), "initialize")
		f.Evidence = map[string]any{"kind": "initialize", "server": d.Server}
		out = append(out, f)
	}
	for _, c := range d.Changed {
		f := reports.NewFinding(ruleT003, at(c.Name), serverID, fmt.Sprintf("tool %s changed since it was pinned: %s", toolcheck.QuoteName(c.Name), strings.Join(c.Fields, ", ")), "changed", c.Name)
		ev := map[string]any{"kind": "changed", "server": d.Server, "tool": c.Name, "fields": c.Fields}
		if len(c.Details) > 0 {
			ev["details"] = c.Details
		}
		f.Evidence = ev
		out = append(out, f)
	}
	for _, n := range d.Added {
		f := reports.NewFinding(ruleT003, at(n), serverID, fmt.Sprintf("tool %s is new since the pin", toolcheck.QuoteName(n)), "added", n)
		f.Evidence = map[string]any{"kind": "added", "server": d.Server, "tool": n}
		out = append(out, f)
	}
	for _, n := range d.Removed {
		f := reports.NewFinding(ruleT003, base, serverID, fmt.Sprintf("tool %s was removed since the pin", toolcheck.QuoteName(n)), "removed", n)
		f.Evidence = map[string]any{"kind": "removed", "server": d.Server, "tool": n}
		f.Severity = reports.SeverityNote
		out = append(out, f)
	}
	return out
}

// ruleT003 is the rule of a definition that changed since it was pinned.
const ruleT003 = "MCPG-T003"
