package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/mcpguard/mcpguard/internal/chunks"
)

// Format names an output format.
type Format string

// The formats. Formats lists what is implemented, and feeds the --format help
// text; html comes with the fleet report.
const (
	FormatText     Format = "text"
	FormatJSON     Format = "json"
	FormatSARIF    Format = "sarif"
	FormatJUnit    Format = "junit"
	FormatMarkdown Format = "markdown"
	FormatCSV      Format = "csv"
	// FormatCycloneDX is a CycloneDX 1.6 JSON BOM of the servers.
	FormatCycloneDX Format = "cyclonedx"
	// FormatHTML is a self-contained page for people (docs/report-schema.md).
	FormatHTML Format = "html"
)

// Formats returns the implemented formats in help order.
func Formats() []Format {
	return []Format{FormatText, FormatJSON, FormatSARIF, FormatJUnit, FormatMarkdown, FormatCSV, FormatCycloneDX, FormatHTML}
}

// ParseFormat validates a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q (want %s)", s, strings.Join(names, ", "))
}

// Options tune rendering. Renderers never decide exit codes: the command
// computes the exit code once and passes it in Invocation.
type Options struct {
	// Color enables ANSI colour in text output (a TTY without NO_COLOR).
	Color bool
	// FailOn is the --fail-on rank (ParseSeverity); 0 means error.
	// JUnit turns unsuppressed findings at or above it into failures, and the
	// text and Markdown reports list them first.
	FailOn int
	// WorkDir is the directory mcpguard ran in. SARIF writes the URIs of files
	// under it relative to %SRCROOT%; JUnit and Markdown show such paths
	// relative to it.
	WorkDir string
	// Invocation describes the run for the formats that record one (SARIF
	// invocations[]); nil when rendering a saved report.
	Invocation *Invocation
	// CSVKind selects the CSV table: CSVFindings (the default for one
	// machine's report: one row per finding) or CSVServers (one row per
	// server; the default of a fleet).
	CSVKind string
}

// Invocation is how the run ended, as decided by the command.
type Invocation struct {
	// ExitCode is the process exit code (SPEC §4) and ExitCodeDescription
	// says why.
	ExitCode            int
	ExitCodeDescription string
	// Notifications are diagnostics about the run that are not errors[]
	// entries, e.g. stale ignore-file entries.
	Notifications []Notification
}

// Notification is one diagnostic about the run.
type Notification struct {
	// Level is "error", "warning" or "note".
	Level   string
	Message string
	Path    string
	Line    int
	Column  int
}

// Render writes the report in format f.
func Render(w io.Writer, f Format, r *Report, opts Options) error {
	switch f {
	case FormatJSON:
		return WriteJSON(w, r)
	case FormatText:
		return WriteText(w, r, opts)
	case FormatSARIF:
		return WriteSARIF(w, r, opts)
	case FormatJUnit:
		return WriteJUnit(w, r, opts)
	case FormatMarkdown:
		return WriteMarkdown(w, r, opts)
	case FormatCSV:
		return WriteCSV(w, r, opts)
	case FormatCycloneDX:
		return WriteCycloneDX(w, r)
	case FormatHTML:
		return WriteHTML(w, r, opts)
	}
	return fmt.Errorf("unknown format %q", f)
}

// WriteJSON writes the report as indented JSON with a trailing newline. HTML
// escaping is off so that URLs and messages stay readable.
//
// The bytes are exactly what an encoding/json Encoder with SetIndent("", "  ")
// and SetEscapeHTML(false) writes (the goldens hold them). That encoder
// marshals and then indents into a second buffer, a sixth of a
// 10,000-server scan, so the report is streamed in one pass by
// go-json-experiment's encoder with encoding/json's semantics (a large
// scan's servers and findings a batch at a time: marshalInParallel). The two
// differ only on a string holding invalid UTF-8 (a hostile config, a path):
// the replacement character encoding/json writes escaped, the other raw, so
// such a string is written as encoding/json writes it.
func WriteJSON(w io.Writer, r *Report) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	asEncodingJSON := []*jsonv2.Marshalers{jsonv2.MarshalToFunc(marshalInvalidUTF8), jsonv2.MarshalToFunc(marshalInvalidUTF8Keys)}
	// base is what a large list's elements are marshalled with, compactly:
	// the report's encoder indents them as it writes them.
	base := jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false),
		jsonv2.WithMarshalers(jsonv2.JoinMarshalers(asEncodingJSON...)))
	opts := jsonv2.JoinOptions(base, jsontext.WithIndent("  "), jsonv2.WithMarshalers(jsonv2.JoinMarshalers(append(asEncodingJSON,
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, s []Server) error { return marshalInParallel(enc, s, base) }),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, f []Finding) error { return marshalInParallel(enc, f, base) }))...)))
	if err := jsonv2.MarshalWrite(bw, r, opts); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

// parallelBatch bounds how many marshalled elements wait in memory.
const parallelBatch = 4096

// marshalInParallel writes a long list (a large scan's servers and
// findings) with its elements marshalled compactly on every processor
// (chunks.Run), a batch at a time, then written in order through enc,
// which indents them as it would have: writing the report was
// single-threaded work at the end of every scan, 74 ms of an 11,000-server
// one. opts are the encoder's own without its indentation.
func marshalInParallel[T any](enc *jsontext.Encoder, list []T, opts jsonv2.Options) error {
	if !chunks.Many(len(list)) {
		return errors.ErrUnsupported // the encoder's own way
	}
	if err := enc.WriteToken(jsontext.BeginArray); err != nil {
		return err
	}
	vals := make([]jsontext.Value, min(len(list), parallelBatch))
	errs := make([]error, chunks.Count(len(vals)))
	for start := 0; start < len(list); start += len(vals) {
		batch := list[start:min(start+len(vals), len(list))]
		out := vals[:len(batch)]
		chunks.Run(len(batch), func() func(c, lo, hi int) {
			return func(c, lo, hi int) {
				for i := lo; i < hi && errs[c] == nil; i++ {
					out[i], errs[c] = jsonv2.Marshal(&batch[i], opts)
				}
			}
		})
		if err := errors.Join(errs...); err != nil {
			return err
		}
		for _, v := range out {
			if err := enc.WriteValue(v); err != nil {
				return err
			}
		}
	}
	return enc.WriteToken(jsontext.EndArray)
}

// marshalInvalidUTF8 writes a string with invalid UTF-8 as encoding/json
// does; every other string is left to the encoder.
func marshalInvalidUTF8(enc *jsontext.Encoder, s string) error {
	if utf8.ValidString(s) {
		return errors.ErrUnsupported
	}
	return writeAsEncodingJSON(enc, s)
}

// marshalInvalidUTF8Keys does the same for an object (evidence, details)
// with a key that is not valid UTF-8.
func marshalInvalidUTF8Keys(enc *jsontext.Encoder, m map[string]any) error {
	for k := range m {
		if !utf8.ValidString(k) {
			return writeAsEncodingJSON(enc, m)
		}
	}
	return errors.ErrUnsupported
}

func writeAsEncodingJSON(enc *jsontext.Encoder, v any) error {
	var b bytes.Buffer
	je := json.NewEncoder(&b)
	je.SetEscapeHTML(false)
	if err := je.Encode(v); err != nil {
		return err
	}
	return enc.WriteValue(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// relPath returns p relative to dir, slash-separated, when p is dir or lies
// under it; ok is false otherwise (and for an empty dir).
func relPath(dir, p string) (rel string, ok bool) {
	if dir == "" || p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// displayPath shows p relative to the working directory when it is under
// it, else as it is.
func displayPath(workDir, p string) string {
	if rel, ok := relPath(workDir, p); ok {
		return rel
	}
	return p
}

// displayLocation is path:line:col with displayPath.
func displayLocation(workDir, path string, line, col int) string {
	p := displayPath(workDir, path)
	if line == 0 {
		return p
	}
	return fmt.Sprintf("%s:%d:%d", p, line, col)
}
