package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/introspect"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// Options configure one run of the scan pipeline. The zero value scans
// nothing; the command layer fills in the defaults of SPEC §4.
type Options struct {
	// Scan selects what is read; see scanner.Options. Its Policy,
	// PolicyFiles and Secrets fields are set by Run from the fields below.
	Scan scanner.Options
	// Policies are --policy paths: .rego files or directories of them, and
	// JSON files shaped like managed-settings.json.
	Policies []string
	// Engine, when set, is the compiled policy engine to use, and the Rego
	// paths among Policies are not compiled again: a daemon compiles once
	// and runs the pipeline on every change.
	Engine *policy.Engine
	// Print receives the output of Rego print() calls; nil discards it. It
	// must never be stdout.
	Print io.Writer
	// Suppressions are the accepted findings (LoadSuppressions); nil accepts
	// none.
	Suppressions *Suppressions
	// Meta is what the report says about its production.
	Meta Meta
	// Secrets detects and redacts credentials; nil builds one.
	Secrets *secrets.Detector
	// Fleet is the organisation's policy from OPA bundles (--bundle,
	// --opa-config): its Rego joins the custom policies (when Engine is
	// nil), its managed-settings documents join the --policy JSON files,
	// and the bundles are listed among the report's policy sources.
	Fleet *fleetpolicy.Policy
	// Introspect, when set, starts the servers that may run and analyses
	// what they offer (scan --introspect). Run sets its PathMode and
	// Secrets.
	Introspect *introspect.Options
}

// Result is the outcome of one run.
type Result struct {
	// Report is the mcpguard/report/v1 value, secrets redacted.
	Report *reports.Report
	// Scan is the scanner's model of the same run. Its servers still hold
	// env and header values in memory, for introspection and the daemon's
	// diffs: never render it.
	Scan *scanner.Result
	// Stale lists ignore entries that matched no finding of what was
	// scanned (notes for the user).
	Stale []reports.Notification
}

// Run runs the scan pipeline once. Its error is a policy that does not
// compile or a cancelled context; unreadable or malformed files are
// Report.Errors entries and the run goes on.
func Run(ctx context.Context, opts Options) (*Result, error) {
	regoPaths, jsonPaths := SplitPolicies(opts.Policies)
	engine := opts.Engine
	if engine == nil {
		// Compile the policies while the scan reads the configuration files.
		eopts := policy.EngineOptions{Paths: regoPaths, Print: opts.Print}
		if f := opts.Fleet; f != nil {
			eopts.Modules, eopts.Data = f.Modules, f.Data
		}
		engine = policy.StartEngine(ctx, eopts)
		if len(regoPaths) > 0 || len(eopts.Modules) > 0 {
			// A custom policy that does not compile stops here, before any scan.
			if err := engine.Err(); err != nil {
				return nil, fmt.Errorf("load policy: %w", err)
			}
		}
	}
	det := opts.Secrets
	if det == nil {
		det = secrets.NewDetector()
	}
	sopts := opts.Scan
	sopts.Policy, sopts.PolicyFiles, sopts.Secrets = engine, jsonPaths, det
	if f := opts.Fleet; f != nil {
		sopts.PolicyDocs, sopts.PolicySources = FleetInputs(f)
	}
	res, err := scanner.Scan(ctx, sopts)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	if err := engine.Err(); err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	rep := BuildReport(res, opts.Meta, det)
	if opts.Introspect != nil {
		iopts := *opts.Introspect
		iopts.PathMode, iopts.Secrets = len(sopts.Paths) > 0, det
		if iopts.Tools == nil && (len(regoPaths) > 0 || opts.Fleet != nil) {
			// The organisation's tool_deny and tool_warn rules judge the
			// tools the servers offer, as in the proxy.
			topts := policy.ToolsPolicyOptions{Paths: regoPaths, Print: opts.Print}
			if f := opts.Fleet; f != nil {
				topts.Modules, topts.Data = f.Modules, f.Data
			}
			tp, err := policy.NewToolsPolicy(ctx, topts)
			if err != nil {
				return nil, fmt.Errorf("load policy: %w", err)
			}
			iopts.Tools = tp
		}
		AddIntrospection(rep, introspect.Run(ctx, res.Servers, iopts))
	}
	out := &Result{Report: rep, Scan: res}
	if s := opts.Suppressions; s != nil {
		out.Stale = s.Apply(rep)
	}
	return out, nil
}

// SplitPolicies sorts --policy paths into Rego sources (files and
// directories) and JSON policy documents.
func SplitPolicies(paths []string) (rego, jsonFiles []string) {
	for _, p := range paths {
		if strings.HasSuffix(strings.ToLower(p), ".json") {
			jsonFiles = append(jsonFiles, p)
		} else {
			rego = append(rego, p)
		}
	}
	return rego, jsonFiles
}

// AddIntrospection puts introspection outcomes into a report: each
// server's introspection entry, its tool findings (linked from the server)
// and any errors; the summary is counted again.
func AddIntrospection(rep *reports.Report, outcomes []introspect.Outcome) {
	byID := make(map[string]int, len(rep.Servers))
	for i, s := range rep.Servers {
		byID[s.ID] = i
	}
	seen := make(map[string]bool, len(rep.Findings))
	for _, f := range rep.Findings {
		seen[f.ID] = true
	}
	for _, o := range outcomes {
		i, ok := byID[o.ServerID]
		if !ok {
			continue
		}
		srv := &rep.Servers[i]
		srv.Introspection = o.Introspection
		for _, f := range o.Findings {
			if seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			rep.Findings = append(rep.Findings, f)
			srv.FindingIDs = append(srv.FindingIDs, f.ID)
		}
		for _, e := range o.Errors {
			if !slices.Contains(rep.Errors, e) {
				rep.Errors = append(rep.Errors, e)
			}
		}
	}
	reports.SortFindings(rep.Findings)
	reports.SortErrors(rep.Errors)
	rep.Summary = reports.Summarize(rep)
}

// FleetInputs turns a fleet policy into the scanner's inputs: its
// managed-settings documents and the bundles as policy sources (whose
// revisions enter the report's policy revision).
func FleetInputs(f *fleetpolicy.Policy) ([]scanner.PolicyDoc, []reports.PolicySource) {
	rev := map[string]string{}
	var sources []reports.PolicySource
	for _, b := range f.Bundles {
		rev[b.Name] = b.Revision
		sources = append(sources, reports.PolicySource{Path: "bundle:" + b.Name, Kind: reports.KindOPABundle, Active: true, Revision: b.Revision})
	}
	var docs []scanner.PolicyDoc
	for _, p := range slices.Sorted(maps.Keys(f.Settings)) {
		name, _, _ := strings.Cut(strings.TrimPrefix(p, "bundle:"), "/")
		docs = append(docs, scanner.PolicyDoc{Path: p, Data: f.Settings[p], Revision: rev[name]})
	}
	return docs, sources
}

// DecisionPath names mcpguard's server verdicts in decision logs.
const DecisionPath = "mcpguard/server"

// ServerDecisions are the report's server verdicts as decision-log
// entries, in the order of rep.Servers. An entry's input is the report's
// own server (names of env variables and headers only, command line and URL
// redacted) and host: what the redactor hides from a report never reaches
// a decision log either.
func ServerDecisions(rep *reports.Report, bundles []fleetpolicy.Ref) []fleetpolicy.Decision {
	ruleOf := make(map[string]string, len(rep.Findings))
	for _, f := range rep.Findings {
		ruleOf[f.ID] = f.Rule
	}
	out := make([]fleetpolicy.Decision, len(rep.Servers))
	for i, s := range rep.Servers {
		s.Introspection = nil // what the server offers is not part of its verdict
		rules := []string{}
		for _, id := range s.FindingIDs {
			if r, ok := ruleOf[id]; ok && !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
		out[i] = fleetpolicy.Decision{
			Path:    DecisionPath,
			Input:   map[string]any{"server": s, "host": rep.Host, "policy_revision": rep.Policy.Revision},
			Result:  map[string]any{"status": s.Status, "allowed": s.Decision.Allowed, "reasons": s.Decision.Reasons, "rules": rules},
			Bundles: bundles,
		}
	}
	return out
}

// MarkUnverified fails a report closed when the organisation's policy comes
// from bundles and none has been verified: every server is reported as
// unverified-policy and not allowed, never as allowed by default.
func MarkUnverified(rep *reports.Report) {
	for i := range rep.Servers {
		s := &rep.Servers[i]
		s.Status = reports.StatusUnverifiedPolicy
		s.Decision = reports.Decision{Allowed: false, Reasons: []string{reports.ReasonPolicyUnverified}}
	}
	rep.Summary = reports.Summarize(rep)
}
