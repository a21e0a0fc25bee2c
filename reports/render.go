package reports

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
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
// and SetEscapeHTML(false) writes (the goldens hold them, and
// TestWriteJSONMatchesEncodingJSON checks every field). The report is
// streamed (jsonDoc) rather than marshalled whole and then indented into a
// second buffer, and its servers and findings, nearly all of it, are
// written by hand on every core (appendServer, appendFinding) rather than
// by reflection; docs/performance.md has what that saves a 200-server
// scan, a daemon edit and a fleet merge.
func WriteJSON(w io.Writer, r *Report) error {
	d := newJSONDoc(bufio.NewWriterSize(w, 64<<10))
	d.field("schema", r.Schema)
	d.field("tool", r.Tool)
	d.field("generated_at", r.GeneratedAt)
	d.field("host", r.Host)
	d.field("policy", r.Policy)
	writeList(d, "servers", r.Servers, appendServer)
	writeList(d, "findings", r.Findings, appendFinding)
	d.field("errors", r.Errors)
	d.field("sources", r.Sources)
	d.field("summary", r.Summary)
	return d.end()
}

// writeList writes a list of the report whose elements write appends by
// hand (null for a nil list, as encoding/json writes it).
func writeList[T any](d *jsonDoc, name string, list []T, write func(b []byte, v *T, host *string) ([]byte, error)) {
	if list == nil {
		d.raw(name, []byte("null"))
		return
	}
	d.list(name, len(list), func(b *bytes.Buffer, i int) error {
		out, err := write(b.AvailableBuffer(), &list[i], nil)
		b.Write(out)
		return err
	})
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
