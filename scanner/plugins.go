package scanner

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/reports"
)

// plugin is one installed Claude Code plugin.
type plugin struct {
	id          string // "<plugin>@<marketplace>"
	name        string
	marketplace string
	root        string // installPath
}

// installedPlugins reads the plugins Claude Code would load from: an entry in
// installed_plugins.json whose marketplace is known (known_marketplaces.json)
// and lists the plugin in its marketplace.json. Observed with the CLI: all three
// are needed, and nothing loads otherwise.
func (sc *scan) installedPlugins(w *claudeWorld) []plugin {
	if w.configDir == "" {
		return nil
	}
	dir := filepath.Join(w.configDir, "plugins")
	installed := sc.readJSON(filepath.Join(dir, "installed_plugins.json"), ClientClaudeCode, "plugins", ScopePlugin, false)
	if installed == nil {
		return nil
	}
	known := sc.readJSON(filepath.Join(dir, "known_marketplaces.json"), ClientClaudeCode, "plugins", ScopePlugin, false)
	plugins := installed.Get("plugins")
	if plugins == nil || plugins.Kind != jsonc.Object {
		return nil
	}
	var out []plugin
	for _, m := range plugins.Members {
		name, mkt, ok := strings.Cut(m.Key, "@")
		if !ok {
			continue
		}
		// Version 2 holds a list of installations (one per scope); version 1 an object.
		inst := m.Value
		if inst.Kind == jsonc.Array {
			if len(inst.Elems) == 0 {
				continue
			}
			inst = inst.Elems[0]
		}
		root := inst.Get("installPath")
		if !root.IsString() || root.Str == "" {
			continue
		}
		if !marketplaceLists(sc, known.Get(mkt), name) {
			continue
		}
		out = append(out, plugin{id: m.Key, name: name, marketplace: mkt, root: root.Str})
	}
	return out
}

// marketplaceLists reports whether a known marketplace's marketplace.json
// lists the plugin.
func marketplaceLists(sc *scan, mkt *jsonc.Value, name string) bool {
	loc := mkt.Get("installLocation")
	if !loc.IsString() {
		return false
	}
	path := filepath.Join(loc.Str, ".claude-plugin", "marketplace.json")
	doc := sc.readJSON(path, ClientClaudeCode, "plugin-marketplace", ScopePlugin, false)
	list := doc.Get("plugins")
	if list == nil || list.Kind != jsonc.Array {
		return false
	}
	for _, p := range list.Elems {
		if n := p.Get("name"); n.IsString() && n.Str == name {
			return true
		}
	}
	return false
}

// enabledPlugin says whether enabledPlugins turns a plugin on for a project:
// the value from the highest of managed > local > project > user that sets it
// (observed: managed beats a user false, and a repository's
// .claude/settings.json enables a plugin even in an untrusted folder).
func enabledPlugin(w *claudeWorld, p *claudeProject, id string) bool {
	on := false
	docs := append([]*managed.Document{w.userSettings, p.projectSettings}, p.localSettings...)
	docs = append(docs, w.managedDocs...)
	for _, d := range docs {
		if v := memberValue(d.Get("enabledPlugins")).Get(id); v != nil && v.Kind == jsonc.Bool {
			on = v.Bool
		}
	}
	return on
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
// resolution. Observed with the CLI: plugin servers are listed first, are not
// exempt from the allowlist, survive strictPluginOnlyCustomization, are
// suppressed by managed-mcp.json, obey disabledMcpServers, and are dropped when
// an active manual server (or an earlier plugin's server) has the same
// endpoint — but not for a pending, blocked or disabled manual server.
func (sc *scan) resolvePlugins(w *claudeWorld, p *claudeProject, res *claudeResolution, exclusive bool, disabled []string) {
	manual := map[string]bool{}
	for _, s := range res.winners {
		if s.Status == reports.StatusActive {
			manual[pluginEndpoint(s)] = true
		}
	}
	seen := map[string]bool{}
	var winners []*Server
	for _, pl := range w.plugins {
		if !enabledPlugin(w, p, pl.id) {
			continue
		}
		servers := sc.pluginServers(pl)
		for _, s := range servers {
			s.Scope, s.Project = ScopePlugin, ""
			s.detail("claude_scope", claudeScopePlugin)
			s.judged = true
			res.defs = append(res.defs, s)
			if s.Status != "" {
				continue // invalid, or shadowed inside the plugin
			}
			if exclusive {
				s.Status = reports.StatusSuppressed
				s.Decision = reports.Decision{Reasons: []string{reports.ReasonExclusiveManaged}}
				s.detail("suppressed_by", w.managed.MCP.Path)
				continue
			}
			winners = append(winners, s)
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
		}
	}
	res.winners = append(winners, res.winners...)
}
