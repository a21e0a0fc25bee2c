package reports

import (
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonquote"
)

// A fleet's servers and findings, nearly all of its document, are written
// by the report's hand-written writers (appendServer, appendFinding), with
// the host as a last member. The tests fill every field by reflection and
// compare with encoding/json, so a field added and not written fails them.

// appendFleetServer appends s as an element of the fleet's servers list,
// or reports false when the generic encoder is to write it (no server, or
// a value encoding/json refuses: it reports the error).
func appendFleetServer(b []byte, s *FleetServer) ([]byte, bool) {
	if s.Server == nil {
		return b, false
	}
	out, err := appendServer(b, s.Server, &s.Host)
	return out, err == nil
}

// appendFleetFinding is appendFleetServer for the findings list.
func appendFleetFinding(b []byte, f *FleetFinding) ([]byte, bool) {
	if f.Finding == nil {
		return b, false
	}
	out, err := appendFinding(b, f.Finding, &f.Host)
	return out, err == nil
}

// appendJSONLocation appends a Location object whose key is at depth.
func appendJSONLocation(b []byte, depth int, l *Location) []byte {
	b = append(b, '{')
	b = appendJSONIndent(b, depth+1)
	b = append(b, `"path": `...)
	b = jsonquote.Append(b, l.Path, false)
	b = appendJSONKey(b, depth+1, "pointer")
	b = jsonquote.Append(b, l.Pointer, false)
	b = appendJSONKey(b, depth+1, "line")
	b = strconv.AppendInt(b, int64(l.Line), 10)
	b = appendJSONKey(b, depth+1, "column")
	b = strconv.AppendInt(b, int64(l.Column), 10)
	b = appendJSONIndent(b, depth)
	return append(b, '}')
}

// appendJSONMember appends a member whose value is a string (see
// appendJSONKey).
func appendJSONMember(b []byte, depth int, name, value string) []byte {
	return jsonquote.Append(appendJSONKey(b, depth, name), value, false)
}

// appendJSONKey ends the member before and starts the one named name, at
// depth inside a list element.
func appendJSONKey(b []byte, depth int, name string) []byte {
	b = append(b, ',')
	b = appendJSONIndent(b, depth)
	b = append(b, '"')
	b = append(b, name...)
	return append(b, `": `...)
}

// appendJSONIndent starts a line at depth inside an element of a
// top-level list: the document's indentation (four spaces) and two per
// level.
func appendJSONIndent(b []byte, depth int) []byte {
	const spaces = "\n                              "
	if n := 5 + 2*depth; n <= len(spaces) {
		return append(b, spaces[:n]...)
	}
	return append(append(b, '\n'), strings.Repeat(" ", 4+2*depth)...)
}

// appendJSONStrings appends a list of strings whose key is at depth:
// null when nil, as encoding/json writes it.
func appendJSONStrings(b []byte, depth int, list []string) []byte {
	return appendJSONList(b, depth, list, appendJSONString)
}

func appendJSONString(b []byte, s *string) []byte { return jsonquote.Append(b, *s, false) }
