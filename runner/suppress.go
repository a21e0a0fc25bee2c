package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpguard/mcpguard/internal/ignorefile"
	"github.com/mcpguard/mcpguard/reports"
)

// Suppressions are the accepted findings of a scan: a --baseline report
// and an ignore file. Load them before scanning, so that a malformed one
// stops the run before any work. Apply may be called for many reports (a
// daemon's): it keeps no state between calls.
type Suppressions struct {
	baseline *reports.Baseline
	ignore   *ignorefile.File
	// ignoreAbs is the ignore file's absolute path (reports carry it);
	// ignore.Path is the name shown in diagnostics.
	ignoreAbs string
}

// SuppressionOptions say where the accepted findings are.
type SuppressionOptions struct {
	// Baseline is a previous --format json report; "" for none.
	Baseline string
	// IgnoreFile is the ignore file. When IgnoreFileSet is false it is
	// ignorefile.DefaultName in WorkDir, read only when it exists; when
	// true it must exist, and "" means none.
	IgnoreFile    string
	IgnoreFileSet bool
	WorkDir       string
}

// LoadSuppressions reads the baseline and the ignore file. A malformed
// ignore file returns ignorefile.Errors, one positioned error per problem;
// other errors name the file.
func LoadSuppressions(opts SuppressionOptions) (*Suppressions, error) {
	s := &Suppressions{}
	if opts.Baseline != "" {
		b, err := reports.LoadBaseline(opts.Baseline)
		if err != nil {
			return nil, err
		}
		s.baseline = b
	}
	name, path := opts.IgnoreFile, opts.IgnoreFile
	if !opts.IgnoreFileSet {
		name, path = ignorefile.DefaultName, filepath.Join(opts.WorkDir, ignorefile.DefaultName)
	}
	if name == "" {
		return s, nil // --ignore-file "": none
	}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
	case !opts.IgnoreFileSet && errors.Is(err, fs.ErrNotExist):
		return s, nil
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: read ignore file: %w", name, err)
	}
	f, err := ignorefile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	s.ignoreAbs = path
	if abs, err := filepath.Abs(path); err == nil {
		s.ignoreAbs = abs
	}
	f.Dir = filepath.Dir(s.ignoreAbs)
	s.ignore = f
	return s, nil
}

// Apply marks the accepted findings of rep and returns the ignore entries
// that matched no finding although the scan covered what they are about.
// An ignore entry wins over the baseline: it carries a reason written by a
// person.
func (s *Suppressions) Apply(rep *reports.Report) (stale []reports.Notification) {
	if s.baseline == nil && s.ignore == nil {
		return nil
	}
	var used []bool
	if s.ignore != nil {
		used = make([]bool, len(s.ignore.Entries))
	}
	rep.ApplySuppressions(func(f *reports.Finding) *reports.Suppression {
		if s.ignore != nil {
			if idx := s.ignore.Match(f.ID, f.Rule, f.Location.Path); len(idx) > 0 {
				for _, i := range idx {
					used[i] = true
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
	return s.stale(rep, used)
}

// stale returns the ignore entries that matched no finding although the
// scan covered what they are about: an entry restricted to a path is judged
// only when a scanned file matches the path, so a pre-commit run over a few
// staged files does not call every other entry stale.
func (s *Suppressions) stale(rep *reports.Report, used []bool) []reports.Notification {
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
		if used[i] || !coversAny(s.ignore.Dir, e, scanned) {
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
