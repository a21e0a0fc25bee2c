package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format names an output format.
type Format string

// The formats. More are added by the reports issue; Formats lists what is
// implemented, and feeds the --format help text.
const (
	FormatText Format = "text"
	FormatJSON Format = "json"
)

// Formats returns the implemented formats in help order.
func Formats() []Format { return []Format{FormatText, FormatJSON} }

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

// Options tune rendering.
type Options struct {
	// Color enables ANSI colour in text output (a TTY without NO_COLOR).
	Color bool
}

// Render writes the report in format f.
func Render(w io.Writer, f Format, r *Report, opts Options) error {
	switch f {
	case FormatJSON:
		return WriteJSON(w, r)
	case FormatText:
		return WriteText(w, r, opts)
	}
	return fmt.Errorf("unknown format %q", f)
}

// WriteJSON writes the report as indented JSON with a trailing newline. HTML
// escaping is off so that URLs and messages stay readable.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
