package wrap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
)

// verbs are the text output's words per mode and dry run: the action and the
// summary's "N servers ..." phrase.
func verbs(mode Mode, dryRun bool) (done, summary string) {
	switch {
	case mode == ModeWrap && dryRun:
		return "would wrap", "to wrap"
	case mode == ModeWrap:
		return "wrapped", "wrapped"
	case dryRun:
		return "would unwrap", "to unwrap"
	}
	return "unwrapped", "unwrapped"
}

// WriteText prints, per file, what happened to each selected server and
// where its backup is; then a summary line and, for a dry run, the diff.
// Secrets are hidden as in every report (names and the diff included).
func (plan *Plan) WriteText(w io.Writer, dryRun bool) error {
	bw := bufio.NewWriter(w)
	done, summary := verbs(plan.Mode, dryRun)
	changed, skipped, files := 0, 0, 0
	for _, f := range plan.Files {
		fmt.Fprintf(bw, "%s (%s)\n", reports.Printable(f.Path), f.Client)
		if f.Tracked != "" && f.Changed() {
			fmt.Fprintf(bw, "  %-12s %s: the wrappers run %q from PATH and name project servers relative to the repository\n", "committed", reports.Printable(f.Tracked), bareCommand)
		}
		for _, e := range f.Entries {
			where := e.Scope
			if e.Project != "" {
				where += " " + e.Project
			}
			switch e.Action {
			case ActionSkipped:
				skipped++
				fmt.Fprintf(bw, "  %-12s %s (%s): %s\n", "skipped", reports.Printable(plan.det.RedactText(e.Name)), reports.Printable(where), reports.Printable(e.Reason))
			default:
				changed++
				fmt.Fprintf(bw, "  %-12s %s (%s)\n", done, reports.Printable(plan.det.RedactText(e.Name)), reports.Printable(where))
			}
		}
		switch {
		case f.Err != nil:
			fmt.Fprintf(bw, "  %-12s %s\n", "error", reports.Printable(f.Err.Error()))
		case f.Written:
			files++
			fmt.Fprintf(bw, "  %-12s %s (secrets redacted)\n", "backup", reports.Printable(f.Backup))
		case f.Changed():
			files++
		default:
			fmt.Fprintln(bw, "  unchanged")
		}
		if b := f.Previous; b != nil && !f.Written {
			fmt.Fprintf(bw, "  %-12s %s (taken %s, secrets redacted)\n", "backup", reports.Printable(b.Path), b.Time.Format("2006-01-02 15:04:05 UTC"))
		}
	}
	fmt.Fprintf(bw, "mcpguard %s: %s %s, %d skipped, %s", plan.Mode, plural(changed, "server"), summary, skipped, plural(files, "file"))
	if dryRun {
		fmt.Fprint(bw, " to change (dry run: nothing written)")
	} else {
		fmt.Fprint(bw, " changed")
	}
	fmt.Fprintln(bw)
	if dryRun {
		if d := plan.Diff(); d != "" {
			fmt.Fprintln(bw)
			fmt.Fprint(bw, printableDiff(d))
		}
	}
	return bw.Flush()
}

// printableDiff makes each diff line terminal-safe.
func printableDiff(d string) string {
	lines := strings.SplitAfter(d, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = reports.Printable(strings.TrimSuffix(l, "\n")) + "\n"
		} else {
			lines[i] = reports.Printable(l)
		}
	}
	return strings.Join(lines, "")
}

// wrapJSON is the --format json document of wrap and un
type wrapJSON struct {
	Mode       string              `json:"mode"`
	DryRun     bool                `json:"dry_run"`
	Executable string              `json:"executable,omitempty"`
	Files      []wrapFileJSON      `json:"files"`
	Warnings   []reports.Finding   `json:"warnings"`
	Errors     []reports.FileError `json:"errors"`
	Summary    wrapSummaryJSON     `json:"summary"`
}

type wrapSummaryJSON struct {
	Wrapped      int `json:"wrapped"`
	Unwrapped    int `json:"unwrapped"`
	Skipped      int `json:"skipped"`
	FilesChanged int `json:"files_changed"`
}

type wrapFileJSON struct {
	Path    string `json:"path"`
	Client  string `json:"client"`
	Changed bool   `json:"changed"`
	Written bool   `json:"written"`
	Backup  string `json:"backup,omitempty"`
	// Previous is the backup the file had before the run (unwrap lists it).
	Previous *Backup            `json:"previous_backup,omitempty"`
	Tracked  string             `json:"tracked,omitempty"`
	Error    *reports.FileError `json:"error,omitempty"`
	Servers  []wrapServerJSON   `json:"servers"`
	Diff     string             `json:"diff,omitempty"`
}

type wrapServerJSON struct {
	Name      string `json:"name"`
	Client    string `json:"client"`
	Scope     string `json:"scope"`
	Project   string `json:"project"`
	Pointer   string `json:"pointer"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	Action    string `json:"action"`
	Reason    string `json:"reason,omitempty"`
	ProxyName string `json:"proxy_name,omitempty"`
}

// WriteJSON writes the --format json document of wrap and unwrap
// (docs/wrap.md).
func (plan *Plan) WriteJSON(w io.Writer, dryRun bool) error {
	doc := wrapJSON{Mode: plan.Mode.String(), DryRun: dryRun, Executable: plan.Executable,
		Files: []wrapFileJSON{}, Warnings: plan.Warnings, Errors: plan.Errors}
	if doc.Warnings == nil {
		doc.Warnings = []reports.Finding{}
	}
	if doc.Errors == nil {
		doc.Errors = []reports.FileError{}
	}
	for _, f := range plan.Files {
		fj := wrapFileJSON{Path: f.Path, Client: f.Client, Changed: f.Changed(), Written: f.Written, Backup: f.Backup,
			Previous: f.Previous, Tracked: f.Tracked, Error: f.Err, Servers: []wrapServerJSON{}}
		if dryRun && fj.Changed {
			fj.Diff = plan.fileDiff(f)
		}
		if fj.Changed {
			doc.Summary.FilesChanged++
		}
		for _, e := range f.Entries {
			sj := wrapServerJSON{Name: plan.det.RedactText(e.Name), Client: e.Client, Scope: e.Scope, Project: e.Project, Pointer: plan.det.RedactText(e.Pointer),
				Line: e.Line, Column: e.Column, Action: e.Action, Reason: e.Reason}
			if plan.Mode == ModeWrap && e.Action == ActionWrapped {
				sj.ProxyName = plan.det.RedactText(e.ProxyName)
			}
			switch e.Action {
			case ActionWrapped:
				doc.Summary.Wrapped++
			case ActionUnwrapped:
				doc.Summary.Unwrapped++
			default:
				doc.Summary.Skipped++
			}
			fj.Servers = append(fj.Servers, sj)
		}
		doc.Files = append(doc.Files, fj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
