package scanner

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/reports"
)

// claudeConfigDir returns ~/.claude, or $CLAUDE_CONFIG_DIR when it is set
// (§1.4).
func (sc *scan) claudeConfigDir() string {
	if d := sc.opts.ClaudeConfigDir; d != "" {
		return d
	}
	if sc.opts.Home == "" {
		return ""
	}
	return filepath.Join(sc.opts.Home, ".claude")
}

// claudeJSONPath returns the file that holds user and local servers: ~/.claude.json,
// or .claude.json (.claude-custom-oauth.json with a custom OAuth URL) inside
// $CLAUDE_CONFIG_DIR, where a legacy .config.json takes precedence (§1.4).
func (sc *scan) claudeJSONPath() string {
	if d := sc.opts.ClaudeConfigDir; d != "" {
		if _, exists, _ := sc.fs.ReadFile(filepath.Join(d, ".config.json")); exists {
			return filepath.Join(d, ".config.json")
		}
		if v, ok := sc.opts.LookupEnv("CLAUDE_CODE_CUSTOM_OAUTH_URL"); ok && v != "" {
			return filepath.Join(d, ".claude-custom-oauth.json")
		}
		return filepath.Join(d, ".claude.json")
	}
	if sc.opts.Home == "" {
		return ""
	}
	return filepath.Join(sc.opts.Home, ".claude.json")
}

// loadClaudeWorld reads the machine-wide Claude Code files.
func (sc *scan) loadClaudeWorld() *claudeWorld {
	w := &claudeWorld{configDir: sc.claudeConfigDir(), claudeJSONPath: sc.claudeJSONPath()}
	w.managed = managed.LoadDir(sc.fs, sc.opts.ManagedDir)
	sc.fileError(w.managed.Errors...)
	w.managedDocs = w.managed.Documents
	for _, d := range w.managed.Documents {
		sc.duplicateKeys(d.Path, d.Root)
		sc.source(reports.Source{Path: d.Path, Client: ClientClaudeCode, Kind: d.Kind, Scope: ScopeManaged})
		sc.res.Policy.Sources = append(sc.res.Policy.Sources, reports.PolicySource{Path: d.Path, Kind: d.Kind, Active: true})
	}
	for _, b := range w.managed.Broken {
		sc.source(reports.Source{Path: b.Path, Client: ClientClaudeCode, Kind: managed.KindManaged, Scope: ScopeManaged, Error: b.Error.Message})
		sc.res.Policy.Sources = append(sc.res.Policy.Sources, reports.PolicySource{Path: b.Path, Kind: managed.KindManaged, Active: false, Error: b.Error.Error()})
	}
	for _, p := range w.managed.Ignored {
		sc.source(reports.Source{Path: p, Client: ClientClaudeCode, Kind: "ignored-drop-in", Scope: ScopeManaged,
			Error: "Claude Code reads only *.json drop-ins whose name does not start with a dot"})
	}
	if mf := w.managed.MCP; mf != nil {
		sc.duplicateKeys(mf.Path, mf.Root)
		src := reports.Source{Path: mf.Path, Client: ClientClaudeCode, Kind: managed.KindManagedMCP, Scope: ScopeManaged}
		if mf.Error != nil {
			src.Error = mf.Error.Message
		}
		sc.source(src)
		sc.res.Policy.Sources = append(sc.res.Policy.Sources, reports.PolicySource{Path: mf.Path, Kind: managed.KindManagedMCP, Active: true, Error: src.Error})
	}
	if w.configDir != "" {
		remote := filepath.Join(w.configDir, "remote-settings.json")
		if _, exists, _ := sc.fs.ReadFile(remote); exists {
			// Observed offline: the CLI does not apply this cache without an eligible
			// claude.ai account, so it is recorded but not used.
			sc.source(reports.Source{Path: remote, Client: ClientClaudeCode, Kind: managed.KindRemote, Scope: ScopeManaged})
			sc.res.Policy.Sources = append(sc.res.Policy.Sources, reports.PolicySource{Path: remote, Kind: managed.KindRemote, Active: false,
				Error: "server-managed settings cache: applies only to eligible claude.ai accounts, which mcpguard cannot see"})
		}
		w.userSettings = sc.loadSettings(filepath.Join(w.configDir, "settings.json"), managed.KindUser, ScopeUser)
	}
	if w.claudeJSONPath != "" {
		data, exists, ferr := sc.fs.ReadFile(w.claudeJSONPath)
		switch {
		case ferr != nil:
			sc.fileError(*ferr)
			sc.source(reports.Source{Path: w.claudeJSONPath, Client: ClientClaudeCode, Kind: "claude-json", Error: ferr.Message})
		case exists:
			root, errs := cfgfile.ParseJSON(w.claudeJSONPath, data, false)
			sc.fileError(errs...)
			sc.duplicateKeys(w.claudeJSONPath, root)
			src := reports.Source{Path: w.claudeJSONPath, Client: ClientClaudeCode, Kind: "claude-json", Scope: ScopeUser}
			if root != nil && root.Kind != jsonc.Object {
				fe := reports.FileError{Path: w.claudeJSONPath, Line: root.Pos.Line, Column: root.Pos.Col, Message: "must hold a JSON object, not " + root.Kind.String()}
				sc.fileError(fe)
				root = nil
			}
			if root == nil {
				src.Error = "unparseable"
			}
			sc.source(src)
			w.claudeJSON = root
		}
	}
	var envLayers []map[string]string
	if w.userSettings != nil {
		envLayers = append(envLayers, managed.Env([]*managed.Document{w.userSettings}))
	}
	envLayers = append(envLayers, managed.Env(w.managedDocs))
	w.serverEnv = envLookup(sc.opts.LookupEnv, envLayers...)
	w.clientEnv = map[string]string{}
	for _, l := range envLayers {
		for k, v := range l {
			w.clientEnv[k] = v
		}
	}
	w.installed = sc.installedPlugins(w)
	sc.addPluginAnchors(w.installed)
	w.marketplaces = sc.loadMarketplacePolicy(w.managedDocs)
	return w
}

// loadSettings reads a Claude Code settings document and reports keys that
// have no effect there (C006). A broken document is an error and is ignored.
func (sc *scan) loadSettings(path, kind, scope string) *managed.Document {
	doc, broken, exists, errs := managed.LoadSettings(sc.fs, path, kind)
	if !exists {
		return nil
	}
	sc.fileError(errs...)
	src := reports.Source{Path: path, Client: ClientClaudeCode, Kind: kind, Scope: scope}
	if broken != nil {
		src.Error = broken.Error.Message
		sc.source(src)
		return nil
	}
	sc.source(src)
	sc.duplicateKeys(path, doc.Root)
	if why, m := managed.SchemaProblem(doc); why != "" {
		sc.fileFindingEvidence("MCPG-C006", doc.Loc(m),
			fmt.Sprintf("Claude Code rejects this whole settings file (%s): none of its settings apply, its deny list included", why),
			map[string]any{"problem": "settings file rejected", "key": m.Key}, "schema")
		return nil
	}
	if m := doc.Get("mcpServers"); m != nil {
		sc.fileFindingEvidence("MCPG-C006", doc.Loc(m),
			"\"mcpServers\" inside a settings file is never read by Claude Code; define servers in .mcp.json or ~/.claude.json",
			map[string]any{"problem": "inert key", "key": "mcpServers"}, "mcpServers")
	}
	for _, key := range []string{"allowManagedMcpServersOnly", "managedMcpServers", "strictPluginOnlyCustomization"} {
		if m := doc.Get(key); m != nil {
			sc.fileFindingEvidence("MCPG-C006", doc.Loc(m),
				fmt.Sprintf("%q is honoured only in managed settings; here it has no effect", key),
				map[string]any{"problem": "inert key", "key": key}, key)
		}
	}
	return doc
}

// loadClaudeProject reads one project's Claude Code files. chain selects the
// .mcp.json files (the project and its parents in machine mode; only the given
// file in path mode).
func (sc *scan) loadClaudeProject(w *claudeWorld, dir string, chain []string, settings bool) *claudeProject {
	p := &claudeProject{dir: dir, localKey: dir}
	root := sc.gitRoot(dir)
	if root != "" {
		p.localKey = root
	}
	if projects := w.claudeJSON.Get("projects"); projects != nil {
		if v := projects.Get(p.localKey); v != nil && v.Kind == jsonc.Object {
			p.local = v
		}
	}
	if settings {
		p.projectSettings = sc.loadSettings(filepath.Join(dir, ".claude", "settings.json"), managed.KindProject, ScopeProject)
		if root != "" && root != dir {
			p.localSettings = appendDoc(p.localSettings, sc.loadSettings(filepath.Join(root, ".claude", "settings.local.json"), managed.KindLocal, ScopeLocal))
		}
		p.localSettings = appendDoc(p.localSettings, sc.loadSettings(filepath.Join(dir, ".claude", "settings.local.json"), managed.KindLocal, ScopeLocal))
	}
	for _, path := range chain {
		data, exists, ferr := sc.fs.ReadFile(path)
		if !exists {
			continue
		}
		src := reports.Source{Path: path, Client: ClientClaudeCode, Kind: "mcp-config", Scope: ScopeProject}
		if ferr != nil {
			sc.fileError(*ferr)
			src.Error = ferr.Message
			sc.source(src)
			continue
		}
		root, errs := cfgfile.ParseJSON(path, data, false)
		sc.duplicateKeys(path, root)
		sc.fileError(errs...)
		if root != nil && root.Kind != jsonc.Object {
			sc.fileError(reports.FileError{Path: path, Line: root.Pos.Line, Column: root.Pos.Col, Message: "must hold a JSON object, not " + root.Kind.String()})
			root = nil
		}
		if root == nil {
			src.Error = "unparseable"
			sc.source(src)
			continue
		}
		sc.source(src)
		p.mcpFiles = append(p.mcpFiles, mcpFile{path: path, root: root})
	}
	return p
}

func appendDoc(list []*managed.Document, d *managed.Document) []*managed.Document {
	if d == nil {
		return list
	}
	return append(list, d)
}

// gitRoot returns the work tree root of the git repository holding dir: the
// nearest folder at or above dir with a .git entry. A linked worktree (.git
// file pointing into <main>/.git/worktrees/) resolves to its main checkout, as
// Claude Code documents; "" when dir is in no repository.
func (sc *scan) gitRoot(dir string) string {
	for d := filepath.Clean(dir); ; {
		g := filepath.Join(d, ".git")
		if fi, err := sc.fs.Lstat(g); err == nil {
			if fi.Mode().IsRegular() {
				if data, _, ferr := sc.fs.ReadFile(g); ferr == nil {
					line := strings.TrimSpace(string(data))
					if gitdir, ok := strings.CutPrefix(line, "gitdir:"); ok {
						gitdir = strings.TrimSpace(gitdir)
						if !filepath.IsAbs(gitdir) {
							gitdir = filepath.Join(d, gitdir)
						}
						if i := strings.Index(filepath.ToSlash(gitdir), "/.git/worktrees/"); i >= 0 {
							return filepath.FromSlash(filepath.ToSlash(gitdir)[:i])
						}
					}
				}
			}
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// knownProjects lists the project keys of ~/.claude.json that are absolute
// paths on this machine, in file order.
func knownProjects(w *claudeWorld) []string {
	projects := w.claudeJSON.Get("projects")
	if projects == nil || projects.Kind != jsonc.Object {
		return nil
	}
	var out []string
	for _, m := range projects.Members {
		if filepath.IsAbs(m.Key) && m.Key == filepath.Clean(m.Key) && !strings.ContainsRune(m.Key, 0) {
			out = append(out, m.Key)
		}
	}
	return out
}

// scanClaudeMachine resolves the main project and every other known project.
// The last project, when it is not the main one, is judged on the workers
// while the caller reads the other clients' files: finish completes it,
// and its servers take their place before the ones kept meanwhile.
func (sc *scan) scanClaudeMachine(w *claudeWorld) (projects []string, finish func()) {
	projects, finish = []string{}, func() {}
	if sc.opts.Project != "" {
		projects = append(projects, sc.opts.Project)
	}
	known := knownProjects(w)
	if len(known) > MaxProjects {
		pos := w.claudeJSON.Member("projects").KeyPos
		sc.fileError(reports.FileError{Path: w.claudeJSONPath, Line: pos.Line, Column: pos.Col,
			Message: fmt.Sprintf("%d projects, over the limit of %d; only the first %d are scanned", len(known), MaxProjects, MaxProjects)})
		known = known[:MaxProjects]
	}
	for _, p := range known {
		if !contains(projects, p) {
			projects = append(projects, p)
		}
	}
	// Each project's verdicts are judged on the workers while this goroutine
	// reads and resolves the next project; a project is finished and kept
	// once the next one is under way, so the servers keep their order.
	var finishPrev func()
	if len(projects) > 0 {
		w.mainDir = projects[0]
	}
	for i, dir := range projects {
		if sc.ctx.Err() != nil {
			break
		}
		p := sc.loadClaudeProject(w, dir, mcpJSONChain(dir), true)
		res, finishThis := sc.startClaude(w, p, i > 0)
		if finishPrev != nil {
			finishPrev()
		}
		finishPrev = func() {
			finishThis()
			if i == 0 {
				// Winners first, in `claude mcp list` order.
				sc.keep(res.winners...)
				sc.mainCtx = res.context
			}
			for _, s := range res.defs {
				// The main project's resolution decides user and managed servers;
				// other projects contribute their own local and project servers.
				if i == 0 || s.Project == dir {
					sc.keep(s)
				}
			}
		}
	}
	switch {
	case finishPrev == nil:
	case len(projects) > 1 && sc.ctx.Err() == nil:
		// The main project sets the context that judges other servers and
		// reads its plugins' files; another project only adds its own.
		at := len(sc.res.Servers)
		finish = func() {
			n := len(sc.res.Servers)
			finishPrev()
			sc.moveServers(n, at)
		}
	default:
		finishPrev()
	}
	if sc.ctx.Err() != nil {
		return projects, finish
	}
	if len(projects) == 0 {
		// No project at all: user and managed servers in an empty context.
		res := sc.resolveClaude(w, &claudeProject{}, false)
		sc.keep(res.winners...)
		sc.keep(res.defs...)
		sc.mainCtx = res.context
	}
	return projects, finish
}
