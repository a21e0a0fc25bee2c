package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpguard/mcpguard/internal/ignorefile"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
)

// suppressions are the accepted findings of a scan: a --baseline report and
// an ignore file. Both are read before scanning, so a malformed one stops the
// run with exit 2 before any work.
type suppressions struct {
	baseline *reports.Baseline
	ignore   *ignorefile.File
	// ignoreAbs is the ignore file's absolute path (reports carry it);
	// ignore.Path is the name shown in diagnostics.
	ignoreAbs string
	used      []bool // per ignore entry: it matched a finding
}

// loadSuppressions reads --baseline and the ignore file: --ignore-file when
// given (it must exist), else .mcpguardignore in the working directory when
// there is one. Problems are printed to stderr with their positions.
func loadSuppressions(stderr io.Writer, cwd string, opts *ScanOptions) (*suppressions, error) {
	s := &suppressions{}
	if opts.Baseline != "" {
		b, err := reports.LoadBaseline(opts.Baseline)
		if err != nil {
			return nil, &exitCodeError{code: exitError, err: err}
		}
		s.baseline = b
	}
	name, explicit := opts.IgnoreFile, opts.ignoreFileSet
	path := name
	if !explicit {
		name, path = ignorefile.DefaultName, filepath.Join(cwd, ignorefile.DefaultName)
	}
	if name == "" {
		return s, nil // --ignore-file "": none
	}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
	case !explicit && errors.Is(err, fs.ErrNotExist):
		return s, nil
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &exitCodeError{code: exitError, err: fmt.Errorf("%s: read ignore file: %w", name, err)}
	}
	f, err := ignorefile.Parse(name, data)
	if err != nil {
		var list ignorefile.Errors
		if errors.As(err, &list) {
			for _, e := range list {
				fmt.Fprintf(stderr, "mcpguard: %s\n", reports.Printable(e.Error()))
			}
			return nil, &exitCodeError{code: exitError}
		}
		return nil, &exitCodeError{code: exitError, err: err}
	}
	s.ignoreAbs = absOrEmpty(path)
	f.Dir = filepath.Dir(s.ignoreAbs)
	s.ignore, s.used = f, make([]bool, len(f.Entries))
	return s, nil
}

// apply marks the accepted findings of rep. An ignore entry wins over the
// baseline: it carries a reason written by a person.
func (s *suppressions) apply(rep *reports.Report) {
	if s.baseline == nil && s.ignore == nil {
		return
	}
	rep.ApplySuppressions(func(f *reports.Finding) *reports.Suppression {
		if s.ignore != nil {
			if idx := s.ignore.Match(f.ID, f.Rule, f.Location.Path); len(idx) > 0 {
				for _, i := range idx {
					s.used[i] = true
				}
				e := s.ignore.Entries[idx[0]]
				return &reports.Suppression{
					Kind:          reports.SuppressedByIgnore,
					Justification: e.Reason,
					Path:          s.ignoreAbs,
					Line:          e.Line,
					Column:        e.Column,
				}
			}
		}
		if s.baseline != nil && s.baseline.Contains(f.ID) {
			return s.baseline.Suppression()
		}
		return nil
	})
}

// stale returns the ignore entries that matched no finding although the scan
// covered what they are about: an entry restricted to a path is judged only
// when a scanned file matches the path, so a pre-commit run over a few staged
// files does not call every other entry stale.
func (s *suppressions) stale(rep *reports.Report) []reports.Notification {
	if s.ignore == nil {
		return nil
	}
	var scanned []string
	for _, src := range rep.Sources {
		scanned = append(scanned, src.Path)
	}
	for _, src := range rep.Policy.Sources {
		scanned = append(scanned, src.Path)
	}
	for _, f := range rep.Findings {
		scanned = append(scanned, f.Location.Path)
	}
	var out []reports.Notification
	for i := range s.ignore.Entries {
		e := &s.ignore.Entries[i]
		if s.used[i] || !coversAny(s.ignore.Dir, e, scanned) {
			continue
		}
		out = append(out, reports.Notification{
			Level:   "note",
			Message: fmt.Sprintf("stale ignore entry: %s matches no finding; remove it", e.Target()),
			Path:    s.ignore.Path,
			Line:    e.Line,
			Column:  e.Column,
		})
	}
	return out
}

func coversAny(dir string, e *ignorefile.Entry, paths []string) bool {
	if e.Glob == "" {
		return true
	}
	for _, p := range paths {
		if e.MatchesPath(dir, p) {
			return true
		}
	}
	return false
}

// scanExit decides the exit code of a scan (SPEC §4), once, for the process
// and for every report that records it: 2 when an input could not be read,
// else 1 when an unsuppressed finding is at or above --fail-on, else 0.
func scanExit(rep *reports.Report, failRank int, failOn string) (int, string) {
	if n := len(rep.Errors); n > 0 {
		return exitError, fmt.Sprintf("%d unreadable or malformed %s (errors[])", n, pluralWord(n, "input", "inputs"))
	}
	if failRank > policy.SeverityError.Rank() {
		return exitOK, "no finding fails the run (--fail-on never)"
	}
	if n := len(rep.Failing(failRank)); n > 0 {
		return exitFindings, fmt.Sprintf("%d unsuppressed %s at or above --fail-on %s", n, pluralWord(n, "finding", "findings"), failOn)
	}
	return exitOK, fmt.Sprintf("no unsuppressed finding at or above --fail-on %s", failOn)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
