package ignorefile

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
)

// DefaultName is the ignore file `mcpguard scan` reads from the working
// directory when no --ignore-file is given.
const DefaultName = ".mcpguardignore"

// Entry is one accepted finding or rule.
type Entry struct {
	// Line and Column locate the entry's target (1-based, columns in code
	// points).
	Line, Column int
	// Exactly one of FindingID and Rule is set.
	FindingID string
	Rule      string
	// Glob optionally restricts the entry to files it matches.
	Glob string
	// Reason is why the finding is accepted (never empty).
	Reason string

	segs     []string // Glob split on '/', "**" for any number of segments
	anchored bool     // Glob is relative to the file's directory
}

// Target is the entry's finding id or rule id.
func (e *Entry) Target() string {
	if e.FindingID != "" {
		return e.FindingID
	}
	return e.Rule
}

// File is a parsed ignore file.
type File struct {
	// Path is the file as it was named; Dir is the absolute directory that
	// globs with a slash are relative to.
	Path    string
	Dir     string
	Entries []Entry
}

// Error is a malformed entry.
type Error struct {
	Path         string
	Line, Column int
	Message      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Message)
}

// Errors lists every malformed entry of a file, in order.
type Errors []*Error

func (l Errors) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Parse parses the bytes of the ignore file named path. A malformed entry
// makes it return Errors (every problem, each with its position) and no file.
func Parse(name string, data []byte) (*File, error) {
	dir := filepath.Dir(name)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	f := &File{Path: name, Dir: dir}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var errs Errors
	for i, line := range strings.Split(string(data), "\n") {
		e, err := parseLine(name, i+1, strings.TrimSuffix(line, "\r"))
		switch {
		case err != nil:
			errs = append(errs, err)
		case e != nil:
			f.Entries = append(f.Entries, *e)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

type token struct {
	text string
	col  int // 1-based, code points
}

// isFindingID reports whether s is f- and 16 lowercase hex digits.
func isFindingID(s string) bool {
	if len(s) != 18 || !strings.HasPrefix(s, "f-") {
		return false
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

const syntax = "an entry is FINDING-ID or RULE-ID, an optional path glob, then # and the reason"

func parseLine(name string, n int, line string) (*Entry, *Error) {
	fail := func(col int, format string, args ...any) (*Entry, *Error) {
		return nil, &Error{Path: name, Line: n, Column: col, Message: fmt.Sprintf(format, args...)}
	}
	var toks []token
	reason, reasonCol, hasReason := "", 0, false
	col, end := 0, 0 // end: the column after the last token
	var cur strings.Builder
	curCol := 0
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, token{cur.String(), curCol})
			cur.Reset()
		}
	}
	for i, r := range line {
		col++
		switch {
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && cur.Len() == 0:
			// A '#' that starts a word starts the reason; one inside a word
			// (a glob like dir#1/*.json) is part of it.
			reason, reasonCol, hasReason = line[i+1:], col, true
		default:
			if cur.Len() == 0 {
				curCol = col
			}
			cur.WriteRune(r)
			end = col + 1
		}
		if hasReason {
			break
		}
	}
	flush()
	if len(toks) == 0 {
		return nil, nil // blank line or comment
	}
	if len(toks) > 2 {
		return fail(toks[2].col, "unexpected %q: %s", toks[2].text, syntax)
	}
	e := &Entry{Line: n, Column: toks[0].col}
	target := toks[0].text
	switch {
	case isFindingID(target):
		e.FindingID = target
	case strings.HasPrefix(strings.ToLower(target), "f-"):
		return fail(toks[0].col, "malformed finding id %q: want f- and 16 lowercase hex digits, as in the report's findings[].id", target)
	case strings.HasPrefix(strings.ToUpper(target), "MCPG-"):
		if _, ok := reports.LookupRule(target); !ok {
			return fail(toks[0].col, "unknown rule %q: mcpguard's rule ids are MCPG-P001 and the like (docs/rules.md)", target)
		}
		e.Rule = target
	case strings.ContainsAny(target, "/*?[") || strings.HasPrefix(target, "."):
		return fail(toks[0].col, "%q looks like a path: %s", target, syntax)
	default:
		e.Rule = target // a custom policy rule's id
	}
	if len(toks) == 2 {
		if err := e.setGlob(toks[1].text); err != nil {
			return fail(toks[1].col, "invalid path glob %q: %v", toks[1].text, err)
		}
	}
	if !hasReason {
		return fail(end, "missing reason: add \"# why this is accepted\" after %s", e.Target())
	}
	e.Reason = strings.TrimSpace(reason)
	if e.Reason == "" {
		return fail(reasonCol, "empty reason after '#': say why %s is accepted", e.Target())
	}
	return e, nil
}

func (e *Entry) setGlob(g string) error {
	p := g
	if strings.HasSuffix(p, "/") {
		p += "**" // a directory: everything under it
	}
	e.anchored = strings.Contains(p, "/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return errors.New("empty pattern")
	}
	e.segs = strings.Split(p, "/")
	for _, s := range e.segs {
		if s == "" {
			return errors.New("empty path segment (//)")
		}
		if _, err := path.Match(s, ""); err != nil {
			return err
		}
	}
	e.Glob = g
	return nil
}

// Match returns the indices of the entries that match a finding with the given
// id and rule located in file p (an absolute path).
func (f *File) Match(id, rule, p string) []int {
	var out []int
	for i := range f.Entries {
		if f.Entries[i].matches(f.Dir, id, rule, p) {
			out = append(out, i)
		}
	}
	return out
}

func (e *Entry) matches(dir, id, rule, p string) bool {
	if e.FindingID != "" && e.FindingID != id || e.Rule != "" && e.Rule != rule {
		return false
	}
	return e.Glob == "" || e.MatchesPath(dir, p)
}

// MatchesPath reports whether the entry's glob matches file p, with globs
// that contain a slash taken relative to dir. An entry without a glob
// matches every path.
func (e *Entry) MatchesPath(dir, p string) bool {
	if e.Glob == "" {
		return true
	}
	if p == "" {
		return false
	}
	if !e.anchored {
		ok, _ := path.Match(e.segs[0], filepath.Base(p))
		return ok
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return matchSegments(e.segs, strings.Split(filepath.ToSlash(rel), "/"))
}

// matchSegments matches glob segments against path segments; "**" matches
// any number of segments. Dynamic programming keeps hostile patterns with
// many "**" linear in the number of segment pairs.
func matchSegments(pat, segs []string) bool {
	// ok[j]: pat[i:] matches segs[j:], computed for i from the end.
	ok := make([]bool, len(segs)+1)
	ok[len(segs)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		next := make([]bool, len(segs)+1)
		if pat[i] == "**" {
			// ** matches segs[j:k] for any k >= j.
			reach := false
			for j := len(segs); j >= 0; j-- {
				reach = reach || ok[j]
				next[j] = reach
			}
		} else {
			for j := len(segs) - 1; j >= 0; j-- {
				if ok[j+1] {
					m, _ := path.Match(pat[i], segs[j])
					next[j] = m
				}
			}
		}
		ok = next
	}
	return ok[0]
}
