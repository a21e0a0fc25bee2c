package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/reports"
)

// DaemonOptions are the flags of `mcpguard daemon`.
type DaemonOptions struct {
	Home       string
	ManagedDir string
	Project    string
	Policies   []string
	StateDir   string
	Socket     string
	Events     string
	AllUsers   bool
	Users      []string
	Resync     time.Duration
	Poll       time.Duration
	LogLevel   string
	// Fleet takes the organisation's policy from OPA bundles.
	Fleet   FleetOptions
	homeSet bool
}

const daemonLong = `Watch every MCP configuration of the machine and keep a live inventory.

The daemon runs one full scan (the result 'mcpguard scan' gives for the same
flags), persists it in --state-dir, then watches every location the scan
read — files that do not exist yet included — and re-scans after each change.
Every difference becomes an mcpguard/event/v1 line in --events
(server-added, server-removed, server-changed, status-changed,
finding-opened, finding-resolved, file-error, file-recovered,
policy-changed, policy-invalid, daemon-start, daemon-stop, scan-failed,
events-dropped; docs/events.md).
At start it compares the new scan with the persisted one, so changes made
while it was down are reported too.

An HTTP API on the unix socket --socket serves the current report
(GET /v1/report), the daemon's status (GET /v1/status) and its events
(GET /v1/events?since=N); 'mcpguard status' is its client. The socket is
created 0600 and only root and the daemon's own user may use it; with
--all-users every user may, and sees only their own servers, with limits
per user on connections and event streams.

The state directory, the socket's directory and the event file's directory
must be the daemon's own: owned by its user and writable by nobody else (a
path that does not exist yet is created 0700). Files there are opened
without following symlinks, and anything but a regular file is refused.

With --opa-config, the organisation's policy comes from OPA bundles, as OPA's
own plugins download, verify, persist (in --state-dir) and activate them;
every verdict goes to the configured decision log. Until a bundle is verified
every server is reported unverified-policy, never allowed (docs/fleet.md).

A policy that becomes invalid is reported (policy-invalid) and the last good
policy stays in force. SIGHUP reloads the policy; SIGTERM and SIGINT stop the
daemon at once, removing the socket. A second daemon on one state directory
refuses to start. See docs/daemon.md for installation with systemd, launchd
and MDM, and for shipping events to a SIEM.

Exit codes:
  0  stopped by SIGTERM or SIGINT
  2  cannot start: invalid flags or policy, state directory or event file in
     use, a directory or file the daemon does not own, socket`

const daemonExample = `  mcpguard daemon
  sudo mcpguard daemon --all-users --policy /etc/mcpguard/policy
  mcpguard daemon --home testdata/demo/home --managed-dir testdata/demo/managed --state-dir /tmp/mg --socket /tmp/mg/mg.sock
  sudo mcpguard daemon --all-users --users alice,bob`

func newDaemonCmd(env environment) *cobra.Command {
	opts := &DaemonOptions{}
	home, _ := env.home()
	paths := daemon.DefaultPaths(env.goos, env.euid() == 0, home, env.lookupEnv)
	cmd := &cobra.Command{
		Use:     "daemon",
		Short:   "Watch every MCP configuration and keep a live inventory with a change log",
		Long:    daemonLong,
		Example: daemonExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.homeSet = cmd.Flags().Changed("home")
			return runDaemon(cmd, env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Home, "home", home, "home directory whose per-user client files are watched")
	f.StringVar(&opts.ManagedDir, "managed-dir", managed.DefaultDir(env.goos), "Claude Code managed settings directory")
	f.StringVar(&opts.Project, "project", "", "project whose Claude Code view resolves user and managed servers (default: the first project ~/.claude.json lists)")
	f.StringArrayVar(&opts.Policies, "policy", nil, "organisation policy: a .rego file or directory, or a JSON file shaped like managed-settings.json (repeatable)")
	bindFleetFlags(f, &opts.Fleet, false, false)
	f.StringVar(&opts.StateDir, "state-dir", paths.StateDir, "directory of the persisted inventory, event sequence and lock")
	f.StringVar(&opts.Socket, "socket", paths.Socket, "unix socket of the API (\"\" for none)")
	f.StringVar(&opts.Events, "events", "", "event file, JSON lines (default: events.jsonl in --state-dir)")
	f.BoolVar(&opts.AllUsers, "all-users", false, "watch every user's home (from the OS's user database and the owners of /home and /Users) and attribute each server to its user")
	f.StringSliceVar(&opts.Users, "users", nil, "with --all-users: watch only these users (names, comma-separated or repeated), each looked up in the OS's user database")
	f.DurationVar(&opts.Resync, "resync", 5*time.Minute, "interval of the safety-net resync (stat and hash every file read)")
	f.DurationVar(&opts.Poll, "poll", 10*time.Second, "resync interval when the OS refuses file watches (watch limit, network file systems)")
	f.StringVar(&opts.LogLevel, "log-level", "info", "diagnostics on stderr: debug, info, warn, error")
	return cmd
}

func runDaemon(cmd *cobra.Command, env environment, opts *DaemonOptions) error {
	usage := func(format string, args ...any) error {
		return &exitCodeError{code: exitError, err: fmt.Errorf(format, args...)}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(opts.LogLevel)); err != nil {
		return usage("--log-level: %v", err)
	}
	if opts.StateDir == "" {
		return usage("--state-dir: no default (HOME is not set); give a directory")
	}
	if len(opts.Users) > 0 && !opts.AllUsers {
		return usage("--users: give --all-users too (the users whose homes the daemon watches)")
	}
	if opts.AllUsers && env.euid() != 0 {
		return usage("--all-users reads every user's home: run the daemon as root")
	}
	events := opts.Events
	if events == "" {
		events = absOrEmpty(opts.StateDir) + string(os.PathSeparator) + "events.jsonl"
	}
	dopts := daemon.Options{
		Home:       absOrEmpty(opts.Home),
		ManagedDir: absOrEmpty(opts.ManagedDir),
		Project:    absOrEmpty(opts.Project),
		Policies:   opts.Policies,
		StateDir:   absOrEmpty(opts.StateDir),
		Socket:     absOrEmpty(opts.Socket),
		Events:     absOrEmpty(events),
		AllUsers:   opts.AllUsers,
		UserNames:  opts.Users,
		GOOS:       env.goos,
		LookupEnv:  env.lookupEnv,
		Version:    env.version,
		Now:        env.now,
		Resync:     opts.Resync,
		Poll:       opts.Poll,
		Logger:     slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level})),
		Print:      cmd.ErrOrStderr(),
	}
	host, _ := env.hostname()
	dopts.Host = reports.Host{Hostname: host, OS: env.goos, User: env.username()}
	if opts.Fleet.OPAConfig != "" {
		cfg, err := os.ReadFile(opts.Fleet.OPAConfig)
		if err != nil {
			return usage("--opa-config: %v", err)
		}
		dopts.OPAConfig, dopts.OPAConfigPath, dopts.StartFleet = cfg, opts.Fleet.OPAConfig, env.startFleet
	}
	if !opts.homeSet {
		if d, ok := env.lookupEnv("CLAUDE_CONFIG_DIR"); ok && d != "" {
			dopts.ClaudeConfigDir = d
		}
	}
	reload := make(chan os.Signal, 1)
	signal.Notify(reload, syscall.SIGHUP)
	defer signal.Stop(reload)
	relay := make(chan struct{}, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-reload:
				select {
				case relay <- struct{}{}:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	dopts.Reload = relay
	if err := daemon.Run(cmd.Context(), dopts); err != nil {
		switch {
		case errors.Is(err, daemon.ErrLocked):
			return usage("%v: stop it first, or give another --state-dir", err)
		case errors.Is(err, daemon.ErrEventsLocked):
			return usage("%v: give each daemon an --events file of its own", err)
		}
		return &exitCodeError{code: exitError, err: err}
	}
	return nil
}
