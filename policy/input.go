package policy

import (
	"encoding/json"
	"strings"
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
// servers share (no HTML escaping, as Rego's json.marshal writes it).
func ArgvKey[T string | any](argv []T) string {
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
