package scanner

import (
	"fmt"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// fieldReader extracts typed fields from one server entry and records every
// field whose type is wrong, so that callers can decide whether the entry is
// invalid (Claude Code's schema) or merely odd (clients that ignore bad fields).
type fieldReader struct {
	v        *jsonc.Value
	problems []string
}

func (f *fieldReader) problem(format string, args ...any) {
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

// str returns a string field. present is false when the key is absent.
func (f *fieldReader) str(key string) (s string, present bool) {
	m := f.v.Member(key)
	if m == nil {
		return "", false
	}
	if m.Value.Kind != jsonc.String {
		f.problem("%s: expected a string, got %s", key, m.Value.Kind)
		return "", true
	}
	return m.Value.Str, true
}

// strs returns an array-of-strings field.
func (f *fieldReader) strs(key string) (list []string, present bool) {
	m := f.v.Member(key)
	if m == nil {
		return nil, false
	}
	if m.Value.Kind != jsonc.Array {
		f.problem("%s: expected an array of strings, got %s", key, m.Value.Kind)
		return nil, true
	}
	list = make([]string, 0, len(m.Value.Elems))
	for i, e := range m.Value.Elems {
		if e.Kind != jsonc.String {
			f.problem("%s[%d]: expected a string, got %s", key, i, e.Kind)
			continue
		}
		list = append(list, e.Str)
	}
	return list, true
}

// strMap returns an object-of-strings field with its keys in source order.
func (f *fieldReader) strMap(key string) (m map[string]string, keys []string, present bool) {
	mem := f.v.Member(key)
	if mem == nil {
		return nil, nil, false
	}
	if mem.Value.Kind != jsonc.Object {
		f.problem("%s: expected an object of strings, got %s", key, mem.Value.Kind)
		return nil, nil, true
	}
	m = make(map[string]string, len(mem.Value.Members))
	for _, e := range mem.Value.Members {
		keys = append(keys, e.Key)
		if e.Value.Kind != jsonc.String {
			f.problem("%s.%s: expected a string, got %s", key, e.Key, e.Value.Kind)
			continue
		}
		m[e.Key] = e.Value.Str
	}
	return m, keys, true
}

// boolean returns a boolean field; ok is false when absent or not a boolean.
func (f *fieldReader) boolean(key string) (b, ok bool) {
	m := f.v.Member(key)
	if m == nil {
		return false, false
	}
	if m.Value.Kind != jsonc.Bool {
		f.problem("%s: expected a boolean, got %s", key, m.Value.Kind)
		return false, false
	}
	return m.Value.Bool, true
}
