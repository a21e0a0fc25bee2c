package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/internal/ignorefile"
	"github.com/mcpguard/mcpguard/introspect"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/pins"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// ScanOptions are the flags of `mcpguard scan`.
type ScanOptions struct {
	Paths      []string
	Home       string
	ManagedDir string
	Project    string
	Format     string
	Output     string
	FailOn     string
	CSVKind    string
	// Policies are --policy paths: .rego files or directories of them, or JSON
	// files shaped like managed-settings.json.
	Policies []string
	// Baseline is a previous JSON report: its findings are suppressed.
	Baseline string
	// IgnoreFile lists accepted findings with reasons; by default
	// .mcpguardignore in the working directory, when it exists.
	IgnoreFile string
	// homeSet and managedSet record explicit flags: in path mode the machine's
	// home and managed directory are read only when asked for.
	homeSet, managedSet bool
	// ignoreFileSet records an explicit --ignore-file, which must exist.
	ignoreFileSet bool

	// Introspect starts each server that may run and analyses what it
	// offers; the fields below tune it.
	Introspect             bool
	IntrospectTimeout      time.Duration
	IntrospectStartTimeout time.Duration
	IntrospectJobs         int
	IntrospectUntrusted    bool
	// Pins is the pin file introspected tools are pinned in and compared
	// with (MCPG-T003); "" pins nothing.
	Pins string
	// Fleet takes organisation policy from OPA bundles.
	Fleet FleetOptions
}

const scanLong = `Scan MCP server configurations.

Without PATH, scan the whole machine: every supported client's per-user files
under --home, Claude Code's managed directory, and every project that
~/.claude.json knows plus --project. Claude Code's effective server set is
resolved for --project.

With PATH (files or directories), scan only those files: the pre-commit and
CI mode. A directory means the MCP configuration files it holds (.mcp.json,
.claude/settings*.json, .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json,
.codex/config.toml, .zed/settings.json, ...).

With --introspect, each server that may run (active, allowed by policy,
approved) is started as its client would start it and asked what it offers
(initialize, tools/list, prompts/list, resources/list); the answers are
analysed like the proxy analyses them (hidden Unicode, poisoned
descriptions, misleading annotations, IDE allowlist) and, with --pins, pinned
and compared (MCPG-T003). Servers from files named on the command line and
project servers of clients whose approval mcpguard cannot see are started
only with --introspect-untrusted. See docs/introspection.md.

Accepted findings are reported as suppressed and never fail the run: those
whose id is in the --baseline report (a previous --format json report), and
those matched by the ignore file (.mcpguardignore in the working directory,
or --ignore-file), one entry per line with a mandatory reason:

  f-0123456789abcdef                # reviewed: public demo token
  MCPG-C002  .cursor/mcp.json       # pinned through our lock file

See docs/ci.md for the format, pre-commit and CI set-ups.

Exit codes:
  0  no unsuppressed finding at or above --fail-on
  1  unsuppressed findings at or above --fail-on
  2  usage error, unreadable or malformed input, baseline or ignore file, invalid policy`

const scanExample = `  mcpguard scan
  mcpguard scan --format json --output report.json
  mcpguard scan .mcp.json .cursor/mcp.json
  mcpguard scan --format sarif --output mcpguard.sarif .
  mcpguard scan --introspect --pins ~/.config/mcpguard/pins.json
  mcpguard scan --baseline mcpguard-baseline.json --format junit --output mcpguard.xml .
  mcpguard scan --home testdata/demo/home --managed-dir testdata/demo/managed --project testdata/demo/project`

func newScanCmd(env environment) *cobra.Command {
	opts := &ScanOptions{}
	cmd := &cobra.Command{
		Use:     "scan [PATH...]",
		Short:   "Scan MCP configurations and report servers, findings and errors",
		Long:    scanLong,
		Example: scanExample,
		// A scan that reads and prints ends at once on an interrupt, as
		// before it started; runScan arms the handlers for one that writes
		// a file, starts servers or runs OPA's plugins.
		Annotations: onDemand(),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.homeSet = cmd.Flags().Changed("home")
			opts.managedSet = cmd.Flags().Changed("managed-dir")
			opts.ignoreFileSet = cmd.Flags().Changed("ignore-file")
			return runScan(cmd, env, opts)
		},
	}
	home, _ := env.home()
	cwd, _ := env.getwd()
	f := cmd.Flags()
	f.StringVar(&opts.Home, "home", home, "home directory whose per-user client files are scanned")
	f.StringVar(&opts.ManagedDir, "managed-dir", managed.DefaultDir(env.goos), "Claude Code managed settings directory")
	f.StringVar(&opts.Project, "project", cwd, "project whose Claude Code view is resolved")
	f.StringVar(&opts.Format, "format", "text", "output format: "+formatList())
	f.StringVarP(&opts.Output, "output", "o", "", "write the report to FILE instead of stdout")
	f.StringVar(&opts.FailOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, note, never")
	f.StringVar(&opts.CSVKind, "csv-kind", reports.CSVFindings, "with --format csv: findings (one row per finding) or servers")
	f.StringArrayVar(&opts.Policies, "policy", nil, "organisation policy: a .rego file or directory, or a JSON file shaped like managed-settings.json (repeatable)")
	f.StringVar(&opts.Baseline, "baseline", "", "previous JSON report (--format json): its findings are reported as suppressed and do not count toward --fail-on")
	f.BoolVar(&opts.Introspect, "introspect", false, "start each server that may run and analyse the tools, prompts and resources it offers")
	f.DurationVar(&opts.IntrospectTimeout, "introspect-timeout", introspect.DefaultTimeout, "with --introspect: time each server has from start to its last answer")
	f.DurationVar(&opts.IntrospectStartTimeout, "introspect-start-timeout", introspect.DefaultStartTimeout, "with --introspect: the same for servers started through a package runner (npx, uvx, docker, ...), which may download first")
	f.IntVar(&opts.IntrospectJobs, "introspect-jobs", introspect.DefaultJobs(), "with --introspect: servers started at once")
	f.BoolVar(&opts.IntrospectUntrusted, "introspect-untrusted", false, "with --introspect: also start servers of files named on the command line and project servers whose approval mcpguard cannot see")
	f.StringVar(&opts.Pins, "pins", "", "with --introspect: pin file (as the proxy's); the first introspection pins each server's tools, later ones report changes (MCPG-T003)")
	bindFleetFlags(f, &opts.Fleet, true, true)
	f.StringVar(&opts.IgnoreFile, "ignore-file", "", "file of accepted findings with reasons (default: "+ignorefile.DefaultName+" in the working directory, if any; \"\" for none)")
	return cmd
}

func formatList() string {
	var names []string
	for _, f := range reports.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

func runScan(cmd *cobra.Command, env environment, opts *ScanOptions) error {
	if (opts.Output != "" && opts.Output != "-") || opts.Introspect || opts.Fleet.OPAConfig != "" {
		env.interrupts.arm()
	}
	format, err := reports.ParseFormat(opts.Format)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	failRank, err := reports.ParseSeverity(opts.FailOn)
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("--fail-on: %w", err)}
	}
	cwd, _ := env.getwd()
	sup, err := loadSuppressions(cmd.ErrOrStderr(), cwd, opts.Baseline, opts.IgnoreFile, opts.ignoreFileSet)
	if err != nil {
		return err
	}
	iopts, err := introspectOptions(cmd, env, opts)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	meta := reportMeta(env)
	fleet, err := loadFleet(cmd.Context(), cmd.ErrOrStderr(), &opts.Fleet, meta.Host.Hostname, "", env)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	ropts := runner.Options{
		Scan:         scanOptions(env, opts),
		Policies:     opts.Policies,
		Print:        cmd.ErrOrStderr(),
		Suppressions: sup,
		Meta:         meta,
		Introspect:   iopts,
	}
	if fleet != nil {
		ropts.Fleet = fleet.policy
	}
	res, err := runner.Run(cmd.Context(), ropts)
	if err != nil {
		_ = fleet.finish(cmd.Context(), nil)
		return &exitCodeError{code: exitError, err: err}
	}
	if err := fleet.finish(cmd.Context(), res.Report); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: %v\n", err)
	}
	if opts.CSVKind != reports.CSVServers && opts.CSVKind != reports.CSVFindings {
		return &exitCodeError{code: exitError, err: fmt.Errorf("--csv-kind %q: want findings or servers", opts.CSVKind)}
	}
	return finishReport(cmd, env, res.Report, res.Stale, format, failRank, opts.FailOn, opts.Output, opts.CSVKind)
}

// introspectOptions turns the --introspect flags into introspect.Options,
// or nil without --introspect.
func introspectOptions(cmd *cobra.Command, env environment, opts *ScanOptions) (*introspect.Options, error) {
	if !opts.Introspect {
		for _, name := range []string{"introspect-timeout", "introspect-start-timeout", "introspect-jobs", "introspect-untrusted", "pins"} {
			if cmd.Flags().Changed(name) {
				return nil, fmt.Errorf("--%s needs --introspect", name)
			}
		}
		return nil, nil
	}
	if opts.IntrospectTimeout <= 0 || opts.IntrospectStartTimeout <= 0 {
		return nil, fmt.Errorf("--introspect-timeout and --introspect-start-timeout must be positive")
	}
	if opts.IntrospectJobs < 1 {
		return nil, fmt.Errorf("--introspect-jobs must be at least 1")
	}
	cwd, _ := env.getwd()
	io := &introspect.Options{
		Timeout:       opts.IntrospectTimeout,
		StartTimeout:  opts.IntrospectStartTimeout,
		Jobs:          opts.IntrospectJobs,
		Untrusted:     opts.IntrospectUntrusted,
		Home:          absOrEmpty(opts.Home),
		Dir:           absOrEmpty(opts.Project),
		LookupEnv:     env.lookupEnv,
		ClientVersion: env.version,
	}
	if io.Dir == "" {
		io.Dir = cwd
	}
	if opts.Pins != "" {
		store, err := pins.OpenStore(opts.Pins)
		if err != nil {
			return nil, fmt.Errorf("open pins: %w", err)
		}
		io.Pins = store
	}
	return io, nil
}

// scanOptions turns the scan flags into what the scanner reads: in path
// mode the machine's home and managed directory only when asked for, and
// CLAUDE_CONFIG_DIR only for the real home.
func scanOptions(env environment, opts *ScanOptions) scanner.Options {
	sopts := scanner.Options{
		Home:       absOrEmpty(opts.Home),
		ManagedDir: absOrEmpty(opts.ManagedDir),
		Project:    absOrEmpty(opts.Project),
		Paths:      opts.Paths,
		LookupEnv:  env.lookupEnv,
		GOOS:       env.goos,
		FS:         newLargeScanFS(),
	}
	if !opts.homeSet {
		// CLAUDE_CONFIG_DIR relocates the real home's Claude files; a rebased
		// --home is scanned as it is.
		if d, ok := env.lookupEnv("CLAUDE_CONFIG_DIR"); ok && d != "" {
			sopts.ClaudeConfigDir = d
		}
	}
	if len(opts.Paths) > 0 {
		if !opts.homeSet {
			sopts.Home, sopts.ClaudeConfigDir = "", ""
		}
		if !opts.managedSet {
			sopts.ManagedDir = ""
		}
	}
	return sopts
}

// reportMeta is what a report says about this run.
func reportMeta(env environment) runner.Meta {
	host, _ := env.hostname()
	return runner.Meta{
		Version:     env.version,
		GeneratedAt: env.now().UTC().Format(time.RFC3339),
		Host:        reports.Host{Hostname: host, OS: env.goos, User: env.username()},
	}
}

// finishReport decides the exit code of a report (once: the SARIF
// invocation records the value the process exits with), renders it, and
// prints its errors and notes to stderr.
func finishReport(cmd *cobra.Command, env environment, rep *reports.Report, notes []reports.Notification, format reports.Format, failRank int, failOn, output, csvKind string) error {
	code, why := reportExit(rep, failRank, failOn)
	cwd, _ := env.getwd()
	ropts := reports.Options{
		FailOn:     failRank,
		WorkDir:    cwd,
		Invocation: &reports.Invocation{ExitCode: code, ExitCodeDescription: why, Notifications: notes},
		CSVKind:    csvKind,
	}
	if err := writeReport(cmd.OutOrStdout(), env, output, format, rep, ropts); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	stderr := cmd.ErrOrStderr()
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "mcpguard: %s\n", reports.Printable(e.Error()))
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "mcpguard: %s\n", reports.Printable(fmt.Sprintf("%s:%d:%d: %s: %s", n.Path, n.Line, n.Column, n.Level, n.Message)))
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

// writeReport renders to stdout or to a file written atomically.
func writeReport(stdout io.Writer, env environment, output string, format reports.Format, rep *reports.Report, ropts reports.Options) error {
	if output == "" || output == "-" {
		ropts.Color = format == reports.FormatText && env.isTTY(stdout) && !noColor(env)
	}
	return writeOutput(stdout, output, func(w io.Writer) error { return reports.Render(w, format, rep, ropts) })
}

func noColor(env environment) bool {
	_, set := env.lookupEnv("NO_COLOR")
	return set
}

func absOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
