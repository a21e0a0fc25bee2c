package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/pins"
	"github.com/mcpguard/mcpguard/reports"
)

// The `mcpguard pins` commands review and change the pin store the proxy
// keeps (MCPG-T003, docs/pins.md). Everything they print from the pin file
// (server and tool names, launch commands, definitions) came from an MCP
// server or its configuration, so it goes through reports.TerminalSafe.

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

--format json prints a ` + pins.ListSchema + ` object (docs/pins.md).`,
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

--format json prints a ` + pins.ShowSchema + ` object (docs/pins.md).`,
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
		return nil, pinsUsage("%s: %s", path, describeOSError(err))
	}
	s, err := pins.OpenStore(path)
	if err != nil {
		return nil, &exitCodeError{code: exitError, err: err}
	}
	return s, nil
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
		write = func(w io.Writer) error { return writeJSONValue(w, pins.ListJSON(opts.Pins, ps)) }
	} else {
		write = func(w io.Writer) error { return pins.WriteListText(w, opts.Pins, ps) }
	}
	if err := writeOutput(cmd.OutOrStdout(), opts.Output, write); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	return nil
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
		return pinsUsage("%s: no server named %s", opts.Pins, reports.TerminalSafe(strconv.Quote(opts.Name)))
	}
	var write func(io.Writer) error
	if opts.Format == "json" {
		write = func(w io.Writer) error { return writeJSONValue(w, pins.ShowJSON(opts.Pins, opts.Name, ps)) }
	} else {
		write = func(w io.Writer) error { return pins.WriteShowText(w, opts.Pins, opts.Name, approved, pending) }
	}
	if err := writeOutput(cmd.OutOrStdout(), opts.Output, write); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	return nil
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
	case opts.SHA256 != "" && (opts.All || len(slices.Compact(slices.Sorted(slices.Values(opts.Names)))) != 1):
		return pinsUsage("pins approve: --sha256 takes exactly one NAME")
	case opts.SHA256 != "" && len(opts.SHA256) < 12:
		return pinsUsage("pins approve: --sha256 needs at least 12 hex digits of the pending hash")
	}
	s, err := openPinsForChange(opts.Pins)
	if err != nil {
		return err
	}
	done, err := s.ApproveNames(opts.Names, opts.All, opts.SHA256)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	return pins.WriteApprovalsText(cmd.OutOrStdout(), s.Path(), done)
}

func runPinsForget(cmd *cobra.Command, opts *PinsForgetOptions) error {
	if err := checkPinsFlags(opts.Pins, "text"); err != nil {
		return err
	}
	s, err := openPinsForChange(opts.Pins)
	if err != nil {
		return err
	}
	done, err := s.ForgetNames(opts.Names)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	return pins.WriteForgottenText(cmd.OutOrStdout(), done)
}

// describeOSError drops the path an *fs.PathError repeats.
func describeOSError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
