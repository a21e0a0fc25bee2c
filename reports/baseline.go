package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Baseline is a previous mcpguard/report/v1 report whose findings are
// accepted: `scan --baseline` suppresses every finding whose stable id it
// holds, so that only new findings count toward --fail-on.
type Baseline struct {
	// Path is the file the baseline was read from.
	Path string
	ids  map[string]bool
}

// Contains reports whether the baseline holds the finding id.
func (b *Baseline) Contains(id string) bool { return b.ids[id] }

// Suppression returns the mark of a finding accepted by this baseline. Its
// path is absolute, like every path of a report.
func (b *Baseline) Suppression() *Suppression {
	p := b.Path
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return &Suppression{
		Kind:          SuppressedByBaseline,
		Justification: "accepted in the baseline report " + b.Path,
		Path:          p,
	}
}

// LoadBaseline reads a baseline report. A file that is not JSON, not an
// mcpguard/report/v1 report or has a malformed findings list is an error
// naming path:line:col (a *FileError).
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Message: "read baseline: " + unwrapPathError(err).Error()}
	}
	return ParseBaseline(path, data)
}

// ParseBaseline parses the bytes of a baseline report read from path.
func ParseBaseline(path string, data []byte) (*Baseline, error) {
	fail := func(offset int64, format string, args ...any) error {
		line, col := position(data, offset)
		return &FileError{Path: path, Line: line, Column: col, Message: "baseline: " + fmt.Sprintf(format, args...)}
	}
	var doc struct {
		Schema   *string          `json:"schema"`
		Findings *[]baselineEntry `json:"findings"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			// Offset counts the offending byte; point at it.
			return nil, fail(syn.Offset-1, "invalid JSON: %s", syn.Error())
		case errors.As(err, &typ):
			if typ.Field != "" {
				return nil, fail(typ.Offset, "%s: want %s, not a JSON %s", typ.Field, typ.Type, typ.Value)
			}
			start := int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
			return nil, fail(start, "want a JSON object (an mcpguard/report/v1 report), not a JSON %s", typ.Value)
		default:
			// io.ErrUnexpectedEOF and the like: the document ends early.
			return nil, fail(int64(len(data)), "invalid JSON: %v", err)
		}
	}
	if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
		return nil, fail(off+int64(len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n"))), "invalid JSON: data after the report")
	}
	if doc.Schema == nil {
		return nil, fail(0, "not an mcpguard report: no \"schema\" field (want %q; write one with mcpguard scan --format json)", Schema)
	}
	if *doc.Schema != Schema {
		return nil, fail(fieldOffset(data, "schema"), "schema %q is not %q", *doc.Schema, Schema)
	}
	if doc.Findings == nil {
		return nil, fail(0, "no \"findings\" list")
	}
	b := &Baseline{Path: path, ids: make(map[string]bool, len(*doc.Findings))}
	for i, f := range *doc.Findings {
		if f.ID == "" {
			return nil, fail(fieldOffset(data, "findings"), "findings[%d] has no id", i)
		}
		b.ids[f.ID] = true
	}
	return b, nil
}

type baselineEntry struct {
	ID string `json:"id"`
}

// position turns a byte offset into a 1-based line and a column counted in
// code points, like every other mcpguard position.
func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	prefix := data[:offset]
	line = 1 + bytes.Count(prefix, []byte{'\n'})
	start := bytes.LastIndexByte(prefix, '\n') + 1
	return line, 1 + utf8.RuneCount(prefix[start:])
}

// fieldOffset finds the offset of a top-level key for an error position; 0
// when it cannot tell.
func fieldOffset(data []byte, key string) int64 {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	for dec.More() {
		off := dec.InputOffset()
		t, err := dec.Token()
		if err != nil {
			return 0
		}
		if k, ok := t.(string); ok && k == key {
			return off + int64(len(data[off:])-len(bytes.TrimLeft(data[off:], " \t\r\n,")))
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0
		}
	}
	return 0
}

// unwrapPathError drops the *fs.PathError wrapper, whose path the caller
// already names.
func unwrapPathError(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
