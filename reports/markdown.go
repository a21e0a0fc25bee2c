package reports

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Cell limits keep a PR comment readable (and under comment size limits)
// whatever a hostile configuration holds.
const (
	mdMaxMessage = 400
	mdMaxValue   = 120
)

// WriteMarkdown renders a summary for a pull-request comment or a CI job
// summary: counts, the findings at or above --fail-on, then the other,
// suppressed and input errors, and the servers in collapsed sections.
//
// Every value from a configuration is escaped: table cells cannot be broken
// by '|' or newlines, no HTML, link, image or emphasis can be injected,
// control and bidi characters are shown as escapes, and '@' cannot mention
// anyone.
func WriteMarkdown(w io.Writer, r *Report, opts Options) error {
	bw := bufio.NewWriter(w)
	failOn := failOnRank(opts.FailOn)
	var failing, other, suppressed []Finding
	for _, i := range SeverityOrder(len(r.Findings), func(i int) Severity { return r.Findings[i].Severity }) {
		f := r.Findings[i]
		switch {
		case f.Suppressed != nil:
			suppressed = append(suppressed, f)
		case f.Severity.Rank() >= failOn:
			failing = append(failing, f)
		default:
			other = append(other, f)
		}
	}
	servers := make(map[string]*Server, len(r.Servers))
	for i := range r.Servers {
		servers[r.Servers[i].ID] = &r.Servers[i]
	}

	fmt.Fprintf(bw, "## mcpguard report\n\n")
	verdict := fmt.Sprintf("%s at or above `%s`", plural(len(failing), "finding"), failOnName(failOn))
	if len(r.Errors) > 0 {
		verdict += fmt.Sprintf(", %s", plural(len(r.Errors), "input error"))
	}
	fmt.Fprintf(bw, "**%s**", verdict)
	if inv := opts.Invocation; inv != nil {
		fmt.Fprintf(bw, " (exit code %d: %s)", inv.ExitCode, markdownText(inv.ExitCodeDescription))
	}
	fmt.Fprintf(bw, "\n\n")

	s := r.Summary
	sup := SeverityCount{}
	if s.Suppressed != nil {
		sup = *s.Suppressed
	}
	fmt.Fprintf(bw, "| Servers | Allowed | Running, not allowed | Blocked | Errors | Warnings | Notes | Suppressed | Input errors |\n")
	fmt.Fprintf(bw, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(bw, "| %d | %d | %d | %d | %d | %d | %d | %d | %d |\n\n",
		s.Servers, s.Allowed, s.NotAllowedRunning, s.Blocked, s.Findings.Error, s.Findings.Warning, s.Findings.Note,
		sup.Error+sup.Warning+sup.Note, s.Errors)

	findingTable := func(list []Finding, withSuppression bool) {
		if withSuppression {
			fmt.Fprintf(bw, "| Severity | Rule | Location | Server | Message | Suppressed by |\n|---|---|---|---|---|---|\n")
		} else {
			fmt.Fprintf(bw, "| Severity | Rule | Location | Server | Message |\n|---|---|---|---|---|\n")
		}
		for _, f := range list {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |", f.Severity, markdownRule(f.Rule),
				markdownCode(displayLocation(opts.WorkDir, f.Location.Path, f.Location.Line, f.Location.Column)+introspectedAt(f)),
				markdownServer(servers[f.ServerID]), markdownCell(f.Message, mdMaxMessage))
			if withSuppression {
				fmt.Fprintf(bw, " %s |", markdownSuppression(opts.WorkDir, f.Suppressed))
			}
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw)
	}

	if len(failing) > 0 {
		fmt.Fprintf(bw, "### Findings at or above `%s` (%d)\n\n", failOnName(failOn), len(failing))
		findingTable(failing, false)
	} else if len(r.Findings) == 0 {
		fmt.Fprintf(bw, "No findings.\n\n")
	}
	if len(other) > 0 {
		fmt.Fprintf(bw, "<details>\n<summary>Findings below <code>%s</code> (%d)</summary>\n\n", failOnName(failOn), len(other))
		findingTable(other, false)
		fmt.Fprintf(bw, "</details>\n\n")
	}
	if len(suppressed) > 0 {
		fmt.Fprintf(bw, "<details>\n<summary>Suppressed findings (%d)</summary>\n\n", len(suppressed))
		findingTable(suppressed, true)
		fmt.Fprintf(bw, "</details>\n\n")
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(bw, "### Input errors (%d)\n\n| Location | Message |\n|---|---|\n", len(r.Errors))
		for _, e := range r.Errors {
			fmt.Fprintf(bw, "| %s | %s |\n", markdownCode(displayLocation(opts.WorkDir, e.Path, e.Line, e.Column)), markdownCell(e.Message, mdMaxMessage))
		}
		fmt.Fprintln(bw)
	}
	if len(r.Servers) > 0 {
		list := append([]Server(nil), r.Servers...)
		SortServers(list)
		fmt.Fprintf(bw, "<details>\n<summary>Servers (%d)</summary>\n\n", len(list))
		fmt.Fprintf(bw, "| Client | Scope | Name | Status | Transport | Source |\n|---|---|---|---|---|---|\n")
		for _, sv := range list {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n", markdownCell(sv.Client, mdMaxValue), markdownCell(sv.Scope, mdMaxValue),
				markdownCode(sv.Name), markdownCell(string(sv.Status), mdMaxValue), markdownCell(sv.Transport, mdMaxValue),
				markdownCode(displayLocation(opts.WorkDir, sv.Source.Path, sv.Source.Line, sv.Source.Column)))
		}
		fmt.Fprintf(bw, "\n</details>\n\n")
		writeIntrospectionMarkdown(bw, list)
	}
	fmt.Fprintf(bw, "<sub>mcpguard %s · %s</sub>\n", markdownText(r.Tool.Version), markdownText(HumanTime(r.GeneratedAt)))
	return bw.Flush()
}

func markdownRule(id string) string {
	if rule, ok := LookupRule(id); ok {
		return "[" + id + "](" + rule.HelpURI() + ")"
	}
	return markdownCode(id)
}

func markdownServer(s *Server) string {
	if s == nil {
		return ""
	}
	return markdownCode(s.Name) + " " + markdownCell(s.Client+", "+s.Scope, mdMaxValue)
}

func markdownSuppression(workDir string, s *Suppression) string {
	if s == nil {
		return ""
	}
	return markdownCell(s.Kind, mdMaxValue) + " " + markdownCode(displayLocation(workDir, s.Path, s.Line, s.Column)) + ": " + markdownCell(s.Justification, mdMaxMessage)
}

// markdownCell is markdownText for a table cell: clipped, and with an '@'
// that could start a mention (after a non-word character, before a word
// character) in a code span, so that no text notifies a user or team.
func markdownCell(s string, max int) string {
	rs := []rune(markdownText(clip(s, max)))
	var b strings.Builder
	for i, r := range rs {
		if r == '@' && (i == 0 || !isWordRune(rs[i-1])) && i+1 < len(rs) && isWordRune(rs[i+1]) {
			b.WriteString("`@`")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// markdownText makes s inert inline Markdown: one line, control and bidi
// characters as visible escapes, and a backslash before every character that
// could start emphasis, a link, an image, HTML, an entity, strikethrough,
// math ($...$ on GitHub) or a table cell.
func markdownText(s string) string {
	s = oneLine(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '(', ')', '<', '>', '|', '~', '&', '!', '#', '$':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// markdownCode renders s as a code span that nothing inside can close: the
// fence is longer than any backtick run in s, and '|' is escaped for GFM
// tables (which unescape it inside code spans too).
func markdownCode(s string) string {
	s = clip(oneLine(s), mdMaxValue)
	if s == "" {
		return ""
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	return fence + s + fence
}

// writeIntrospectionMarkdown lists what `scan --introspect` learned.
func writeIntrospectionMarkdown(w io.Writer, servers []Server) {
	n := 0
	for _, sv := range servers {
		if sv.Introspection != nil {
			n++
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "<details>\n<summary>Introspection (%d)</summary>\n\n", n)
	fmt.Fprintf(w, "| Client | Name | Result | Tools | Prompts | Resources | Server | Note |\n|---|---|---|---:|---:|---:|---|---|\n")
	for _, sv := range servers {
		in := sv.Introspection
		if in == nil {
			continue
		}
		tools, prompts, resources, server, note := in.summaryCells()
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", markdownCell(sv.Client, mdMaxValue), markdownCode(sv.Name), in.Status,
			tools, prompts, resources, markdownCell(server, mdMaxValue), markdownCell(note, mdMaxMessage))
	}
	fmt.Fprintf(w, "\n</details>\n\n")
}

// introspectedAt names where in a server's answers an introspection
// finding is, after its location in the configuration.
func introspectedAt(f Finding) string {
	if _, p := findingTool(f); p != "" {
		return " → " + p
	}
	return ""
}
