package policy

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcpguard/mcpguard/internal/jsonquote"
	"github.com/mcpguard/mcpguard/internal/regoir"
)

// IndexList gives the policy an expanded list in the shape its rules look
// entries up in: names and command lines as object keys (O(1) instead of a scan
// per server), URL patterns as a list, and every entry for messages.
func IndexList(entries []any) map[string]any {
	names, commands := map[string]any{}, map[string]any{}
	var urls []any
	for _, e := range entries {
		m := e.(map[string]any)
		switch m["key"] {
		case "serverName":
			n := m["name"].(string)
			names[n] = append(asList(names[n]), m)
		case "serverCommand":
			k := ArgvKey(m["command"].([]any))
			commands[k] = append(asList(commands[k]), m)
		case "serverUrl":
			urls = append(urls, m)
		}
	}
	return map[string]any{
		"count": len(entries), "names": names, "commands": commands, "urls": nonNilList(urls),
		"has_command": len(commands) > 0, "has_url": len(urls) > 0, "entries": nonNilList(entries),
	}
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return nil
}

// ArgvKey is the JSON text of a command line, the key that policy lists and
// servers share (no HTML escaping, as Rego's json.marshal writes it). A
// list of strings, every server's, is quoted by jsonquote, which writes
// what encoding/json writes (TestArgvKey); anything else a settings file
// may hold goes through encoding/json.
func ArgvKey[T string | any](argv []T) string {
	if argv == nil {
		return "null" // as encoding/json writes a nil list
	}
	b := make([]byte, 0, 64)
	b = append(b, '[')
	for i, a := range argv {
		s, ok := any(a).(string)
		if !ok {
			return argvKeyJSON(argv)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonquote.Append(b, s, false)
	}
	return string(append(b, ']'))
}

func argvKeyJSON[T string | any](argv []T) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(argv); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func nonNilList(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// Object builds an object of the engine's input field by field, without a
// Go map that NewValue would convert afterwards. It makes a
// regoir.Record, which the shipped plan reads without the hashing an OPA
// object does as it is made; topdown is given the OPA object it stands
// for, the same value (TestObjectMatchesNewValue). The zero value is an
// empty object; each key is added once, and every field before the
// object is used (Value, or added to another object). The record, its
// fields (up to inlineFields) and the term that holds it in another
// object are allocated together.
type Object struct {
	rec    regoir.Record
	term   ast.Term // the object as AddObject adds it
	inline [2 * inlineFields]*ast.Term
	later  LaterFields // Later's
	laterN int
	arena  *InputArena // where its strings and lists are made; nil: the heap
}

// inlineFields is how many fields an Object holds without another
// allocation: the most any object of a server's input has (claude: 6).
const inlineFields = 6

// NewObject returns an object with room for n fields.
func NewObject(n int) *Object {
	o := &Object{}
	if n > inlineFields || !o.rec.Use(o.inline[:2*n]) {
		o.rec.Grow(n)
	}
	return o
}

func (o *Object) add(key string, v *ast.Term) { o.rec.Add(keyTerm(key), v) }

// keyTerm is key as a term: made once for the field names of the engine's
// input and of the results it reads (keyTerms), afresh for any other.
func keyTerm(key string) *ast.Term {
	if k := keyTerms()[key]; k != nil {
		return k
	}
	return ast.StringTerm(key)
}

// keyTerms are the field names of the engine's input (docs/policies.md) and
// of the results it decodes, as terms made once and shared by every input
// and every lookup in a result (OPA interns only names of its own). Terms
// are immutable, so sharing them is safe. TestInputKeysMadeOnce and
// TestResultKeysMadeOnce hold the list to the input and the results.
var keyTerms = sync.OnceValue(func() map[string]*ast.Term {
	names := []string{
		// input.server
		"context", "server", // input
		"name", "client", "scope", "project", "transport", "type", "command", "args", "url", "env_keys",
		"header_keys", "source", "status", "enforced", "wrapped_by", "claude", "facts",
		"path", "pointer", "line", "column", // source
		"label", "builtin", "argv", "has_var", "argv_keys", "urls", // claude
		"secrets", "program", "program_args", "env_var_keys", // facts
		"field", "key", "index", "kind", // facts.secrets[_]
		"parsed", "scheme", "host", "port", "loopback", // facts.url
		// input.context (scanner's buildContext)
		"os", "allow", "deny", "allow_org", "deny_org", "managed_only", "documents", "issues", "broken",
		"managed_mcp", "strict_plugin_only", "on", "servers_object", "error", // context.claude
		"count", "names", "commands", "has_command", "has_url", "entries", // a list (IndexList)
		// results (decode.go)
		"verdict", "allowed", "reasons", "admission", "findings", "deny", "warn",
		"rule", "msg", "severity", "evidence", "location", "package", "result",
	}
	out := make(map[string]*ast.Term, len(names))
	for _, n := range names {
		out[n] = ast.StringTerm(n)
	}
	return out
})

// AddString adds a string field.
func (o *Object) AddString(key, v string) { o.add(key, o.arena.stringTerm(v)) }

// AddBool adds a boolean field.
func (o *Object) AddBool(key string, v bool) { o.add(key, ast.InternedTerm(v)) }

// AddInt adds a number field.
func (o *Object) AddInt(key string, v int) { o.add(key, ast.InternedTerm(v)) }

// AddNull adds a null field.
func (o *Object) AddNull(key string) { o.add(key, ast.InternedNullTerm) }

// AddSymbol adds a string field whose values come from a small set: a
// transport, a scope label, a URL scheme, a program's name. The common
// ones (symbolTerms) are terms made once, which every server's input
// shares; any other value is made as AddString makes it.
func (o *Object) AddSymbol(key, v string) {
	if t := symbolTerms()[v]; t != nil {
		o.add(key, t)
		return
	}
	o.AddString(key, v)
}

// symbolTerms are the common values of the fields AddSymbol adds, as
// terms made once and shared by every server's input. Terms are
// immutable, so sharing them is safe.
var symbolTerms = sync.OnceValue(func() map[string]*ast.Term {
	values := []string{
		"stdio", "http", "sse", "ws", "other", // transports
		"user", "local", "project", "enterprise", "managed", "plugin", "dynamic", // Claude Code's scope labels
		"https", "wss", // URL schemes (and http, ws)
		// programs: the launchers and shells the hygiene rules look for,
		// and the runtimes most servers start
		"npx", "bunx", "pnpm", "yarn", "npm", "uvx", "uv", "pipx", "docker", "podman", "nerdctl",
		"sh", "bash", "zsh", "cmd", "powershell", "pwsh", "node", "python", "python3", "deno", "bun", "java", "go",
	}
	out := make(map[string]*ast.Term, len(values))
	for _, v := range values {
		out[v] = ast.StringTerm(v)
	}
	return out
})

// Strings is an array AddStrings added, which another field of the same
// input may hold again (AddStringsAgain).
type Strings struct {
	list []string
	term *ast.Term
}

// AddStrings adds an array of strings (empty, never null, for no strings).
func (o *Object) AddStrings(key string, list []string) Strings {
	if len(list) == 0 {
		o.add(key, regoir.EmptyArray())
		return Strings{}
	}
	terms := o.arena.list(len(list))
	for i, s := range list {
		terms[i] = o.arena.stringTerm(s)
	}
	t := o.arena.term(ast.NewArray(terms...))
	o.add(key, t)
	return Strings{list, t}
}

// AddStringsAgain adds list as AddStrings does, as the very array of same
// when it holds the same strings: most servers' program arguments are
// their arguments. Two fields may share an array as every input shares
// the empty one (regoir.EmptyArray): nothing writes into an input.
func (o *Object) AddStringsAgain(key string, list []string, same Strings) {
	if same.term != nil && slices.Equal(list, same.list) {
		o.add(key, same.term)
		return
	}
	o.AddStrings(key, list)
}

// AddObject adds an object field.
func (o *Object) AddObject(key string, v *Object) {
	if v.term.Value == nil { // a Shared object's is set
		v.term.Value = v.value()
	}
	o.add(key, &v.term)
}

// Shared makes o ready to be added to many inputs, on any goroutine: it
// must have all its fields, and none left for later. It returns o.
func (o *Object) Shared() *Object {
	o.term.Value = o.value()
	return o
}

// AddObjects adds an array of objects (empty, never null, for none): OPA
// objects, not records, as an array hashes its elements as it is made.
func (o *Object) AddObjects(key string, list []*Object) {
	if len(list) == 0 {
		o.add(key, regoir.EmptyArray())
		return
	}
	terms := make([]*ast.Term, len(list))
	for i, v := range list {
		terms[i] = ast.NewTerm(regoir.PlainValue(v.value()))
	}
	o.add(key, ast.ArrayTerm(terms...))
}

// LaterFields adds the fields an Object leaves for later (Object.Later).
// It is an interface rather than a closure so that a caller can hand over
// a value it has already (the scanner's Server) instead of allocating a
// closure and its state for every input.
type LaterFields interface {
	AddLater(o *Object)
}

// Later gives o n more fields that f adds when a read first needs one
// (a key o does not hold, or the whole object): the fields that few rules
// read, which a scan would otherwise make for every server. f runs at
// most once, on the goroutine that needs them first; it adds keys that o
// does not hold, and must read only what does not change once Later is
// called. Call Later once, after o's other fields and before o is used.
func (o *Object) Later(n int, f LaterFields) {
	o.later, o.laterN = f, n
	o.rec.Later((*laterObject)(o))
}

// laterObject is an Object as its record's regoir.Filler (unexported, so
// that an Object has no such method of its own).
type laterObject Object

func (l *laterObject) FillLater() *regoir.Record {
	rest := l.arena.NewObject(l.laterN)
	l.later.AddLater(rest)
	return &rest.rec
}

func (o *Object) value() ast.Value { return &o.rec }

// Value is the object as an engine value.
func (o *Object) Value() Value { return Value{v: o.value(), arena: o.arena} }

// Arena is where o was made: nil for the heap. The fields an object leaves
// for later (LaterFields) make theirs there too.
func (o *Object) Arena() *InputArena { return o.arena }
