package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpguard/mcpguard/internal/ignorefile"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
)

// loadSuppressions reads --baseline and the ignore file before any work, so
// that a malformed one stops the run with exit 2; each problem of an ignore
// file is printed to stderr with its position.
func loadSuppressions(stderr io.Writer, cwd, baseline, ignoreFile string, ignoreFileSet bool) (*runner.Suppressions, error) {
	sup, err := runner.LoadSuppressions(runner.SuppressionOptions{
		Baseline: baseline, IgnoreFile: ignoreFile, IgnoreFileSet: ignoreFileSet, WorkDir: cwd,
	})
	var list ignorefile.Errors
	switch {
	case err == nil:
		return sup, nil
	case errors.As(err, &list):
		for _, e := range list {
			fmt.Fprintf(stderr, "mcpguard: %s\n", reports.Printable(e.Error()))
		}
		return nil, &exitCodeError{code: exitError}
	}
	return nil, &exitCodeError{code: exitError, err: err}
}

// reportExit decides the exit code of a report (SPEC §4), once, for the
// process and for every rendering that records it: 2 when an input could
// not be read, else 1 when an unsuppressed finding is at or above
// --fail-on, else 0.
func reportExit(rep *reports.Report, failRank int, failOn string) (int, string) {
	if n := len(rep.Errors); n > 0 {
		return exitError, fmt.Sprintf("%d unreadable or malformed %s (errors[])", n, pluralWord(n, "input", "inputs"))
	}
	if failRank > reports.SeverityError.Rank() {
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
