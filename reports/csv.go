package reports

import (
	"encoding/csv"
	"io"
	"strconv"
)

// csvHeader names the columns of the CSV report: the finding, then the server
// it concerns, then its suppression.
var csvHeader = []string{
	"id", "rule", "severity", "category", "message",
	"path", "line", "column", "pointer",
	"server_id", "server_name", "client", "scope", "project", "transport", "status",
	"suppressed", "suppression_justification",
	"tool", "introspection_pointer",
}

// WriteCSV writes one row per finding (RFC 4180: CRLF line ends, fields with
// quotes, commas or line breaks quoted, quotes doubled) under a header row.
//
// Cells are made safe for spreadsheets: control characters become visible
// escapes, so every record is one line, and a cell that starts with = + - @
// (or a tab or carriage return) gets a leading apostrophe so that no
// application evaluates it as a formula (CSV injection).
func WriteCSV(w io.Writer, r *Report, opts Options) error {
	if opts.CSVKind == CSVServers {
		return WriteServersCSV(w, r)
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	servers := make(map[string]*Server, len(r.Servers))
	for i := range r.Servers {
		servers[r.Servers[i].ID] = &r.Servers[i]
	}
	for _, f := range r.Findings {
		row := findingRow(f, servers[f.ServerID])
		if err := writeSafeRow(cw, row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// findingRow is a finding's CSV row, with its server's columns when s is
// known.
func findingRow(f Finding, s *Server) []string {
	row := []string{
		f.ID, f.Rule, string(f.Severity), f.Category, f.Message,
		f.Location.Path, strconv.Itoa(f.Location.Line), strconv.Itoa(f.Location.Column), f.Location.Pointer,
		f.ServerID, "", "", "", "", "", "",
		"", "",
		"", "",
	}
	row[18], row[19] = findingTool(f)
	if s != nil {
		row[10], row[11], row[12], row[13], row[14], row[15] = s.Name, s.Client, s.Scope, s.Project, s.Transport, string(s.Status)
	}
	if s := f.Suppressed; s != nil {
		row[16], row[17] = s.Kind, s.Justification
	}
	return row
}

// writeSafeRow writes a row with every cell neutralised for spreadsheets.
func writeSafeRow(cw *csv.Writer, row []string) error {
	for i := range row {
		row[i] = csvCell(row[i])
	}
	return cw.Write(row)
}

// csvCell neutralises a value for spreadsheets (OWASP CSV injection).
func csvCell(s string) string {
	s = oneLine(s)
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// findingTool returns the tool a finding is about and, for a finding of
// `scan --introspect`, the JSON pointer into what the server answered
// (docs/report-schema.md "Introspection").
func findingTool(f Finding) (tool, pointer string) {
	tool, _ = f.Evidence["tool"].(string)
	pointer, _ = f.Evidence["introspection_pointer"].(string)
	return tool, pointer
}
