package reports

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// whatIfHeadline says in one sentence what the proposal changes.
func whatIfHeadline(w *WhatIf) string {
	s := w.Summary
	// Claude Code's managed settings, and Claude Desktop's enterprise
	// settings when the proposal changes what extensions may run.
	code, desktop := false, false
	for _, c := range w.Changes {
		if c.After.Change != "" {
			code = code || c.Client != "claude-desktop"
			desktop = desktop || c.Client == "claude-desktop"
		}
	}
	clients := "Claude Code"
	switch {
	case code && desktop:
		clients = "Claude Code and Claude Desktop"
	case desktop:
		clients = "Claude Desktop"
	}
	return fmt.Sprintf("%s %s %s, %s %s %s; were it the managed settings, %s would stop loading %s and start %s; hosts with a server the policy does not allow: %d now, %d after",
		plural(s.HostsLosing, "host"), agree(s.HostsLosing, "lose"), plural(s.Lose, "server"),
		plural(s.HostsGaining, "host"), agree(s.HostsGaining, "gain"), plural(s.Gain, "server"),
		clients, plural(s.Blocked, "server"), plural(s.Unblocked, "server"), s.HostsNotAllowedBefore, s.HostsNotAllowedAfter)
}

func policyPaths(w *WhatIf) string {
	var paths []string
	for _, p := range w.Policy {
		if p.Kind != KindShippedRules {
			paths = append(paths, p.Path)
		}
	}
	if len(paths) == 0 {
		return "the shipped rules only"
	}
	return strings.Join(paths, ", ")
}

func refNames(refs []WhatIfRef) string {
	names := make([]string, len(refs))
	for i, r := range refs {
		names[i] = fmt.Sprintf("%s (%s)", r.Name, r.Client)
	}
	return strings.Join(names, ", ")
}

func verdictText(v Verdict) string {
	word := "allowed"
	if !v.Decision.Allowed {
		word = "not allowed"
	}
	if len(v.Decision.Reasons) > 0 && !(v.Decision.Allowed && len(v.Decision.Reasons) == 1 && v.Decision.Reasons[0] == ReasonAllowed) {
		word += " (" + strings.Join(v.Decision.Reasons, ", ") + ")"
	}
	return string(v.Status) + ", " + word
}

func writeWhatIfText(bw *bufio.Writer, w *WhatIf) {
	fmt.Fprintf(bw, "\nWHAT IF: %s\n  %s\n", oneLine(policyPaths(w)), whatIfHeadline(w))
	if len(w.Hosts) > 0 {
		fmt.Fprintf(bw, "\nHOSTS THAT WOULD CHANGE (most servers lost first)\n")
		tw := newColumns(bw, "HOST", "LOSE", "GAIN", "SERVERS LOST", "SERVERS GAINED")
		for _, h := range w.Hosts[:min(topN, len(w.Hosts))] {
			tw.row(oneLine(h.Key), strconv.Itoa(len(h.Lose)), strconv.Itoa(len(h.Gain)), clip(oneLine(refNames(h.Lose)), 60), clip(oneLine(refNames(h.Gain)), 60))
		}
		tw.flush()
		if more := len(w.Hosts) - topN; more > 0 {
			fmt.Fprintf(bw, "  ... and %d more (see --format json or --csv-kind changes)\n", more)
		}
	}
	if len(w.Distinct) > 0 {
		fmt.Fprintf(bw, "\nSERVERS THAT WOULD CHANGE\n")
		tw := newColumns(bw, "HOSTS LOSING", "HOSTS GAINING", "NAMES", "RUNS")
		for i, d := range w.Distinct {
			if i == topN {
				break
			}
			tw.row(strconv.Itoa(d.LoseHosts), strconv.Itoa(d.GainHosts), clip(oneLine(strings.Join(d.Names, ", ")), 40), clip(oneLine(d.Key), 80))
		}
		tw.flush()
	}
	for _, fd := range w.Findings {
		fmt.Fprintf(bw, "\n%-7s %s %s: %s", fd.Severity, fd.Rule, oneLine(fd.Location.String()), oneLine(fd.Message))
	}
	for _, e := range w.Errors {
		fmt.Fprintf(bw, "\nerror   %s", oneLine(e.Error()))
	}
	if len(w.Findings)+len(w.Errors) > 0 {
		fmt.Fprintln(bw)
	}
}

func writeWhatIfMarkdown(bw *bufio.Writer, w *WhatIf) {
	fmt.Fprintf(bw, "### What if: %s\n\n%s.\n\n", markdownText(policyPaths(w)), markdownText(whatIfHeadline(w)))
	if len(w.Hosts) > 0 {
		fmt.Fprintf(bw, "| Host | Would lose | Would gain |\n|---|---|---|\n")
		for i, h := range w.Hosts {
			if i == topN {
				fmt.Fprintf(bw, "\n…and %d more hosts.\n", len(w.Hosts)-topN)
				break
			}
			fmt.Fprintf(bw, "| %s | %s | %s |\n", markdownCell(h.Key, mdMaxValue), markdownCell(refNames(h.Lose), mdMaxMessage), markdownCell(refNames(h.Gain), mdMaxMessage))
		}
		fmt.Fprintln(bw)
	}
	for _, fd := range w.Findings {
		fmt.Fprintf(bw, "- **%s** %s: %s\n", fd.Rule, markdownText(fd.Location.String()), markdownText(fd.Message))
	}
	for _, e := range w.Errors {
		fmt.Fprintf(bw, "- error: %s\n", markdownText(e.Error()))
	}
	if len(w.Findings)+len(w.Errors) > 0 {
		fmt.Fprintln(bw)
	}
}

// changesCSVHeader names the columns of the changes CSV.
var changesCSVHeader = []string{
	"host", "user", "id", "name", "client", "scope", "runs", "effect",
	"status_before", "allowed_before", "reasons_before", "status_after", "allowed_after", "reasons_after", "claude_code_change",
}

// writeChangesCSV writes one row per server a proposal would change.
func writeChangesCSV(w io.Writer, f *Fleet) error {
	if f.WhatIf == nil {
		return fmt.Errorf("--csv-kind changes needs --policy: the changes are what a proposed policy would change")
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(changesCSVHeader); err != nil {
		return err
	}
	for _, c := range f.WhatIf.Changes {
		row := []string{c.Host, c.User, c.ServerID, c.Name, c.Client, c.Scope, c.Launch, c.Effect,
			string(c.Before.Status), strconv.FormatBool(c.Before.Decision.Allowed), strings.Join(c.Before.Decision.Reasons, "; "),
			string(c.After.Status), strconv.FormatBool(c.After.Decision.Allowed), strings.Join(c.After.Decision.Reasons, "; "), c.After.Change}
		if err := writeSafeRow(cw, row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
