package reports

// Suppression kinds: why a finding is accepted.
const (
	// SuppressedByBaseline: the finding's id is in the --baseline report.
	SuppressedByBaseline = "baseline"
	// SuppressedByIgnore: an entry of the ignore file (.mcpguardignore)
	// matches the finding.
	SuppressedByIgnore = "ignore"
)

// Suppression says why a finding is accepted. A suppressed finding stays in
// every report, marked, and never counts toward --fail-on.
type Suppression struct {
	// Kind is SuppressedByBaseline or SuppressedByIgnore.
	Kind string `json:"kind"`
	// Justification is the ignore entry's reason, or a sentence naming the
	// baseline.
	Justification string `json:"justification"`
	// Path is the baseline report or the ignore file; Line and Column locate
	// the ignore entry (0 for a baseline).
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// ApplySuppressions asks suppress about every finding not yet suppressed,
// marks those it returns a suppression for, and recounts the summary.
func (r *Report) ApplySuppressions(suppress func(f *Finding) *Suppression) {
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Suppressed != nil {
			continue
		}
		if s := suppress(f); s != nil {
			f.Suppressed = s
		}
	}
	r.Summary = Summarize(r)
}

// Failing returns the findings that are not suppressed and whose severity
// rank is at least failOn (ParseSeverity): the findings that make
// `scan` exit 1. It only selects; the command decides the exit code.
func (r *Report) Failing(failOn int) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Suppressed == nil && f.Severity.Rank() >= failOn {
			out = append(out, f)
		}
	}
	return out
}

// failOnRank maps Options.FailOn's zero value to the default, error.
func failOnRank(rank int) int {
	if rank == 0 {
		return SeverityError.Rank()
	}
	return rank
}

// failOnName names a --fail-on rank.
func failOnName(rank int) string {
	switch failOnRank(rank) {
	case 1:
		return "note"
	case 2:
		return "warning"
	case 3:
		return "error"
	}
	return "never"
}
