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
// sizing each report's server and finding lists by the last report's:
// reports of a fleet are much alike, so a list sized so is most often
// exactly right and is not grown while it is decoded; one with much room
// left is copied to its length.
// A ReportReader is not safe for concurrent use; the reports it returns
// share nothing with it.
type ReportReader struct {
	servers, findings int // the last lengths decoded
	fast              fastDecoder
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
		switch {
		case strings.HasPrefix(schema, "mcpguard/fleet/"):
			return fail(-1, "a fleet report (%s): merge the machine reports it was made from", schema)
		case schema == "":
			return fail(-1, "not an mcpguard report (no schema member; write reports with scan --format json)")
		}
		return fail(schemaAt(), "not an mcpguard report (schema %q, want %q)", schema, Schema)
	}
	// One decoding pass, with the JSON v2 decoder (the Go team's, already
	// in the module graph), stricter than encoding/json as a security
	// tool's input should be: a duplicate member name or invalid UTF-8 is
	// an error, not a silent last-wins. The servers and findings, nearly
	// all of a report, are read by hand (fastDecoder; what it saves a
	// fleet merge is in docs/performance.md); a document it does not read
	// exactly as Unmarshal would goes to Unmarshal.
	r := Report{Servers: sizedList[Server](rr.servers), Findings: sizedList[Finding](rr.findings)}
	var err error
	if !rr.fast.decodeReport(data, &r) {
		r = Report{Servers: sizedList[Server](rr.servers), Findings: sizedList[Finding](rr.findings)}
		err = jsonv2.Unmarshal(data, &r)
	}
	r.Servers, rr.servers = fitList(r.Servers, rr.servers)
	r.Findings, rr.findings = fitList(r.Findings, rr.findings)
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

// sizedList is an empty list with room for n elements; nil for none, so
// that a member that is absent stays nil.
func sizedList[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}

// fitList returns a list decoded into sizedList's space, and the length
// to size the next one by. A list with more than an eighth of its room
// left (sized by a larger report, or grown by the decoder) is copied to
// its length. Room left whole means the member was absent: an empty JSON
// list decodes to a list with no room, null to nil.
func fitList[T any](decoded []T, last int) (list []T, next int) {
	switch {
	case len(decoded) == 0 && cap(decoded) > 0:
		return nil, last
	case len(decoded) == 0:
		return decoded, last
	case cap(decoded)-len(decoded) > len(decoded)/8:
		return slices.Clone(decoded), len(decoded)
	}
	return decoded, len(decoded)
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
