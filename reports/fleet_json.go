package reports

import (
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonquote"
)

// The distinct servers are, with the servers and findings (appendServer,
// appendFinding), nearly all of a fleet document (40,000, 100,000 and
// 100,000 on bench/fleet.sh's fleet, 130 MB), and reflection was most of
// the time spent writing them: appendDistinct writes them by hand, byte
// for byte as elementJSON does. The tests fill every field by reflection
// and compare with encoding/json, so a field added and not here fails
// them.

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

// appendDistinct appends d as an element of the fleet's distinct servers
// (tens of thousands on a large fleet, each with a map).
func appendDistinct(b []byte, d *DistinctEntry) []byte {
	b = append(b, "{\n      \"key\": "...)
	b = jsonquote.Append(b, d.Key, false)
	b = appendJSONMember(b, 1, "transport", d.Transport)
	if d.Command != "" {
		b = appendJSONMember(b, 1, "command", d.Command)
	}
	if len(d.Args) > 0 {
		b = appendJSONKey(b, 1, "args")
		b = appendJSONStrings(b, 1, d.Args)
	}
	if d.URL != "" {
		b = appendJSONMember(b, 1, "url", d.URL)
	}
	b = appendJSONKey(b, 1, "names")
	b = appendJSONStrings(b, 1, d.Names)
	b = appendJSONKey(b, 1, "clients")
	b = appendJSONStrings(b, 1, d.Clients)
	for _, n := range []struct {
		name string
		v    int
	}{{"hosts", d.Hosts}, {"users", d.Users}, {"instances", d.Instances}, {"allowed", d.Allowed}, {"not_allowed", d.NotAllowed}} {
		b = appendJSONKey(b, 1, n.name)
		b = strconv.AppendInt(b, int64(n.v), 10)
	}
	b = appendJSONKey(b, 1, "by_status")
	b, _ = appendJSONObject(b, 1, d.ByStatus) // numbers: never an error
	b = appendJSONKey(b, 1, "findings")
	b = append(b, "{\n        \"error\": "...)
	b = strconv.AppendInt(b, int64(d.Findings.Error), 10)
	b = appendJSONKey(b, 2, "warning")
	b = strconv.AppendInt(b, int64(d.Findings.Warning), 10)
	b = appendJSONKey(b, 2, "note")
	b = strconv.AppendInt(b, int64(d.Findings.Note), 10)
	b = append(b, "\n      }"...)
	if d.Component != "" {
		b = appendJSONMember(b, 1, "component", d.Component)
	}
	if d.Version != "" {
		b = appendJSONMember(b, 1, "version", d.Version)
	}
	return append(b, "\n    }"...)
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
