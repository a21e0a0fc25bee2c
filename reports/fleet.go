package reports

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// FleetSchema is the schema of a merged fleet report (docs/report-schema.md).
//
// v2 (from v1): what_if judges as a scan with the proposal as --policy
// would — a change's "after" keeps the client's status and says in
// "change" what Claude Code would block or unblock were the proposal its
// managed settings; effect "status" became "enforcement".
const FleetSchema = "mcpguard/fleet/v2"

// Fleet is many machines' reports merged: every host, every server with its
// host and user, every finding with its host, and the aggregates a security
// team asks for.
type Fleet struct {
	Schema      string `json:"schema"`
	Tool        Tool   `json:"tool"`
	GeneratedAt string `json:"generated_at"`
	// StaleBefore is the cut-off of --max-age: hosts whose report is older
	// are marked stale (still merged).
	StaleBefore string          `json:"stale_before"`
	Hosts       []FleetHost     `json:"hosts"`
	Servers     []FleetServer   `json:"servers"`
	Findings    []FleetFinding  `json:"findings"`
	Distinct    []DistinctEntry `json:"distinct_servers"`
	Rules       []RuleCount     `json:"findings_by_rule"`
	Errors      []FileError     `json:"errors"`
	Summary     FleetSummary    `json:"summary"`
	// WhatIf is the difference a proposed policy makes (report --policy);
	// absent without one.
	WhatIf *WhatIf `json:"what_if,omitempty"`
	// Bundles are the organisation's OPA bundles the hosts were judged by;
	// absent when none was.
	Bundles []FleetBundle `json:"bundles,omitempty"`
}

// FleetHost is one machine (and user) of the fleet, from its newest report.
type FleetHost struct {
	// Key identifies the host in servers[] and findings[]: the hostname, and
	// the user when one host sent reports for several users.
	Key            string `json:"key"`
	Hostname       string `json:"hostname"`
	OS             string `json:"os"`
	User           string `json:"user"`
	GeneratedAt    string `json:"generated_at"`
	ToolVersion    string `json:"tool_version"`
	PolicyRevision string `json:"policy_revision"`
	// Report is the file the host's report was read from; Superseded lists
	// older reports of the same host that the newest one replaced.
	Report     string   `json:"report"`
	Superseded []string `json:"superseded"`
	Stale      bool     `json:"stale"`
	Summary    Summary  `json:"summary"`
	// NotAllowed counts the host's servers the policy does not allow,
	// whatever their client does about it.
	NotAllowed int `json:"not_allowed"`
	// Compliant is false when the host has a server the policy does not
	// allow (blocked, or run by a client that does not enforce it), or
	// has an unsuppressed error-level finding; Why says which.
	Compliant bool     `json:"compliant"`
	Why       []string `json:"why"`
	// Bundles are the organisation's OPA bundles the host's report was
	// judged by (policy.sources[] of kind opa-bundle); BundlesBehind names
	// those of them at another revision than the newest report of the
	// fleet that names the bundle.
	Bundles       []BundleRevision `json:"bundles,omitempty"`
	BundlesBehind []string         `json:"bundles_behind,omitempty"`
}

// BundleRevision is one OPA bundle at one revision.
type BundleRevision struct {
	Name     string `json:"name"`
	Revision string `json:"revision"`
}

// FleetBundle is one organisation bundle across the fleet: which revision
// the newest report names, how many hosts run each revision, how many are
// behind.
type FleetBundle struct {
	Name   string `json:"name"`
	Newest string `json:"newest"`
	// Revisions are the revisions seen, newest first, with their hosts.
	Revisions []BundleHosts `json:"revisions"`
	Behind    int           `json:"behind"`
}

// BundleHosts counts the hosts at one revision.
type BundleHosts struct {
	Revision string `json:"revision"`
	Hosts    int    `json:"hosts"`
}

// FleetServer is a server as its host reported it. It points into the
// host's report rather than copying it: the servers are most of a fleet's
// memory, and a copy of each was a fifth of a large merge's peak.
type FleetServer struct {
	*Server
	Host string `json:"host"`
}

// FleetFinding is a finding as its host reported it, pointing into the
// host's report as FleetServer does.
type FleetFinding struct {
	*Finding
	Host string `json:"host"`
}

// DistinctEntry is one server as the fleet runs it, identified by what it
// launches (the command line, or the URL of a remote server), not by the
// name each user gave it.
type DistinctEntry struct {
	Key       string   `json:"key"`
	Transport string   `json:"transport"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	URL       string   `json:"url,omitempty"`
	Names     []string `json:"names"`
	Clients   []string `json:"clients"`
	Hosts     int      `json:"hosts"`
	Users     int      `json:"users"`
	Instances int      `json:"instances"`
	// Allowed and NotAllowed count the instances by the policy's decision
	// (a client that does not enforce the policy still runs a server it
	// does not allow: ByStatus tells).
	Allowed    int            `json:"allowed"`
	NotAllowed int            `json:"not_allowed"`
	ByStatus   map[string]int `json:"by_status"`
	Findings   SeverityCount  `json:"findings"`
	// Component is "claude-desktop-extension" for a Claude Desktop
	// extension, identified by its id and Version rather than by its
	// command line; absent for other servers.
	Component string `json:"component,omitempty"`
	Version   string `json:"version,omitempty"`
}

// RuleCount counts one rule's findings across the fleet.
type RuleCount struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Findings int      `json:"findings"`
	Hosts    int      `json:"hosts"`
}

// FleetSummary counts the fleet.
type FleetSummary struct {
	Hosts                int `json:"hosts"`
	StaleHosts           int `json:"stale_hosts"`
	HostsOutOfCompliance int `json:"hosts_out_of_compliance"`
	Servers              int `json:"servers"`
	DistinctServers      int `json:"distinct_servers"`
	// Extensions counts the Claude Desktop extensions among Servers.
	Extensions int           `json:"extensions"`
	Allowed    int           `json:"allowed"`
	NotAllowed int           `json:"not_allowed"`
	Findings   SeverityCount `json:"findings"`
	Errors     int           `json:"errors"`
}

// MergeOptions configure a Merger.
type MergeOptions struct {
	Tool Tool
	// Now and MaxAge mark hosts whose report is older than Now-MaxAge as
	// stale; MaxAge 0 marks none.
	Now    time.Time
	MaxAge time.Duration
	// NoAggregates leaves out what only some forms show: the distinct
	// servers and the findings by rule (Fleet.Distinct and Fleet.Rules
	// empty, Summary.DistinctServers 0). A CSV or CycloneDX rendering of a
	// large fleet need not pay for them (a tenth to a fifth of a
	// 100,000-server CSV merge); FleetNeedsAggregates says which forms do.
	NoAggregates bool
}

// Merger merges reports one at a time, so that a caller can read a file,
// add it and let its bytes go: the newest report of each host is kept.
type Merger struct {
	opts   MergeOptions
	hosts  map[string]*hostReport
	errors []FileError
	// runs, when set, is how many runs of hosts Fleet merges apart (tests);
	// otherwise one per core for a large fleet.
	runs int
}

type hostReport struct {
	path       string
	at         time.Time
	rep        *Report
	superseded []string
}

// NewMerger starts an empty fleet.
func NewMerger(opts MergeOptions) *Merger {
	return &Merger{opts: opts, hosts: map[string]*hostReport{}}
}

// AddError records an input that could not be read as a report.
func (m *Merger) AddError(e FileError) { m.errors = append(m.errors, e) }

// Add merges the report read from path. A host is its hostname and user;
// when a host was added before, the report generated last wins (ties: the
// later path), and the other is listed as superseded. The merger keeps r:
// the fleet's servers point into it, each with its host's user when it
// names none.
func (m *Merger) Add(path string, r *Report) {
	key := hostKey(r.Host)
	at, _ := time.Parse(time.RFC3339, r.GeneratedAt)
	next := &hostReport{path: path, at: at, rep: r}
	prev := m.hosts[key]
	if prev == nil {
		m.hosts[key] = next
		return
	}
	if at.After(prev.at) || at.Equal(prev.at) && path > prev.path {
		next.superseded = append(prev.superseded, prev.path)
		m.hosts[key] = next
		return
	}
	prev.superseded = append(prev.superseded, path)
}

func hostKey(h Host) string {
	name := h.Hostname
	if name == "" {
		name = "unknown-host"
	}
	if h.User == "" {
		return name
	}
	return name + "/" + h.User
}

// Fleet builds the merged report.
func (m *Merger) Fleet() *Fleet {
	keys := make([]string, 0, len(m.hosts))
	for k := range m.hosts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Each host's servers and findings have their place in the fleet's
	// lists before any is copied, so that runs of hosts merge apart.
	serverAt, findingAt := make([]int, len(keys)+1), make([]int, len(keys)+1)
	for i, k := range keys {
		r := m.hosts[k].rep
		serverAt[i+1] = serverAt[i] + len(r.Servers)
		findingAt[i+1] = findingAt[i] + len(r.Findings)
	}
	f := &Fleet{Schema: FleetSchema, Tool: m.opts.Tool, GeneratedAt: m.opts.Now.UTC().Format(time.RFC3339),
		Hosts: make([]FleetHost, 0, len(keys)), Servers: make([]FleetServer, serverAt[len(keys)]),
		Findings: make([]FleetFinding, findingAt[len(keys)]),
		Rules:    []RuleCount{}, Errors: append([]FileError{}, m.errors...)}
	var cutoff time.Time
	if m.opts.MaxAge > 0 {
		cutoff = m.opts.Now.Add(-m.opts.MaxAge)
		f.StaleBefore = cutoff.UTC().Format(time.RFC3339)
	}

	// A large fleet is merged in runs of hosts on every core (a fifth of a
	// 100,000-server merge was this loop), then the runs are combined in
	// host order: the result is the same as one run's.
	runs := 1
	if len(f.Servers) >= fleetRunServers {
		runs = runtime.GOMAXPROCS(0)
	}
	if m.runs > 0 {
		runs = m.runs
	}
	runs = max(min(runs, len(keys)), 1)
	parts := make([]*fleetPart, runs)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*len(keys)/runs, (i+1)*len(keys)/runs
		parts[i] = &fleetPart{distinct: map[string]*distinctAcc{}, rules: map[string]*ruleAcc{}}
		wg.Go(func() {
			for h := lo; h < hi; h++ {
				parts[i].host(m, keys[h], cutoff, f.Servers[serverAt[h]:serverAt[h+1]], f.Findings[findingAt[h]:findingAt[h+1]])
			}
		})
	}
	wg.Wait()
	distinct := parts[0].distinct
	rules := parts[0].rules
	for i, p := range parts {
		f.Hosts = append(f.Hosts, p.hosts...)
		f.Summary.StaleHosts += p.summary.StaleHosts
		f.Summary.HostsOutOfCompliance += p.summary.HostsOutOfCompliance
		f.Summary.Extensions += p.summary.Extensions
		f.Summary.Allowed += p.summary.Allowed
		f.Summary.NotAllowed += p.summary.NotAllowed
		f.Summary.Findings.Error += p.summary.Findings.Error
		f.Summary.Findings.Warning += p.summary.Findings.Warning
		f.Summary.Findings.Note += p.summary.Findings.Note
		if i == 0 {
			continue
		}
		for k, d := range p.distinct {
			if into := distinct[k]; into != nil {
				into.merge(d)
			} else {
				distinct[k] = d
			}
		}
		for k, ra := range p.rules {
			if into := rules[k]; into != nil {
				into.Findings += ra.Findings
				maps.Copy(into.hosts, ra.hosts)
			} else {
				rules[k] = ra
			}
		}
	}
	f.Bundles = m.bundlesBehind(f.Hosts)
	// Sorted as pointers, most hosts first: a large fleet has tens of
	// thousands of distinct servers, and swapping entries moved each
	// several times. Both the sort and the entries (each with its names
	// and clients sorted) run on every core: on one they were half of a
	// 100,000-server merge's time once the hosts were merged.
	accs := slices.Collect(maps.Values(distinct))
	workers := 1
	if len(accs) >= fleetRunServers/8 {
		workers = runtime.GOMAXPROCS(0)
	}
	sortParallel(accs, func(a, b *distinctAcc) int {
		if a.Hosts != b.Hosts {
			return cmp.Compare(b.Hosts, a.Hosts)
		}
		return strings.Compare(a.Key, b.Key)
	}, workers)
	f.Distinct = make([]DistinctEntry, len(accs))
	for w := range workers {
		wg.Go(func() {
			for i := w * len(accs) / workers; i < (w+1)*len(accs)/workers; i++ {
				f.Distinct[i] = accs[i].entry()
			}
		})
	}
	wg.Wait()
	for _, ra := range rules {
		ra.Hosts = len(ra.hosts)
		f.Rules = append(f.Rules, ra.RuleCount)
	}
	sort.Slice(f.Rules, func(i, j int) bool {
		a, b := f.Rules[i], f.Rules[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.Findings != b.Findings {
			return a.Findings > b.Findings
		}
		return a.Rule < b.Rule
	})
	f.Summary.Hosts = len(f.Hosts)
	f.Summary.Servers = len(f.Servers)
	f.Summary.DistinctServers = len(f.Distinct)
	f.Summary.Errors = len(f.Errors)
	return f
}

// sortParallel sorts s by cmp, a total order, splitting it into halves
// sorted on their own cores (down to one part per worker) and merged: the
// result is what one sort gives.
func sortParallel[T any](s []T, cmp func(a, b T) int, workers int) {
	if workers < 2 || len(s) < 2 {
		slices.SortFunc(s, cmp)
		return
	}
	mid := len(s) / 2
	var wg sync.WaitGroup
	wg.Go(func() { sortParallel(s[:mid], cmp, workers/2) })
	sortParallel(s[mid:], cmp, workers-workers/2)
	wg.Wait()
	merged := make([]T, 0, len(s))
	a, b := s[:mid], s[mid:]
	for len(a) > 0 && len(b) > 0 {
		if cmp(b[0], a[0]) < 0 {
			merged, b = append(merged, b[0]), b[1:]
		} else {
			merged, a = append(merged, a[0]), a[1:]
		}
	}
	merged = append(append(merged, a...), b...)
	copy(s, merged)
}

// fleetRunServers is the fleet size from which Fleet merges on every core.
const fleetRunServers = 20000

// fleetPart is what Fleet gathers from a run of hosts.
type fleetPart struct {
	hosts    []FleetHost
	distinct map[string]*distinctAcc
	rules    map[string]*ruleAcc
	summary  FleetSummary
	key      []byte // appendLaunchKey's buffer
}

// host merges one host's report: its servers and findings into the given
// places of the fleet's lists.
func (p *fleetPart) host(m *Merger, key string, cutoff time.Time, servers []FleetServer, findings []FleetFinding) {
	hr := m.hosts[key]
	r := hr.rep
	h := FleetHost{Key: key, Hostname: r.Host.Hostname, OS: r.Host.OS, User: r.Host.User, GeneratedAt: r.GeneratedAt,
		ToolVersion: r.Tool.Version, PolicyRevision: r.Policy.Revision, Report: hr.path,
		Superseded: append([]string{}, hr.superseded...), Summary: r.Summary, Compliant: true, Why: []string{}}
	sort.Strings(h.Superseded)
	for _, src := range r.Policy.Sources {
		if src.Kind == KindOPABundle {
			h.Bundles = append(h.Bundles, BundleRevision{Name: strings.TrimPrefix(src.Path, "bundle:"), Revision: src.Revision})
		}
	}
	if !cutoff.IsZero() && (hr.at.IsZero() || hr.at.Before(cutoff)) {
		h.Stale = true
		p.summary.StaleHosts++
	}
	bySrv := make(map[string]*distinctAcc, len(r.Servers))
	for i := range r.Servers {
		s := &r.Servers[i]
		if s.User == "" {
			s.User = r.Host.User
		}
		servers[i] = FleetServer{Server: s, Host: key}
		if s.Scope == "extension" {
			p.summary.Extensions++
		}
		if !m.opts.NoAggregates {
			p.key = appendLaunchKey(p.key[:0], s)
			d := p.distinct[string(p.key)]
			if d == nil {
				d = newDistinct(s, string(p.key))
				p.distinct[d.Key] = d
			}
			d.add(s, key)
			bySrv[s.ID] = d
		}
		if !s.Decision.Allowed && s.Status != StatusInvalid {
			p.summary.NotAllowed++
			h.NotAllowed++
			if h.noncompliant() {
				h.Why = append(h.Why, fmt.Sprintf("has %q (%s, %s), which the policy does not allow", s.Name, s.Client, s.Status))
			}
		} else if s.Decision.Allowed {
			p.summary.Allowed++
		}
	}
	errs := 0
	for i := range r.Findings {
		fd := &r.Findings[i]
		findings[i] = FleetFinding{Finding: fd, Host: key}
		p.summary.Findings.add(fd.Severity)
		if !m.opts.NoAggregates {
			ra := p.rules[fd.Rule]
			if ra == nil {
				ra = &ruleAcc{RuleCount: RuleCount{Rule: fd.Rule, Severity: fd.Severity}, hosts: map[string]bool{}}
				p.rules[fd.Rule] = ra
			}
			ra.Findings++
			ra.hosts[key] = true
		}
		if d := bySrv[fd.ServerID]; d != nil {
			d.Findings.add(fd.Severity)
		}
		if fd.Severity == SeverityError && fd.Suppressed == nil {
			errs++
		}
	}
	if errs > 0 && h.noncompliant() {
		h.Why = append(h.Why, plural(errs, "unsuppressed error-level finding"))
	}
	if !h.Compliant {
		p.summary.HostsOutOfCompliance++
	}
	p.hosts = append(p.hosts, h)
}

// noncompliant marks the host out of compliance and reports whether a
// reason may be added to Why, which keeps the first 20: a host may have
// thousands of servers the policy does not allow, and the reasons are
// formatted only when kept.
func (h *FleetHost) noncompliant() bool {
	h.Compliant = false
	return len(h.Why) < 20
}

// launchKey identifies what a server runs: its URL, or its command line
// (as reported: secrets already redacted).
func launchKey(s *Server) string { return string(appendLaunchKey(nil, s)) }

// appendLaunchKey appends s's launchKey to b: a merge looks each server's
// key up in a buffer it reuses and makes a string only of a new one.
func appendLaunchKey(b []byte, s *Server) []byte {
	if ext, ok := Extension(s); ok {
		// One extension is one package wherever it is unpacked (its
		// command line names each user's folder): its id and version.
		return append(append(append(append(b, "extension "...), ext.ID...), '@'), ext.Version...)
	}
	if s.URL != "" {
		return append(append(append(b, s.Transport...), ' '), s.URL...)
	}
	b = append(append(b, "stdio "...), s.Command...)
	for _, a := range s.Args {
		b = append(append(b, ' '), a...)
	}
	return b
}

type distinctAcc struct {
	DistinctEntry
	names, clients smallSet
	// Hosts are merged one after the other, each in one run of hosts: a
	// host is new when it is not the last one counted (no set of host keys
	// per distinct server), and Users adds up each host's distinct users
	// (hostUsers: the last host's), with no set of (host, user) pairs.
	lastHost  string
	hostUsers smallSet
}

func newDistinct(s *Server, key string) *distinctAcc {
	d := &distinctAcc{DistinctEntry: DistinctEntry{Key: key, Transport: s.Transport, URL: s.URL, ByStatus: map[string]int{}}}
	if ext, ok := Extension(s); ok {
		d.Component, d.Version = ComponentExtension, ext.Version
	}
	if s.URL == "" {
		d.Command, d.Args = s.Command, append([]string{}, s.Args...)
	}
	return d
}

func (d *distinctAcc) add(s *Server, host string) {
	d.names.add(s.Name)
	d.clients.add(s.Client)
	if d.Hosts == 0 || d.lastHost != host {
		d.Hosts++
		d.lastHost = host
		d.hostUsers.reset()
	}
	if s.User != "" && d.hostUsers.add(s.User) {
		d.Users++
	}
	d.Instances++
	d.ByStatus[string(s.Status)]++
	if s.Decision.Allowed {
		d.Allowed++
	} else if s.Status != StatusInvalid {
		d.NotAllowed++
	}
}

// merge adds what another run of hosts gathered for the same server; the
// runs hold different hosts, and d the earlier ones.
func (d *distinctAcc) merge(o *distinctAcc) {
	for _, v := range o.names.values() {
		d.names.add(v)
	}
	for _, v := range o.clients.values() {
		d.clients.add(v)
	}
	d.Hosts += o.Hosts
	d.Users += o.Users
	d.lastHost, d.hostUsers = o.lastHost, o.hostUsers
	d.Instances += o.Instances
	d.Allowed += o.Allowed
	d.NotAllowed += o.NotAllowed
	for k, n := range o.ByStatus {
		d.ByStatus[k] += n
	}
	d.Findings.Error += o.Findings.Error
	d.Findings.Warning += o.Findings.Warning
	d.Findings.Note += o.Findings.Note
}

func (d *distinctAcc) entry() DistinctEntry {
	e := d.DistinctEntry
	e.Names, e.Clients = d.names.sorted(), d.clients.sorted()
	return e
}

// smallSet is a set of strings that is a short list while it is small:
// most distinct servers have one name, one client and a few users, and a
// map each would be most of a large fleet merge's time.
type smallSet struct {
	list []string
	m    map[string]bool
}

// add adds v and reports whether it was not a member yet.
func (s *smallSet) add(v string) bool {
	if s.m != nil {
		if s.m[v] {
			return false
		}
		s.m[v] = true
		return true
	}
	for _, x := range s.list {
		if x == v {
			return false
		}
	}
	s.list = append(s.list, v)
	if len(s.list) > 8 {
		s.m = make(map[string]bool, 2*len(s.list))
		for _, x := range s.list {
			s.m[x] = true
		}
		s.list = nil
	}
	return true
}

// reset empties the set, keeping its list's space.
func (s *smallSet) reset() { s.list, s.m = s.list[:0], nil }

// values returns the members in no particular order.
func (s *smallSet) values() []string {
	if s.m != nil {
		return slices.Collect(maps.Keys(s.m))
	}
	return s.list
}

func (s *smallSet) sorted() []string {
	if s.m != nil {
		return sortedKeys(s.m)
	}
	out := append([]string{}, s.list...)
	sort.Strings(out)
	return out
}

type ruleAcc struct {
	RuleCount
	hosts map[string]bool
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Failing returns the fleet's unsuppressed findings at or above rank.
func (f *Fleet) Failing(rank int) []FleetFinding {
	var out []FleetFinding
	for _, fd := range f.Findings {
		if fd.Suppressed == nil && fd.Severity.Rank() >= rank {
			out = append(out, fd)
		}
	}
	return out
}

// KindOPABundle is the policy source kind of an organisation's OPA bundle
// (policy.sources[]).
const KindOPABundle = "opa-bundle"

// bundlesBehind finds, per bundle, the revision of the newest report that
// names it, marks the hosts at another revision as behind, and counts the
// hosts per revision.
func (m *Merger) bundlesBehind(hosts []FleetHost) []FleetBundle {
	type newest struct {
		rev string
		at  time.Time
	}
	latest := map[string]newest{}
	counts := map[string]map[string]int{}
	for _, h := range hosts {
		at := m.hosts[h.Key].at
		for _, b := range h.Bundles {
			if n, ok := latest[b.Name]; !ok || at.After(n.at) {
				latest[b.Name] = newest{b.Revision, at}
			}
			if counts[b.Name] == nil {
				counts[b.Name] = map[string]int{}
			}
			counts[b.Name][b.Revision]++
		}
	}
	if len(latest) == 0 {
		return nil
	}
	out := make([]FleetBundle, 0, len(latest))
	behind := map[string]int{}
	for i := range hosts {
		h := &hosts[i]
		for _, b := range h.Bundles {
			if b.Revision != latest[b.Name].rev {
				h.BundlesBehind = append(h.BundlesBehind, b.Name)
				behind[b.Name]++
			}
		}
	}
	for name, n := range latest {
		fb := FleetBundle{Name: name, Newest: n.rev, Behind: behind[name]}
		for rev, c := range counts[name] {
			fb.Revisions = append(fb.Revisions, BundleHosts{Revision: rev, Hosts: c})
		}
		sort.Slice(fb.Revisions, func(i, j int) bool {
			a, b := fb.Revisions[i], fb.Revisions[j]
			if (a.Revision == n.rev) != (b.Revision == n.rev) {
				return a.Revision == n.rev
			}
			if a.Hosts != b.Hosts {
				return a.Hosts > b.Hosts
			}
			return a.Revision < b.Revision
		})
		out = append(out, fb)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
