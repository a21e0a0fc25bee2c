package reports

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// WriteText renders the report as tables for people.
func WriteText(w io.Writer, r *Report, opts Options) error {
	bw := bufio.NewWriter(w)
	c := colorizer(opts.Color)
	s := r.Summary
	fmt.Fprintf(bw, "%s %s (%d allowed, %s, %d blocked); findings: %s, %s, %s; file errors: %d\n",
		c.bold("mcpguard:"), plural(s.Servers, "server"), s.Allowed, notAllowedRunning(c, s.NotAllowedRunning), s.Blocked,
		c.sev(SeverityError, plural(s.Findings.Error, "error")),
		c.sev(SeverityWarning, plural(s.Findings.Warning, "warning")),
		c.sev(SeverityNote, plural(s.Findings.Note, "note")), s.Errors)
	if sup := s.Suppressed; sup != nil {
		fmt.Fprintf(bw, "suppressed (baseline or ignore file, not counted for --fail-on): %s\n", plural(sup.Error+sup.Warning+sup.Note, "finding"))
	}

	if len(r.Servers) > 0 {
		servers := append([]Server(nil), r.Servers...)
		SortServers(servers)
		rows := [][]string{{"CLIENT", "SCOPE", "NAME", "STATUS", "TRANSPORT", "TARGET", "SOURCE"}}
		// An inventory of several users (the daemon's --all-users) says
		// whose each server is; machine-wide ones have "-".
		users := false
		for _, sv := range servers {
			users = users || sv.User != ""
		}
		if users {
			rows[0] = append([]string{"USER"}, rows[0]...)
		}
		for _, sv := range servers {
			target := sv.URL
			if sv.Transport == "stdio" {
				target = strings.Join(append([]string{sv.Command}, sv.Args...), " ")
				if _, ok := sv.Details["wrapped_by"]; ok {
					target = "(proxy) " + target // runs through mcpguard proxy (docs/wrap.md)
				}
			}
			// Every cell comes from a configuration file: control characters
			// (terminal escape sequences) and bidi controls are shown, not
			// obeyed.
			row := []string{oneLine(sv.Client), oneLine(sv.Scope), clip(oneLine(sv.Name), 40), oneLine(string(sv.Status)), oneLine(sv.Transport),
				clip(oneLine(target), 60), oneLine(sv.Source.String())}
			if users {
				row = append([]string{orDash(oneLine(sv.User))}, row...)
			}
			rows = append(rows, row)
		}
		statusCol := 3
		if users {
			statusCol++
		}
		fmt.Fprintln(bw)
		writeTable(bw, rows, func(col int, cell string) string {
			if col == statusCol {
				return c.status(cell)
			}
			return cell
		})
	}
	writeIntrospectionText(bw, r.Servers, c)
	if len(r.Findings) > 0 {
		fmt.Fprintf(bw, "\n%s\n", c.bold("FINDINGS"))
		for _, i := range SeverityOrder(len(r.Findings), func(i int) Severity { return r.Findings[i].Severity }) {
			f := &r.Findings[i]
			suffix := ""
			if sp := f.Suppressed; sp != nil {
				suffix = " " + c.wrap("2", oneLine("[suppressed by "+sp.Kind+": "+sp.Justification+"]"))
			}
			fmt.Fprintf(bw, "%s %s %s: %s%s\n", c.sev(f.Severity, fmt.Sprintf("%-7s", f.Severity)), oneLine(f.Rule), oneLine(f.Location.String()+introspectedAt(*f)), oneLine(f.Message), suffix)
		}
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(bw, "\n%s\n", c.bold("FILE ERRORS"))
		for _, e := range r.Errors {
			fmt.Fprintf(bw, "%s\n", oneLine(e.Error()))
		}
	}
	return bw.Flush()
}

// notAllowedRunning names the running servers the policy does not allow,
// in the colour of an error when there are any.
func notAllowedRunning(c colorizer, n int) string {
	s := fmt.Sprintf("%d running but not allowed", n)
	if n > 0 {
		return c.sev(SeverityError, s)
	}
	return s
}

// writeTable aligns columns; style may colour a cell after its width is known.
func writeTable(w io.Writer, rows [][]string, style func(col int, cell string) string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			if n := utf8.RuneCountInString(cell); n > widths[i] {
				widths[i] = n
			}
		}
	}
	for r, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := widths[i] - utf8.RuneCountInString(cell)
			if r > 0 {
				cell = style(i, cell)
			}
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", pad+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// Printable returns s as one line with control characters (which could carry
// terminal escape sequences from a hostile configuration) and bidi controls
// shown as visible escapes: for diagnostics the command prints.
func Printable(s string) string { return oneLine(s) }

// oneLine makes a value safe for a terminal line: control characters (which
// could carry escape sequences from a hostile config) become visible escapes.
func oneLine(s string) string {
	if printableASCII(s) {
		return s // nothing to escape: most cells of a large report
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "\\x%02x", r)
		case r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// HumanTime shows an RFC 3339 time for people: to the second, in UTC
// ("2026-11-21 08:10:00 UTC"). A value that is not such a time (a hostile
// report's) is shown as it is, on one line.
func HumanTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return oneLine(s)
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// agree is a verb in the present tense agreeing with a count of n:
// "1 host loses", "2 hosts lose".
func agree(n int, verb string) string {
	if n == 1 {
		return verb + "s"
	}
	return verb
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

type colorizer bool

func (c colorizer) wrap(code, s string) string {
	if !c {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (c colorizer) bold(s string) string { return c.wrap("1", s) }

func (c colorizer) sev(sev Severity, s string) string {
	switch sev {
	case SeverityError:
		return c.wrap("31", s)
	case SeverityWarning:
		return c.wrap("33", s)
	}
	return c.wrap("36", s)
}

func (c colorizer) status(s string) string {
	switch s {
	case "active":
		return c.wrap("32", s)
	case "blocked", "invalid":
		return c.wrap("31", s)
	case "pending-approval", "suppressed":
		return c.wrap("33", s)
	}
	return s
}

// writeIntrospectionText lists what `scan --introspect` learned, one row
// per server: status, what it offers, and why it was skipped or failed.
func writeIntrospectionText(w io.Writer, servers []Server, c colorizer) {
	sorted := make([]Server, 0, len(servers))
	for _, sv := range servers {
		if sv.Introspection != nil {
			sorted = append(sorted, sv)
		}
	}
	if len(sorted) == 0 {
		return
	}
	SortServers(sorted)
	fmt.Fprintf(w, "\n%s\n", c.bold("INTROSPECTION"))
	rows := [][]string{{"CLIENT", "NAME", "RESULT", "TOOLS", "PROMPTS", "RESOURCES", "SERVER", "TIME", "NOTE"}}
	for _, sv := range sorted {
		in := sv.Introspection
		tools, prompts, resources, server, note := in.summaryCells()
		took := "-"
		if in.Status != IntrospectionSkipped {
			took = fmt.Sprintf("%.1fs", float64(in.DurationMS)/1000)
		}
		rows = append(rows, []string{oneLine(sv.Client), clip(oneLine(sv.Name), 40), in.Status, orDash(tools), orDash(prompts), orDash(resources),
			clip(oneLine(server), 40), took, clip(oneLine(note), 100)})
	}
	writeTable(w, rows, func(_ int, cell string) string { return cell })
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
