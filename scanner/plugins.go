package scanner

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/reports"
)

// plugin is one installed Claude Code plugin, with the install record
// chosen for the project being resolved.
type plugin struct {
	id   string // "<plugin>@<marketplace>"
	name string
	root string // installPath of the chosen record
}

// installedPlugin is a plugin of installed_plugins.json whose marketplace is
// known and lists it, with all of its install records in file order.
type installedPlugin struct {
	id, name, marketplace string
	records               []installRecord
	source                *mktSource // the marketplace's source in known_marketplaces.json, nil when it has none
	loc                   reports.Location
	// unloadable says why Claude Code loads nothing of the plugin (its
	// marketplace is unknown or does not list it); "" when it can load.
	unloadable string
}

// installRecord is one installation of a plugin: version 2 of
// installed_plugins.json holds a list of them (one per scope and project).
type installRecord struct {
	scope       string // managed, user, project, local; "user" for version 1
	projectPath string
	root        string // installPath
}

// recordScopes are the scopes a version 2 record may have.
var recordScopes = []string{"managed", "user", "project", "local"}

// pluginID is Claude Code's "plugin@marketplace" key.
var pluginID = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)

// installedPlugins reads the plugins Claude Code can load: an entry in
// installed_plugins.json whose marketplace is known (known_marketplaces.json)
// and lists the plugin in its marketplace.json. Observed with the CLI: all
// three are needed, and nothing loads otherwise. A record that is malformed
// (not an object, no installPath, an unknown scope) makes Claude Code drop
// the whole file: that is an error here too, and no plugin loads.
func (sc *scan) installedPlugins(w *claudeWorld) []*installedPlugin {
	if w.configDir == "" {
		return nil
	}
	dir := filepath.Join(w.configDir, "plugins")
	path := filepath.Join(dir, "installed_plugins.json")
	installed := sc.readParsedJSON(path, "plugins")
	if installed == nil {
		return nil
	}
	known := sc.readParsedJSON(filepath.Join(dir, "known_marketplaces.json"), "plugins")
	fail := func(pos jsonc.Pos, msg string) []*installedPlugin {
		sc.fileError(reports.FileError{Path: path, Line: pos.Line, Column: pos.Col,
			Message: msg + "; Claude Code then loads no plugin from this file"})
		return nil
	}
	version := installed.Get("version")
	v := 0.0
	if version != nil && version.Kind == jsonc.Number {
		v, _ = strconv.ParseFloat(version.Str, 64)
	}
	v2 := v == 2
	if !v2 && v != 1 {
		pos := installed.Pos
		if version != nil {
			pos = version.Pos
		}
		return fail(pos, `"version" must be 1 or 2`)
	}
	plugins := installed.Member("plugins")
	if plugins == nil || plugins.Value.Kind != jsonc.Object {
		pos := installed.Pos
		if plugins != nil {
			pos = plugins.Value.Pos
		}
		return fail(pos, `"plugins" must be an object`)
	}
	var out []*installedPlugin
	for _, m := range plugins.Value.Members {
		if !pluginID.MatchString(m.Key) {
			sc.fileError(reports.FileError{Path: path, Line: m.KeyPos.Line, Column: m.KeyPos.Col,
				Message: fmt.Sprintf("plugin id %q is not plugin@marketplace; Claude Code skips it", m.Key)})
			continue
		}
		name, mkt, _ := strings.Cut(m.Key, "@")
		var records []installRecord
		if v2 {
			if m.Value.Kind != jsonc.Array {
				return fail(m.Value.Pos, fmt.Sprintf("the records of %q must be an array", m.Key))
			}
			for i, e := range m.Value.Elems {
				r, why := parseRecord(e, true)
				if why != "" {
					return fail(e.Pos, fmt.Sprintf("record %d of %q is malformed: %s", i, m.Key, why))
				}
				records = append(records, r)
			}
		} else {
			r, why := parseRecord(m.Value, false)
			if why != "" {
				return fail(m.Value.Pos, fmt.Sprintf("the record of %q is malformed: %s", m.Key, why))
			}
			records = append(records, r)
		}
		entry := known.Get(mkt)
		ip := &installedPlugin{id: m.Key, name: name, marketplace: mkt, records: records,
			loc: cfgfile.Loc(path, jsonc.Pointer("plugins", m.Key), m.KeyPos)}
		if why := marketplaceLists(sc, entry, mkt, name); why != "" {
			// Claude Code loads nothing of it; an enabled one is reported
			// (resolvePlugins), so that nothing goes missing silently.
			ip.unloadable = why
		}
		ip.source, _ = parseMktSource(entry.Get("source"))
		out = append(out, ip)
	}
	return out
}

// parseRecord validates one install record against Claude Code's schema:
// version 2 needs scope and installPath, version 1 version, installedAt
// and installPath; the other fields Claude Code knows must be strings.
func parseRecord(v *jsonc.Value, v2 bool) (installRecord, string) {
	if v == nil || v.Kind != jsonc.Object {
		return installRecord{}, "not an object"
	}
	required := []string{"installPath", "version", "installedAt"}
	optional := []string{"lastUpdated", "gitCommitSha", "resolvedVersion"}
	if v2 {
		required = []string{"scope", "installPath"}
		optional = append(optional, "projectPath", "version", "installedAt")
	}
	for _, k := range required {
		if f := v.Get(k); f == nil || f.Kind != jsonc.String {
			return installRecord{}, fmt.Sprintf("no %q string", k)
		}
	}
	for _, k := range optional {
		if f := v.Get(k); f != nil && f.Kind != jsonc.String {
			return installRecord{}, fmt.Sprintf("%q is %s, not a string", k, f.Kind)
		}
	}
	if f := v.Get("auto"); f != nil && f.Kind != jsonc.Bool {
		return installRecord{}, fmt.Sprintf(`"auto" is %s, not a boolean`, f.Kind)
	}
	r := installRecord{scope: "user", root: v.Get("installPath").Str}
	if v2 {
		r.scope = v.Get("scope").Str
		if !slices.Contains(recordScopes, r.scope) {
			return installRecord{}, fmt.Sprintf("scope %q is not one of %s", r.scope, strings.Join(recordScopes, ", "))
		}
		if p := v.Get("projectPath"); p != nil {
			r.projectPath = p.Str
		}
	}
	return r, ""
}

// readParsedJSON reads a Claude Code plugin file as Claude Code does, with
// JSON.parse: a leading byte order mark, which JSON.parse refuses, makes
// the file malformed (an error at 1:1) like any other syntax error.
func (sc *scan) readParsedJSON(path, kind string) *jsonc.Value {
	return sc.readConfig(path, ClientClaudeCode, kind, ScopePlugin, func(data []byte) (*jsonc.Value, []reports.FileError) {
		if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
			return nil, []reports.FileError{{Path: path, Line: 1, Column: 1,
				Message: "invalid JSON: the file starts with a byte order mark, which Claude Code's JSON.parse refuses; Claude Code then loads no plugin from it"}}
		}
		root, errs := cfgfile.ParseJSON(path, data, false)
		sc.duplicateKeys(path, root)
		if root != nil && root.Kind != jsonc.Object {
			errs = append(errs, reports.FileError{Path: path, Line: root.Pos.Line, Column: root.Pos.Col, Message: "must hold a JSON object, not " + root.Kind.String()})
			root = nil
		}
		return root, errs
	})
}

// selectRecord picks the record Claude Code loads a plugin from in project
// dir (observed): the first whose scope is user or managed, or whose
// projectPath is dir or shares dir's git root. ok is false when none
// applies: the plugin is installed only for other projects.
func (sc *scan) selectRecord(ip *installedPlugin, dir string) (installRecord, bool) {
	gitRoot := ""
	if dir != "" {
		gitRoot = sc.gitRoot(dir)
	}
	for _, r := range ip.records {
		switch {
		case r.scope == "user" || r.scope == "managed":
			return r, true
		case r.projectPath == "" || dir == "" || !filepath.IsAbs(r.projectPath):
		case r.projectPath == dir:
			// The exact string: Claude Code 2.1.332 loads nothing for a
			// projectPath spelled with a trailing "/", "/.", ".." or "//"
			// (recorded with the oracle).
			return r, true
		case gitRoot != "" && sc.gitRoot(r.projectPath) == gitRoot:
			return r, true
		}
	}
	return installRecord{}, false
}

// marketplaceLists says why a known marketplace's marketplace.json does
// not list the plugin ("" when it does). A marketplace entry or file of the
// wrong shape is an error at the offending value.
func marketplaceLists(sc *scan, mkt *jsonc.Value, mktName, name string) string {
	if mkt == nil {
		return fmt.Sprintf("marketplace %q is not in known_marketplaces.json", mktName)
	}
	loc := mkt.Get("installLocation")
	if !loc.IsString() {
		sc.fileError(reports.FileError{Path: filepath.Join(sc.claudeConfigDir(), "plugins", "known_marketplaces.json"), Line: mkt.Pos.Line, Column: mkt.Pos.Col,
			Message: fmt.Sprintf("marketplace %q has no \"installLocation\" string; Claude Code loads none of its plugins", mktName)})
		return fmt.Sprintf("marketplace %q has no install location", mktName)
	}
	path := filepath.Join(loc.Str, ".claude-plugin", "marketplace.json")
	doc := sc.readJSON(path, ClientClaudeCode, "plugin-marketplace", ScopePlugin, false)
	if doc == nil {
		return fmt.Sprintf("marketplace %q has no readable %s", mktName, path)
	}
	list := doc.Get("plugins")
	if list == nil || list.Kind != jsonc.Array {
		pos := doc.Pos
		if list != nil {
			pos = list.Pos
		}
		sc.fileError(reports.FileError{Path: path, Line: pos.Line, Column: pos.Col,
			Message: "\"plugins\" must be an array; Claude Code loads no plugin of this marketplace"})
		return fmt.Sprintf("marketplace %q lists no plugins", mktName)
	}
	for _, p := range list.Elems {
		if n := p.Get("name"); n.IsString() && n.Str == name {
			return ""
		}
	}
	return fmt.Sprintf("marketplace %q does not list %q", mktName, name)
}

// enabledPlugins lists the plugins enabledPlugins turns on for a project,
// in the key order of the merged setting (observed: Claude Code lists
// plugins in that order, not in installed_plugins.json's). The value is
// the one from the highest of managed > local > project > user that sets it
// (observed: managed beats a user false, and a repository's
// .claude/settings.json enables a plugin even in an untrusted folder); the
// keys are ordered by first appearance from user up to managed.
func enabledPlugins(w *claudeWorld, p *claudeProject) []string {
	docs := append([]*managed.Document{w.userSettings, p.projectSettings}, p.localSettings...)
	docs = append(docs, w.managedDocs...)
	on := map[string]bool{}
	var order []string
	for _, d := range docs {
		m := memberValue(d.Get("enabledPlugins"))
		if m == nil || m.Kind != jsonc.Object {
			continue
		}
		for _, e := range m.Members {
			if e.Value.Kind != jsonc.Bool {
				continue
			}
			if _, seen := on[e.Key]; !seen {
				order = append(order, e.Key)
			}
			on[e.Key] = e.Value.Bool
		}
	}
	out := order[:0]
	for _, id := range order {
		if on[id] {
			out = append(out, id)
		}
	}
	return out
}

// serverSource is an object of named servers inside a plugin file.
type serverSource struct {
	path, pointer string
	servers       *jsonc.Member
}

// pluginServers returns every server definition of one enabled plugin: its
// .mcp.json entries first, then plugin.json "mcpServers" (an object, a path to
// a JSON file, or an array of both), plugin.json winning a shared name. The
// winners come first, in listing order, then the shadowed definitions.
func (sc *scan) pluginServers(pl plugin) []*Server {
	var mcpFile, manifest []serverSource
	if root := sc.readJSON(filepath.Join(pl.root, ".mcp.json"), ClientClaudeCode, "mcp-config", ScopePlugin, false); root != nil {
		if m := root.Member("mcpServers"); m != nil {
			mcpFile = append(mcpFile, serverSource{filepath.Join(pl.root, ".mcp.json"), "/mcpServers", m})
		}
	}
	manifestPath := filepath.Join(pl.root, ".claude-plugin", "plugin.json")
	if root := sc.readJSON(manifestPath, ClientClaudeCode, "plugin-manifest", ScopePlugin, false); root != nil {
		if m := root.Member("mcpServers"); m != nil {
			manifest = sc.manifestSources(pl, manifestPath, m)
		}
	}
	byName := map[string]*Server{}
	var order []string
	var all, manifestServers []*Server
	manifestInvalid := ""
	collect := func(list []serverSource, fromManifest bool) {
		for _, src := range list {
			if src.servers.Value.Kind != jsonc.Object {
				continue
			}
			for i := range src.servers.Value.Members {
				mem := &src.servers.Value.Members[i]
				s, invalid := sc.parseClaudeEntry(src.path, src.pointer+"/"+jsonc.PointerToken(mem.Key), mem)
				s.Name = "plugin:" + pl.name + ":" + mem.Key
				s.detail("plugin", pl.id)
				if invalid != "" && !s.refused {
					sc.markInvalid(s, invalid)
					if fromManifest && manifestInvalid == "" {
						manifestInvalid = mem.Key
					}
				}
				all = append(all, s)
				if fromManifest {
					manifestServers = append(manifestServers, s)
				}
				if prev, ok := byName[s.Name]; ok {
					shadow(prev, s, "the plugin's plugin.json defines the same name")
				} else {
					order = append(order, s.Name)
				}
				byName[s.Name] = s
			}
		}
	}
	collect(mcpFile, false)
	collect(manifest, true)
	if manifestInvalid != "" {
		// Observed: one invalid entry in plugin.json drops every server it declares.
		for _, s := range manifestServers {
			if s.Status == "" {
				sc.markInvalid(s, fmt.Sprintf("entry %q of the same plugin.json is invalid, and Claude Code then drops every server the file declares", manifestInvalid))
			}
		}
	}
	out := make([]*Server, 0, len(all))
	for _, n := range order {
		out = append(out, byName[n])
	}
	for _, s := range all {
		if byName[s.Name] != s {
			out = append(out, s)
		}
	}
	return out
}

// markInvalid records that Claude Code skips a plugin server.
func (sc *scan) markInvalid(s *Server, why string) {
	s.Status = reports.StatusInvalid
	s.Decision = reports.Decision{Reasons: []string{reports.ReasonInvalid}}
	s.detail("invalid", why)
	sc.finding(s, "MCPG-C006", fmt.Sprintf("Claude Code skips plugin server %q: %s", s.Name, why), map[string]any{"problem": why})
}

// manifestSources resolves plugin.json "mcpServers": an object of servers, a
// path (relative to the plugin root) to a JSON file of servers, or an array of
// paths and objects, read in order. .mcpb bundles cannot be read statically.
func (sc *scan) manifestSources(pl plugin, manifestPath string, m *jsonc.Member) []serverSource {
	var out []serverSource
	add := func(v *jsonc.Value, pointer string) {
		switch v.Kind {
		case jsonc.Object:
			out = append(out, serverSource{manifestPath, pointer, &jsonc.Member{Key: "mcpServers", Value: v}})
		case jsonc.String:
			if strings.HasSuffix(v.Str, ".mcpb") {
				return
			}
			path := filepath.Join(pl.root, filepath.FromSlash(v.Str))
			root := sc.readJSON(path, ClientClaudeCode, "mcp-config", ScopePlugin, false)
			if inner := root.Member("mcpServers"); inner != nil {
				out = append(out, serverSource{path, "/mcpServers", inner})
			} else if root != nil {
				out = append(out, serverSource{path, "", &jsonc.Member{Value: root}})
			}
		}
	}
	if m.Value.Kind == jsonc.Array {
		for i, e := range m.Value.Elems {
			add(e, fmt.Sprintf("/mcpServers/%d", i))
		}
	} else {
		add(m.Value, "/mcpServers")
	}
	return out
}

// pluginEndpoint is the signature Claude Code deduplicates plugin servers by:
// the expanded command line or URL (env does not count).
func pluginEndpoint(s *Server) string {
	if s.Expanded == nil {
		return ""
	}
	if s.Transport == TransportStdio {
		return "stdio:" + strings.Join(append([]string{s.Expanded.Command}, s.Expanded.Args...), "\x00")
	}
	return "url:" + s.Expanded.URL
}

// pluginLookup layers ${CLAUDE_PLUGIN_ROOT} over the server environment.
func pluginLookup(w *claudeWorld, pl plugin) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if name == "CLAUDE_PLUGIN_ROOT" {
			return pl.root, true
		}
		return w.serverEnv(name)
	}
}

// resolvePlugins adds the servers of the plugins enabled for project p to a
// resolution. Observed with the CLI: plugins are taken in enabledPlugins key
// order, each from its first install record that applies to the project; a
// plugin whose marketplace the managed marketplace policy blocks loads
// nothing; plugin servers are listed first, are not exempt from the
// allowlist, survive strictPluginOnlyCustomization, are suppressed by
// managed-mcp.json, obey disabledMcpServers (a disabled one is listed after
// the other plugin servers), and are dropped when an active manual server
// (or an earlier plugin's server) has the same endpoint — but not for a
// pending, blocked or disabled manual server.
func (sc *scan) resolvePlugins(w *claudeWorld, p *claudeProject, res *claudeResolution, exclusive bool, disabled []string) {
	manual := map[string]bool{}
	w.mainUserEndpoints = map[string]bool{}
	for _, s := range res.winners {
		if s.Status == reports.StatusActive {
			manual[pluginEndpoint(s)] = true
			if s.Scope == ScopeUser {
				w.mainUserEndpoints[pluginEndpoint(s)] = true
			}
		}
	}
	res.winners = append(sc.pluginWinners(w, p, res, exclusive, disabled, manual, nil), res.winners...)
}

// resolveProjectPlugins adds, for another project of a machine scan, the
// servers of the plugins installed for that project alone (a local or
// project record that does not apply to the main project): they load there
// and nowhere else, so they are reported with that project. They are
// deduplicated against the project's own active servers and the main
// project's active user servers (the user servers of another project are
// judged once, for the main one).
func (sc *scan) resolveProjectPlugins(w *claudeWorld, p *claudeProject, res *claudeResolution, exclusive bool, disabled []string) {
	if p.dir == "" || p.dir == w.mainDir {
		return
	}
	manual := map[string]bool{}
	for k := range w.mainUserEndpoints {
		manual[k] = true
	}
	for _, s := range res.winners {
		if s.Status == reports.StatusActive && s.Project == p.dir {
			manual[pluginEndpoint(s)] = true
		}
	}
	only := func(ip *installedPlugin) bool {
		_, inMain := sc.selectRecord(ip, w.mainDir)
		return !inMain
	}
	sc.pluginWinners(w, p, res, exclusive, disabled, manual, only)
}

// pluginWinners resolves the plugins enabled for project p (those only
// selects, when it is set) and returns their servers in `claude mcp list`
// order; every definition is added to res.defs.
func (sc *scan) pluginWinners(w *claudeWorld, p *claudeProject, res *claudeResolution, exclusive bool, disabled []string, manual map[string]bool, only func(*installedPlugin) bool) []*Server {
	project := ""
	if only != nil {
		project = p.dir
	}
	byID := make(map[string]*installedPlugin, len(w.installed))
	for _, ip := range w.installed {
		byID[ip.id] = ip
	}
	seen := map[string]bool{}
	var winners, disabledWinners []*Server
	for _, id := range enabledPlugins(w, p) {
		ip := byID[id]
		if ip == nil || only != nil && !only(ip) {
			continue
		}
		if ip.unloadable != "" {
			sc.fileFindingEvidence("MCPG-C006", ip.loc, fmt.Sprintf("enabled plugin %q loads nothing in Claude Code: %s", id, ip.unloadable),
				map[string]any{"problem": "plugin not loadable", "plugin": id}, "plugin", id)
			continue
		}
		rec, ok := sc.selectRecord(ip, p.dir)
		if !ok {
			continue // installed only for other projects
		}
		pl := plugin{id: ip.id, name: ip.name, root: rec.root}
		verdict := w.marketplaces.decide(ip.source)
		for _, s := range sc.pluginServers(pl) {
			s.Scope, s.Project = ScopePlugin, project
			s.detail("claude_scope", claudeScopePlugin)
			s.detail("install_scope", rec.scope)
			if rec.projectPath != "" {
				s.detail("install_project", rec.projectPath)
			}
			s.judged = true
			res.defs = append(res.defs, s)
			if s.Status != "" {
				continue // invalid, or shadowed inside the plugin
			}
			if verdict.reason != "" {
				sc.marketplaceBlocked(s, ip, verdict)
				winners = append(winners, s)
				continue
			}
			if exclusive {
				s.Status = reports.StatusSuppressed
				s.Decision = reports.Decision{Reasons: []string{reports.ReasonExclusiveManaged}}
				s.detail("suppressed_by", w.managed.MCP.Path)
				continue
			}
			sc.expandServer(s, pluginLookup(w, pl))
			s.Expanded.ClientEnv = w.clientEnv
			v := sc.applyPolicy(s, res.context, nil)
			s.Decision = v.Decision
			endpoint := pluginEndpoint(s)
			switch {
			case v.claudeDenies:
				s.Status = reports.StatusBlocked
			case contains(disabled, s.Name):
				s.Status = reports.StatusDisabled
				disabledWinners = append(disabledWinners, s)
				continue
			case manual[endpoint] || seen[endpoint]:
				s.Status = reports.StatusSuppressed
				if v.Allowed {
					s.Decision = reports.Decision{Allowed: true, Reasons: []string{reports.ReasonDuplicate}}
				}
				s.detail("suppressed_by", "another server with the same command or URL")
			default:
				s.Status = reports.StatusActive
				seen[endpoint] = true
			}
			winners = append(winners, s)
		}
	}
	return append(winners, disabledWinners...)
}

// marketplaceBlocked records that the managed marketplace policy keeps a
// plugin server from loading: status blocked, the reason, and the blocking
// entry (or the strictKnownMarketplaces key) as the decision's source, with
// an MCPG-P001 (blockedMarketplaces) or MCPG-P002 (strictKnownMarketplaces)
// finding there.
func (sc *scan) marketplaceBlocked(s *Server, ip *installedPlugin, v marketplaceVerdict) {
	s.Status = reports.StatusBlocked
	s.Decision = reports.Decision{Reasons: []string{v.reason}}
	src := "none"
	if ip.source != nil {
		src = ip.source.String()
	}
	policy := locMap(v.loc)
	rule, key := "MCPG-P002", keyStrictMarketplaces
	msg := fmt.Sprintf("Claude Code does not load plugin server %q: managed strictKnownMarketplaces does not list its marketplace %q (source %s)", s.Name, ip.marketplace, src)
	if ip.source == nil {
		msg = fmt.Sprintf("Claude Code does not load plugin server %q: its marketplace %q has no source in known_marketplaces.json, so the managed marketplace policy keeps it off", s.Name, ip.marketplace)
	}
	if v.reason == reports.ReasonMarketplaceBlocked {
		rule, key = "MCPG-P001", keyBlockedMarketplaces
		policy["entry"] = v.entry.raw
		msg = fmt.Sprintf("Claude Code does not load plugin server %q: its marketplace %q (source %s) matches managed blockedMarketplaces entry %s", s.Name, ip.marketplace, src, v.entry.raw)
	}
	policy["key"] = key
	s.detail("marketplace", ip.marketplace)
	s.detail("marketplace_source", src)
	s.detail("marketplace_policy", policy)
	loc := v.loc
	s.pendingFindings = append(s.pendingFindings, pendingFinding{rule: rule, message: msg, loc: &loc,
		evidence: map[string]any{"marketplace": ip.marketplace, "marketplace_source": src, "policy": policy}})
}
