package scanner

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/chunks"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
)

// Options configure a scan. Zero values mean: nothing under a home, no managed
// directory, no project — the command layer fills in the defaults of SPEC §4.
type Options struct {
	// Home is the user's home directory; every per-user location is found
	// under it (--home rebases them). Empty skips per-user files.
	Home string
	// ManagedDir is Claude Code's managed directory. Empty skips it.
	ManagedDir string
	// ClaudeConfigDir relocates ~/.claude and ~/.claude.json, as
	// CLAUDE_CONFIG_DIR does. Empty means Home/.claude.
	ClaudeConfigDir string
	// Project is the absolute directory whose Claude Code view is resolved.
	Project string
	// Paths, when set, restricts the scan to these files and directories (the
	// pre-commit mode of `mcpguard scan PATH...`).
	Paths []string
	// LookupEnv reads the environment Claude Code would start with
	// (CLAUDE_CONFIG_DIR, ${VAR} values). Nil means an empty environment;
	// path mode (Paths) reads none.
	LookupEnv func(string) (string, bool)
	// GOOS selects OS-specific locations (managed directory, system files);
	// empty means runtime.GOOS.
	GOOS string
	// Policy is the compiled policy engine. Nil skips policy evaluation: every
	// loaded server is allowed and no policy rule runs.
	Policy *policy.Engine
	// PolicyFiles are JSON files shaped like managed-settings.json (--policy):
	// the organisation's intended policy. With them (or PolicyDocs), their
	// lists alone decide every server's verdict, Claude Code's included;
	// Claude Code's status stays its own verdict on the files it reads
	// (docs/policies.md#json-policy-files).
	PolicyFiles []string
	// PolicyDocs are documents of the same shape that come from no file: the
	// managed-settings document of an OPA bundle.
	PolicyDocs []PolicyDoc
	// PolicySources are further policy inputs to list in the report (an OPA
	// bundle); their revisions are part of the report's policy revision.
	PolicySources []reports.PolicySource
	// Secrets detects credentials; nil builds one. Share it with reports.Build.
	Secrets *secrets.Detector
	// DesktopPolicyFile replaces the file Claude Desktop's enterprise
	// settings are read from (macOS managed preferences, Linux
	// /etc/claude-desktop/enterprise.json); tests and --root style scans.
	DesktopPolicyFile string
	// FS is the file system the scan reads; nil means the machine's.
	// Every file read and directory listing goes through it.
	FS cfgfile.FS
	// WrapPreview, when set, is asked about every Claude Code stdio server that
	// does not run through `mcpguard proxy` yet. A non-nil result is the argv
	// prefix [mcpguard, proxy flags..., "--"] that `mcpguard wrap` would write,
	// and the server is judged as if it were wrapped so: its status and the
	// MCPG-P008 findings say what Claude Code will do after the wrap.
	WrapPreview func(*Server) []string
}

// scan is the state of one Scan call.
type scan struct {
	ctx  context.Context
	opts Options
	res  *Result
	// realPaths remembers symlink resolutions for this scan (samePath).
	realPaths map[string]string
	// seenFindings de-duplicates file-level findings that several project
	// resolutions would otherwise emit twice; seenErrors the errors.
	seenFindings map[string]bool
	seenSources  map[string]bool
	kept         map[*Server]bool
	secrets      *secrets.Detector
	fs           cfgfile.FS
	policyFiles  []*managed.Document
	// mu guards seenErrors and res.Errors: policy workers record errors
	// while the scan reads and records the next files.
	mu         sync.Mutex
	seenErrors map[string]bool
	// mainCtx is the main project's Claude Code policy context; orgCtx the
	// organisation's for other clients (orgContext); intended, when an
	// intended policy is given, is orgCtx and judges Claude Code too.
	mainCtx, orgCtx, intended *policyContext
	// unevaluated are the contexts whose policy-level rules have not run
	// yet (evalContexts).
	unevaluated []*policyContext
	// machine is true for a whole-machine scan; path mode skips checks that
	// depend on the machine's environment (C007).
	machine bool
	// stable remembers stablePath's answers (path -> string): every server
	// id takes two paths that a whole file's, or a project's, servers share.
	stable sync.Map
	// anchors are the directories ids name files relative to (identity.go),
	// deepest first; set before any server is judged.
	anchors []anchor
	// desktop is Claude Desktop's enterprise configuration, read once
	// (loadDesktopPolicy); desktopInstalls the extension install records of
	// each Claude data directory.
	desktop         *desktopPolicy
	desktopInstalls map[string]*jsonc.Value
}

// Scan finds, parses and resolves every MCP configuration the options select.
// It returns an error only for a cancelled context; unreadable or malformed
// files become Result.Errors and the scan goes on.
func Scan(ctx context.Context, opts Options) (*Result, error) {
	if opts.GOOS == "" {
		opts.GOOS = runtime.GOOS
	}
	if opts.LookupEnv == nil || len(opts.Paths) > 0 {
		// Path mode judges the files as committed: a ${VAR} expands to its
		// default or stays as written, whatever this process's environment
		// holds (unsetVars).
		opts.LookupEnv = func(string) (string, bool) { return "", false }
	}
	if opts.FS == nil {
		opts.FS = cfgfile.OS{}
	}
	sc := &scan{
		ctx:          ctx,
		opts:         opts,
		res:          &Result{},
		seenFindings: map[string]bool{},
		seenErrors:   map[string]bool{},
		seenSources:  map[string]bool{},
		kept:         map[*Server]bool{},
		secrets:      opts.Secrets,
		// Another user's home (root scanning every home): her files are
		// read only when she could read them herself.
		fs: cfgfile.ForHome(opts.FS, opts.Home),
	}
	sc.setAnchors()
	sc.loadPolicyFiles()
	if len(opts.Paths) > 0 {
		sc.scanPaths()
	} else {
		sc.scanMachine()
	}
	sc.judgeOthers()
	sc.intendedExtensions()
	sc.evalContexts()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc.finalize()
	return sc.res, nil
}

// judge returns the provisional decision of a loaded server of a client other
// than Claude Code; judgeOthers replaces it with the policy's once every file
// is read.
func (sc *scan) judge(*Server) reports.Decision {
	return reports.Decision{Allowed: true, Reasons: []string{reports.ReasonAllowed}}
}

// judgeOthers evaluates the policy for every server that Claude Code's own
// resolution did not judge: other clients' servers against the organisation's
// lists, the IDE server against the main project's Claude Code lists.
func (sc *scan) judgeOthers() {
	if sc.opts.Policy == nil {
		return
	}
	var todo []*Server
	for _, s := range sc.res.Servers {
		if !s.judged && (s.Status != reports.StatusInvalid || !s.refused) && sc.contextFor(s) != nil {
			todo = append(todo, s)
		}
	}
	decisions := sc.applyPolicyAll(todo, sc.contextFor)
	for i, s := range todo {
		v := decisions[i]
		s.judged = true
		if s.Status == reports.StatusInvalid {
			// The client skips the entry, so no verdict applies; but what is
			// written in the file is still there: keep the configuration
			// findings (a plaintext secret above all), not the policy's.
			kept := s.pendingFindings[:0]
			for _, f := range s.pendingFindings {
				if strings.HasPrefix(f.rule, "MCPG-C") {
					kept = append(kept, f)
				}
			}
			s.pendingFindings = kept
			continue
		}
		switch {
		case s.Client == ClientClaudeCode && v.claudeDenies:
			s.Status, s.Decision = reports.StatusBlocked, v.Decision
		case s.Status == reports.StatusActive || s.Status == reports.StatusPendingApproval || s.Status == reports.StatusDisabled:
			// The client decides its own status; the decision is mcpguard's verdict.
			s.Decision = v.Decision
		}
	}
}

// contextFor returns the policy context that judges a server outside Claude
// Code's resolution.
func (sc *scan) contextFor(s *Server) *policyContext {
	if s.Client == ClientClaudeCode {
		return sc.mainCtx
	}
	return sc.orgCtx
}

// moveServers moves the servers kept from index from on to index to, before
// the ones kept in between.
func (sc *scan) moveServers(from, to int) {
	list := sc.res.Servers
	tail := append([]*Server(nil), list[from:]...)
	copy(list[to+len(tail):], list[to:from])
	copy(list[to:], tail)
}

// keep adds servers to the result.
func (sc *scan) keep(list ...*Server) {
	for _, s := range list {
		if !sc.kept[s] {
			sc.kept[s] = true
			sc.res.Servers = append(sc.res.Servers, s)
		}
	}
}

// pendingFinding is a finding about a server, materialised once the server is
// kept (its id depends on its final scope and project).
type pendingFinding struct {
	rule     string
	message  string
	evidence map[string]any
	disc     []string
	severity reports.Severity  // "" means the catalog's
	loc      *reports.Location // nil means the server's source
}

// finding records a finding about server s.
func (sc *scan) finding(s *Server, rule, msg string, evidence map[string]any, disc ...string) {
	s.pendingFindings = append(s.pendingFindings, pendingFinding{rule: rule, message: msg, evidence: evidence, disc: disc})
}

// fileFinding records a finding that is not about one server.
func (sc *scan) fileFinding(rule string, loc reports.Location, msg string, disc ...string) *reports.Finding {
	return sc.fileFindingEvidence(rule, loc, msg, nil, disc...)
}

func (sc *scan) fileFindingEvidence(rule string, loc reports.Location, msg string, evidence map[string]any, disc ...string) *reports.Finding {
	f := sc.newFinding(rule, loc, "", msg, disc...)
	f.Evidence = evidence
	if sc.seenFindings[f.ID] {
		return nil
	}
	sc.seenFindings[f.ID] = true
	sc.res.Findings = append(sc.res.Findings, f)
	return &sc.res.Findings[len(sc.res.Findings)-1]
}

// newFinding builds a finding whose id uses the stable form of its path (see
// stablePath), so that finding ids survive a move of the scanned tree.
func (sc *scan) newFinding(rule string, loc reports.Location, serverID, msg string, disc ...string) reports.Finding {
	idLoc := loc
	idLoc.Path = sc.stablePath(loc.Path)
	f := reports.NewFinding(rule, idLoc, serverID, msg, disc...)
	f.Location = loc
	return f
}

// fileError records an errors[] entry once. Policy workers call it
// concurrently.
func (sc *scan) fileError(errs ...reports.FileError) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for _, e := range errs {
		key := e.Error()
		if sc.seenErrors[key] {
			continue
		}
		sc.seenErrors[key] = true
		sc.res.Errors = append(sc.res.Errors, e)
	}
}

// source records a file that was read.
func (sc *scan) source(s reports.Source) {
	key := s.Path + "\x00" + s.Client + "\x00" + s.Kind
	if sc.seenSources[key] {
		return
	}
	sc.seenSources[key] = true
	sc.res.Sources = append(sc.res.Sources, s)
}

// finalize turns pending findings of kept servers into findings and orders
// everything deterministically.
func (sc *scan) finalize() {
	// The ids (hashes of each server and finding) first, on every
	// processor for a large machine, where they would otherwise be the
	// scan's single-threaded end. They depend on nothing but the server, so
	// the findings are then kept, once each, in the order a one-pass loop
	// kept them.
	servers := sc.res.Servers
	found := make([][]reports.Finding, len(servers))
	chunks.Each(len(servers), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := servers[i]
			if s.ID == "" {
				s.ID = sc.serverID(s)
			}
			if s.Decision.Reasons == nil {
				s.Decision.Reasons = []string{}
			}
			for _, p := range s.pendingFindings {
				loc := s.Source
				if p.loc != nil {
					loc = *p.loc
				}
				f := sc.newFinding(p.rule, loc, s.ID, p.message, p.disc...)
				f.Evidence = p.evidence
				if p.severity != "" {
					f.Severity = p.severity
				}
				found[i] = append(found[i], f)
			}
			s.pendingFindings = nil
		}
	})
	// The findings kept, the file-level ones first, as pointers sorted in
	// place of the findings: each is then copied once, into the list in
	// its order, not three times (appended, then sorted through a copy and
	// copied back) in the scan's single-threaded end.
	n := len(sc.res.Findings)
	for _, fs := range found {
		n += len(fs)
	}
	// The set of ids with room for them all: grown as they come, it was
	// rehashed a dozen times.
	seenFindings := make(map[string]bool, len(sc.seenFindings)+n-len(sc.res.Findings))
	maps.Copy(seenFindings, sc.seenFindings)
	sc.seenFindings = seenFindings
	kept := make([]*reports.Finding, 0, n)
	for i := range sc.res.Findings {
		kept = append(kept, &sc.res.Findings[i])
	}
	// The servers' finding ids in one array, each server's a full slice
	// of it (an append elsewhere copies), not an allocation per server.
	ids := make([]string, 0, n-len(sc.res.Findings))
	for i, s := range servers {
		from := len(ids)
		for j := range found[i] {
			f := &found[i][j]
			// One lookup: the set grows unless the id is in it already.
			seen := len(sc.seenFindings)
			if sc.seenFindings[f.ID] = true; len(sc.seenFindings) == seen {
				continue
			}
			kept = append(kept, f)
			ids = append(ids, f.ID)
		}
		switch mine := ids[from:len(ids):len(ids)]; {
		case len(mine) == 0:
		case s.FindingIDs == nil:
			s.FindingIDs = mine
		default:
			s.FindingIDs = append(s.FindingIDs, mine...)
		}
	}
	slices.SortStableFunc(kept, reports.CompareFindings)
	all := make([]reports.Finding, len(kept))
	for i, f := range kept {
		all[i] = *f
	}
	sc.res.Findings = all
	sc.res.Policy.Sources = sc.completePolicySources(sc.res.Policy.Sources)
	sc.res.Policy.Revision = PolicyRevision(sc.res.Policy.Sources)
	reports.SortErrors(sc.res.Errors)
}

// envLookup layers maps over a base lookup; later maps win.
func envLookup(base interp.Lookup, layers ...map[string]string) interp.Lookup {
	return func(name string) (string, bool) {
		for i := len(layers) - 1; i >= 0; i-- {
			if v, ok := layers[i][name]; ok {
				return v, true
			}
		}
		return base(name)
	}
}

// absPath cleans p and makes it absolute against the working directory.
func absPath(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// statError describes a path given on the command line that cannot be read.
func statError(path string, err error) reports.FileError {
	msg := err.Error()
	if pe, ok := err.(*os.PathError); ok {
		msg = pe.Err.Error()
	}
	return reports.FileError{Path: path, Message: msg}
}

// unknownFileError is the error for a file that is no known MCP configuration.
func unknownFileError(path string) reports.FileError {
	return reports.FileError{Path: path, Message: "not a recognised MCP configuration file (no mcpServers, servers or context_servers key)"}
}

// completePolicySources gives every file source its digest and adds the
// rules that judged: the shipped rules and each custom Rego file.
func (sc *scan) completePolicySources(sources []reports.PolicySource) []reports.PolicySource {
	for i := range sources {
		src := &sources[i]
		if src.Digest != "" || src.Kind == reports.KindOPABundle {
			continue
		}
		if data, exists, _ := sc.fs.ReadFile(src.Path); exists {
			src.Digest = policy.FileDigest(data)
		}
	}
	return append(sources, RuleSources(sc.opts.Policy)...)
}

// RuleSources are the policy sources of an engine's rules: the shipped
// rules, then each custom Rego file with its digest. A nil engine judged
// nothing.
func RuleSources(e *policy.Engine) []reports.PolicySource {
	if e == nil || e.Err() != nil {
		return nil
	}
	out := []reports.PolicySource{{Path: "builtin:mcpguard", Kind: reports.KindShippedRules, Active: true, Digest: policy.ShippedDigest()}}
	for _, p := range e.Sources {
		out = append(out, reports.PolicySource{Path: p, Kind: reports.KindRego, Active: true, Digest: e.Digests[p]})
	}
	return out
}

// PolicyRevision fingerprints policy sources, so that two reports with the
// same revision were judged by the same policy wherever its files are:
// each source's kind, its contents' digest and its bundle revision.
func PolicyRevision(sources []reports.PolicySource) string {
	parts := make([]string, 0, 3*len(sources))
	for _, src := range sources {
		parts = append(parts, src.Kind, src.Digest, src.Revision)
	}
	return reports.Fingerprint(parts...)
}
