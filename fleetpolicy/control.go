package fleetpolicy

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"time"
)

// Control is a running source of the organisation's policy: OPA's bundle,
// status and decision-log plugins configured by an OPA configuration file
// (package opaplugins). It is an interface so that the commands every
// developer runs (a pre-commit scan) do not link those plugins: a build
// without them starts its Control in a helper process (docs/fleet.md).
type Control interface {
	// Policy returns the policy of the bundles in force, nil before the
	// first activation.
	Policy() *Policy
	// State returns where the bundles stand.
	State() State
	// Changes receives a value whenever the policy or the state changed.
	Changes() <-chan struct{}
	// WaitActive waits until a bundle is in force (a persisted one
	// counts), or ctx ends.
	WaitActive(ctx context.Context) (*Policy, error)
	// DecisionLogs reports whether decision logging is configured.
	DecisionLogs() bool
	// Log sends a decision through OPA's decision-log plugin; without
	// decision_logs in the configuration it does nothing.
	Log(ctx context.Context, d Decision) error
	// Stop stops the plugins, uploading pending decision logs until ctx's
	// deadline, and returns how much could not be uploaded.
	Stop(ctx context.Context) (unsent int64)
}

// Starter starts a Control from an OPA configuration.
type Starter func(ctx context.Context, opts Options) (Control, error)

// Options configure a Control.
type Options struct {
	// Config is an OPA configuration document (YAML or JSON): services,
	// bundles, keys, decision_logs, status, labels, persistence_directory.
	Config []byte
	// StateDir is where bundles are persisted when the configuration names
	// no persistence_directory; every bundle is persisted unless its
	// configuration says "persist": false, so that a machine that starts
	// offline enforces the last good bundle at once.
	StateDir string
	// ID identifies this instance to the control plane (status, decision
	// logs); empty means a random one.
	ID string
	// Logger receives OPA's own log lines; nil discards them.
	Logger *slog.Logger
	// LookupEnv resolves ${VAR} in the configuration, as `opa run` does
	// (an unset variable stays as written); nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// State is where the bundles stand.
type State struct {
	// Configured lists the bundles the configuration names.
	Configured []string `json:"configured"`
	// Active are the bundles in force, with their revisions; empty until
	// the first one activates.
	Active []Ref `json:"active"`
	// Degraded is true when the last download or activation of a bundle
	// failed (a bundle server down, a bad signature): the last good bundle
	// stays in force.
	Degraded bool `json:"degraded"`
	// Errors say what failed, per bundle.
	Errors map[string]string `json:"errors,omitempty"`
	// LastActivation is when a bundle last activated.
	LastActivation time.Time `json:"last_activation,omitzero"`
}

// ErrorText renders Errors as "bundle: error; ..." in bundle order.
func (st State) ErrorText() string {
	keys := make([]string, 0, len(st.Errors))
	for k := range st.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + st.Errors[k]
	}
	return strings.Join(parts, "; ")
}

// Decision is one verdict for the decision log.
type Decision struct {
	// Path names the decision, e.g. "mcpguard/server" or "mcpguard/tool".
	Path string
	// Input is what was judged; it must hold no secret (pass redacted
	// values: the report's own).
	Input any
	// Result is the verdict.
	Result any
	// Bundles are the bundles the verdict was reached under.
	Bundles []Ref
}
