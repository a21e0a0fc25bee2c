package reports

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"unicode"
)

// ToolList describes one analysed tools/list document for WriteToolsText.
type ToolList struct {
	Path   string
	Server string
	Tools  int
	// Prompts, ResourceTemplates and Resources count the document's other
	// lists' items; they are shown when not zero.
	Prompts, ResourceTemplates, Resources int
}

// counts says what a document lists: "3 tools", or "0 tools, 2 prompts".
func (l ToolList) counts() string {
	s := plural(l.Tools, "tool")
	for _, c := range []struct {
		n    int
		noun string
	}{{l.Prompts, "prompt"}, {l.ResourceTemplates, "resource template"}, {l.Resources, "resource"}} {
		if c.n > 0 {
			s += ", " + plural(c.n, c.noun)
		}
	}
	return s
}

// WriteToolsText renders the findings of saved tools/list documents for
// people: a summary line, then per document its findings with the JSON
// pointer and any decoded hidden text. Everything quoted from the input is
// made terminal-safe.
func WriteToolsText(w io.Writer, lists []ToolList, findings []Finding, errs []FileError, color bool) error {
	bw := bufio.NewWriter(w)
	c := colorizer(color)
	var count [4]int
	for _, f := range findings {
		count[f.Severity.Rank()]++
	}
	var total ToolList
	for _, l := range lists {
		total.Tools += l.Tools
		total.Prompts += l.Prompts
		total.ResourceTemplates += l.ResourceTemplates
		total.Resources += l.Resources
	}
	fmt.Fprintf(bw, "mcpguard tools: %s, %s; findings: %s, %s, %s; file errors: %d\n",
		plural(len(lists), "file"), total.counts(),
		c.sev(SeverityError, plural(count[3], "error")), c.sev(SeverityWarning, plural(count[2], "warning")),
		c.sev(SeverityNote, plural(count[1], "note")), len(errs))
	byPath := map[string][]Finding{}
	for _, f := range findings {
		byPath[f.Location.Path] = append(byPath[f.Location.Path], f)
	}
	for _, l := range lists {
		fs := byPath[l.Path]
		sort.SliceStable(fs, func(i, j int) bool {
			a, b := fs[i].Location, fs[j].Location
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			if a.Column != b.Column {
				return a.Column < b.Column
			}
			return fs[i].Rule < fs[j].Rule
		})
		fmt.Fprintf(bw, "\n%s (server %s): %s, %s\n", TerminalSafe(l.Path), TerminalSafe(l.Server), l.counts(), plural(len(fs), "finding"))
		for _, f := range fs {
			fmt.Fprintf(bw, "  %s %s %s: %s\n", c.sev(f.Severity, fmt.Sprintf("%-7s", f.Severity)), f.Rule, TerminalSafe(f.Location.String()), TerminalSafe(f.Message))
			fmt.Fprintf(bw, "          at %s\n", TerminalSafe(f.Location.Pointer))
			if d, ok := f.Evidence["decoded"].(string); ok && d != "" {
				fmt.Fprintf(bw, "          decoded: %s\n", TerminalSafe(fmt.Sprintf("%q", d)))
			}
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(bw, "\nFILE ERRORS\n")
		for _, e := range errs {
			fmt.Fprintf(bw, "%s\n", TerminalSafe(e.Error()))
		}
	}
	return bw.Flush()
}

// TerminalSafe escapes what a terminal would act on or hide: controls,
// format characters (bidi, zero-width, tags), private-use and unassigned
// code points, variation selectors and line separators. Text a person
// reads must not be able to rewrite what they read.
func TerminalSafe(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == 0x2028 || r == 0x2029 || r == 0xFFFD ||
			unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Variation_Selector, r) ||
			!unicode.IsGraphic(r) && r != ' ':
			fmt.Fprintf(&b, `\u{%X}`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
