package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/pins"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/proxy"
)

// ProxyOptions are the flags of `mcpguard proxy`.
type ProxyOptions struct {
	Name     string
	IDE      bool
	Mode     string
	Pins     string
	NoPins   bool
	Events   string
	Audit    string
	Policies []string
	Upstream string
	Listen   string
	// AllowOrigins, ListenToken (a file) and ForwardCredentials say who
	// may use the HTTP listener and what reaches the upstream.
	AllowOrigins       []string
	ListenToken        string
	ForwardCredentials bool
	Grace              time.Duration
	MaxBytes           int
	LogLevel           string
	// Argv is the server command line (stdio mode).
	Argv []string
	// Fleet takes the organisation's tool rules from OPA bundles and logs
	// every tool decision.
	Fleet FleetOptions
}

const proxyLong = `Run an MCP server behind mcpguard: every tools/list result is analysed and
cleaned before the client sees it, and calls to withheld tools are refused
without reaching the server.

  mcpguard proxy [flags] -- COMMAND [ARG...]          stdio: start the server
  mcpguard proxy [flags] --upstream URL --listen ADDR  Streamable HTTP

In enforce mode (the default) the client receives:
  - tool names, descriptions and schemas with hidden Unicode and terminal
    escape sequences removed (MCPG-U001..U007), initialize instructions too;
  - no tool with hidden instructions (error-level MCPG-T001), outside the IDE
    allowlist (MCPG-I001, with --ide or --name ide), denied by a tool_deny
    rule of a --policy, changed since it was pinned (MCPG-T003), or whose
    name reads as another tool's (case, look-alikes; MCPG-T005): a call to
    one is answered with JSON-RPC error -32001 saying why;
  - no safety hint the analysis contradicts (readOnlyHint: true on a delete
    tool, MCPG-A001..A005), so clients do not auto-approve the tool.
--mode monitor forwards everything unchanged and only reports.

Pins: the first tools/list of a server is trusted and pinned (with the
command line or upstream URL); a later change is withheld until
'mcpguard pins approve NAME' (docs/pins.md). --name keys the pins: give each
server its own. Events (--events) are JSON lines, docs/events.md; logs go to
stderr, and stdout carries only the protocol.

The proxy exits with the server's exit status (stdio), or 0 after SIGINT,
SIGTERM, SIGHUP or SIGQUIT (HTTP); 2 when it cannot start. Each of them
ends the server's process group first.`

const proxyExample = `  mcpguard proxy --name github -- npx -y @modelcontextprotocol/server-github
  mcpguard proxy --name ide --mode monitor --events ~/mcpguard-events.jsonl -- node ide-server.js
  mcpguard proxy --name linear --upstream https://mcp.linear.app/mcp --listen 127.0.0.1:8931`

func newProxyCmd(env environment) *cobra.Command {
	opts := &ProxyOptions{}
	cmd := &cobra.Command{
		Use:     "proxy [flags] -- COMMAND [ARG...]",
		Short:   "Run an MCP server behind a proxy that sanitizes and polices its tools",
		Long:    proxyLong,
		Example: proxyExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Argv = args
			return runProxy(cmd, env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Name, "name", "", "server name: keys the pins and names the server in events (default: derived from the command or URL)")
	f.BoolVar(&opts.IDE, "ide", false, "the server is an IDE extension's: only executeCode and getDiagnostics reach the client (MCPG-I001)")
	f.StringVar(&opts.Mode, "mode", "enforce", "enforce (rewrite and refuse) or monitor (forward unchanged, only report)")
	f.StringVar(&opts.Pins, "pins", "", "pin file (default: mcpguard's state directory, docs/pins.md)")
	f.BoolVar(&opts.NoPins, "no-pins", false, "do not pin tool definitions (MCPG-T003 off)")
	f.StringVar(&opts.Events, "events", "", "append events as JSON lines to FILE (docs/events.md)")
	f.StringVar(&opts.Audit, "audit", "", "append the call audit (a tool-called event per tools/call) to FILE instead of the events file")
	f.StringArrayVar(&opts.Policies, "policy", nil, "custom Rego policy with tool_deny / tool_warn rules (repeatable)")
	bindFleetFlags(f, &opts.Fleet, true, false)
	f.StringVar(&opts.Upstream, "upstream", "", "Streamable HTTP: the server's MCP endpoint URL")
	f.StringVar(&opts.Listen, "listen", "127.0.0.1:0", "Streamable HTTP: address to listen on (loopback)")
	f.StringArrayVar(&opts.AllowOrigins, "allow-origin", nil, "Streamable HTTP: accept requests with this Origin (scheme://host[:port]; repeatable); none by default, so no web page can use the proxy")
	f.StringVar(&opts.ListenToken, "listen-token", "", "Streamable HTTP: FILE holding a bearer token the client must send (Authorization: Bearer TOKEN); never forwarded")
	f.BoolVar(&opts.ForwardCredentials, "forward-credentials", false, "Streamable HTTP: pass the client's Authorization and Cookie headers to the upstream, and its Set-Cookie back")
	f.DurationVar(&opts.Grace, "grace", 5*time.Second, "shutdown: how long to wait for the server after closing its stdin, and after SIGTERM")
	f.IntVar(&opts.MaxBytes, "max-message", 256<<20, "largest message accepted from either side, in bytes")
	f.StringVar(&opts.LogLevel, "log-level", "info", "stderr log level: debug, info, warn, error")
	// Written by `mcpguard wrap` into entries that had no "args", so that
	// unwrap can remove the member it added (docs/wrap.md); no effect here.
	f.Bool("wrapped-without-args", false, "set by mcpguard wrap; no effect")
	_ = f.MarkHidden("wrapped-without-args")
	return cmd
}

func runProxy(cmd *cobra.Command, env environment, opts *ProxyOptions) error {
	usage := func(format string, args ...any) error {
		return &exitCodeError{code: exitError, err: fmt.Errorf(format, args...)}
	}
	httpMode := opts.Upstream != ""
	switch {
	case httpMode && len(opts.Argv) > 0:
		return usage("give either --upstream URL or -- COMMAND, not both")
	case !httpMode && len(opts.Argv) == 0:
		return usage("no server: give -- COMMAND [ARG...] or --upstream URL")
	case !httpMode && cmd.ArgsLenAtDash() != 0:
		// Without "--", the server's own flags would be taken for ours.
		return usage("put the server command after --: mcpguard proxy [flags] -- %s", strings.Join(opts.Argv, " "))
	case opts.Mode != "enforce" && opts.Mode != "monitor":
		return usage("--mode %q: want enforce or monitor", opts.Mode)
	case opts.MaxBytes <= 0:
		return usage("--max-message must be positive")
	case !httpMode && (len(opts.AllowOrigins) > 0 || opts.ListenToken != "" || opts.ForwardCredentials):
		return usage("--allow-origin, --listen-token and --forward-credentials are for --upstream")
	}
	listener := proxy.ListenerOptions{AllowOrigins: opts.AllowOrigins, ForwardCredentials: opts.ForwardCredentials}
	for _, o := range opts.AllowOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return usage("--allow-origin %q: want scheme://host[:port]", o)
		}
	}
	if opts.ListenToken != "" {
		b, err := os.ReadFile(opts.ListenToken)
		if err != nil {
			return usage("--listen-token: %w", err)
		}
		if fi, err := os.Stat(opts.ListenToken); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			// The token is for shared machines: one other users can read
			// keeps nobody out (ssh refuses such key files too).
			return usage("--listen-token %s: readable by others (mode %04o); chmod 600 it", opts.ListenToken, fi.Mode().Perm())
		}
		if listener.Token = strings.TrimSpace(string(b)); listener.Token == "" || strings.ContainsAny(listener.Token, " \t\r\n") {
			return usage("--listen-token %s: want one token on one line", opts.ListenToken)
		}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(opts.LogLevel)); err != nil {
		return usage("--log-level: %v", err)
	}
	logger := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	det := secrets.NewDetector()

	launch := &pins.Launch{Transport: "stdio"}
	if httpMode {
		u, err := url.Parse(opts.Upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usage("--upstream %q: want an http or https URL", det.RedactURL(opts.Upstream))
		}
		launch.Transport, launch.URL = "http", opts.Upstream
	} else {
		launch.Command, launch.Args = opts.Argv[0], opts.Argv[1:]
	}
	name := opts.Name
	if name == "" {
		name = defaultServerName(opts.Argv, opts.Upstream)
	}

	var store *pins.Store
	if !opts.NoPins {
		path := opts.Pins
		if path == "" {
			home, _ := env.home()
			path = pins.DefaultPath(env.goos, home, env.lookupEnv)
		}
		var err error
		if store, err = pins.OpenStore(path); err != nil {
			return usage("open pins: %w", err)
		}
	}
	host, _ := env.hostname()
	cache, _ := os.UserCacheDir()
	if cache != "" {
		cache = filepath.Join(cache, "mcpguard")
	}
	fleet, err := loadFleet(cmd.Context(), cmd.ErrOrStderr(), &opts.Fleet, host, cache, env)
	if err != nil {
		return usage("%w", err)
	}
	toolsPolicy := func(f *fleetpolicy.Policy) (*policy.ToolsPolicy, error) {
		topts := policy.ToolsPolicyOptions{Paths: opts.Policies, Print: cmd.ErrOrStderr()}
		if f != nil {
			topts.Modules, topts.Data = f.Modules, f.Data
		}
		return policy.NewToolsPolicy(cmd.Context(), topts)
	}
	var tools *policy.ToolsPolicy
	if opts.IDE || name == "ide" || len(opts.Policies) > 0 || fleet != nil {
		var err error
		if tools, err = toolsPolicy(fleet.policyOrNil()); err != nil {
			_ = fleet.finish(cmd.Context(), nil)
			return usage("load policy: %w", err)
		}
	}
	var log *events.Log
	if opts.Events != "" {
		var err error
		if log, err = events.Open(opts.Events, "proxy", det); err != nil {
			return usage("%w", err)
		}
		defer log.Close()
	}
	log = log.For(name)
	var audit *events.Log
	if opts.Audit != "" {
		var err error
		if audit, err = events.Open(opts.Audit, "proxy", det); err != nil {
			return usage("--audit: %w", err)
		}
		defer audit.Close()
		audit = audit.For(name)
	}
	enforce := opts.Mode == "enforce"
	gopts := proxy.GuardOptions{Name: name, IDE: opts.IDE, Enforce: enforce, Launch: launch, Pins: store,
		Tools: tools, Events: log, Logger: logger, Secrets: det}
	if fleet != nil {
		gopts.Decide = fleet.toolDecider(cmd.Context(), name, logger)
		defer func() { _ = fleet.finish(context.WithoutCancel(cmd.Context()), nil) }()
	}
	guard := proxy.NewGuard(gopts)
	if fleet != nil {
		go fleet.follow(cmd.Context(), logger, func(p *fleetpolicy.Policy) error {
			tp, err := toolsPolicy(p)
			if err == nil {
				guard.SetTools(tp)
			}
			return err
		})
	}
	popts := proxy.Options{Inspector: guard, Enforce: enforce, Events: log, Grace: opts.Grace, MaxMessage: opts.MaxBytes, Listener: listener, Logger: logger,
		Audit: audit, Secrets: det}

	start := map[string]any{"mode": opts.Mode, "ide": opts.IDE || name == "ide"}
	if store != nil {
		start["pins"] = store.Path()
	}
	if httpMode {
		start["upstream"] = det.RedactURL(opts.Upstream)
	} else {
		start["argv"] = det.RedactArgs(opts.Argv)
	}
	log.Emit(events.Event{Kind: "proxy-start", Message: "proxy started (" + opts.Mode + " mode)", Details: start})

	// The terminal or session closing (SIGHUP) and SIGQUIT end the proxy
	// as SIGTERM does, so the server's group is ended; their default
	// would kill the proxy and leave it behind.
	ctx, stopHangups := signal.NotifyContext(cmd.Context(), syscall.SIGHUP, syscall.SIGQUIT)
	defer stopHangups()
	if httpMode {
		err := serveHTTP(ctx, cmd.ErrOrStderr(), opts, popts)
		log.Emit(events.Event{Kind: "proxy-exit", Message: "proxy stopped", Details: map[string]any{"exit_code": 0}})
		if err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
		return nil
	}
	exit, err := proxy.RunStdio(ctx, opts.Argv, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), popts)
	code := exit.Code
	if err != nil {
		log.Emit(events.Event{Kind: "proxy-exit", Severity: "error", Message: "the server could not be started: " + err.Error(), Details: map[string]any{"exit_code": exitError}})
		return &exitCodeError{code: exitError, err: err}
	}
	ev := events.Event{Kind: "proxy-exit", Message: fmt.Sprintf("%s; the server exited with status %d", exit.Message, code),
		Details: map[string]any{"exit_code": code, "reason": exit.Reason}}
	if exit.Reason == proxy.ReasonTooLarge || exit.Reason == proxy.ReasonIO {
		ev.Severity = "error"
		logger.Error("session ended", "reason", exit.Reason, "why", exit.Message, "exit_code", code)
	}
	log.Emit(ev)
	if werr := log.Err(); werr != nil {
		logger.Error("events were lost", "err", werr)
	}
	if code != 0 {
		return &exitCodeError{code: code}
	}
	return nil
}

// serveHTTP listens and proxies until ctx ends (SIGINT, SIGTERM).
func serveHTTP(ctx context.Context, stderr io.Writer, opts *ProxyOptions, popts proxy.Options) error {
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// The Host a client sends must name the address bound.
	popts.Listener.Listen = ln.Addr().String()
	h, err := proxy.NewHTTP(opts.Upstream, popts)
	if err != nil {
		ln.Close()
		return err
	}
	if ap, ok := ln.Addr().(*net.TCPAddr); ok && !ap.IP.IsLoopback() {
		fmt.Fprintf(stderr, "mcpguard proxy: warning: listening on %s, which is not a loopback address: anyone who reaches it can use the upstream server (--listen-token)\n", ln.Addr())
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	fmt.Fprintf(stderr, "mcpguard proxy: listening on http://%s\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), opts.Grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// defaultServerName names a server without --name: the package or script a
// launcher runs ("@modelcontextprotocol/server-github@1.2.0" gives
// "server-github"), else the program, else the upstream host.
func defaultServerName(argv []string, upstream string) string {
	if upstream != "" {
		if u, err := url.Parse(upstream); err == nil && u.Hostname() != "" {
			return u.Hostname()
		}
		return "upstream"
	}
	prog := strings.TrimSuffix(strings.ToLower(filepath.Base(argv[0])), ".exe")
	switch prog {
	case "npx", "bunx", "pnpx", "uvx", "pipx", "node", "deno", "bun", "python", "python3", "uv", "docker", "podman", "cmd", "env":
		// A launcher: its first operand names the server.
		for _, a := range argv[1:] {
			if strings.HasPrefix(a, "-") || strings.HasPrefix(a, "/") && prog == "cmd" || strings.Contains(a, "=") || a == "run" || a == "tool" {
				continue
			}
			a = strings.TrimPrefix(a, "@")
			if i := strings.LastIndexByte(a, '@'); i > 0 {
				a = a[:i] // version
			}
			base := filepath.Base(strings.ReplaceAll(a, `\`, "/"))
			if ext := filepath.Ext(base); ext == ".js" || ext == ".mjs" || ext == ".py" || ext == ".ts" {
				base = strings.TrimSuffix(base, ext)
			}
			if base != "" && base != "." {
				return base
			}
		}
	}
	if prog == "" {
		return "server"
	}
	return prog
}
