package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ReadReport decodes a saved `--format json` report. Anything else — not
// JSON, another schema, a fleet report — is a FileError with the position
// where reading stopped, never a panic.
func ReadReport(path string, data []byte) (*Report, *FileError) {
	fail := func(offset int64, format string, args ...any) (*Report, *FileError) {
		line, col := 0, 0
		if offset > 0 {
			line, col = position(data, offset)
		}
		return nil, &FileError{Path: path, Line: line, Column: col, Message: fmt.Sprintf(format, args...)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	notReport := func(schema string) (*Report, *FileError) {
		switch schema {
		case FleetSchema:
			return fail(0, "a fleet report (%s): merge the machine reports it was made from", FleetSchema)
		case "":
			return fail(0, "not an mcpguard report (no schema member; write reports with scan --format json)")
		}
		return fail(fieldOffset(data, "schema"), "not an mcpguard report (schema %q, want %q)", schema, Schema)
	}
	// One decoding pass for a report (encoding/json validates the whole
	// input before it decodes: a second pass for the schema alone would
	// double the cost of a fleet merge).
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fail(syn.Offset, "not a JSON report: %v", syn)
		}
		// Say what the document is before what is wrong in it.
		var head struct {
			Schema any `json:"schema"`
		}
		if json.Unmarshal(data, &head) != nil {
			return fail(0, "not an mcpguard report: %v", err)
		}
		if schema, _ := head.Schema.(string); schema != Schema {
			if head.Schema != nil && schema == "" {
				return fail(fieldOffset(data, "schema"), "not an mcpguard report (schema is not a string)")
			}
			return notReport(schema)
		}
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return fail(typ.Offset, "malformed report: %s is a JSON %s, want %s", typ.Field, typ.Value, typ.Type)
		}
		return fail(0, "malformed report: %v", err)
	}
	if r.Schema != Schema {
		return notReport(r.Schema)
	}
	return &r, nil
}
