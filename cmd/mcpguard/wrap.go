package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/wrap"
)

// WrapOptions are the flags of `mcpguard wrap` and `mcpguard unwrap`.
type WrapOptions struct {
	Mode       wrap.Mode
	Paths      []string
	Home       string
	ManagedDir string
	Project    string
	Clients    []string
	Servers    []string
	DryRun     bool
	Format     string
	Output     string
	// Executable is the mcpguard binary the wrappers run (--mcpguard);
	// empty means this executable.
	Executable string
	// StateDir holds the backups, in its "backups" folder (--state-dir).
	StateDir string
	// IncludeTracked lets wrap rewrite files git tracks (--include-tracked).
	IncludeTracked bool
	homeSet        bool
}

const wrapLong = `Rewrite MCP client configurations so that every stdio server runs through
mcpguard proxy:

  "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
becomes
  "github": {"command": "/usr/local/bin/mcpguard",
             "args": ["proxy", "--name", "claude-code/user/github", "--",
                      "npx", "-y", "@modelcontextprotocol/server-github"]}

Without PATH, every supported file on the machine: Claude Code's user and
local servers (~/.claude.json) and project servers (.mcp.json of the projects
~/.claude.json knows and of --project), Claude Desktop, Cursor (user and
project), VS Code (user mcp.json and .vscode/mcp.json) and Windsurf. With
PATH, only those files (a directory means its .mcp.json, .cursor/mcp.json and
.vscode/mcp.json). --client and --server narrow the selection.

Only the "command" string and the "args" array of each wrapped entry change
(an "args" member is added when there is none); every other byte of the file,
comments and trailing commas included, is kept, and mcpguard unwrap restores
the original bytes. Remote (url) servers are left alone. Running wrap twice
changes nothing the second time.

Before a file is written, its current content, with its secrets hidden as
in every report, is kept as the file's one backup in the state directory
(--state-dir, backups/, mode 0600; unwrap lists it); the new content is
written to a temporary file and renamed over the original. A file that
changes on disk meanwhile (a running Claude Code saving ~/.claude.json) is
left alone with an error: run wrap again. The --dry-run diff hides secrets
too.

A file git tracks (a committed .mcp.json) is left alone: a wrapper would
commit this machine's mcpguard path and project path. With
--include-tracked it is wrapped with the bare command "mcpguard" (found on
PATH on every clone), and project servers are named relative to the
repository.

Claude Code matches serverCommand allowlist and deny entries against the
command line it starts, which becomes the wrapper's: wrap warns (MCPG-P008)
when an allowlist would refuse a wrapped server, gives the entry the policy
owners must add, and refuses to wrap a server whose command a deny entry
matches. See docs/wrap.md.

Exit codes:
  0  every selected file was rewritten or needed no change
  2  usage error, or a file could not be read, parsed or written`

const unwrapLong = `Undo mcpguard wrap: every selected server that runs through mcpguard proxy
gets its original command and args back, byte for byte, and the "args"
member wrap added to an entry that had none is removed. The selection, the
backups and the atomic writes are those of mcpguard wrap (see its help and
docs/wrap.md).

Exit codes:
  0  every selected file was rewritten or needed no change
  2  usage error, or a file could not be read, parsed or written`

func newWrapCmd(env environment) *cobra.Command {
	return wrapCommand(env, wrap.ModeWrap)
}

func newUnwrapCmd(env environment) *cobra.Command {
	return wrapCommand(env, wrap.ModeUnwrap)
}

func wrapCommand(env environment, mode wrap.Mode) *cobra.Command {
	opts := &WrapOptions{Mode: mode}
	verb := mode.String()
	cmd := &cobra.Command{
		Use:   verb + " [PATH...]",
		Short: "Run stdio MCP servers through mcpguard proxy by rewriting client configs",
		Long:  wrapLong,
		Example: `  mcpguard wrap --dry-run
  mcpguard wrap --client claude-code --server github
  mcpguard wrap .mcp.json .cursor/mcp.json
  mcpguard unwrap`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.homeSet = cmd.Flags().Changed("home")
			return runWrap(cmd, env, opts)
		},
	}
	if mode == wrap.ModeUnwrap {
		cmd.Short = "Undo mcpguard wrap: give wrapped servers their own command back"
		cmd.Long = unwrapLong
		cmd.Example = "  mcpguard unwrap --dry-run\n  mcpguard unwrap .mcp.json"
	}
	home, _ := env.home()
	cwd, _ := env.getwd()
	f := cmd.Flags()
	f.StringVar(&opts.Home, "home", home, "home directory whose per-user client files are rewritten")
	managedHelp := "Claude Code managed settings directory"
	if mode == wrap.ModeWrap {
		managedHelp += " (its allow and deny lists decide the MCPG-P008 warnings)"
	}
	f.StringVar(&opts.ManagedDir, "managed-dir", managed.DefaultDir(env.goos), managedHelp)
	f.StringVar(&opts.Project, "project", cwd, "project whose Claude Code files are rewritten besides those ~/.claude.json knows")
	f.StringArrayVar(&opts.Clients, "client", nil, "only this client's files: "+strings.Join(wrap.Clients(), ", ")+" (repeatable)")
	f.StringArrayVar(&opts.Servers, "server", nil, "only servers of this name (repeatable)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print a diff of what would change and write nothing")
	f.StringVar(&opts.Format, "format", "text", "output format: text or json")
	f.StringVarP(&opts.Output, "output", "o", "", "write the summary to FILE instead of stdout")
	if mode == wrap.ModeWrap {
		f.StringVar(&opts.Executable, "mcpguard", "", "the mcpguard executable the wrappers run (default: this executable)")
		f.BoolVar(&opts.IncludeTracked, "include-tracked", false, "also wrap files git tracks, with the bare command mcpguard (from PATH) instead of this machine's path")
	}
	paths := daemon.DefaultPaths(env.goos, env.euid() == 0, home, env.lookupEnv)
	f.StringVar(&opts.StateDir, "state-dir", paths.StateDir, "state directory whose backups/ holds each file's backup")
	return cmd
}

func runWrap(cmd *cobra.Command, env environment, opts *WrapOptions) error {
	if opts.Format != "text" && opts.Format != "json" {
		return &exitCodeError{code: exitError, err: fmt.Errorf("invalid format %q (want text or json)", opts.Format)}
	}
	exe := ""
	if opts.Mode == wrap.ModeWrap {
		var err error
		if exe, err = executable(env, opts.Executable); err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: warning: the wrappers would run %s, a binary `go run` built in a temporary directory; pass --mcpguard PATH\n", reports.Printable(exe))
	}
	wopts := wrap.Options{
		Mode:       opts.Mode,
		Paths:      opts.Paths,
		Home:       absOrEmpty(opts.Home),
		ManagedDir: absOrEmpty(opts.ManagedDir),
		Project:    absOrEmpty(opts.Project),
		LookupEnv:  env.lookupEnv,
		GOOS:       env.goos,
		Clients:    opts.Clients,
		Servers:    opts.Servers,
		Executable: exe,
		BackupDir:  filepath.Join(absOrEmpty(opts.StateDir), "backups"),

		IncludeTracked: opts.IncludeTracked,
	}
	if !opts.homeSet {
		if d, ok := env.lookupEnv("CLAUDE_CONFIG_DIR"); ok && d != "" {
			wopts.ClaudeConfigDir = d
		}
	}
	if opts.Mode == wrap.ModeWrap {
		// The shipped rules only: they decide what Claude Code admits.
		engine, err := policy.NewEngine(cmd.Context(), policy.EngineOptions{Print: cmd.ErrOrStderr()})
		if err != nil {
			return &exitCodeError{code: exitError, err: fmt.Errorf("load policy: %w", err)}
		}
		wopts.Policy = engine
	}
	plan, err := wrap.NewPlan(cmd.Context(), wopts)
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("%s: %w", opts.Mode, err)}
	}
	stderr := cmd.ErrOrStderr()
	for _, w := range plan.Warnings {
		fmt.Fprintf(stderr, "mcpguard: %s: %s: %s [%s]\n", w.Severity, reports.Printable(w.Location.String()), reports.Printable(w.Message), w.Rule)
	}
	if !opts.DryRun {
		plan.Commit()
	}
	write := func(w io.Writer) error {
		if opts.Format == "json" {
			return plan.WriteJSON(w, opts.DryRun)
		}
		return plan.WriteText(w, opts.DryRun)
	}
	if err := writeOutput(cmd.OutOrStdout(), opts.Output, write); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	for _, e := range plan.Errors {
		fmt.Fprintf(stderr, "mcpguard: %s\n", reports.Printable(e.Error()))
	}
	for _, f := range plan.Files {
		if f.Err != nil {
			fmt.Fprintf(stderr, "mcpguard: %s\n", reports.Printable(f.Err.Error()))
		}
	}
	if plan.Failed() {
		return &exitCodeError{code: exitError}
	}
	return nil
}

// executable returns the absolute, symlink-free path of the mcpguard binary
// the wrappers run: --mcpguard, or this process's executable.
func executable(env environment, flag string) (string, error) {
	p := flag
	if p == "" {
		get := os.Executable
		if env.executable != nil {
			get = env.executable
		}
		var err error
		if p, err = get(); err != nil {
			return "", fmt.Errorf("find the mcpguard executable (pass --mcpguard PATH): %w", err)
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("--mcpguard %s: %w", p, err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	} else {
		return "", fmt.Errorf("--mcpguard %s: %w", p, err)
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 && env.goos != "windows" {
		return "", fmt.Errorf("--mcpguard %s: not an executable file", p)
	}
	return abs, nil
}
