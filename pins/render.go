package pins

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
)

// The renderings of `mcpguard pins`. Everything they print from the pin
// file (server and tool names, launch commands, definitions) came from an
// MCP server or its configuration, so it goes through reports.TerminalSafe.

// Pin output schemas (--format json), documented in docs/md.
const (
	ListSchema = "mcpguard/pins-list/v1"
	ShowSchema = "mcpguard/pins-show/v1"
)

// summaryJSON summarizes one pin in `pins list --format json`.
type summaryJSON struct {
	SHA256    string `json:"sha256"`
	Tools     int    `json:"tools"`
	Transport string `json:"transport,omitempty"`
	// Launch is the redacted command line or URL; "" when the launch
	// surface was not pinned.
	Launch string `json:"launch"`
}

// listServerJSON is one server of `pins list --format json`.
type listServerJSON struct {
	Name     string       `json:"name"`
	Approved *summaryJSON `json:"approved"`
	Pending  *summaryJSON `json:"pending"`
	// Diff is approved -> pending; null when nothing is pending.
	Diff *PinDiff `json:"diff"`
}

type listJSON struct {
	Schema  string           `json:"schema"`
	Path    string           `json:"path"`
	Servers []listServerJSON `json:"servers"`
}

type showJSON struct {
	Schema   string   `json:"schema"`
	Path     string   `json:"path"`
	Name     string   `json:"name"`
	Approved *Pin     `json:"approved"`
	Pending  *Pin     `json:"pending"`
	Diff     *PinDiff `json:"diff"`
}

func summarizePin(p *Pin) *summaryJSON {
	if p == nil {
		return nil
	}
	s := &summaryJSON{SHA256: p.SHA256, Tools: len(p.Tools)}
	if p.Launch != nil {
		s.Transport = p.Launch.Transport
		s.Launch = LaunchLine(p.Launch)
	}
	return s
}

// PendingDiff returns the diff from the approved to the pending pin of
// name, or nil when nothing is pending.
func PendingDiff(ps *Set, name string) *PinDiff {
	cur := ps.Pending[name]
	if cur == nil {
		return nil
	}
	d := DiffPins(ps.Pins[name], cur)
	if d.Server == "" {
		d.Server = name
	}
	return d
}

// WriteListText renders `mcpguard pins list` for people.
func WriteListText(w io.Writer, path string, ps *Set) error {
	bw := bufio.NewWriter(w)
	names := ps.Names()
	fmt.Fprintf(bw, "%s: %s, %d pending approval\n", reports.TerminalSafe(path), plural(len(names), "server"), len(ps.Pending))
	if len(names) == 0 {
		return bw.Flush()
	}
	nameW, toolsW := len("NAME"), len("TOOLS")
	rows := make([][4]string, len(names))
	for i, name := range names {
		p := ps.Pins[name]
		row := [4]string{reports.TerminalSafe(name), "-", "-", "-"}
		if p == nil {
			p = ps.Pending[name] // pending only: describe what was seen
		} else {
			row[1], row[2] = strconv.Itoa(len(p.Tools)), ShortHash(p.SHA256)
		}
		if p.Launch != nil {
			row[3] = reports.TerminalSafe(LaunchLine(p.Launch))
		}
		nameW, toolsW = max(nameW, runeLen(row[0])), max(toolsW, len(row[1]))
		rows[i] = row
	}
	fmt.Fprintf(bw, "\n%s  %s  %-12s  %s\n", padRight("NAME", nameW), padLeft("TOOLS", toolsW), "PIN", "LAUNCH")
	for i, name := range names {
		r := rows[i]
		fmt.Fprintf(bw, "%s  %s  %-12s  %s\n", padRight(r[0], nameW), padLeft(r[1], toolsW), r[2], r[3])
		if cur := ps.Pending[name]; cur != nil {
			fmt.Fprintf(bw, "  pending approval (%s): %s\n", ShortHash(cur.SHA256), diffSummary(ps.Pins[name], cur))
		}
	}
	return bw.Flush()
}

// diffSummary says in one line what changed from the approved to the
// pending pin.
func diffSummary(old, cur *Pin) string {
	if old == nil {
		return fmt.Sprintf("not approved yet (%s)", plural(len(cur.Tools), "tool"))
	}
	d := DiffPins(old, cur)
	if d.Empty() {
		return "no difference"
	}
	var parts []string
	if len(d.Changed) > 0 {
		var cs []string
		for _, c := range d.Changed {
			cs = append(cs, fmt.Sprintf("%s (%s)", reports.TerminalSafe(c.Name), strings.Join(c.Fields, ", ")))
		}
		parts = append(parts, "changed "+clipList(cs, 5))
	}
	if len(d.Added) > 0 {
		parts = append(parts, "added "+clipList(safeAll(d.Added), 5))
	}
	if len(d.Removed) > 0 {
		parts = append(parts, "removed "+clipList(safeAll(d.Removed), 5))
	}
	if len(d.Launch) > 0 {
		parts = append(parts, "launch ("+reports.TerminalSafe(strings.Join(d.Launch, ", "))+")")
	}
	if d.Initialize {
		parts = append(parts, "serverInfo or instructions")
	}
	return strings.Join(parts, "; ")
}

// WriteShowText renders `mcpguard pins show` for people.
func WriteShowText(w io.Writer, path, name string, approved, pending *Pin) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "server %s (%s)\n", reports.TerminalSafe(name), reports.TerminalSafe(path))
	if approved != nil {
		fmt.Fprintf(bw, "\napproved pin %s\n", approved.SHA256)
		writePinBody(bw, approved)
	} else {
		fmt.Fprintf(bw, "\nno approved pin\n")
	}
	if pending == nil {
		fmt.Fprintf(bw, "\nno change pending approval\n")
		return bw.Flush()
	}
	fmt.Fprintf(bw, "\npending approval %s (mcpguard pins approve --sha256 %s %s)\n", pending.SHA256, ShortHash(pending.SHA256), reports.TerminalSafe(ShellWord(name)))
	if approved == nil {
		writePinBody(bw, pending)
		return bw.Flush()
	}
	d := DiffPins(approved, pending)
	if d.Empty() {
		fmt.Fprintf(bw, "  no difference\n")
	}
	WriteDiffText(bw, "  ", d, pending)
	return bw.Flush()
}

// writePinBody prints a pin's launch surface and tools.
func writePinBody(w io.Writer, p *Pin) {
	if l := p.Launch; l != nil {
		fmt.Fprintf(w, "  launch: %s\n", reports.TerminalSafe(LaunchLine(l)))
		for _, f := range []struct{ label, value string }{
			{"transport", l.Transport},
			{"client", strings.Trim(l.Client+"/"+l.Scope, "/")},
			{"cwd", l.Cwd},
			{"env", strings.Join(l.EnvKeys, ", ")},
			{"headers", strings.Join(l.HeaderKeys, ", ")},
		} {
			if f.value != "" {
				fmt.Fprintf(w, "    %s: %s\n", f.label, reports.TerminalSafe(f.value))
			}
		}
	} else {
		fmt.Fprintf(w, "  launch: not pinned\n")
	}
	if p.Initialize != "" {
		fmt.Fprintf(w, "  initialize: %s\n", ShortHash(p.Initialize))
	}
	fmt.Fprintf(w, "  tools (%d):\n", len(p.Tools))
	nameW := 0
	for _, t := range p.Tools {
		nameW = max(nameW, runeLen(reports.TerminalSafe(t.Name)))
	}
	for _, t := range p.Tools {
		fields := make([]string, 0, len(t.Fields))
		for f := range t.Fields {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		fmt.Fprintf(w, "    %s  %s  %s\n", padRight(reports.TerminalSafe(t.Name), nameW), ShortHash(t.SHA256), strings.Join(fields, ", "))
		if desc := toolDescription(t); desc != "" {
			fmt.Fprintf(w, "      %s\n", reports.TerminalSafe(clipRunes(desc, 160)))
		}
	}
}

// WriteDiffText prints every change of d, with the values before and after
// where the pins hold definitions. cur locates added tools' descriptions.
func WriteDiffText(w io.Writer, indent string, d *PinDiff, cur *Pin) {
	if len(d.Launch) > 0 {
		fmt.Fprintf(w, "%slaunch changed: %s\n", indent, reports.TerminalSafe(strings.Join(d.Launch, ", ")))
		if cur != nil && cur.Launch != nil {
			fmt.Fprintf(w, "%s  now: %s\n", indent, reports.TerminalSafe(LaunchLine(cur.Launch)))
		}
	}
	if d.Initialize {
		fmt.Fprintf(w, "%sserverInfo or instructions changed\n", indent)
	}
	for _, c := range d.Changed {
		fmt.Fprintf(w, "%stool %s changed: %s\n", indent, reports.TerminalSafe(c.Name), strings.Join(c.Fields, ", "))
		for _, fc := range c.Details {
			ptr := reports.TerminalSafe(fc.Pointer)
			if ptr == "" {
				ptr = "/"
			}
			switch {
			case fc.Old == nil:
				fmt.Fprintf(w, "%s  %s: added %s\n", indent, ptr, jsonValue(fc.New))
			case fc.New == nil:
				fmt.Fprintf(w, "%s  %s: removed %s\n", indent, ptr, jsonValue(fc.Old))
			default:
				fmt.Fprintf(w, "%s  %s: %s -> %s\n", indent, ptr, jsonValue(fc.Old), jsonValue(fc.New))
			}
		}
	}
	for _, n := range d.Added {
		fmt.Fprintf(w, "%stool %s added\n", indent, reports.TerminalSafe(n))
		if cur != nil {
			for _, t := range cur.Tools {
				if t.Name == n {
					if desc := toolDescription(t); desc != "" {
						fmt.Fprintf(w, "%s  %s\n", indent, reports.TerminalSafe(clipRunes(desc, 160)))
					}
					break
				}
			}
		}
	}
	for _, n := range d.Removed {
		fmt.Fprintf(w, "%stool %s removed\n", indent, reports.TerminalSafe(n))
	}
}

// ShortHash is the first 12 hex digits of a pin hash, as list and approve
// print it; show and JSON give the whole hash.
func ShortHash(h string) string {
	if h == "" {
		return "-"
	}
	return reports.TerminalSafe(h[:min(len(h), 12)])
}

// LaunchLine renders a pinned launch surface as one line: the command and
// its arguments (quoted where a shell would need it), or the URL. Both
// were redacted when the pin was made.
func LaunchLine(l *LaunchPin) string {
	if l.URL != "" {
		return l.URL
	}
	words := []string{ShellWord(l.Command)}
	for _, a := range l.Args {
		words = append(words, ShellWord(a))
	}
	return strings.Join(words, " ")
}

// ShellWord quotes a word that a shell would split or expand.
func ShellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'`$\\|&;<>()*?[]#~{}!") {
		return s
	}
	return strconv.Quote(s)
}

// toolDescription returns the description in a tool pin's definition, when
// the pin holds one.
func toolDescription(t ToolPin) string {
	if len(t.Definition) == 0 {
		return ""
	}
	var def struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(t.Definition, &def) != nil {
		return ""
	}
	return def.Description
}

// jsonValue renders a value of a FieldChange as JSON for a terminal:
// strings quoted, nothing HTML-escaped, hidden characters made visible.
func jsonValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return reports.TerminalSafe(fmt.Sprint(v))
	}
	return reports.TerminalSafe(strings.TrimSuffix(b.String(), "\n"))
}

// clipList joins items, listing at most n and counting the rest.
func clipList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

func safeAll(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = reports.TerminalSafe(s)
	}
	return out
}

// clipRunes shortens s to n code points, marking the cut with an ellipsis.
func clipRunes(s string, n int) string {
	if runeLen(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func runeLen(s string) int { return len([]rune(s)) }

func padRight(s string, w int) string { return s + strings.Repeat(" ", max(0, w-runeLen(s))) }

func padLeft(s string, w int) string { return strings.Repeat(" ", max(0, w-runeLen(s))) + s }

// ListJSON is the `pins list --format json` document of set (docs/pins.md).
func ListJSON(path string, set *Set) any {
	doc := listJSON{Schema: ListSchema, Path: path, Servers: []listServerJSON{}}
	for _, name := range set.Names() {
		doc.Servers = append(doc.Servers, listServerJSON{Name: name, Approved: summarizePin(set.Pins[name]),
			Pending: summarizePin(set.Pending[name]), Diff: PendingDiff(set, name)})
	}
	return doc
}

// ShowJSON is the `pins show --format json` document of one server.
func ShowJSON(path, name string, set *Set) any {
	return showJSON{Schema: ShowSchema, Path: path, Name: name, Approved: set.Pins[name], Pending: set.Pending[name],
		Diff: PendingDiff(set, name)}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
