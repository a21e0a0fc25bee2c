package reports

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonquote"
)

// jsonDoc writes a top-level JSON object member by member, byte for byte
// as an encoding/json Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) writes it (the report's and the fleet's JSON, by
// definition), but a long list one element at a time: encoding/json
// marshals the whole document, then indents it into a second buffer.
// The first error stops it; end reports it.
type jsonDoc struct {
	bw      *bufio.Writer
	err     error
	started bool
}

func newJSONDoc(bw *bufio.Writer) *jsonDoc { return &jsonDoc{bw: bw} }

// key starts the member named name.
func (d *jsonDoc) key(name string) {
	if d.err != nil {
		return
	}
	sep := ",\n  "
	if !d.started {
		sep, d.started = "{\n  ", true
	}
	if _, d.err = d.bw.WriteString(sep); d.err == nil {
		_, d.err = d.bw.Write(jsonquote.Append(d.bw.AvailableBuffer(), name, false))
	}
	if d.err == nil {
		_, d.err = d.bw.WriteString(": ")
	}
}

// field writes a member whose value encoding/json encodes.
func (d *jsonDoc) field(name string, v any) {
	d.key(name)
	if d.err != nil {
		return
	}
	var b bytes.Buffer
	if d.err = indentEncoder(&b, "  ").Encode(v); d.err == nil {
		_, d.err = d.bw.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
}

// list writes a member whose value is a list of n elements, each encoded
// by encode at the depth of a top-level list's elements, one at a time
// through one buffer.
func (d *jsonDoc) list(name string, n int, encode func(b *bytes.Buffer, i int) error) {
	d.key(name)
	if d.err != nil {
		return
	}
	if n == 0 {
		_, d.err = d.bw.WriteString("[]")
		return
	}
	if _, d.err = d.bw.WriteString("["); d.err != nil {
		return
	}
	var b bytes.Buffer
	for i := 0; i < n && d.err == nil; i++ {
		sep := ",\n    "
		if i == 0 {
			sep = "\n    "
		}
		b.Reset()
		b.WriteString(sep)
		if d.err = encode(&b, i); d.err == nil {
			_, d.err = d.bw.Write(b.Bytes())
		}
	}
	if d.err == nil {
		_, d.err = d.bw.WriteString("\n  ]")
	}
}

// raw writes a member whose value is b, already encoded.
func (d *jsonDoc) raw(name string, b []byte) {
	d.key(name)
	if d.err == nil {
		_, d.err = d.bw.Write(b)
	}
}

// end closes the document (an empty one is "{}") and flushes it.
func (d *jsonDoc) end() error {
	if d.err != nil {
		return d.err
	}
	end := "\n}\n"
	if !d.started {
		end = "{}\n"
	}
	if _, err := d.bw.WriteString(end); err != nil {
		return err
	}
	return d.bw.Flush()
}

// The servers and findings are nearly all of a report and of a fleet
// document: appendServer and appendFinding write them by hand as elements
// of a top-level list, byte for byte as encoding/json does, maps of any
// included (appendJSONValue), and leave to encoding/json only what they
// do not know (introspection, a value of another type). The tests fill
// every field by reflection and compare with encoding/json, so a field
// added to Server or Finding and not here fails them.

// appendServer appends v as an element of a top-level list, with a last
// member "host" when host is not nil (a fleet's FleetServer).
func appendServer(b []byte, v *Server, host *string) ([]byte, error) {
	b = append(b, "{\n      \"id\": "...)
	b = jsonquote.Append(b, v.ID, false)
	b = appendJSONMember(b, 1, "name", v.Name)
	b = appendJSONMember(b, 1, "client", v.Client)
	b = appendJSONMember(b, 1, "scope", v.Scope)
	b = appendJSONMember(b, 1, "project", v.Project)
	b = appendJSONMember(b, 1, "transport", v.Transport)
	b = appendJSONMember(b, 1, "command", v.Command)
	b = appendJSONKey(b, 1, "args")
	b = appendJSONStrings(b, 1, v.Args)
	b = appendJSONMember(b, 1, "url", v.URL)
	b = appendJSONKey(b, 1, "env_keys")
	b = appendJSONStrings(b, 1, v.EnvKeys)
	b = appendJSONKey(b, 1, "header_keys")
	b = appendJSONStrings(b, 1, v.HeaderKeys)
	b = appendJSONKey(b, 1, "source")
	b = appendJSONLocation(b, 1, &v.Source)
	b = appendJSONMember(b, 1, "status", string(v.Status))
	b = appendJSONKey(b, 1, "decision")
	b = append(b, "{\n        \"allowed\": "...)
	b = strconv.AppendBool(b, v.Decision.Allowed)
	b = appendJSONKey(b, 2, "reasons")
	b = appendJSONStrings(b, 2, v.Decision.Reasons)
	b = append(b, "\n      }"...)
	b = appendJSONKey(b, 1, "finding_ids")
	b = appendJSONStrings(b, 1, v.FindingIDs)
	var err error
	if len(v.Details) > 0 {
		b = appendJSONKey(b, 1, "details")
		if b, err = appendJSONObject(b, 1, v.Details); err != nil {
			return b, err
		}
	}
	if v.User != "" {
		b = appendJSONMember(b, 1, "user", v.User)
	}
	if v.Introspection != nil {
		b = appendJSONKey(b, 1, "introspection")
		if b, err = appendJSONEncoded(b, 1, v.Introspection); err != nil {
			return b, err
		}
	}
	if host != nil {
		b = appendJSONMember(b, 1, "host", *host)
	}
	return append(b, "\n    }"...), nil
}

// appendFinding appends v as an element of a top-level list, with a last
// member "host" when host is not nil (a fleet's FleetFinding).
func appendFinding(b []byte, v *Finding, host *string) ([]byte, error) {
	b = append(b, "{\n      \"id\": "...)
	b = jsonquote.Append(b, v.ID, false)
	b = appendJSONMember(b, 1, "rule", v.Rule)
	b = appendJSONMember(b, 1, "severity", string(v.Severity))
	b = appendJSONMember(b, 1, "category", v.Category)
	b = appendJSONMember(b, 1, "message", v.Message)
	if v.ServerID != "" {
		b = appendJSONMember(b, 1, "server_id", v.ServerID)
	}
	b = appendJSONKey(b, 1, "location")
	b = appendJSONLocation(b, 1, &v.Location)
	if len(v.Evidence) > 0 {
		b = appendJSONKey(b, 1, "evidence")
		var err error
		if b, err = appendJSONObject(b, 1, v.Evidence); err != nil {
			return b, err
		}
	}
	if s := v.Suppressed; s != nil {
		b = appendJSONKey(b, 1, "suppressed")
		b = append(b, "{\n        \"kind\": "...)
		b = jsonquote.Append(b, s.Kind, false)
		b = appendJSONMember(b, 2, "justification", s.Justification)
		b = appendJSONMember(b, 2, "path", s.Path)
		if s.Line != 0 {
			b = appendJSONKey(b, 2, "line")
			b = strconv.AppendInt(b, int64(s.Line), 10)
		}
		if s.Column != 0 {
			b = appendJSONKey(b, 2, "column")
			b = strconv.AppendInt(b, int64(s.Column), 10)
		}
		b = append(b, "\n      }"...)
	}
	if host != nil {
		b = appendJSONMember(b, 1, "host", *host)
	}
	return append(b, "\n    }"...), nil
}

// appendJSONValue appends v, the value of a member whose key is at depth:
// the types that details and evidence hold (and that a saved report's
// decode to) by hand, any other through encoding/json.
func appendJSONValue(b []byte, depth int, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsonquote.Append(b, v, false), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			break // encoding/json's error
		}
		return appendJSONFloat(b, v), nil
	case []string:
		return appendJSONStrings(b, depth, v), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		if len(v) == 0 {
			return append(b, "[]"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONIndent(b, depth+1)
			var err error
			if b, err = appendJSONValue(b, depth+1, e); err != nil {
				return b, err
			}
		}
		b = appendJSONIndent(b, depth)
		return append(b, ']'), nil
	case map[string]any:
		return appendJSONObject(b, depth, v)
	}
	return appendJSONEncoded(b, depth, v)
}

// appendJSONObject appends m with its keys sorted, as encoding/json does,
// each value as appendJSONValue writes it.
func appendJSONObject[V any](b []byte, depth int, m map[string]V) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	if len(m) == 0 {
		return append(b, "{}"...), nil
	}
	// The members in one pass over the map, sorted in place: a server's
	// details and a finding's evidence hold a handful, for which looking
	// each key up again and a general sort cost more than the writing.
	type member struct {
		k string
		v V
	}
	var small [8]member
	members := small[:0]
	for k, v := range m {
		members = append(members, member{k, v})
	}
	if len(members) <= len(small) {
		for i := 1; i < len(members); i++ {
			for j := i; j > 0 && members[j].k < members[j-1].k; j-- {
				members[j], members[j-1] = members[j-1], members[j]
			}
		}
	} else {
		slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.k, b.k) })
	}
	b = append(b, '{')
	for i, mem := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONIndent(b, depth+1)
		b = jsonquote.Append(b, mem.k, false)
		b = append(b, ": "...)
		var err error
		if b, err = appendJSONValue(b, depth+1, any(mem.v)); err != nil {
			return b, err
		}
	}
	b = appendJSONIndent(b, depth)
	return append(b, '}'), nil
}

// appendJSONFloat appends f as encoding/json writes a float64: the
// shortest decimal that reads back as f, in exponent form below 1e-6 and
// from 1e21 up, with a one-digit negative exponent ("1e-7", not "1e-07").
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONEncoded appends v as encoding/json writes it at depth.
func appendJSONEncoded(b []byte, depth int, v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := indentEncoder(&buf, strings.Repeat(" ", 4+2*depth)).Encode(v); err != nil {
		return b, fmt.Errorf("encode %T: %w", v, err)
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
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
