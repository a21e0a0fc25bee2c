package scanner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
)

// ProposalOptions configure NewProposal.
type ProposalOptions struct {
	// Policy is the compiled engine: the shipped rules and the proposal's
	// custom Rego rules.
	Policy *policy.Engine
	// PolicyFiles are the proposal's JSON documents shaped like
	// managed-settings.json: its allow and deny lists.
	PolicyFiles []string
	// FS reads the policy files; nil reads the machine's.
	FS cfgfile.FS
}

// Proposal is a policy an organisation considers rolling out, ready to
// judge servers saved in reports ("if we roll out this allowlist, which
// hosts lose which servers?"). The proposal stands for the organisation's
// whole managed configuration: its lists are the only managed lists, and
// what the machines' own settings files add (Claude Code user and project
// allowlists) is not in a report, so it is not taken into account.
type Proposal struct {
	opts ProposalOptions
	docs []*managed.Document
	// Sources are the proposal's policy files and custom Rego files.
	Sources []reports.PolicySource
	byOS    map[string]*proposalContext
}

type proposalContext struct {
	sc *scan
	pc *policyContext
}

// NewProposal loads the proposal's policy files. A file that is missing or
// does not parse is an error: a proposal that does not load must never
// read as "everything allowed".
func NewProposal(opts ProposalOptions) (*Proposal, error) {
	if opts.Policy == nil {
		return nil, errors.New("proposal: no policy engine")
	}
	if err := opts.Policy.Err(); err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	if opts.FS == nil {
		opts.FS = cfgfile.OS{}
	}
	p := &Proposal{opts: opts, byOS: map[string]*proposalContext{}}
	// The scan's own loader reads the files, with --policy's semantics.
	loader := p.newScan(context.Background(), "")
	loader.opts.PolicyFiles = opts.PolicyFiles
	loader.loadPolicyFiles()
	if errs := loader.res.Errors; len(errs) > 0 {
		joined := make([]error, len(errs))
		for i := range errs {
			joined[i] = &errs[i]
		}
		return nil, fmt.Errorf("load policy: %w", errors.Join(joined...))
	}
	p.docs = loader.policyFiles
	p.Sources = loader.completePolicySources(append([]reports.PolicySource{}, loader.res.Policy.Sources...))
	return p, nil
}

// newScan is a scan that reads nothing but the proposal's files, for
// machines running goos.
func (p *Proposal) newScan(ctx context.Context, goos string) *scan {
	sc := &scan{
		ctx:          ctx,
		opts:         Options{GOOS: goos, Policy: p.opts.Policy, LookupEnv: func(string) (string, bool) { return "", false }},
		res:          &Result{},
		seenFindings: map[string]bool{},
		seenErrors:   map[string]bool{},
		seenSources:  map[string]bool{},
		kept:         map[*Server]bool{},
		fs:           p.opts.FS,
		policyFiles:  p.docs,
	}
	// The proposal's files are named on the command line: findings about
	// them are anchored as a path-mode scan's files are.
	if root := sc.namedRepository(p.opts.PolicyFiles); root != "" {
		sc.anchors = []anchor{{root, "repo:/"}}
	}
	return sc
}

// Findings are the proposal's own weaknesses (rules about the policy, such
// as an allow entry broader than it looks), as they would show on a
// machine of each OS judged so far.
func (p *Proposal) Findings() []reports.Finding {
	var out []reports.Finding
	seen := map[string]bool{}
	for _, goos := range slices.Sorted(maps.Keys(p.byOS)) {
		for _, f := range p.byOS[goos].sc.res.Findings {
			if !seen[f.ID] {
				seen[f.ID] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Errors are the evaluations that failed: each such server is judged
// blocked (POLICY_ERROR), never allowed.
func (p *Proposal) Errors() []reports.FileError {
	var out []reports.FileError
	for _, goos := range slices.Sorted(maps.Keys(p.byOS)) {
		out = append(out, p.byOS[goos].sc.res.Errors...)
	}
	return out
}

// context returns the policy context of machines running goos: the
// proposal's lists as the managed settings, built and checked once.
func (p *Proposal) context(ctx context.Context, goos string) *proposalContext {
	if c := p.byOS[goos]; c != nil {
		return c
	}
	sc := p.newScan(ctx, goos)
	w := &claudeWorld{managed: &managed.Dir{}}
	c := &proposalContext{sc: sc, pc: sc.orgContext(w)}
	sc.evalContexts()
	p.byOS[goos] = c
	return c
}

// Judge evaluates saved servers of one machine (its OS as the report says)
// under the proposal, as a scan of that machine with the proposal as its
// --policy would report them: the same servers get a verdict (those whose
// status a policy decides, PolicyJudges), the proposal's verdict is the
// decision, every status stays what the client does, and a Claude Code
// server's Change says what the proposal would change in Claude Code if it
// were the managed settings (IntendedChange). The servers are judged as
// their reports describe them: arguments and URLs a report redacted match
// no entry that spells the secret, and the Claude Code ${VAR} forms a scan
// saw are not in a report. Judge is not safe for concurrent use.
func (p *Proposal) Judge(ctx context.Context, goos string, servers []reports.Server) ([]reports.Judged, error) {
	c := p.context(ctx, goos)
	out := make([]reports.Judged, len(servers))
	var todo []*Server
	var index []int
	for i := range servers {
		saved := &servers[i]
		out[i] = reports.Judged{Verdict: reports.Verdict{Status: saved.Status, Decision: saved.Decision}}
		if !PolicyJudges(saved) {
			continue
		}
		todo = append(todo, savedServer(saved))
		index = append(index, i)
	}
	verdicts := c.sc.applyPolicyAll(todo, func(*Server) *policyContext { return c.pc })
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for j, v := range verdicts {
		saved := &servers[index[j]]
		r := reports.Judged{Verdict: reports.Verdict{Status: saved.Status, Decision: v.Decision}, Judged: true}
		if saved.Client == ClientClaudeCode {
			r.Change = IntendedChange(blockedByLists(saved), v.claudeDenies)
			if saved.Status == reports.StatusSuppressed && v.Allowed {
				// A plugin server dropped as a duplicate (resolvePlugins).
				r.Decision = reports.Decision{Allowed: true, Reasons: []string{reports.ReasonDuplicate}}
			}
		}
		out[index[j]] = r
	}
	if pol := p.extensionPolicy(); pol != nil {
		for i := range servers {
			if v, ok := judgeExtension(pol, &servers[i], out[i]); ok {
				out[i] = v
			}
		}
	}
	return out, nil
}

// extensionPolicy is the proposal's Claude Desktop extension policy
// (intendedExtensionPolicy); nil when it sets none.
func (p *Proposal) extensionPolicy() *desktopPolicy { return intendedExtensionPolicy(p.docs) }

// judgeExtension judges a saved Claude Desktop extension under the
// proposal's extension policy, as a scan with the proposal as its --policy
// would (intendedExtensions): the status stays what Claude Desktop does
// today, the decision is the proposal's, and the change says what Claude
// Desktop would do were the proposal its enterprise settings. ok is false
// for other servers.
func judgeExtension(pol *desktopPolicy, s *reports.Server, now reports.Judged) (reports.Judged, bool) {
	if s.Client != ClientClaudeDesktop || s.Scope != ScopeExtension || s.Status == reports.StatusInvalid {
		return now, false
	}
	d, change, ok := intendedExtensionVerdict(pol, s.Status, s.Decision, s.Details)
	if !ok {
		return now, false
	}
	if !now.Judged {
		now = reports.Judged{Judged: true, Verdict: reports.Verdict{Status: s.Status, Decision: s.Decision}}
	}
	if d != nil {
		now.Decision = *d
	}
	now.Change = change
	return now, true
}

// PolicyJudges reports whether a scan gives a saved server a policy
// verdict: a server its client loads, asks about or has switched off; for
// Claude Code also one its lists block, a rejected project server and a
// plugin server dropped as a duplicate of another. Shadowed, invalid and
// otherwise suppressed definitions, and servers a client blocks by a
// setting of its own, keep the decision they have.
func PolicyJudges(s *reports.Server) bool {
	switch s.Status {
	case reports.StatusActive, reports.StatusPendingApproval, reports.StatusDisabled:
		return true
	case reports.StatusRejected:
		return s.Client == ClientClaudeCode
	case reports.StatusBlocked:
		return blockedByLists(s)
	case reports.StatusSuppressed:
		return s.Client == ClientClaudeCode && s.Scope == ScopePlugin && !slices.Contains(s.Decision.Reasons, reports.ReasonExclusiveManaged)
	}
	return false
}

// blockedByLists tells a Claude Code server its lists block (or its
// policy failed to evaluate for) from one a client setting or the plugin
// marketplace policy blocked (those never reach the lists).
func blockedByLists(s *reports.Server) bool {
	if s.Client != ClientClaudeCode || s.Status != reports.StatusBlocked {
		return false
	}
	for _, r := range []string{reports.ReasonClientBlocked, reports.ReasonClientDisabled, reports.ReasonMarketplaceBlocked, reports.ReasonMarketplaceNotAllowed} {
		if slices.Contains(s.Decision.Reasons, r) {
			return false
		}
	}
	return true
}

// savedServer is the scanner's model of a server read back from a report:
// what the policy rules see of it.
func savedServer(s *reports.Server) *Server {
	status := s.Status
	if blockedByLists(s) {
		// The rules judge the server as Claude Code would load it.
		status = reports.StatusActive
	}
	return &Server{
		ID: s.ID, Name: s.Name, Client: s.Client, Scope: s.Scope, Project: s.Project,
		Transport: s.Transport, Command: s.Command, Args: s.Args, URL: s.URL,
		EnvKeys: s.EnvKeys, HeaderKeys: s.HeaderKeys, Source: s.Source, Status: status,
		Details: maps.Clone(s.Details), // applyPolicy records the admission here
	}
}
