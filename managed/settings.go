package managed

import (
	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// LastBool returns the value of key from the last document of docs that sets it
// to a boolean ("a later document wins", §4.2).
func LastBool(docs []*Document, key string) (value, set bool) {
	for _, d := range docs {
		if m := d.Get(key); m != nil && m.Value.Kind == jsonc.Bool {
			value, set = m.Value.Bool, true
		}
	}
	return value, set
}

// Strings returns the string elements of key's array in doc; non-string
// elements are skipped. ok is false when the key is absent or not an array.
func (d *Document) Strings(key string) (list []string, m *jsonc.Member, ok bool) {
	m = d.Get(key)
	if m == nil || m.Value.Kind != jsonc.Array {
		return nil, m, false
	}
	for _, e := range m.Value.Elems {
		if e.Kind == jsonc.String {
			list = append(list, e.Str)
		}
	}
	return list, m, true
}

// StrictPluginOnlyMCP reports whether strictPluginOnlyCustomization covers MCP.
// Observed with the CLI (§4.5 says otherwise): the last managed document that
// sets the key decides; false, null and an array without "mcp" (matched
// case-sensitively) are off, every other value — "yes", "false", "", 0 — is on.
func StrictPluginOnlyMCP(docs []*Document) (on bool, doc *Document, m *jsonc.Member) {
	for _, d := range docs {
		mm := d.Get("strictPluginOnlyCustomization")
		if mm == nil {
			continue
		}
		doc, m, on = d, mm, true
		switch mm.Value.Kind {
		case jsonc.Null:
			on = false
		case jsonc.Bool:
			on = mm.Value.Bool
		case jsonc.Array:
			on = false
			for _, e := range mm.Value.Elems {
				if e.Kind == jsonc.String && e.Str == "mcp" {
					on = true
				}
			}
		}
	}
	return on, doc, m
}

// NamedEntry is one entry of an object of named entries (managedMcpServers).
type NamedEntry struct {
	Doc    *Document
	Name   string
	Member *jsonc.Member
}

// MergeNamed merges an object-valued key across docs name by name: a later
// document wins a clash and the name keeps the position of its first
// appearance, as JavaScript's object spread does. Documents whose value is not
// an object are skipped.
func MergeNamed(docs []*Document, key string) []NamedEntry {
	var out []NamedEntry
	index := map[string]int{}
	for _, d := range docs {
		m := d.Get(key)
		if m == nil || m.Value.Kind != jsonc.Object {
			continue
		}
		for i := range m.Value.Members {
			e := NamedEntry{Doc: d, Name: m.Value.Members[i].Key, Member: &m.Value.Members[i]}
			if j, ok := index[e.Name]; ok {
				out[j] = e
				continue
			}
			index[e.Name] = len(out)
			out = append(out, e)
		}
	}
	return out
}

// Env merges the string values of the env objects of docs, later documents
// winning (§4.2).
func Env(docs []*Document) map[string]string {
	var env map[string]string
	for _, d := range docs {
		m := d.Get("env")
		if m == nil || m.Value.Kind != jsonc.Object {
			continue
		}
		for _, e := range m.Value.Members {
			if e.Value.Kind != jsonc.String {
				continue
			}
			if env == nil {
				env = map[string]string{}
			}
			env[e.Key] = e.Value.Str
		}
	}
	return env
}

// settingsTypes are the value types Claude Code's settings schema checks for
// keys that bear on MCP. Observed: in user, project and local settings a
// wrongly typed "permissions" or "enableAllProjectMcpServers" makes Claude Code
// reject the whole file (its deny list then does nothing), while a bad "hooks"
// value is tolerated and managed documents are never rejected this way.
var settingsTypes = map[string]jsonc.Kind{
	"permissions":                jsonc.Object,
	"enableAllProjectMcpServers": jsonc.Bool,
	"enabledMcpjsonServers":      jsonc.Array,
	"disabledMcpjsonServers":     jsonc.Array,
	"env":                        jsonc.Object,
	"enabledPlugins":             jsonc.Object,
}

// SchemaProblem returns why Claude Code rejects a user, project or local
// settings document as a whole, or "" when it accepts it. (Policy lists are
// validated entry by entry instead, see ParseList.)
func SchemaProblem(d *Document) (string, *jsonc.Member) {
	for i := range d.Root.Members {
		m := &d.Root.Members[i]
		want, ok := settingsTypes[m.Key]
		if !ok || m.Value.Kind == want {
			continue
		}
		return m.Key + " must be " + kindName(want) + ", not " + m.Value.Kind.String(), m
	}
	for _, key := range []string{"enabledMcpjsonServers", "disabledMcpjsonServers"} {
		if m := d.Get(key); m != nil {
			if _, ok := m.Value.StringSlice(); !ok {
				return key + " must be an array of strings", m
			}
		}
	}
	return "", nil
}

func kindName(k jsonc.Kind) string {
	switch k {
	case jsonc.Object:
		return "an object"
	case jsonc.Array:
		return "an array"
	case jsonc.Bool:
		return "a boolean"
	}
	return "a " + k.String()
}
