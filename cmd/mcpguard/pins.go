package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/pins"
)

// The `mcpguard pins` commands review and change the pin store the proxy
// keeps (MCPG-T003, docs/pins.md). Everything they print from the pin file
// (server and tool names, launch commands, definitions) came from an MCP
// server or its configuration, so it goes through terminalSafe.

// Pin output schemas (--format json), documented in docs/pins.md.
const (
	pinsListSchema = "mcpguard/pins-list/v1"
	pinsShowSchema = "mcpguard/pins-show/v1"
)

// PinsListOptions are the flags of `mcpguard pins list`.
type PinsListOptions struct {
	Pins   string
	Format string
	Output string
}

// PinsShowOptions are the flags of `mcpguard pins show`.
type PinsShowOptions struct {
	Pins   string
	Name   string
	Format string
	Output string
}

// PinsApproveOptions are the flags of `mcpguard pins approve`.
type PinsApproveOptions struct {
	Pins  string
	Names []string
	// All approves every pending change.
	All bool
	// SHA256 is a prefix of the pending pin's hash (as list and show print
	// it): the approval fails if the pending state changed since the review.
	SHA256 string
}

// PinsForgetOptions are the flags of `mcpguard pins forget`.
type PinsForgetOptions struct {
	Pins  string
	Names []string
}

const pinsLong = `Review and approve the tool pins of MCPG-T003 (docs/pins.md).

'mcpguard proxy' trusts a server's tools on first use and pins them: a
SHA-256 of every tool definition and of the launch surface. When a server
later shows different tools, the proxy reports MCPG-T003, records what it
saw as pending approval and (with --mode enforce) withholds the changed and
added tools until a person approves the change:

  mcpguard pins list              servers, tool counts, pending changes
  mcpguard pins show NAME         the pinned tools and the pending diff
  mcpguard pins approve NAME      trust what the proxy saw
  mcpguard pins forget NAME       drop the pins; the next start re-pins

The pin file is, by default, $XDG_STATE_HOME/mcpguard/pins.json or
~/.local/state/mcpguard/pins.json (Linux), ~/Library/Application
Support/mcpguard/pins.json (macOS), %LOCALAPPDATA%\mcpguard\pins.json
(Windows); --pins FILE selects another, as for 'mcpguard proxy --pins'.

Exit codes:
  0  done
  2  usage error, unknown server or nothing to approve, unreadable or
     malformed pin file (path:line:col)`

const pinsExample = `  mcpguard pins list
  mcpguard pins show github
  mcpguard pins approve github
  mcpguard pins approve --all
  mcpguard pins forget github
  mcpguard pins list --pins ./pins.json --format json`

func newPinsCmd(env environment) *cobra.Command {
	home, _ := env.home()
	var pinsPath string
	cmd := &cobra.Command{
		Use:     "pins",
		Short:   "Review, approve and forget tool pins (MCPG-T003)",
		Long:    pinsLong,
		Example: pinsExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &exitCodeError{code: exitError, err: errors.New("pins: missing subcommand (list, show, approve, forget)")}
		},
	}
	cmd.PersistentFlags().StringVar(&pinsPath, "pins", pins.DefaultPath(env.goos, home, env.lookupEnv), "pin file")
	cmd.AddCommand(newPinsListCmd(&pinsPath), newPinsShowCmd(&pinsPath), newPinsApproveCmd(&pinsPath), newPinsForgetCmd(&pinsPath))
	return cmd
}

func newPinsListCmd(pinsPath *string) *cobra.Command {
	opts := &PinsListOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List pinned servers and changes pending approval",
		Long: `List every pinned server: its name, number of tools, pin hash, launch
command (secrets redacted when it was pinned) and, when the proxy saw a
change, a one-line summary of what changed.

--format json prints a ` + pinsListSchema + ` object (docs/pins.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Pins = *pinsPath
			return runPinsList(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, json")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write to FILE instead of stdout")
	return cmd
}

func newPinsShowCmd(pinsPath *string) *cobra.Command {
	opts := &PinsShowOptions{}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a server's pinned tools and its pending change",
		Long: `Show what is pinned for one server (launch surface, initialize hash, every
tool with its hash and description) and, when a change is pending
approval, the change in detail: every changed field and, where the pins
hold the definitions, the values before and after.

--format json prints a ` + pinsShowSchema + ` object (docs/pins.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Pins, opts.Name = *pinsPath, args[0]
			return runPinsShow(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text, json")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write to FILE instead of stdout")
	return cmd
}

func newPinsApproveCmd(pinsPath *string) *cobra.Command {
	opts := &PinsApproveOptions{}
	cmd := &cobra.Command{
		Use:   "approve NAME... | --all",
		Short: "Approve the changes the proxy saw",
		Long: `Approve the pending change of each NAME: what the proxy last saw becomes the
pinned state, and a running proxy releases the tools it withheld. Every
approved change is printed in full.

Either every NAME is approved or, when one is unknown or has nothing
pending, none is (exit 2).

A server can change again between your review and the approval; --sha256
with the pending hash that 'pins list' or 'pins show' printed approves only
that state.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Pins, opts.Names = *pinsPath, args
			return runPinsApprove(cmd, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "approve every pending change")
	cmd.Flags().StringVar(&opts.SHA256, "sha256", "", "approve only if the pending pin's hash starts with HASH (at least 12 hex digits; one NAME)")
	return cmd
}

func newPinsForgetCmd(pinsPath *string) *cobra.Command {
	opts := &PinsForgetOptions{}
	cmd := &cobra.Command{
		Use:   "forget NAME...",
		Short: "Remove servers' pins; the next proxy start pins them again",
		Long: `Remove the pinned and pending state of each NAME. The next time the proxy
starts that server, it trusts its tools on first use and pins them again.

Either every NAME is forgotten or, when one is unknown, none is (exit 2).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Pins, opts.Names = *pinsPath, args
			return runPinsForget(cmd, opts)
		},
	}
	return cmd
}

func pinsUsage(format string, a ...any) error {
	return &exitCodeError{code: exitError, err: fmt.Errorf(format, a...)}
}

// checkPinsFlags validates the pin file path and the output format.
func checkPinsFlags(path, format string) error {
	if path == "" {
		return pinsUsage("no default pin file (HOME is not set): use --pins FILE")
	}
	if format != "text" && format != "json" {
		return pinsUsage("--format: unknown format %q (text, json)", format)
	}
	return nil
}

// loadPins reads the pin file without creating anything: list and show
// only look.
func loadPins(path string) (*pins.Set, error) {
	ps, err := pins.LoadFile(path)
	if err != nil {
		return nil, &exitCodeError{code: exitError, err: err}
	}
	return ps, nil
}

// openPinsForChange opens the store of an existing pin file. A missing file
// is an error rather than a new store: there is nothing to approve or
// forget, and creating a key for it would be a side effect of a typo.
func openPinsForChange(path string) (*pins.Store, error) {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, pinsUsage("%s: no pin file (nothing is pinned yet)", path)
		}
		return nil, pinsUsage("%s: %s", path, describeReadError(err))
	}
	s, err := pins.OpenStore(path)
	if err != nil {
		return nil, &exitCodeError{code: exitError, err: err}
	}
	return s, nil
}

// pinSummaryJSON summarizes one pin in `pins list --format json`.
type pinSummaryJSON struct {
	SHA256    string `json:"sha256"`
	Tools     int    `json:"tools"`
	Transport string `json:"transport,omitempty"`
	// Launch is the redacted command line or URL; "" when the launch
	// surface was not pinned.
	Launch string `json:"launch"`
}

// pinsListServerJSON is one server of `pins list --format json`.
type pinsListServerJSON struct {
	Name     string          `json:"name"`
	Approved *pinSummaryJSON `json:"approved"`
	Pending  *pinSummaryJSON `json:"pending"`
	// Diff is approved -> pending; null when nothing is pending.
	Diff *pins.PinDiff `json:"diff"`
}

type pinsListJSON struct {
	Schema  string               `json:"schema"`
	Path    string               `json:"path"`
	Servers []pinsListServerJSON `json:"servers"`
}

type pinsShowJSON struct {
	Schema   string        `json:"schema"`
	Path     string        `json:"path"`
	Name     string        `json:"name"`
	Approved *pins.Pin     `json:"approved"`
	Pending  *pins.Pin     `json:"pending"`
	Diff     *pins.PinDiff `json:"diff"`
}

func summarizePin(p *pins.Pin) *pinSummaryJSON {
	if p == nil {
		return nil
	}
	s := &pinSummaryJSON{SHA256: p.SHA256, Tools: len(p.Tools)}
	if p.Launch != nil {
		s.Transport = p.Launch.Transport
		s.Launch = launchLine(p.Launch)
	}
	return s
}

// pendingDiff returns the diff from the approved to the pending pin of
// name, or nil when nothing is pending.
func pendingDiff(ps *pins.Set, name string) *pins.PinDiff {
	cur := ps.Pending[name]
	if cur == nil {
		return nil
	}
	d := pins.DiffPins(ps.Pins[name], cur)
	if d.Server == "" {
		d.Server = name
	}
	return d
}

func writeJSONValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runPinsList(cmd *cobra.Command, opts *PinsListOptions) error {
	if err := checkPinsFlags(opts.Pins, opts.Format); err != nil {
		return err
	}
	ps, err := loadPins(opts.Pins)
	if err != nil {
		return err
	}
	var write func(io.Writer) error
	if opts.Format == "json" {
		doc := pinsListJSON{Schema: pinsListSchema, Path: opts.Pins, Servers: []pinsListServerJSON{}}
		for _, name := range ps.Names() {
			doc.Servers = append(doc.Servers, pinsListServerJSON{Name: name, Approved: summarizePin(ps.Pins[name]),
				Pending: summarizePin(ps.Pending[name]), Diff: pendingDiff(ps, name)})
		}
		write = func(w io.Writer) error { return writeJSONValue(w, doc) }
	} else {
		write = func(w io.Writer) error { return writePinsListText(w, opts.Pins, ps) }
	}
	if err := writeOutput(cmd.OutOrStdout(), opts.Output, write); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	return nil
}

func writePinsListText(w io.Writer, path string, ps *pins.Set) error {
	bw := bufio.NewWriter(w)
	names := ps.Names()
	fmt.Fprintf(bw, "%s: %s, %d pending approval\n", terminalSafe(path), plural(len(names), "server"), len(ps.Pending))
	if len(names) == 0 {
		return bw.Flush()
	}
	nameW, toolsW := len("NAME"), len("TOOLS")
	rows := make([][4]string, len(names))
	for i, name := range names {
		p := ps.Pins[name]
		row := [4]string{terminalSafe(name), "-", "-", "-"}
		if p == nil {
			p = ps.Pending[name] // pending only: describe what was seen
		} else {
			row[1], row[2] = strconv.Itoa(len(p.Tools)), shortHash(p.SHA256)
		}
		if p.Launch != nil {
			row[3] = terminalSafe(launchLine(p.Launch))
		}
		nameW, toolsW = max(nameW, runeLen(row[0])), max(toolsW, len(row[1]))
		rows[i] = row
	}
	fmt.Fprintf(bw, "\n%s  %s  %-12s  %s\n", padRight("NAME", nameW), padLeft("TOOLS", toolsW), "PIN", "LAUNCH")
	for i, name := range names {
		r := rows[i]
		fmt.Fprintf(bw, "%s  %s  %-12s  %s\n", padRight(r[0], nameW), padLeft(r[1], toolsW), r[2], r[3])
		if cur := ps.Pending[name]; cur != nil {
			fmt.Fprintf(bw, "  pending approval (%s): %s\n", shortHash(cur.SHA256), diffSummary(ps.Pins[name], cur))
		}
	}
	return bw.Flush()
}

// diffSummary says in one line what changed from the approved to the
// pending pin.
func diffSummary(old, cur *pins.Pin) string {
	if old == nil {
		return fmt.Sprintf("not approved yet (%s)", plural(len(cur.Tools), "tool"))
	}
	d := pins.DiffPins(old, cur)
	if d.Empty() {
		return "no difference"
	}
	var parts []string
	if len(d.Changed) > 0 {
		var cs []string
		for _, c := range d.Changed {
			cs = append(cs, fmt.Sprintf("%s (%s)", terminalSafe(c.Name), strings.Join(c.Fields, ", ")))
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
		parts = append(parts, "launch ("+terminalSafe(strings.Join(d.Launch, ", "))+")")
	}
	if d.Initialize {
		parts = append(parts, "serverInfo or instructions")
	}
	return strings.Join(parts, "; ")
}

func runPinsShow(cmd *cobra.Command, opts *PinsShowOptions) error {
	if err := checkPinsFlags(opts.Pins, opts.Format); err != nil {
		return err
	}
	ps, err := loadPins(opts.Pins)
	if err != nil {
		return err
	}
	approved, pending := ps.Pins[opts.Name], ps.Pending[opts.Name]
	if approved == nil && pending == nil {
		return pinsUsage("%s: no server named %s", opts.Pins, terminalSafe(strconv.Quote(opts.Name)))
	}
	var write func(io.Writer) error
	if opts.Format == "json" {
		doc := pinsShowJSON{Schema: pinsShowSchema, Path: opts.Pins, Name: opts.Name, Approved: approved, Pending: pending,
			Diff: pendingDiff(ps, opts.Name)}
		write = func(w io.Writer) error { return writeJSONValue(w, doc) }
	} else {
		write = func(w io.Writer) error { return writePinsShowText(w, opts.Pins, opts.Name, approved, pending) }
	}
	if err := writeOutput(cmd.OutOrStdout(), opts.Output, write); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	return nil
}

func writePinsShowText(w io.Writer, path, name string, approved, pending *pins.Pin) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "server %s (%s)\n", terminalSafe(name), terminalSafe(path))
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
	fmt.Fprintf(bw, "\npending approval %s (mcpguard pins approve --sha256 %s %s)\n", pending.SHA256, shortHash(pending.SHA256), terminalSafe(shellWord(name)))
	if approved == nil {
		writePinBody(bw, pending)
		return bw.Flush()
	}
	d := pins.DiffPins(approved, pending)
	if d.Empty() {
		fmt.Fprintf(bw, "  no difference\n")
	}
	writeDiff(bw, "  ", d, pending)
	return bw.Flush()
}

// writePinBody prints a pin's launch surface and tools.
func writePinBody(w io.Writer, p *pins.Pin) {
	if l := p.Launch; l != nil {
		fmt.Fprintf(w, "  launch: %s\n", terminalSafe(launchLine(l)))
		for _, f := range []struct{ label, value string }{
			{"transport", l.Transport},
			{"client", strings.Trim(l.Client+"/"+l.Scope, "/")},
			{"cwd", l.Cwd},
			{"env", strings.Join(l.EnvKeys, ", ")},
			{"headers", strings.Join(l.HeaderKeys, ", ")},
		} {
			if f.value != "" {
				fmt.Fprintf(w, "    %s: %s\n", f.label, terminalSafe(f.value))
			}
		}
	} else {
		fmt.Fprintf(w, "  launch: not pinned\n")
	}
	if p.Initialize != "" {
		fmt.Fprintf(w, "  initialize: %s\n", shortHash(p.Initialize))
	}
	fmt.Fprintf(w, "  tools (%d):\n", len(p.Tools))
	nameW := 0
	for _, t := range p.Tools {
		nameW = max(nameW, runeLen(terminalSafe(t.Name)))
	}
	for _, t := range p.Tools {
		fields := make([]string, 0, len(t.Fields))
		for f := range t.Fields {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		fmt.Fprintf(w, "    %s  %s  %s\n", padRight(terminalSafe(t.Name), nameW), shortHash(t.SHA256), strings.Join(fields, ", "))
		if desc := toolDescription(t); desc != "" {
			fmt.Fprintf(w, "      %s\n", terminalSafe(clipRunes(desc, 160)))
		}
	}
}

// writeDiff prints every change of d, with the values before and after
// where the pins hold definitions. cur locates added tools' descriptions.
func writeDiff(w io.Writer, indent string, d *pins.PinDiff, cur *pins.Pin) {
	if len(d.Launch) > 0 {
		fmt.Fprintf(w, "%slaunch changed: %s\n", indent, terminalSafe(strings.Join(d.Launch, ", ")))
		if cur != nil && cur.Launch != nil {
			fmt.Fprintf(w, "%s  now: %s\n", indent, terminalSafe(launchLine(cur.Launch)))
		}
	}
	if d.Initialize {
		fmt.Fprintf(w, "%sserverInfo or instructions changed\n", indent)
	}
	for _, c := range d.Changed {
		fmt.Fprintf(w, "%stool %s changed: %s\n", indent, terminalSafe(c.Name), strings.Join(c.Fields, ", "))
		for _, fc := range c.Details {
			ptr := terminalSafe(fc.Pointer)
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
		fmt.Fprintf(w, "%stool %s added\n", indent, terminalSafe(n))
		if cur != nil {
			for _, t := range cur.Tools {
				if t.Name == n {
					if desc := toolDescription(t); desc != "" {
						fmt.Fprintf(w, "%s  %s\n", indent, terminalSafe(clipRunes(desc, 160)))
					}
					break
				}
			}
		}
	}
	for _, n := range d.Removed {
		fmt.Fprintf(w, "%stool %s removed\n", indent, terminalSafe(n))
	}
}

func runPinsApprove(cmd *cobra.Command, opts *PinsApproveOptions) error {
	if err := checkPinsFlags(opts.Pins, "text"); err != nil {
		return err
	}
	switch {
	case opts.All && len(opts.Names) > 0:
		return pinsUsage("pins approve: give NAME... or --all, not both")
	case !opts.All && len(opts.Names) == 0:
		return pinsUsage("pins approve: give NAME... or --all")
	case opts.SHA256 != "" && (opts.All || len(uniqueNames(opts.Names)) != 1):
		return pinsUsage("pins approve: --sha256 takes exactly one NAME")
	case opts.SHA256 != "" && len(opts.SHA256) < 12:
		return pinsUsage("pins approve: --sha256 needs at least 12 hex digits of the pending hash")
	}
	s, err := openPinsForChange(opts.Pins)
	if err != nil {
		return err
	}
	type approval struct {
		name     string
		old, cur *pins.Pin
		diff     *pins.PinDiff
	}
	var done []approval
	err = s.Update(func(ps *pins.Set) error {
		names := uniqueNames(opts.Names)
		if opts.All {
			for n := range ps.Pending {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		// Check every name before approving any: all or nothing.
		for _, n := range names {
			if ps.Pins[n] == nil && ps.Pending[n] == nil {
				return pinsUsage("%s: no server named %s", s.Path(), terminalSafe(strconv.Quote(n)))
			}
			if ps.Pending[n] == nil {
				return pinsUsage("%s: server %s has no change pending approval", s.Path(), terminalSafe(strconv.Quote(n)))
			}
			if want := strings.ToLower(opts.SHA256); want != "" && !strings.HasPrefix(ps.Pending[n].SHA256, want) {
				return pinsUsage("%s: the pending state of server %s is %s, not %s: it changed since the review; run 'mcpguard pins show' again",
					s.Path(), terminalSafe(strconv.Quote(n)), shortHash(ps.Pending[n].SHA256), terminalSafe(opts.SHA256))
			}
		}
		for _, n := range names {
			old, cur := ps.Pins[n], ps.Pending[n]
			d, err := ps.Approve(n)
			if err != nil {
				return err
			}
			done = append(done, approval{name: n, old: old, cur: cur, diff: d})
		}
		return nil
	})
	if err != nil {
		return asExitError(err)
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	if len(done) == 0 {
		fmt.Fprintf(out, "%s: no change is pending approval\n", terminalSafe(s.Path()))
	}
	for _, a := range done {
		if a.old == nil {
			fmt.Fprintf(out, "approved %s: %s (%s, first approval)\n", terminalSafe(a.name), shortHash(a.cur.SHA256), plural(len(a.cur.Tools), "tool"))
			continue
		}
		fmt.Fprintf(out, "approved %s: %s -> %s\n", terminalSafe(a.name), shortHash(a.old.SHA256), shortHash(a.cur.SHA256))
		if a.diff.Empty() {
			fmt.Fprintf(out, "  no difference\n")
		}
		writeDiff(out, "  ", a.diff, a.cur)
	}
	return out.Flush()
}

func runPinsForget(cmd *cobra.Command, opts *PinsForgetOptions) error {
	if err := checkPinsFlags(opts.Pins, "text"); err != nil {
		return err
	}
	s, err := openPinsForChange(opts.Pins)
	if err != nil {
		return err
	}
	type forgotten struct {
		name  string
		tools int
	}
	var done []forgotten
	err = s.Update(func(ps *pins.Set) error {
		names := uniqueNames(opts.Names)
		// Check every name before forgetting any: all or nothing.
		for _, n := range names {
			if ps.Pins[n] == nil && ps.Pending[n] == nil {
				return pinsUsage("%s: no server named %s", s.Path(), terminalSafe(strconv.Quote(n)))
			}
		}
		for _, n := range names {
			tools := 0
			if p := ps.Pins[n]; p != nil {
				tools = len(p.Tools)
			}
			ps.Forget(n)
			done = append(done, forgotten{n, tools})
		}
		return nil
	})
	if err != nil {
		return asExitError(err)
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	for _, f := range done {
		fmt.Fprintf(out, "forgot %s (%s pinned); the next proxy start pins it again on first use\n", terminalSafe(f.name), plural(f.tools, "tool"))
	}
	return out.Flush()
}

// asExitError keeps an exit code a callback chose and makes any other
// error (an unreadable or malformed pin file, a failed write) exit 2.
func asExitError(err error) error {
	var ec *exitCodeError
	if errors.As(err, &ec) {
		return err
	}
	return &exitCodeError{code: exitError, err: err}
}

// uniqueNames drops repeated names, keeping the first occurrence's order.
func uniqueNames(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// shortHash is the first 12 hex digits of a pin hash, as list and approve
// print it; show and JSON give the whole hash.
func shortHash(h string) string {
	if h == "" {
		return "-"
	}
	return terminalSafe(h[:min(len(h), 12)])
}

// launchLine renders a pinned launch surface as one line: the command and
// its arguments (quoted where a shell would need it), or the URL. Both
// were redacted when the pin was made.
func launchLine(l *pins.LaunchPin) string {
	if l.URL != "" {
		return l.URL
	}
	words := []string{shellWord(l.Command)}
	for _, a := range l.Args {
		words = append(words, shellWord(a))
	}
	return strings.Join(words, " ")
}

// shellWord quotes a word that a shell would split or expand.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'`$\\|&;<>()*?[]#~{}!") {
		return s
	}
	return strconv.Quote(s)
}

// toolDescription returns the description in a tool pin's definition, when
// the pin holds one.
func toolDescription(t pins.ToolPin) string {
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
		return terminalSafe(fmt.Sprint(v))
	}
	return terminalSafe(strings.TrimSuffix(b.String(), "\n"))
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
		out[i] = terminalSafe(s)
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
