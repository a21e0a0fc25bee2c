package opaplugins

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/logging"
	bundleplugin "github.com/open-policy-agent/opa/v1/plugins/bundle"
	"github.com/open-policy-agent/opa/v1/plugins/logs"
	"github.com/open-policy-agent/opa/v1/sdk"
	"github.com/open-policy-agent/opa/v1/server"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/util"
)

var registerDeclarations sync.Once

// Source keeps an organisation's policy current: OPA's plugins download,
// verify, persist and activate bundles; Source reads what is active.
type Source struct {
	opa      *sdk.OPA
	store    storage.Store
	bundles  *bundleplugin.Plugin
	logs     *logs.Plugin
	changes  chan struct{} // a value when the policy or the state changed
	refresh  chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	cancel   context.CancelFunc

	mu       sync.Mutex
	policy   *fleetpolicy.Policy
	state    fleetpolicy.State
	statuses map[string]bundleplugin.Status // as the bundle plugin last reported
}

// StartControl is Start as a fleetpolicy.Starter.
func StartControl(ctx context.Context, opts fleetpolicy.Options) (fleetpolicy.Control, error) {
	s, err := Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Start configures OPA's plugins from opts.Config and starts them; it does
// not wait for a bundle (WaitActive does). A configuration OPA refuses is
// an error.
func Start(ctx context.Context, opts fleetpolicy.Options) (*Source, error) {
	registerDeclarations.Do(func() {
		// The bundle plugin compiles a bundle before activating it: it
		// must know the signatures of mcpguard's functions. Only the
		// signatures: mcpguard's engine evaluates the policies.
		for _, b := range policy.Declarations() {
			if ast.BuiltinMap[b.Name] == nil {
				ast.RegisterBuiltin(b)
			}
		}
	})
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	cfg, names, err := prepareConfig(subEnvVars(opts.Config, lookup), opts.StateDir)
	if err != nil {
		return nil, err
	}
	store := inmem.New()
	ready := make(chan struct{}) // never waited on: New must not block on a bundle server
	id := opts.ID
	if id == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	lg := opaLogger{l: opts.Logger}
	if lg.l == nil {
		lg.l = slog.New(slog.DiscardHandler)
	}
	opa, err := sdk.New(ctx, sdk.Options{ID: id, Config: strings.NewReader(string(cfg)), Store: store, Ready: ready, Logger: lg, ConsoleLogger: lg})
	if err != nil {
		return nil, fmt.Errorf("OPA configuration: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Source{opa: opa, store: store, changes: make(chan struct{}, 1), refresh: make(chan struct{}, 1),
		done: make(chan struct{}), cancel: cancel}
	s.state.Configured = names
	if p, ok := opa.Plugin(bundleplugin.Name).(*bundleplugin.Plugin); ok {
		s.bundles = p
		p.RegisterBulkListener("mcpguard", func(m map[string]*bundleplugin.Status) {
			cp := make(map[string]bundleplugin.Status, len(m))
			for k, v := range m {
				if v != nil {
					cp[k] = *v
				}
			}
			s.mu.Lock()
			s.statuses = cp
			s.mu.Unlock()
			s.poke()
		})
	}
	if p, ok := opa.Plugin(logs.Name).(*logs.Plugin); ok {
		s.logs = p
	}
	go s.run(runCtx)
	s.poke() // a persisted bundle may have activated before the listener
	return s, nil
}

func (s *Source) poke() {
	select {
	case s.refresh <- struct{}{}:
	default:
	}
}

// run reads the store whenever the bundle plugin reports, outside the
// plugin's own locks.
func (s *Source) run(ctx context.Context) {
	defer close(s.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.refresh:
			s.read(ctx)
		}
	}
}

// read takes the active bundles from the store and the plugin's statuses.
func (s *Source) read(ctx context.Context) {
	var errs map[string]string
	var lastAct time.Time
	s.mu.Lock()
	statuses := s.statuses
	s.mu.Unlock()
	for name, st := range statuses {
		if st.LastSuccessfulActivation.After(lastAct) {
			lastAct = st.LastSuccessfulActivation
		}
		if msg := statusError(st); msg != "" {
			if errs == nil {
				errs = map[string]string{}
			}
			errs[name] = msg
		}
	}
	p, err := s.readStore(ctx)
	s.mu.Lock()
	changed := false
	if err == nil && p != nil && !p.Same(s.policy) {
		s.policy, changed = p, true
		s.state.Active = p.Bundles
	}
	if err != nil {
		if errs == nil {
			errs = map[string]string{}
		}
		errs["store"] = err.Error()
	}
	degraded := len(errs) > 0
	if degraded != s.state.Degraded || fmt.Sprint(errs) != fmt.Sprint(s.state.Errors) || !lastAct.Equal(s.state.LastActivation) {
		changed = true
	}
	s.state.Degraded, s.state.Errors, s.state.LastActivation = degraded, errs, lastAct
	s.mu.Unlock()
	if changed {
		select {
		case s.changes <- struct{}{}:
		default:
		}
	}
}

// statusError describes a bundle status that reports a failure.
func statusError(st bundleplugin.Status) string {
	if st.Code == "" && st.Message == "" && len(st.Errors) == 0 {
		return ""
	}
	var parts []string
	if st.Message != "" {
		parts = append(parts, st.Message)
	}
	for _, e := range st.Errors {
		parts = append(parts, e.Error())
	}
	if st.HTTPCode != "" {
		parts = append(parts, "HTTP "+string(st.HTTPCode))
	}
	if len(parts) == 0 {
		parts = append(parts, st.Code)
	}
	return strings.Join(parts, ": ")
}

// readStore builds the Policy of the bundles active in the store; nil when
// none is.
func (s *Source) readStore(ctx context.Context) (*fleetpolicy.Policy, error) {
	txn, err := s.store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer s.store.Abort(ctx, txn)
	names, err := bundle.ReadBundleNamesFromStore(ctx, s.store, txn)
	if err != nil {
		if storage.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	if len(names) == 0 {
		return nil, nil
	}
	ids, err := s.store.ListPolicies(ctx, txn)
	if err != nil {
		return nil, err
	}
	data, err := s.store.Read(ctx, txn, storage.Path{})
	if err != nil {
		return nil, err
	}
	root, _ := data.(map[string]any)
	p := &fleetpolicy.Policy{}
	sort.Strings(names)
	for i, name := range names {
		rev, err := bundle.ReadBundleRevisionFromStore(ctx, s.store, txn, name)
		if err != nil && !storage.IsNotFound(err) {
			return nil, err
		}
		modules := map[string][]byte{}
		for _, id := range ids {
			// Module ids are "<bundle name>/<path>" for bundle modules.
			rest, ok := strings.CutPrefix(id, name+"/")
			if !ok {
				continue
			}
			src, err := s.store.GetPolicy(ctx, txn, id)
			if err != nil {
				return nil, err
			}
			modules[rest] = src
		}
		var d map[string]any
		if i == 0 {
			d = root // the data documents of every bundle share one tree
		}
		if err := p.AddBundle(name, rev, modules, d); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Policy returns the policy of the bundles in force, nil before the first
// activation.
func (s *Source) Policy() *fleetpolicy.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policy
}

// State returns where the bundles stand.
func (s *Source) State() fleetpolicy.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state
	st.Active = append([]fleetpolicy.Ref(nil), st.Active...)
	return st
}

// Changes receives a value whenever the policy or the state changed.
func (s *Source) Changes() <-chan struct{} { return s.changes }

// WaitActive waits until a bundle is in force (a persisted one counts), or
// ctx ends.
func (s *Source) WaitActive(ctx context.Context) (*fleetpolicy.Policy, error) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if p := s.Policy(); p != nil {
			return p, nil
		}
		select {
		case <-ctx.Done():
			st := s.State()
			if len(st.Errors) > 0 {
				return nil, fmt.Errorf("no bundle activated: %s", st.ErrorText())
			}
			return nil, fmt.Errorf("no bundle activated: %w", context.Cause(ctx))
		case <-t.C:
			s.poke()
		}
	}
}

// DecisionLogs reports whether decision logging is configured.
func (s *Source) DecisionLogs() bool { return s.logs != nil }

// Log sends a decision through OPA's decision-log plugin (which labels,
// masks, buffers and uploads it as configured); without decision_logs in
// the configuration it does nothing.
func (s *Source) Log(ctx context.Context, d fleetpolicy.Decision) error {
	if s.logs == nil {
		return nil
	}
	input, result := d.Input, d.Result
	// The plugin expects JSON-shaped values.
	if err := roundTrip(&input); err != nil {
		return err
	}
	if err := roundTrip(&result); err != nil {
		return err
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	info := &server.Info{DecisionID: hex.EncodeToString(id[:]), Path: d.Path, Input: &input, Results: &result,
		Timestamp: time.Now().UTC(), Bundles: map[string]server.BundleInfo{}}
	for _, b := range d.Bundles {
		info.Bundles[b.Name] = server.BundleInfo{Revision: b.Revision}
	}
	return s.logs.Log(ctx, info)
}

func roundTrip(v *any) error {
	b, err := json.Marshal(*v)
	if err != nil {
		return err
	}
	return util.UnmarshalJSON(b, v)
}

// Stop stops the plugins; pending decision logs are uploaded until ctx's
// deadline. It returns how much of the decision-log buffer could not be
// uploaded (OPA's unit: events, or bytes for a size-limited buffer), so
// that a caller can say so rather than lose decisions silently.
func (s *Source) Stop(ctx context.Context) (unsent int64) {
	s.stopOnce.Do(func() {
		s.cancel()
		<-s.done
		if s.bundles != nil {
			s.bundles.UnregisterBulkListener("mcpguard")
		}
		s.opa.Stop(ctx)
		if s.logs != nil {
			_, unsent = s.logs.BufferSize()
		}
	})
	return unsent
}

// prepareConfig checks an OPA configuration and makes every bundle
// persistent under stateDir unless it says otherwise; it returns the
// bundle names.
func prepareConfig(raw []byte, stateDir string) ([]byte, []string, error) {
	var cfg map[string]any
	if err := util.Unmarshal(raw, &cfg); err != nil {
		return nil, nil, fmt.Errorf("OPA configuration: %w", err)
	}
	if cfg == nil {
		return nil, nil, errors.New("OPA configuration: empty")
	}
	if _, ok := cfg["discovery"]; ok {
		// Discovery could configure anything at run time, bundles replacing
		// the ones mcpguard reads included.
		return nil, nil, errors.New("OPA configuration: discovery is not supported; configure bundles directly")
	}
	var names []string
	if bs, ok := cfg["bundles"].(map[string]any); ok {
		for name, v := range bs {
			names = append(names, name)
			if b, ok := v.(map[string]any); ok {
				if _, set := b["persist"]; !set && stateDir != "" {
					b["persist"] = true
				}
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, nil, errors.New("OPA configuration: no bundles configured")
	}
	if _, ok := cfg["persistence_directory"]; !ok && stateDir != "" {
		cfg["persistence_directory"] = filepath.Join(stateDir, "opa")
	}
	out, err := json.Marshal(cfg)
	if err != nil {
		return nil, nil, err
	}
	return out, names, nil
}

// opaLogger sends OPA's log lines to slog.
type opaLogger struct {
	l      *slog.Logger
	fields []any
}

func (o opaLogger) Debug(f string, a ...any) { o.l.Debug("opa: "+fmt.Sprintf(f, a...), o.fields...) }
func (o opaLogger) Info(f string, a ...any)  { o.l.Info("opa: "+fmt.Sprintf(f, a...), o.fields...) }
func (o opaLogger) Warn(f string, a ...any)  { o.l.Warn("opa: "+fmt.Sprintf(f, a...), o.fields...) }
func (o opaLogger) Error(f string, a ...any) { o.l.Error("opa: "+fmt.Sprintf(f, a...), o.fields...) }
func (o opaLogger) WithFields(m map[string]any) logging.Logger {
	out := opaLogger{l: o.l, fields: append([]any(nil), o.fields...)}
	for k, v := range m {
		out.fields = append(out.fields, k, v)
	}
	return out
}
func (o opaLogger) GetLevel() logging.Level { return logging.Debug }
func (o opaLogger) SetLevel(logging.Level)  {}

// envRef is `opa run`'s ${VAR} syntax in configuration files.
var envRef = regexp.MustCompile(`(?U:\$\{.*\})`)

// subEnvVars replaces ${VAR} with the variable's value, as `opa run` does
// for its configuration file (the sdk does not): a set variable, even
// empty, replaces the reference; an unset one stays as written.
func subEnvVars(raw []byte, lookup func(string) (string, bool)) []byte {
	return envRef.ReplaceAllFunc(raw, func(m []byte) []byte {
		if v, ok := lookup(string(m[2 : len(m)-1])); ok {
			return []byte(v)
		}
		return m
	})
}
