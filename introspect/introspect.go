package introspect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/pins"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// Defaults of SPEC §4's introspection flags.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultStartTimeout = 2 * time.Minute
	DefaultMaxOutput    = 32 << 20
	defaultGrace        = 2 * time.Second
)

// DefaultJobs is how many servers start at once by default: starting a
// server is mostly waiting (for a process, a package download, a network),
// so a machine's usual ten or so servers all start together, and the scan
// takes about as long as the slowest.
func DefaultJobs() int { return max(16, 4*runtime.GOMAXPROCS(0)) }

// Options configure introspection.
type Options struct {
	// Timeout bounds each server, from start to its last answer.
	Timeout time.Duration
	// StartTimeout replaces Timeout for servers launched through a package
	// runner (npx, uvx, docker, ...), which may first download the package.
	StartTimeout time.Duration
	// Jobs is how many servers run at once.
	Jobs int
	// MaxOutput caps what one server may send, in bytes.
	MaxOutput int64
	// Grace is how long a server has to exit after its stdin closes, and
	// again after SIGTERM, before it is killed.
	Grace time.Duration
	// Untrusted also starts servers the user has not vouched for: those of
	// files named on the command line (path mode), project servers pending
	// approval, and project servers of clients whose approval mcpguard
	// cannot see. Blocked, rejected, disabled and shadowed servers are
	// never started.
	Untrusted bool
	// PathMode is set when the scan reads only the files it was given.
	PathMode bool
	// Home and Dir resolve editor variables (${userHome},
	// ${workspaceFolder}) and relative working directories.
	Home, Dir string
	// Environ is the environment servers start with, before their own env
	// (the client's environment; nil means this process's). LookupEnv
	// resolves ${env:VAR} references (nil: os.LookupEnv).
	Environ   []string
	LookupEnv func(string) (string, bool)
	// ClientVersion is sent in clientInfo.
	ClientVersion string
	// Pins, when set, pins each server's tools on first introspection and
	// reports MCPG-T003 for what changed since.
	Pins *pins.Store
	// Tools is the compiled tools policy (IDE allowlist, custom tool rules);
	// nil compiles the shipped one when an IDE server needs it.
	Tools *policy.ToolsPolicy
	// Secrets redacts what the report shows; nil builds one.
	Secrets *secrets.Detector
}

// Outcome is what introspection found for one server.
type Outcome struct {
	ServerID      string
	Introspection *reports.Introspection
	// Findings are the tool findings (U/A/T/I rules), located at the
	// server's entry in its configuration file.
	Findings []reports.Finding
	// Errors are failures that are not the server's: a pin file that
	// cannot be written.
	Errors []reports.FileError
}

// Run introspects servers: each that may be started is started as its
// client would, at most Jobs at once; the others are skipped with the
// reason. Outcomes are in the order of servers. Run returns when every
// server it started has exited.
func Run(ctx context.Context, servers []*scanner.Server, opts Options) []Outcome {
	opts.defaults()
	out := make([]Outcome, len(servers))
	// Servers configured identically in several clients start once.
	type group struct {
		t       *target
		members []int
	}
	var groups []*group
	byKey := map[string]*group{}
	pl := place{home: opts.Home, dir: opts.Dir, lookupEnv: opts.LookupEnv}
	for i, s := range servers {
		out[i].ServerID = s.ID
		t, why := opts.admit(s, pl)
		if t == nil {
			out[i].Introspection = skipped(why)
			continue
		}
		k := t.key()
		g := byKey[k]
		if g == nil {
			g = &group{t: t}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.members = append(g.members, i)
	}
	client := newHTTPClient()
	defer client.CloseIdleConnections()
	sem := make(chan struct{}, opts.Jobs)
	var wg sync.WaitGroup
	for _, g := range groups {
		sem <- struct{}{}
		if ctx.Err() != nil {
			// Cancelled: start nothing more.
			<-sem
			for _, i := range g.members {
				out[i].Introspection = &reports.Introspection{Status: reports.IntrospectionError, Reason: "the scan was cancelled", Tools: []reports.IntrospectedTool{}}
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			first := servers[g.members[0]]
			start := time.Now()
			l, err := opts.fetch(ctx, client, first, g.t)
			took := time.Since(start)
			for _, i := range g.members {
				out[i] = opts.outcome(servers[i], g.t, l, err, took)
			}
		}()
	}
	wg.Wait()
	return out
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.StartTimeout < o.Timeout {
		o.StartTimeout = o.Timeout
	}
	if o.Jobs <= 0 {
		o.Jobs = DefaultJobs()
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.Grace <= 0 {
		o.Grace = defaultGrace
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Secrets == nil {
		o.Secrets = secrets.NewDetector()
	}
}

// admit decides whether s may be started: only servers that would run —
// active, allowed by policy, approved — and, unless Untrusted, only those
// the user vouched for.
func (o *Options) admit(s *scanner.Server, pl place) (*target, string) {
	if s.Status != reports.StatusActive && !(s.Status == reports.StatusPendingApproval && o.Untrusted) {
		return nil, statusReason(s)
	}
	if !s.Decision.Allowed {
		return nil, "blocked by policy (" + reports.JoinReasons(s.Decision.Reasons) + ")"
	}
	if !o.Untrusted {
		if o.PathMode {
			return nil, "from a file named on the command line: servers of files mcpguard was pointed at are not started (--introspect-untrusted starts them)"
		}
		if s.Scope == scanner.ScopeProject && s.Client != scanner.ClientClaudeCode {
			return nil, fmt.Sprintf("project server of %s: mcpguard cannot see whether it was approved there (--introspect-untrusted starts it)", s.Client)
		}
	}
	if h, ok := s.Details["headers_helper"]; ok && h != "" {
		return nil, "its headers come from a headersHelper command, which introspection does not run"
	}
	t, err := targetOf(s, pl)
	if err != nil {
		return nil, err.Error()
	}
	return t, ""
}

// statusReason explains a server that would not run.
func statusReason(s *scanner.Server) string {
	switch s.Status {
	case reports.StatusBlocked:
		return "blocked by policy (" + reports.JoinReasons(s.Decision.Reasons) + ")"
	case reports.StatusPendingApproval:
		return "project server not approved yet: its client would not start it (--introspect-untrusted starts it)"
	case reports.StatusRejected:
		return "project server rejected by the user"
	case reports.StatusDisabled:
		return "disabled"
	case reports.StatusShadowed:
		return "shadowed by a server of the same name in a scope that wins"
	case reports.StatusSuppressed:
		return "not loaded: " + reports.JoinReasons(s.Decision.Reasons)
	case reports.StatusInvalid:
		return "invalid entry: its client would not start it"
	}
	return "status " + string(s.Status) + ": only active servers are started"
}

func skipped(reason string) *reports.Introspection {
	return &reports.Introspection{Status: reports.IntrospectionSkipped, Reason: reason, Tools: []reports.IntrospectedTool{}}
}

// fetch starts one server, runs the handshake and shuts it down.
func (o *Options) fetch(ctx context.Context, client *http.Client, s *scanner.Server, t *target) (*listing, error) {
	limit := o.Timeout
	if t.packageRunner {
		limit = o.StartTimeout
	}
	sctx, cancel := context.WithTimeoutCause(ctx, limit, errTimeout{limit})
	defer cancel()
	l, err := o.session(ctx, sctx, client, s, t)
	if err != nil && t.sseFallback && legacyOnly(err) {
		// Editors fall back to the legacy HTTP+SSE transport when a server
		// refuses the Streamable HTTP initialize.
		legacy := *t
		legacy.transport = scanner.TransportSSE
		if l2, err2 := o.session(ctx, sctx, client, s, &legacy); err2 == nil {
			return l2, nil
		}
	}
	return l, err
}

// session connects over t's transport and runs the handshake.
func (o *Options) session(ctx, sctx context.Context, client *http.Client, s *scanner.Server, t *target) (*listing, error) {
	var c conn
	var err error
	switch t.transport {
	case scanner.TransportStdio:
		c, err = startStdio(ctx, t, o.Environ, o.MaxOutput, o.Grace)
	default:
		c, err = dialHTTP(sctx, client, t, o.MaxOutput)
	}
	if err != nil {
		return nil, o.cause(sctx, "connecting", err)
	}
	defer c.close(ctx)
	sess := &session{c: c}
	l, err := sess.handshake(sctx, clientInfo{name: clientName(s.Client), version: o.ClientVersion})
	if err != nil {
		return nil, o.cause(sctx, sess.step, err)
	}
	return l, nil
}

// errTimeout is the cause of a server's deadline.
type errTimeout struct{ limit time.Duration }

func (e errTimeout) Error() string { return "no answer within " + e.limit.String() }

// cause names what failed: a timeout says which request went unanswered.
func (o *Options) cause(ctx context.Context, step string, err error) error {
	var to errTimeout
	if errors.As(context.Cause(ctx), &to) && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || ctx.Err() != nil) {
		return fmt.Errorf("%w to %s", to, step)
	}
	if errors.Is(err, errOutputLimit) {
		return fmt.Errorf("the server sent more than %d MiB", o.MaxOutput>>20)
	}
	return err
}

// clientName is the name each client gives itself in clientInfo; a server
// must not be able to tell introspection from the client it serves.
func clientName(client string) string {
	switch client {
	case scanner.ClientClaudeCode:
		return "claude-code"
	case scanner.ClientClaudeDesktop:
		return "claude-ai"
	case scanner.ClientCursor:
		return "cursor-vscode"
	case scanner.ClientVSCode:
		return "Visual Studio Code"
	}
	return client
}
