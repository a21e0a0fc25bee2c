package reports

import (
	"maps"
	"slices"
	"strconv"

	"github.com/mcpguard/mcpguard/internal/jsonquote"
)

// The report's other members, written by hand as encoding/json writes
// them: reflection's first use of each type (its encoder, built on first
// use in every process) was 0.1 ms of a one-file scan, a tenth of what it
// does after start-up. TestWriteJSONMatchesEncodingJSON fills every field
// of a report by reflection, so a field added to one of these types and
// not here fails it.

// raw writes a member whose value is b, already encoded.
func (d *jsonDoc) raw(name string, b []byte) {
	d.key(name)
	if d.err == nil {
		_, d.err = d.bw.Write(b)
	}
}

// appendJSONInt appends the member name: n at depth (see appendJSONKey).
func appendJSONInt(b []byte, depth int, name string, n int) []byte {
	return strconv.AppendInt(appendJSONKey(b, depth, name), int64(n), 10)
}

// The top-level members' values, their own members at depth 0 (four
// spaces) and their closing at depth -1 (two).

func appendTool(b []byte, t *Tool) []byte {
	b = jsonquote.Append(append(b, "{\n    \"name\": "...), t.Name, false)
	b = appendJSONMember(b, 0, "version", t.Version)
	return append(b, "\n  }"...)
}

func appendHost(b []byte, h *Host) []byte {
	b = jsonquote.Append(append(b, "{\n    \"hostname\": "...), h.Hostname, false)
	b = appendJSONMember(b, 0, "os", h.OS)
	b = appendJSONMember(b, 0, "user", h.User)
	return append(b, "\n  }"...)
}

func appendPolicyInfo(b []byte, p *PolicyInfo) []byte {
	b = append(b, "{\n    \"sources\": "...)
	b = appendJSONList(b, 0, p.Sources, func(b []byte, s *PolicySource) []byte {
		b = jsonquote.Append(append(b, "{\n        \"path\": "...), s.Path, false)
		b = appendJSONMember(b, 2, "kind", s.Kind)
		b = strconv.AppendBool(appendJSONKey(b, 2, "active"), s.Active)
		if s.Error != "" {
			b = appendJSONMember(b, 2, "error", s.Error)
		}
		if s.Revision != "" {
			b = appendJSONMember(b, 2, "revision", s.Revision)
		}
		if s.Digest != "" {
			b = appendJSONMember(b, 2, "digest", s.Digest)
		}
		if s.Version != "" {
			b = appendJSONMember(b, 2, "version", s.Version)
		}
		return append(appendJSONIndent(b, 1), '}')
	})
	b = appendJSONMember(b, 0, "revision", p.Revision)
	return append(b, "\n  }"...)
}

func appendFileError(b []byte, e *FileError) []byte {
	b = jsonquote.Append(append(b, "{\n      \"path\": "...), e.Path, false)
	b = appendJSONInt(b, 1, "line", e.Line)
	b = appendJSONInt(b, 1, "column", e.Column)
	b = appendJSONMember(b, 1, "message", e.Message)
	return append(b, "\n    }"...)
}

func appendSource(b []byte, s *Source) []byte {
	b = jsonquote.Append(append(b, "{\n      \"path\": "...), s.Path, false)
	b = appendJSONMember(b, 1, "client", s.Client)
	b = appendJSONMember(b, 1, "kind", s.Kind)
	if s.Scope != "" {
		b = appendJSONMember(b, 1, "scope", s.Scope)
	}
	if s.Error != "" {
		b = appendJSONMember(b, 1, "error", s.Error)
	}
	return append(b, "\n    }"...)
}

func appendSummary(b []byte, s *Summary) []byte {
	b = strconv.AppendInt(append(b, "{\n    \"servers\": "...), int64(s.Servers), 10)
	b = appendJSONInt(b, 0, "allowed", s.Allowed)
	b = appendJSONInt(b, 0, "blocked", s.Blocked)
	b = appendJSONInt(b, 0, "not_allowed_running", s.NotAllowedRunning)
	b = appendJSONKey(b, 0, "by_status")
	switch {
	case s.ByStatus == nil:
		b = append(b, "null"...)
	case len(s.ByStatus) == 0:
		b = append(b, "{}"...)
	default:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(s.ByStatus)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONIndent(b, 1)
			b = jsonquote.Append(b, k, false)
			b = strconv.AppendInt(append(b, ": "...), int64(s.ByStatus[k]), 10)
		}
		b = append(appendJSONIndent(b, 0), '}')
	}
	b = appendSeverityCount(appendJSONKey(b, 0, "findings"), &s.Findings)
	if s.Suppressed != nil {
		b = appendSeverityCount(appendJSONKey(b, 0, "suppressed"), s.Suppressed)
	}
	b = appendJSONInt(b, 0, "errors", s.Errors)
	return append(b, "\n  }"...)
}

// appendSeverityCount appends c as the value of a member at depth 0.
func appendSeverityCount(b []byte, c *SeverityCount) []byte {
	b = strconv.AppendInt(append(b, "{\n      \"error\": "...), int64(c.Error), 10)
	b = appendJSONInt(b, 1, "warning", c.Warning)
	b = appendJSONInt(b, 1, "note", c.Note)
	return append(appendJSONIndent(b, 0), '}')
}

// appendJSONList appends list, the value of a member at depth, each
// element by elem (which starts at the element's indentation, depth+1,
// and ends with its closing): null when nil, as encoding/json writes it.
func appendJSONList[T any](b []byte, depth int, list []T, elem func(b []byte, v *T) []byte) []byte {
	switch {
	case list == nil:
		return append(b, "null"...)
	case len(list) == 0:
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(appendJSONIndent(b, depth+1), &list[i])
	}
	return append(appendJSONIndent(b, depth), ']')
}
