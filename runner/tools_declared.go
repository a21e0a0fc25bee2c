package runner

import (
	"bytes"
	"slices"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
	"github.com/mcpguard/mcpguard/toolcheck"
)

// declaredToolFindings analyses the tools that Claude Desktop extensions
// declare in their manifests like any tools/list result (hidden Unicode,
// poisoning, annotations, names; MCPG-U*, T*, A*), and what the lists show
// together (a tool name another extension also declares). Each finding has
// the extension's server id and points into its manifest. A manifest whose
// tools cannot be read is an error of its own.
func declaredToolFindings(res *scanner.Result) ([]reports.Finding, []reports.FileError) {
	var findings []reports.Finding
	var errs []reports.FileError
	var lists []*toolcheck.Report
	paths := map[string]string{} // id path -> the file
	for _, s := range res.Servers {
		d := s.DeclaredTools
		if d == nil {
			continue
		}
		idPath := d.IDPath
		if idPath == "" {
			idPath = d.Path
		}
		// Analysed under the stable path, so that the finding ids are the
		// scan's kind of id; the locations then name the file itself.
		data := d.Data
		if d.NoTools {
			data = withEmptyTools(data)
		}
		rep, err := toolcheck.Analyze(data, toolcheck.Options{Path: idPath, Server: s.Name, ServerID: s.ID})
		if err != nil {
			if fe, ok := toolcheck.AsFileError(err); ok {
				fe.Path = d.Path
				errs = append(errs, *fe)
			} else {
				errs = append(errs, reports.FileError{Path: d.Path, Message: "declared tools: " + err.Error()})
			}
			continue
		}
		paths[idPath] = d.Path
		for _, f := range rep.Findings {
			if f.Location.Path == idPath {
				f.Location.Path = d.Path
			}
			findings = append(findings, f)
		}
		lists = append(lists, rep)
	}
	if len(lists) > 1 {
		for _, f := range toolcheck.Compare(lists) {
			if p, ok := paths[f.Location.Path]; ok {
				f.Location.Path = p
			}
			findings = append(findings, f)
		}
	}
	return findings, errs
}

// addDeclaredTools puts the declared-tool findings into a report under
// construction, linked from their servers.
func addDeclaredTools(r *reports.Report, res *scanner.Result) {
	findings, errs := declaredToolFindings(res)
	if len(findings) == 0 && len(errs) == 0 {
		return
	}
	byID := make(map[string]int, len(r.Servers))
	for i, s := range r.Servers {
		byID[s.ID] = i
	}
	seen := make(map[string]bool, len(r.Findings))
	for _, f := range r.Findings {
		seen[f.ID] = true
	}
	for _, f := range findings {
		if seen[f.ID] {
			continue
		}
		seen[f.ID] = true
		f.Evidence = withSource(f.Evidence)
		r.Findings = append(r.Findings, f)
		if i, ok := byID[f.ServerID]; ok {
			r.Servers[i].FindingIDs = append(r.Servers[i].FindingIDs, f.ID)
		}
	}
	for _, e := range errs {
		if !slices.Contains(r.Errors, e) {
			r.Errors = append(r.Errors, e)
		}
	}
	reports.SortFindings(r.Findings)
	reports.SortErrors(r.Errors)
}

// withSource marks a finding as coming from a manifest's declared tools.
func withSource(ev map[string]any) map[string]any {
	out := make(map[string]any, len(ev)+1)
	for k, v := range ev {
		out[k] = v
	}
	out["source"] = "manifest"
	return out
}

// withEmptyTools returns a manifest (a JSON object without "tools") with
// an empty "tools" array added before its closing brace, so that
// toolcheck reads it as a tools/list of no tools and reports what else it
// holds (hidden Unicode) at the positions of the file itself: nothing
// before the brace moves.
func withEmptyTools(data []byte) []byte {
	end := len(bytes.TrimRight(data, " \t\r\n"))
	open := bytes.IndexByte(data, '{')
	if end == 0 || data[end-1] != '}' || open < 0 || open >= end-1 {
		return data // not an object: Analyze says so
	}
	member := `"tools":[]`
	if len(bytes.TrimSpace(data[open+1:end-1])) != 0 {
		member = "," + member
	}
	out := make([]byte, 0, len(data)+len(member))
	out = append(out, data[:end-1]...)
	out = append(out, member...)
	return append(out, data[end-1:]...)
}
