package reports

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// ReadReport decodes a saved `--format json` report. Anything else — not
// JSON, another schema, a fleet report — is a FileError with the position
// where reading stopped, never a panic.
func ReadReport(path string, data []byte) (*Report, *FileError) {
	return new(ReportReader).Read(path, data)
}

// A ReportReader decodes reports one after the other, as ReadReport does,
// reusing the space it decodes server and finding lists into. Decoding a
// list appends to it, element by element: a report's 100 servers grew
// their slice eight times, and on a fleet merge those discarded arrays
// were half of all the memory allocated. The reader keeps the largest
// lists it has decoded and gives each report copies of exactly their
// length. It is not safe for concurrent use; the reports it returns share
// nothing with it.
type ReportReader struct {
	servers  []Server
	findings []Finding
}

// Read decodes one report, as ReadReport.
func (rr *ReportReader) Read(path string, data []byte) (*Report, *FileError) {
	// offset < 0: the position is unknown.
	fail := func(offset int64, format string, args ...any) (*Report, *FileError) {
		line, col := 0, 0
		if offset >= 0 {
			line, col = position(data, offset)
		}
		return nil, &FileError{Path: path, Line: line, Column: col, Message: fmt.Sprintf(format, args...)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	schemaAt := func() int64 {
		if off := fieldOffset(data, "schema"); off > 0 {
			return off
		}
		return -1
	}
	notReport := func(schema string) (*Report, *FileError) {
		switch schema {
		case FleetSchema:
			return fail(-1, "a fleet report (%s): merge the machine reports it was made from", FleetSchema)
		case "":
			return fail(-1, "not an mcpguard report (no schema member; write reports with scan --format json)")
		}
		return fail(schemaAt(), "not an mcpguard report (schema %q, want %q)", schema, Schema)
	}
	// One decoding pass, with the JSON v2 decoder (the Go team's, already
	// in the module graph): decoding is most of a fleet merge, and v2
	// decodes a report four times as fast as encoding/json, which also
	// validates the whole input before it decodes. v2 is also stricter,
	// as a security tool's input should be: a duplicate member name or
	// invalid UTF-8 is an error, not a silent last-wins.
	r := Report{Servers: rr.servers[:0], Findings: rr.findings[:0]}
	err := jsonv2.Unmarshal(data, &r)
	r.Servers, rr.servers = exactList(r.Servers, rr.servers)
	r.Findings, rr.findings = exactList(r.Findings, rr.findings)
	if err != nil {
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			return fail(syn.ByteOffset, "not a JSON report: %v", describe(syn.Err))
		}
		// Say what the document is before what is wrong in it.
		var head struct {
			Schema any `json:"schema"`
		}
		if herr := jsonv2.Unmarshal(data, &head); herr != nil {
			// The decoder stops at the first error, which may be a wrong
			// type before a syntax error further on: the head alone
			// reads past types, so its syntax error comes first.
			if errors.As(herr, &syn) {
				return fail(syn.ByteOffset, "not a JSON report: %v", describe(syn.Err))
			}
			return fail(-1, "not an mcpguard report: %v", describe(err))
		}
		if schema, _ := head.Schema.(string); schema != Schema {
			if head.Schema != nil && schema == "" {
				return fail(schemaAt(), "not an mcpguard report (schema is not a string)")
			}
			return notReport(schema)
		}
		var sem *jsonv2.SemanticError
		if errors.As(err, &sem) {
			what := "a JSON " + sem.JSONKind.String()
			if sem.JSONKind == 0 {
				what = "not what it should be"
			}
			want := ""
			if sem.GoType != nil {
				want = ", want " + sem.GoType.String()
			}
			return fail(sem.ByteOffset, "malformed report: %s is %s%s", pointerText(string(sem.JSONPointer)), what, want)
		}
		return fail(-1, "malformed report: %v", describe(err))
	}
	if r.Schema != Schema {
		return notReport(r.Schema)
	}
	return &r, nil
}

// exactList returns a decoded list as a slice of exactly its length, and
// the space to decode the next list into: the larger of the one the list
// was decoded into and the one it grew into. The decoder zeroes each
// element before it decodes into it, so the space needs no clearing; what
// it still refers to, the copies share.
func exactList[T any](decoded, scratch []T) (list, next []T) {
	if cap(decoded) > cap(scratch) {
		scratch = decoded[:0]
	}
	if len(decoded) == 0 {
		if cap(decoded) > 0 {
			// The scratch space as given: the member was absent.
			return nil, scratch
		}
		return decoded, scratch // null (nil) or [] (empty, not nil)
	}
	return slices.Clone(decoded), scratch
}

// describe is an error's text without the decoder's package prefix.
func describe(err error) string {
	if err == nil {
		return "invalid"
	}
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "jsontext: "), "json: ")
}

// pointerText names a JSON Pointer for a message: "/servers/3/id", or
// "the document" for the root.
func pointerText(p string) string {
	if p == "" {
		return "the document"
	}
	return p
}
