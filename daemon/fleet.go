package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
)

// engineOptions are the options of the policy engine: the --policy Rego
// and the modules and data of the bundles in force.
func (d *daemon) engineOptions() policy.EngineOptions {
	o := policy.EngineOptions{Paths: d.regoPaths, Print: d.opts.Print}
	if p := d.fleetPolicy; p != nil {
		o.Modules, o.Data = p.Modules, p.Data
	}
	return o
}

// fleetChanges is the channel that signals a bundle activation or a change
// of the bundles' state; nil without --opa-config.
func (d *daemon) fleetChanges() <-chan struct{} {
	if d.fleet == nil {
		return nil
	}
	return d.fleet.Changes()
}

// reloadFleet takes a newly activated bundle into the engine and reports
// refused bundles. OPA's bundle plugin has already verified what it
// activated; a bundle whose Rego does not compile is refused here, and in
// both cases the last good policy stays in force (policy-invalid).
func (d *daemon) reloadFleet(ctx context.Context) bool {
	defer d.publish()
	st := d.fleet.State()
	seen := ""
	if len(st.Errors) > 0 {
		seen = fmt.Sprint(st.Errors)
	}
	if seen != "" && seen != d.fleetSeen {
		d.evlog.emit(events.Event{Kind: "policy-invalid", Severity: "error", Path: d.opts.OPAConfigPath,
			Message: "a bundle was refused or could not be downloaded; the last good policy stays in force: " + st.ErrorText(),
			Details: map[string]any{"errors": st.Errors, "active": st.Active}})
	}
	d.fleetSeen = seen
	p := d.fleet.Policy()
	if p == nil || p.Same(d.fleetPolicy) {
		return false
	}
	old := d.fleetPolicy
	d.fleetPolicy = p
	eng, err := policy.NewEngine(ctx, d.engineOptions())
	if err != nil {
		d.fleetPolicy = old
		msg := err.Error()
		if d.policyErrs["bundle"] != msg {
			d.evlog.emit(events.Event{Kind: "policy-invalid", Severity: "error", Path: d.opts.OPAConfigPath,
				Message: "bundle " + p.Revision() + " does not compile; the last good policy stays in force: " + msg,
				Details: map[string]any{"error": msg, "refused": p.Bundles}})
		}
		d.policyErrs["bundle"] = msg
		return false
	}
	delete(d.policyErrs, "bundle")
	d.engine = eng
	oldRev := ""
	if old != nil {
		oldRev = old.Revision()
	}
	d.evlog.emit(events.Event{Kind: "policy-changed", Message: "bundle " + p.Revision() + " is in force",
		Details: map[string]any{"old_revision": oldRev, "new_revision": p.Revision(), "bundles": p.Bundles}})
	d.logged = map[string]string{} // every verdict is logged again under the new revision
	return true
}

// failClosed marks every server of a scan unverified-policy while the
// daemon takes its policy from bundles and none is verified yet.
func (d *daemon) failClosed(rep *reports.Report) {
	if d.fleet != nil && d.fleetPolicy == nil {
		runner.MarkUnverified(rep)
	}
}

// logDecisions sends each server verdict that is new or changed since it
// was last logged to the decision log (OPA's decision-log plugin).
func (d *daemon) logDecisions(ctx context.Context, rep *reports.Report) {
	if d.fleet == nil || !d.fleet.DecisionLogs() || d.fleetPolicy == nil {
		return
	}
	seen := make(map[string]bool, len(rep.Servers))
	for i, dec := range runner.ServerDecisions(rep, d.fleetPolicy.Bundles) {
		s := rep.Servers[i]
		key := s.User + "\x00" + s.ID
		seen[key] = true
		sig := fmt.Sprint(dec.Result, rep.Policy.Revision)
		if d.logged[key] == sig {
			continue
		}
		if err := d.fleet.Log(ctx, dec); err != nil {
			d.log.Warn("decision log", "server", s.Name, "err", err)
			continue
		}
		d.logged[key] = sig
	}
	for k := range d.logged {
		if !seen[k] {
			delete(d.logged, k)
		}
	}
}

// stopFleet stops OPA's plugins, uploading buffered decisions for a while.
func (d *daemon) stopFleet() {
	if d.fleet == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if unsent := d.fleet.Stop(ctx); unsent > 0 {
		d.log.Warn("decision logs not uploaded at stop", "buffered", unsent)
	}
}
