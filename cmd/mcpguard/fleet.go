package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/proxy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
)

// FleetOptions are the flags that take organisation policy from OPA
// bundles (docs/fleet.md).
type FleetOptions struct {
	// OPAConfig is an OPA configuration file (services, bundles, keys,
	// decision_logs, status, labels, persistence_directory).
	OPAConfig string
	// OPATimeout bounds the wait for a first bundle (scan only).
	OPATimeout time.Duration
	// Bundle is a bundle file, and the verification flags say how it must
	// be signed (scan only).
	Bundle          string
	VerificationKey string
	KeyID           string
	SigningAlg      string
}

// bindFleetFlags adds --opa-config; with wait --opa-timeout (commands that
// wait for a bundle before they start), with bundleFile the bundle-file
// flags (scan).
func bindFleetFlags(f *pflag.FlagSet, opts *FleetOptions, wait, bundleFile bool) {
	f.StringVar(&opts.OPAConfig, "opa-config", "", "OPA configuration file: organisation policy from (signed) bundles, decision logs and status through OPA's plugins (docs/fleet.md)")
	if wait {
		f.DurationVar(&opts.OPATimeout, "opa-timeout", 30*time.Second, "with --opa-config: how long to wait for a bundle (a persisted one counts)")
	}
	if !bundleFile {
		return
	}
	f.StringVar(&opts.Bundle, "bundle", "", "organisation policy from an OPA bundle file (.tar.gz, as opa build writes it)")
	f.StringVar(&opts.VerificationKey, "verification-key", "", "with --bundle: PEM public key file or HMAC secret its signature must verify with; an unsigned or tampered bundle is refused")
	f.StringVar(&opts.KeyID, "verification-key-id", "default", "with --bundle: the key id in the bundle's signature")
	f.StringVar(&opts.SigningAlg, "signing-alg", "RS256", "with --bundle: the signature algorithm (RS256, ES256, HS256, ...)")
}

// fleetRun is the organisation policy of one command run.
type fleetRun struct {
	policy *fleetpolicy.Policy
	source fleetpolicy.Control // nil for --bundle
}

// loadFleet reads --bundle, or starts OPA's plugins from --opa-config and
// waits for a bundle. Without either it returns nil. Fail closed: no
// verified bundle is an error. stateDir is where bundles persist when the
// configuration names no persistence_directory ("" persists nothing).
func loadFleet(ctx context.Context, stderr io.Writer, opts *FleetOptions, host, stateDir string, env environment) (*fleetRun, error) {
	switch {
	case opts.Bundle != "" && opts.OPAConfig != "":
		return nil, fmt.Errorf("--bundle and --opa-config: give one")
	case opts.Bundle != "":
		p, err := fleetpolicy.LoadFile(opts.Bundle, fleetpolicy.Verification{Key: opts.VerificationKey, KeyID: opts.KeyID, Algorithm: opts.SigningAlg})
		if err != nil {
			return nil, fmt.Errorf("load bundle %s: %w", opts.Bundle, err)
		}
		return &fleetRun{policy: p}, nil
	case opts.VerificationKey != "":
		return nil, fmt.Errorf("--verification-key needs --bundle")
	case opts.OPAConfig == "":
		return nil, nil
	}
	cfg, err := os.ReadFile(opts.OPAConfig)
	if err != nil {
		return nil, fmt.Errorf("--opa-config: %w", err)
	}
	if env.startFleet == nil {
		return nil, fmt.Errorf("--opa-config: this build cannot start OPA's plugins")
	}
	src, err := env.startFleet(ctx, fleetpolicy.Options{Config: cfg, ID: host, StateDir: stateDir, LookupEnv: env.lookupEnv,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.OPAConfig, err)
	}
	wctx, cancel := context.WithTimeout(ctx, opts.OPATimeout)
	defer cancel()
	p, err := src.WaitActive(wctx)
	if err != nil {
		src.Stop(context.Background())
		return nil, fmt.Errorf("%s: %w", opts.OPAConfig, err)
	}
	return &fleetRun{policy: p, source: src}, nil
}

// finish logs every server verdict of rep through the decision-log plugin
// and stops the plugins, uploading what is buffered.
func (f *fleetRun) finish(ctx context.Context, rep *reports.Report) error {
	if f == nil || f.source == nil {
		return nil
	}
	var first error
	if rep != nil && f.source.DecisionLogs() {
		for _, d := range runner.ServerDecisions(rep, f.policy.Bundles) {
			if err := f.source.Log(ctx, d); err != nil && first == nil {
				first = fmt.Errorf("decision log: %w", err)
			}
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if unsent := f.source.Stop(sctx); unsent > 0 && first == nil {
		first = fmt.Errorf("decision log: %d buffered could not be uploaded to the decision-log service within 5s", unsent)
	}
	return first
}

func (f *fleetRun) policyOrNil() *fleetpolicy.Policy {
	if f == nil {
		return nil
	}
	return f.policy
}

// toolDecider logs each proxy tool verdict through the decision-log
// plugin: the server's proxy name, the tool's name and pin hash — no
// argument or description text.
func (f *fleetRun) toolDecider(ctx context.Context, server string, logger *slog.Logger) func(tool, sha string, w *proxy.Withheld) {
	if f.source == nil || !f.source.DecisionLogs() {
		return nil
	}
	return func(tool, sha string, w *proxy.Withheld) {
		result := map[string]any{"allowed": w == nil}
		if w != nil {
			result["rule"], result["reason"] = w.Rule, w.Message
		}
		d := fleetpolicy.Decision{Path: "mcpguard/tool", Bundles: f.current().Bundles,
			Input:  map[string]any{"server": server, "tool": map[string]any{"name": tool, "sha256": sha}},
			Result: result}
		if err := f.source.Log(ctx, d); err != nil {
			logger.Warn("decision log", "tool", tool, "err", err)
		}
	}
}

// current is the policy in force: the source's newest, or the one loaded.
func (f *fleetRun) current() *fleetpolicy.Policy {
	if f.source != nil {
		if p := f.source.Policy(); p != nil {
			return p
		}
	}
	return f.policy
}

// follow applies every new bundle with apply until ctx ends; a bundle
// apply refuses keeps the last good one.
func (f *fleetRun) follow(ctx context.Context, logger *slog.Logger, apply func(*fleetpolicy.Policy) error) {
	if f == nil || f.source == nil {
		return
	}
	applied := f.policy
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.source.Changes():
			p := f.source.Policy()
			if p == nil || p == applied {
				continue
			}
			if err := apply(p); err != nil {
				logger.Error("bundle refused; the last good one stays in force", "bundle", p.Revision(), "err", err)
				continue
			}
			applied = p
			logger.Info("bundle in force", "bundle", p.Revision())
		}
	}
}
