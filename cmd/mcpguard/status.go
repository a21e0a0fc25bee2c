package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/reports"
)

// StatusOptions are the flags of `mcpguard status`.
type StatusOptions struct {
	Socket string
	Format string
	Output string
	FailOn string
	// Follow streams events as they happen instead of printing the report.
	Follow bool
	// Since resumes the event stream after event number N.
	Since int64
	// Info prints the daemon's own status (watches, policy, degraded
	// states) instead of the inventory.
	Info bool
}

const statusLong = `Print the inventory of a running mcpguard daemon.

Without flags, print the daemon's current report — the report 'mcpguard scan'
would print now — in any report format, with the same exit codes as scan.
--follow streams the daemon's events as they happen (text, or JSON lines with
--format json); --since N replays the events after number N first, so a
consumer resumes where it stopped; when the daemon goes away it says so once
and reconnects, less and less often, resuming after the last event printed.
--info prints the daemon itself: socket, uptime, watched paths, policy
revision, the API's connections and anything degraded.

Exit codes:
  0  nothing at or above --fail-on (--info: the daemon is healthy)
  1  findings at or above --fail-on (--info: something is degraded)
  2  no daemon at the socket, or one that runs as neither root nor you (the
     socket's peer credentials are checked first), usage error, unreadable
     inputs in the report`

func newStatusCmd(env environment) *cobra.Command {
	opts := &StatusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print a running daemon's inventory, its events or its own status",
		Long:  statusLong,
		Example: `  mcpguard status
  mcpguard status --format sarif --output mcpguard.sarif
  mcpguard status --follow --format json
  mcpguard status --info`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runStatus(cmd, env, opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Socket, "socket", "", "the daemon's API socket (default: your own daemon's, else the system daemon's)")
	f.StringVar(&opts.Format, "format", "text", "output format: "+formatList())
	f.StringVarP(&opts.Output, "output", "o", "", "write to FILE instead of stdout")
	f.StringVar(&opts.FailOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, note, never")
	f.BoolVar(&opts.Follow, "follow", false, "stream events as they happen")
	f.Int64Var(&opts.Since, "since", -1, "with --follow: replay the events after number N first (default: only new events)")
	f.BoolVar(&opts.Info, "info", false, "print the daemon's own status")
	return cmd
}

// defaultSocket is the user's own daemon's socket when it exists, else the
// system daemon's.
func defaultSocket(env environment) string {
	home, _ := env.home()
	system := daemon.DefaultPaths(env.goos, true, home, env.lookupEnv).Socket
	if env.euid() == 0 {
		return system
	}
	if user := daemon.DefaultPaths(env.goos, false, home, env.lookupEnv).Socket; fileExists(user) {
		return user
	}
	return system
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func runStatus(cmd *cobra.Command, env environment, opts *StatusOptions) error {
	usage := func(format string, args ...any) error {
		return &exitCodeError{code: exitError, err: fmt.Errorf(format, args...)}
	}
	if opts.Follow && opts.Info {
		return usage("give --follow or --info, not both")
	}
	socket := opts.Socket
	if socket == "" {
		socket = defaultSocket(env)
	}
	client := daemon.NewClient(socket)
	ctx := cmd.Context()
	switch {
	case opts.Follow:
		if opts.Format != "text" && opts.Format != "json" {
			return usage("--follow: --format text or json")
		}
		return followEvents(cmd, env, client, socket, opts)
	case opts.Info:
		st, err := client.Status(ctx)
		if err != nil {
			return daemonError(env, err)
		}
		if err := writeOutput(cmd.OutOrStdout(), opts.Output, func(w io.Writer) error { return writeDaemonStatus(w, st, opts.Format) }); err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
		if len(st.Degraded) > 0 {
			return &exitCodeError{code: exitFindings}
		}
		return nil
	}
	format, err := reports.ParseFormat(opts.Format)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	failRank, err := reports.ParseSeverity(opts.FailOn)
	if err != nil {
		return usage("--fail-on: %w", err)
	}
	rep, err := client.Report(ctx)
	if err != nil {
		return daemonError(env, err)
	}
	return finishReport(cmd, env, rep, nil, format, failRank, opts.FailOn, opts.Output, reports.CSVFindings)
}

// daemonError is the exit-2 error for a daemon that cannot be reached or
// believed, saying what to do.
func daemonError(env environment, err error) error {
	var nd *daemon.NoDaemonError
	if errors.As(err, &nd) {
		home, _ := env.home()
		system := daemon.DefaultPaths(env.goos, true, home, env.lookupEnv).Socket
		own := daemon.DefaultPaths(env.goos, false, home, env.lookupEnv).Socket
		hint := "mcpguard daemon --socket " + nd.Socket
		switch {
		case nd.Socket == system && env.goos == "darwin":
			hint = "sudo launchctl bootstrap system /Library/LaunchDaemons/com.mcpguard.daemon.plist"
		case nd.Socket == system:
			hint = "sudo systemctl start mcpguard"
		case nd.Socket == own && env.goos == "linux":
			hint = "systemctl --user start mcpguard-user"
		case nd.Socket == own:
			hint = "mcpguard daemon"
		}
		err = fmt.Errorf("%s (start it with %s; docs/daemon.md)", reports.Printable(nd.Error()), hint)
	}
	return &exitCodeError{code: exitError, err: err}
}

// followEvents prints events until interrupted, reconnecting after a
// daemon restart and resuming after the last event seen: one message when
// the daemon goes, one when it is back, retries ever less often between.
func followEvents(cmd *cobra.Command, env environment, client *daemon.Client, socket string, opts *StatusOptions) error {
	ctx := cmd.Context()
	since := opts.Since
	if since < 0 {
		st, err := client.Status(ctx)
		if err != nil {
			return daemonError(env, err)
		}
		since = st.EventSeq
	}
	out := bufio.NewWriter(cmd.OutOrStdout())
	print := func(e events.Event, raw []byte) error {
		if opts.Format == "json" {
			out.Write(raw)
			out.WriteByte('\n')
		} else {
			writeEventText(out, e)
		}
		return out.Flush()
	}
	const firstDelay, maxDelay = time.Second, 30 * time.Second
	delay, lost, ever := time.Duration(0), false, false
	connected := func() {
		ever, delay = true, 0
		if lost {
			lost = false
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: the daemon at %s is back; resuming after event %d\n", reports.Printable(socket), since)
		}
	}
	for {
		next, err := client.Stream(ctx, since, true, connected, print)
		since = next
		if ctx.Err() != nil {
			return nil
		}
		var ud *daemon.UntrustedDaemonError
		if errors.As(err, &ud) || (!ever && err != nil) {
			return daemonError(env, err)
		}
		if !lost {
			lost = true
			why := "it stopped"
			if err != nil {
				why = err.Error()
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: lost the daemon at %s (%s); reconnecting\n", reports.Printable(socket), reports.Printable(why))
		}
		delay = min(max(2*delay, firstDelay), maxDelay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
	}
}

// writeEventText renders one event on one terminal-safe line.
func writeEventText(w io.Writer, e events.Event) {
	parts := []string{fmt.Sprintf("%6d", e.Seq), e.Time.Local().Format("15:04:05.000"), fmt.Sprintf("%-17s", e.Kind)}
	if e.Severity != "" {
		parts = append(parts, e.Severity)
	}
	if e.Rule != "" {
		parts = append(parts, e.Rule)
	}
	where := e.Path
	if e.Server != "" {
		where = e.Client + "/" + e.Scope + "/" + e.Server
	}
	if e.User != "" {
		where = e.User + ":" + where
	}
	if where != "" {
		parts = append(parts, where)
	}
	parts = append(parts, e.Message)
	fmt.Fprintln(w, reports.TerminalSafe(strings.Join(parts, "  ")))
}

// writeDaemonStatus renders GET /v1/status.
func writeDaemonStatus(w io.Writer, st *daemon.Status, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(st)
	case "text":
	default:
		return errors.New("--info: --format text or json")
	}
	bw := bufio.NewWriter(w)
	health := "healthy"
	if len(st.Degraded) > 0 {
		health = "degraded"
	}
	fmt.Fprintf(bw, "mcpguard daemon %s (pid %d): %s, up %s\n", st.Version, st.PID, health, time.Duration(st.UptimeSeconds)*time.Second)
	fmt.Fprintf(bw, "  socket: %s\n", reports.TerminalSafe(orNone(st.Socket)))
	whose := "inventory"
	if st.User != "" {
		whose = "inventory of " + reports.TerminalSafe(st.User) + " (their servers and the machine's)"
	}
	fmt.Fprintf(bw, "  %s: %d servers; findings: %d errors, %d warnings, %d notes; %d unreadable inputs\n",
		whose, st.Servers, st.Findings.Error, st.Findings.Warning, st.Findings.Note, st.Errors)
	if st.Users > 0 {
		fmt.Fprintf(bw, "  users watched: %d\n", st.Users)
	}
	fmt.Fprintf(bw, "  last scan: %s (%d scans); last change: %s\n", st.LastScanAt, st.Scans, orNone(st.LastChangeAt))
	fmt.Fprintf(bw, "  watching: %s, %d directories for %d paths; resync every %ds\n", st.Watch.Mode, st.Watch.Directories, st.Watch.Paths, st.Watch.ResyncSeconds)
	fmt.Fprintf(bw, "  policy: revision %s; --policy %s\n", orNone(st.Policy.Revision), orNone(strings.Join(st.Policy.Paths, ", ")))
	if b := st.Policy.Bundles; b != nil {
		state := "ok"
		if b.Degraded {
			state = "degraded"
		}
		fmt.Fprintf(bw, "  bundles: %s in force (configured: %s); %s\n", reports.TerminalSafe(orNone(fleetpolicy.Revisions(b.Active))), reports.TerminalSafe(strings.Join(b.Configured, ", ")), state)
	}
	fmt.Fprintf(bw, "  events: %s (last %d); state: %s\n", orNone(st.Events), st.EventSeq, st.StateDir)
	fmt.Fprintf(bw, "  api: %d connections, %d event streams; %d refused over the limits (%d connections, %d streams per user)\n",
		st.API.Connections, st.API.Streams, st.API.Refused, st.API.Limits.Conns, st.API.Limits.Streams)
	fmt.Fprintf(bw, "  memory: %.1f MiB held (%.1f MiB in heap objects); unused memory last returned: %s\n",
		float64(st.Memory.HeldBytes)/(1<<20), float64(st.Memory.HeapBytes)/(1<<20), orNone(st.Memory.ReleasedAt))
	for _, d := range st.Degraded {
		fmt.Fprintf(bw, "  DEGRADED %s: %s\n", d.Kind, reports.TerminalSafe(d.Message))
	}
	for p, why := range st.Policy.Invalid {
		fmt.Fprintf(bw, "  invalid policy %s: %s\n", reports.TerminalSafe(p), reports.TerminalSafe(why))
	}
	return bw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
