package scanner

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/reports"
)

// Claude Code's own scope labels, kept in Server.Details["claude_scope"].
const (
	claudeScopeUser       = "user"
	claudeScopeLocal      = "local"
	claudeScopeProject    = "project"
	claudeScopeEnterprise = "enterprise" // managed-mcp.json
	claudeScopeManaged    = "managed"    // managedMcpServers
	claudeScopePlugin     = "plugin"
	claudeScopeDynamic    = "dynamic" // the IDE server
)

// reservedNames are skipped by Claude Code with "is a reserved MCP server
// name" (§2.3). Observed with the CLI: a name is compared after normName and
// case-sensitively, so "Claude.Preview" and "claude.ai" are reserved while
// "Claude  Browser" (two spaces) and "computer_use" are not. The keys here are
// already normalised.
var reservedNames = map[string]bool{
	"__proto__": true, "__defineGetter__": true, "__defineSetter__": true,
	"__lookupGetter__": true, "__lookupSetter__": true,
	"computer-use": true, "claude-in-chrome": true, "Claude_in_Chrome": true,
	"workspace": true, "Claude_Preview": true, "Claude_Browser": true,
	"claude-device": true, "hearthbot": true, "remote-devices": true, "ccr-email": true,
	"webagent": true, "claude-code-remote": true,
	"claude_ai": true, "Slack_sign-in__Claude_Code_tag_": true,
}

// isReserved reports whether Claude Code refuses a server name.
func isReserved(name string) bool { return reservedNames[normName(name)] }

// claudeWorld holds the machine-wide Claude Code inputs.
type claudeWorld struct {
	configDir      string // ~/.claude, or $CLAUDE_CONFIG_DIR
	claudeJSONPath string
	claudeJSON     *jsonc.Value // nil when absent or unparseable
	managed        *managed.Dir
	managedDocs    []*managed.Document // the managed documents in effect
	userSettings   *managed.Document   // ~/.claude/settings.json
	// serverEnv expands server configs: process env < user settings env <
	// managed settings env (§3.3).
	serverEnv interp.Lookup
	// clientEnv is what the settings env blocks add to Claude Code's own
	// environment, inherited by every server it starts.
	clientEnv map[string]string
	// installed are the installed plugins Claude Code can load, each with
	// its install records; which record applies depends on the project.
	installed []*installedPlugin
	// marketplaces is the managed plugin marketplace policy.
	marketplaces *marketplacePolicy
	// mainDir is the main project of a machine scan, whose resolution
	// reports the plugins that load there; mainUserEndpoints are the
	// endpoints of its active user servers, which plugin servers of another
	// project are deduplicated against too.
	mainDir           string
	mainUserEndpoints map[string]bool
	// userParsed are the user-scope definitions of ~/.claude.json as the
	// first resolution parsed them (userEntries), nil until then.
	userParsed []Server
}

// claudeProject holds one project's Claude Code inputs.
type claudeProject struct {
	dir string
	// local is projects[localKey] in ~/.claude.json: the git root's key inside a
	// repository, the exact folder otherwise (observed with the CLI).
	local           *jsonc.Value
	localKey        string
	projectSettings *managed.Document
	// localSettings are .claude/settings.local.json at the git root and in the
	// folder itself (both are read), in that order.
	localSettings []*managed.Document
	mcpFiles      []mcpFile // .mcp.json files, farthest first
}

type mcpFile struct {
	path string
	root *jsonc.Value
}

// approval is a project server's approval state (§5.2).
type approval int

const (
	approved approval = iota
	pending
	rejected
)

func (a approval) String() string {
	return [...]string{"approved", "pending", "rejected"}[a]
}

// settingsDocs returns the settings documents of a project in the order
// managed, user, project, local.
func (w *claudeWorld) settingsDocs(p *claudeProject) (all []*managed.Document) {
	all = append(all, w.managedDocs...)
	for _, d := range append([]*managed.Document{w.userSettings, p.projectSettings}, p.localSettings...) {
		if d != nil {
			all = append(all, d)
		}
	}
	return all
}

// trusted reports whether the project folder's trust dialog was accepted: only
// the exact key counts, never a parent (§5.1).
func (p *claudeProject) trusted() bool {
	v := p.local.Get("hasTrustDialogAccepted")
	return v != nil && v.Kind == jsonc.Bool && v.Bool
}

// normName replaces every character outside [A-Za-z0-9_-] by "_", counting
// UTF-16 code units as JavaScript does (a non-BMP character becomes "__").
func normName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("__")
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// projectApprovals decides the approval of a project's servers (§5.2):
// the lists and values of the project's settings that decide it, read
// once for the project instead of once for each of its servers.
type projectApprovals struct {
	// disabled are the disabledMcpjsonServers lists, in the order they
	// reject a name: each settings document's, then the legacy key's.
	disabled []sourcedList
	// enabled are the enabledMcpjsonServers lists that approve a name:
	// every settings document's and the legacy key's in a trusted
	// folder, the managed and user documents' otherwise.
	enabled []sourcedList
	// others is what every other name gets (enableAllProjectMcpServers).
	others    approval
	othersWhy string
}

// sourcedList is a list of server names and where it is, as the reason
// an approval gives.
type sourcedList struct {
	names, norm []string // norm: normName of each, for disabled lists
	why         string
}

// approvals reads the approval settings of project p.
func (w *claudeWorld) approvals(p *claudeProject) *projectApprovals {
	a := &projectApprovals{others: pending}
	docs := w.settingsDocs(p)
	legacy := func(key string) []string {
		list, _ := p.local.Get(key).StringSlice()
		return list
	}
	disabled := func(list []string, why string) {
		if len(list) == 0 {
			return
		}
		norm := make([]string, len(list))
		for i, x := range list {
			norm[i] = normName(x)
		}
		a.disabled = append(a.disabled, sourcedList{names: list, norm: norm, why: why})
	}
	enabled := func(list []string, why string) {
		if len(list) > 0 {
			a.enabled = append(a.enabled, sourcedList{names: list, why: why})
		}
	}
	for _, d := range docs {
		list, _, _ := d.Strings("disabledMcpjsonServers")
		disabled(list, "disabledMcpjsonServers in "+d.Path)
	}
	// Claude Code migrates the legacy keys of projects[root] into
	// .claude/settings.local.json on startup, so they count as local settings.
	disabled(legacy("disabledMcpjsonServers"), "legacy disabledMcpjsonServers in "+w.claudeJSONPath)
	if p.trusted() {
		for _, d := range docs {
			list, _, _ := d.Strings("enabledMcpjsonServers")
			enabled(list, "enabledMcpjsonServers in "+d.Path)
		}
		enabled(legacy("enabledMcpjsonServers"), "legacy enabledMcpjsonServers in "+w.claudeJSONPath)
		// Precedence user < project < local < managed, later documents winning
		// within a tier; the legacy key ranks with local settings, below the
		// settings.local.json files themselves.
		val, set, from := false, false, ""
		take := func(v *jsonc.Value, src string) {
			if v != nil && v.Kind == jsonc.Bool {
				val, set, from = v.Bool, true, src
			}
		}
		take(memberValue(w.userSettings.Get("enableAllProjectMcpServers")), pathOf(w.userSettings))
		take(memberValue(p.projectSettings.Get("enableAllProjectMcpServers")), pathOf(p.projectSettings))
		// The migration only carries a legacy true into settings.local.json.
		if v := p.local.Get("enableAllProjectMcpServers"); v != nil && v.Kind == jsonc.Bool && v.Bool {
			take(v, "legacy key in "+w.claudeJSONPath)
		}
		for _, d := range append(append([]*managed.Document{}, p.localSettings...), w.managedDocs...) {
			take(memberValue(d.Get("enableAllProjectMcpServers")), d.Path)
		}
		if set && val {
			a.others, a.othersWhy = approved, "enableAllProjectMcpServers in "+from
		}
		return a
	}
	untrustedDocs := append([]*managed.Document{}, w.managedDocs...)
	if w.userSettings != nil {
		untrustedDocs = append(untrustedDocs, w.userSettings)
	}
	for _, d := range untrustedDocs {
		list, _, _ := d.Strings("enabledMcpjsonServers")
		enabled(list, "enabledMcpjsonServers in "+d.Path)
	}
	// Managed documents merge into one value (a later document wins); it or the
	// user's own true approves.
	if v, set := managed.LastBool(w.managedDocs, "enableAllProjectMcpServers"); set && v {
		a.others, a.othersWhy = approved, "enableAllProjectMcpServers in managed settings"
	} else if v := memberValue(w.userSettings.Get("enableAllProjectMcpServers")); v != nil && v.Kind == jsonc.Bool && v.Bool {
		a.others, a.othersWhy = approved, "enableAllProjectMcpServers in "+w.userSettings.Path
	}
	return a
}

// of decides the approval state of the project server name.
func (a *projectApprovals) of(name string) (approval, string) {
	norm := ""
	for _, l := range a.disabled {
		for i, x := range l.names {
			if x == name {
				return rejected, l.why
			}
			if norm == "" {
				norm = normName(name)
			}
			if l.norm[i] == norm {
				return rejected, l.why
			}
		}
	}
	for _, l := range a.enabled {
		if contains(l.names, name) {
			return approved, l.why
		}
	}
	return a.others, a.othersWhy
}

// memberValue returns a member's value, or nil for a nil member.
func memberValue(m *jsonc.Member) *jsonc.Value {
	if m == nil {
		return nil
	}
	return m.Value
}

// pathOf returns a document's path, or "" for nil.
func pathOf(d *managed.Document) string {
	if d == nil {
		return ""
	}
	return d.Path
}

// isArrayIndex reports whether a property name is an integer-like key that
// JavaScript enumerates first (canonical decimal below 2^32-1).
func isArrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	// Digits by hand: strconv's error for every other name (all of them,
	// as a rule) was an allocation per server of every resolution.
	var n uint64
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
		n = n*10 + uint64(k[i]-'0')
	}
	if n > 1<<32-2 {
		return 0, false
	}
	return n, true
}

// jsOrder sorts names, given in order of first appearance, into JavaScript
// property order: integer-like keys first in ascending order, then the rest as
// they appeared (§2.3, §6.3).
func jsOrder(names []string) []string {
	var ints []string
	rest := make([]string, 0, len(names))
	for _, n := range names {
		if _, ok := isArrayIndex(n); ok {
			ints = append(ints, n)
		} else {
			rest = append(rest, n)
		}
	}
	if len(ints) == 0 {
		return rest
	}
	sort.SliceStable(ints, func(i, j int) bool {
		a, _ := isArrayIndex(ints[i])
		b, _ := isArrayIndex(ints[j])
		return a < b
	})
	return append(ints, rest...)
}

// claudeResolution is the outcome for one project: every definition with its
// status, winners in `mcp list` order.
type claudeResolution struct {
	defs    []*Server // every definition, in scope order
	winners []*Server // merged winners in JavaScript property order
	context *policyContext
}

// resolveClaude applies docs/claude-code.md §6–§7 to one project.
//
// ownOnly resolves another project of a machine scan, whose user-level servers
// the main project's resolution reports: its winners of other scopes are not
// judged, because nothing keeps their verdicts.
func (sc *scan) resolveClaude(w *claudeWorld, p *claudeProject, ownOnly bool) *claudeResolution {
	res, finish := sc.startClaude(w, p, ownOnly)
	finish()
	return res
}

// startClaude is resolveClaude up to the policy's verdicts, which it starts
// on worker goroutines. finish waits for them and completes the resolution;
// until it returns, res is not to be read, and the caller may read and
// resolve another project meanwhile (its servers are its own: the user
// entries of another project are copies, userEntries).
func (sc *scan) startClaude(w *claudeWorld, p *claudeProject, ownOnly bool) (res *claudeResolution, finish func()) {
	res = &claudeResolution{}
	add := func(s *Server, scope, ccScope string, project string) {
		s.Scope, s.Project = scope, project
		s.detail("claude_scope", ccScope)
		s.judged = true // the resolution decides every definition
		res.defs = append(res.defs, s)
	}

	// 1. Collect and validate each scope (§6.1).
	valid := func(list []*Server) []*Server {
		out := make([]*Server, 0, len(list))
		for _, s := range list {
			if s.Status == "" {
				out = append(out, s)
			}
		}
		return out
	}
	var user, local, projectDefs, managedS, enterprise []*Server
	if w.claudeJSON != nil {
		for _, s := range sc.userEntries(w, ownOnly) {
			add(s, ScopeUser, claudeScopeUser, "")
			user = append(user, s)
		}
	}
	if p.local != nil {
		base := jsonc.Pointer("projects", p.localKey) + "/mcpServers"
		for _, s := range sc.claudeEntries(w.claudeJSONPath, p.local, base) {
			add(s, ScopeLocal, claudeScopeLocal, p.dir)
			local = append(local, s)
		}
	}
	for _, f := range p.mcpFiles {
		for _, s := range sc.claudeEntries(f.path, f.root, "/mcpServers") {
			add(s, ScopeProject, claudeScopeProject, p.dir)
			projectDefs = append(projectDefs, s)
		}
	}
	for _, e := range managed.MergeNamed(w.managedDocs, "managedMcpServers") {
		s := sc.managedMcpServer(e)
		add(s, ScopeManaged, claudeScopeManaged, "")
		managedS = append(managedS, s)
	}
	exclusive := w.managed.MCP != nil
	if exclusive && w.managed.MCP.Root != nil {
		for _, s := range sc.claudeEntries(w.managed.MCP.Path, w.managed.MCP.Root, "/mcpServers") {
			add(s, ScopeManaged, claudeScopeEnterprise, "")
			enterprise = append(enterprise, s)
		}
	}

	// The maps below hold a project's hundreds of servers: made with room
	// for them, not grown (and rehashed) as they fill.
	//
	// Closer .mcp.json files override farther ones by name (§1.4).
	project := make(map[string]*Server, len(projectDefs))
	projectOrder := make([]string, 0, len(projectDefs))
	for _, s := range valid(projectDefs) {
		if prev, ok := project[s.Name]; ok {
			shadow(prev, s, "a closer .mcp.json defines the same name")
		} else {
			projectOrder = append(projectOrder, s.Name)
		}
		project[s.Name] = s
	}

	// Approval of project servers (§5.2).
	approvals := make(map[string]approval, len(projectOrder))
	projectApproval := w.approvals(p)
	for _, n := range projectOrder {
		a, why := projectApproval.of(n)
		approvals[n] = a
		project[n].detail("approval", a.String())
		if why != "" {
			project[n].detail("approval_source", why)
		}
		project[n].detail("trusted", p.trusted())
	}

	// 2. Merge (§6.2). merged maps a name to its winner; order records first
	// appearance across the assigned objects.
	all := len(user) + len(local) + len(projectOrder) + len(managedS) + len(enterprise)
	merged := make(map[string]*Server, all)
	order := make([]string, 0, all)
	assign := func(list []*Server) {
		for _, s := range list {
			if prev, ok := merged[s.Name]; ok {
				shadow(prev, s, "")
			} else {
				order = append(order, s.Name)
			}
			merged[s.Name] = s
		}
	}
	suppress := func(list []*Server, reason, why string) {
		for _, s := range list {
			s.Status = reports.StatusSuppressed
			s.Decision = reports.Decision{Reasons: []string{reason}}
			s.detail("suppressed_by", why)
		}
	}
	projectList := make([]*Server, 0, len(projectOrder))
	for _, n := range projectOrder {
		projectList = append(projectList, project[n])
	}
	if exclusive {
		suppress(valid(user), reports.ReasonExclusiveManaged, w.managed.MCP.Path)
		suppress(valid(local), reports.ReasonExclusiveManaged, w.managed.MCP.Path)
		suppress(projectList, reports.ReasonExclusiveManaged, w.managed.MCP.Path)
		assign(valid(managedS))
		assign(valid(enterprise))
	} else {
		if on, d, _ := managed.StrictPluginOnlyMCP(w.managedDocs); on {
			suppress(valid(user), reports.ReasonPluginOnly, d.Path)
			suppress(valid(local), reports.ReasonPluginOnly, d.Path)
			suppress(projectList, reports.ReasonPluginOnly, d.Path)
			user, local, projectList = nil, nil, nil
		}
		names := func(list []*Server) map[string]bool {
			m := make(map[string]bool, len(list))
			for _, s := range valid(list) {
				m[s.Name] = true
			}
			return m
		}
		userN, localN, managedN := names(user), names(local), names(managedS)
		var kept []*Server
		for _, s := range projectList {
			if a := approvals[s.Name]; a != approved && (userN[s.Name] || localN[s.Name] || managedN[s.Name]) {
				// An unapproved project server never shadows another scope.
				s.Status = reports.StatusShadowed
				s.detail("shadowed_because", "the project server is "+a.String()+" and yields to another scope")
				continue
			}
			kept = append(kept, s)
		}
		assign(valid(user))
		assign(kept)
		assign(valid(local))
		assign(valid(managedS))
	}

	// 3. Judge each winner and set its status (§7.5).
	res.context = sc.claudeContext(w, p)
	disabled, _ := p.local.Get("disabledMcpServers").StringSlice()
	for _, n := range jsOrder(order) {
		res.winners = append(res.winners, merged[n])
	}
	judged := res.winners
	if ownOnly {
		// Another project's resolution keeps only its own servers: the
		// user and managed winners it shares with the main project are
		// the main project's to expand and judge.
		judged = nil
		for _, s := range res.winners {
			if s.Project == p.dir {
				judged = append(judged, s)
			}
		}
	}
	for _, s := range judged {
		sc.expandServer(s, w.serverEnv)
		s.Expanded.ClientEnv = w.clientEnv
	}
	// The status without policy first: rules read it (a pending project
	// server still loads in headless runs, and the findings say so).
	for _, s := range judged {
		switch n := s.Name; {
		case s.Scope == ScopeProject && approvals[n] == rejected:
			s.Status = reports.StatusRejected
		case s.Scope == ScopeProject && approvals[n] == pending:
			s.Status = reports.StatusPendingApproval
		case contains(disabled, n):
			s.Status = reports.StatusDisabled
		default:
			s.Status = reports.StatusActive
		}
	}
	// The rest waits for the verdicts (finish).
	batch := sc.startPolicy(judged, func(*Server) *policyContext { return res.context })
	return res, func() {
		decisions := batch.wait()
		for i, s := range judged {
			s.Decision = decisions[i].Decision
			s.judged = true
			if decisions[i].claudeDenies {
				s.Status = reports.StatusBlocked
			}
			if len(s.Expanded.Missing) > 0 {
				sc.unsetVars(s, s.Expanded.Missing, missingVarsMessage(s.Name, s.Expanded.Missing),
					map[string]any{"variables": s.Expanded.Missing})
			}
		}
		if !ownOnly {
			sc.resolvePlugins(w, p, res, exclusive, disabled)
		} else {
			sc.resolveProjectPlugins(w, p, res, exclusive, disabled)
		}

		// Definitions that never became winners or were suppressed are shadowed.
		for _, s := range res.defs {
			if s.Status == "" {
				s.Status = reports.StatusShadowed
			}
			if s.Status == reports.StatusShadowed {
				if win := merged[s.Name]; win != nil && win != s {
					s.detail("shadowed_by", win.Scope)
					if win.Status == reports.StatusBlocked {
						s.detail("shadowed_because", "the winning definition is blocked by policy; Claude Code does not fall back to this one")
					}
				}
			}
		}
	}
}

// userEntries are the user-scope definitions of ~/.claude.json for one
// resolution. A resolution whose servers are kept parses them; another
// project's (ownOnly) needs them only to merge its own servers with, and
// drops them after: it gets copies of them as first parsed, so that a
// machine of many projects parses each user server once, not once per
// project. A copy has no details and no
// findings of its own, so that nothing it records reaches the servers
// that are kept.
func (sc *scan) userEntries(w *claudeWorld, ownOnly bool) []*Server {
	if ownOnly && w.userParsed != nil {
		copies := slices.Clone(w.userParsed)
		out := make([]*Server, len(copies))
		for i := range copies {
			copies[i].unrecorded = true
			out[i] = &copies[i]
		}
		return out
	}
	list := sc.claudeEntries(w.claudeJSONPath, w.claudeJSON, "/mcpServers")
	if w.userParsed == nil {
		w.userParsed = make([]Server, len(list))
		for i, s := range list {
			c := *s
			c.Details, c.pendingFindings = nil, nil
			w.userParsed[i] = c
		}
	}
	return list
}

// shadow marks prev as shadowed by next.
func shadow(prev, next *Server, why string) {
	prev.Status = reports.StatusShadowed
	if why != "" {
		prev.detail("shadowed_because", why)
	}
}

// claudeEntries parses the object at container[key] of a Claude Code file.
// Invalid entries and reserved names get their status and a C006 finding.
func (sc *scan) claudeEntries(path string, container *jsonc.Value, pointer string) []*Server {
	key := pointer[strings.LastIndexByte(pointer, '/')+1:]
	m := container.Member(key)
	if m == nil {
		sc.missingServersKey(path, container, pointer, key)
		return nil
	}
	if m.Value.Kind != jsonc.Object {
		sc.fileFinding("MCPG-C006", cfgfile.Loc(path, pointer, m.KeyPos),
			fmt.Sprintf("%q must be an object of named servers, not %s; Claude Code loads nothing from it", key, m.Value.Kind), key)
		return nil
	}
	if sc.tooManyServers(path, pointer, m) {
		return nil
	}
	var out []*Server
	for i := range m.Value.Members {
		mem := &m.Value.Members[i]
		s, invalid := sc.parseClaudeEntry(path, pointer+"/"+jsonc.PointerToken(mem.Key), mem)
		switch {
		case s.refused:
		case invalid != "":
			s.Status = reports.StatusInvalid
			s.Decision = reports.Decision{Reasons: []string{reports.ReasonInvalid}}
			s.detail("invalid", invalid)
			sc.finding(s, "MCPG-C006", fmt.Sprintf("Claude Code skips server %q: %s", s.Name, invalid), map[string]any{"problem": invalid})
		case isReserved(s.Name):
			s.Status = reports.StatusSuppressed
			s.Decision = reports.Decision{Reasons: []string{reports.ReasonReservedName}}
			sc.finding(s, "MCPG-C006", fmt.Sprintf("%q is a reserved MCP server name; Claude Code does not load it", s.Name), map[string]any{"problem": "reserved name"})
		case s.warning != "":
			sc.finding(s, "MCPG-C006", fmt.Sprintf("server %q: %s", s.Name, s.warning), map[string]any{"problem": s.warning})
		}
		out = append(out, s)
	}
	return out
}

// missingServersKey reports a Claude Code file whose server key is absent:
// a .mcp.json (or managed-mcp.json) without "mcpServers" is an error in Claude
// Code's diagnostics, and a near-miss spelling such as "servers" or
// "MCPSERVERS" is a common mistake anywhere.
func (sc *scan) missingServersKey(path string, container *jsonc.Value, pointer, key string) {
	if pointer != "/"+key || container.Kind != jsonc.Object {
		return // local-scope objects and settings need no server key
	}
	for _, m := range container.Members {
		if m.Key != key && (strings.EqualFold(m.Key, key) || m.Key == "servers" || m.Key == "context_servers") {
			sc.fileFindingEvidence("MCPG-C006", cfgfile.Loc(path, jsonc.Pointer(m.Key), m.KeyPos),
				fmt.Sprintf("%q is not read: Claude Code only reads %q (keys are case-sensitive)", m.Key, key),
				map[string]any{"problem": "misspelled key", "key": m.Key}, m.Key)
			return
		}
	}
	if filepath.Base(path) != ".claude.json" {
		sc.fileFindingEvidence("MCPG-C006", cfgfile.Loc(path, "", container.Pos),
			fmt.Sprintf("no %q key: Claude Code reports the file as invalid and loads nothing from it", key),
			map[string]any{"problem": "missing key", "key": key}, key)
	}
}

// managedMcpServer parses one managedMcpServers entry (§4.4): only http and sse
// entries without ${ in the url or a header value are accepted.
func (sc *scan) managedMcpServer(e managed.NamedEntry) *Server {
	pointer := "/managedMcpServers/" + jsonc.PointerToken(e.Name)
	s, invalid := sc.parseClaudeEntry(e.Doc.Path, pointer, e.Member)
	if s.refused {
		return s
	}
	if invalid == "" {
		switch {
		case s.Transport != TransportHTTP && s.Transport != TransportSSE:
			invalid = "managedMcpServers accepts only http and sse servers"
		case strings.Contains(s.URL, "${"):
			invalid = "managedMcpServers entries are never expanded; a url with ${ is dropped"
		case !managed.ValidAllowName(s.Name):
			invalid = "managedMcpServers names must match [A-Za-z0-9_-]"
		case strings.HasPrefix(strings.ToLower(s.URL), "http://"):
			invalid = "managedMcpServers refuses http:// URLs"
		case e.Member.Value.Get("command") != nil, e.Member.Value.Get("headersHelper") != nil:
			invalid = "managedMcpServers entries take no command or headersHelper"
		}
		for _, k := range s.HeaderKeys {
			if invalid == "" && strings.Contains(s.Headers[k], "${") {
				invalid = "managedMcpServers entries are never expanded; a header value with ${ is dropped"
			}
		}
	}
	if invalid != "" {
		s.Status = reports.StatusInvalid
		s.Decision = reports.Decision{Reasons: []string{reports.ReasonInvalid}}
		s.detail("invalid", invalid)
		sc.finding(s, "MCPG-C006", fmt.Sprintf("Claude Code drops managedMcpServers entry %q: %s", s.Name, invalid), map[string]any{"problem": invalid})
	}
	return s
}

// missingVarsMessage is C007's message for a Claude Code server: server
// %q references ${A}, ${B}, which have no value and no default. Written
// in one buffer, one allocation a finding rather than one for each quoted
// name and their join: a machine can have thousands of these.
func missingVarsMessage(name string, missing []string) string {
	b := make([]byte, 0, 128+len(name)+16*len(missing))
	b = append(b, "server "...)
	b = strconv.AppendQuote(b, name)
	b = append(b, " references "...)
	for i, v := range missing {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(append(append(b, "${"...), v...), '}')
	}
	b = append(b, ", which "...)
	b = append(b, plural(len(missing), "has", "have")...)
	b = append(b, " no value and no default; Claude Code keeps the literal text"...)
	return string(b)
}

func quoteAll(list []string, pre, post string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = pre + s + post
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// mcpJSONChain lists the .mcp.json files Claude Code reads for a project: the
// project folder and every parent up to, but not including, the filesystem
// root (§1.4), farthest first.
func mcpJSONChain(dir string) []string {
	var chain []string
	for d := filepath.Clean(dir); ; {
		parent := filepath.Dir(d)
		if parent == d { // d is the root: never read
			break
		}
		chain = append(chain, filepath.Join(d, ".mcp.json"))
		d = parent
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain
}
