package scanner

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
)

// scanMachine scans the whole machine: every client's per-user files under the
// home directory, the managed directory and system files, and every project
// that ~/.claude.json knows plus the current one (SPEC §4).
func (sc *scan) scanMachine() {
	sc.machine = true
	w := sc.loadClaudeWorld()
	sc.orgCtx = sc.orgContext(w)
	projects, finishClaude := sc.scanClaudeMachine(w)
	defer finishClaude()
	if sc.opts.Home != "" {
		present := sc.probeNames(sc.opts.Home)
		for _, l := range userLocations() {
			if !present.mayHold(l) {
				continue
			}
			for _, p := range sc.expand(l, sc.opts.Home) {
				l.handler(sc, p, ScopeUser, "")
			}
		}
		sc.scanClaudeExtras(w, projects)
	}
	for _, l := range systemLocations(sc.opts.GOOS) {
		for _, p := range sc.expand(l, "/") {
			l.handler(sc, p, ScopeSystem, "")
		}
	}
	locs := projectLocations()
	for _, dir := range projects {
		if sc.ctx.Err() != nil {
			return
		}
		present := sc.probeNames(dir)
		for _, l := range locs {
			if !present.mayHold(l) {
				continue
			}
			for _, p := range sc.expand(l, dir) {
				l.handler(sc, p, ScopeProject, dir)
			}
		}
	}
}

// entryNames are a directory's entries, lower-cased, for skipping the
// locations whose first element is not there. A project holds few of the
// files that clients read from one, and a home few of the per-user files
// of every client on three systems: each missing one was a failed open, a
// path walked in the kernel (16 a project, 75 a home), on the scan's main
// goroutine. Lower case because a case-insensitive file system (macOS's,
// Windows') opens ".Cursor/mcp.json" for ".cursor/mcp.json"; on another,
// the open of a name that only matches in lower case fails as it did. A
// nil set holds everything: a directory that cannot be listed has every
// location tried, and each reports its own error.
type entryNames map[string]bool

// probeNames lists dir for entryNames on the machine's own file system
// only. The daemon's FS records what a scan reads to watch it, and a
// listed directory is watched whole: every save in a project's top folder
// would rescan it. There, as with a directory that cannot be listed,
// every location is tried (nil).
func (sc *scan) probeNames(dir string) entryNames {
	if _, plain := sc.fs.(cfgfile.OS); !plain {
		return nil
	}
	entries, err := sc.fs.ReadDir(dir)
	if err != nil {
		return nil
	}
	return namesOf(entries)
}

func namesOf(entries []fs.DirEntry) entryNames {
	names := make(entryNames, len(entries))
	for _, e := range entries {
		names[strings.ToLower(e.Name())] = true
	}
	return names
}

// mayHold reports whether location l may be in the directory: its first
// element is there or is a pattern, or an environment variable may move
// it elsewhere (COPILOT_HOME, CODEX_HOME).
func (n entryNames) mayHold(l location) bool {
	first, _, _ := strings.Cut(l.rel, "/")
	return n == nil || l.env != "" || strings.ContainsAny(first, "*?[") || n[strings.ToLower(first)]
}

// scanPaths scans only the given files and directories: the pre-commit mode.
// A directory means the MCP configuration files it holds at their usual
// places; a file is recognised by its name and folder.
func (sc *scan) scanPaths() {
	w := sc.loadClaudeWorld()
	sc.orgCtx = sc.orgContext(w)
	type claudeFiles struct {
		mcp      []string
		settings [2]string // .claude/settings.json, .claude/settings.local.json
	}
	claude := map[string]*claudeFiles{}
	var claudeDirs []string
	claudeFor := func(dir string) *claudeFiles {
		if c, ok := claude[dir]; ok {
			return c
		}
		c := &claudeFiles{}
		claude[dir] = c
		claudeDirs = append(claudeDirs, dir)
		return c
	}
	for _, raw := range sc.opts.Paths {
		p := absPath(raw)
		fi, err := sc.fs.Stat(p)
		if err != nil {
			sc.fileError(statError(raw, err))
			continue
		}
		if fi.IsDir() {
			entries, err := sc.fs.ReadDir(p)
			if err != nil {
				sc.fileError(statError(raw, err))
				continue
			}
			present := namesOf(entries)
			c := claudeFor(p)
			if sc.exists(filepath.Join(p, ".mcp.json")) {
				c.mcp = append(c.mcp, filepath.Join(p, ".mcp.json"))
			}
			for i, name := range []string{"settings.json", "settings.local.json"} {
				if f := filepath.Join(p, ".claude", name); sc.exists(f) {
					c.settings[i] = f
				}
			}
			for _, l := range projectLocations() {
				if !present.mayHold(l) {
					continue
				}
				for _, f := range sc.expand(l, p) {
					if sc.exists(f) {
						l.handler(sc, f, ScopeProject, p)
					}
				}
			}
			continue
		}
		if isBundle(p) {
			sc.scanBundle(p)
			continue
		}
		kind, l, dir := classifyFile(p)
		switch kind {
		case "claude-mcp":
			c := claudeFor(dir)
			c.mcp = append(c.mcp, p)
		case "claude-settings":
			c := claudeFor(dir)
			c.settings[0] = p
		case "claude-local-settings":
			c := claudeFor(dir)
			c.settings[1] = p
		case "client":
			l.handler(sc, p, scopeOfFile(p), dir)
		case "system":
			l.handler(sc, p, ScopeSystem, "")
		default:
			sniffFile(sc, p)
		}
	}
	for i, dir := range claudeDirs {
		c := claude[dir]
		p := &claudeProject{dir: dir}
		if projects := w.claudeJSON.Get("projects"); projects != nil {
			if v := projects.Get(dir); v != nil {
				p.local = v
			}
		}
		pp := sc.loadClaudeProject(w, dir, c.mcp, false)
		p.mcpFiles = pp.mcpFiles
		if c.settings[0] != "" {
			p.projectSettings = sc.loadSettings(c.settings[0], "project-settings", ScopeProject)
		}
		if c.settings[1] != "" {
			p.localSettings = appendDoc(nil, sc.loadSettings(c.settings[1], "local-settings", ScopeLocal))
		}
		res := sc.resolveClaude(w, p, false)
		if i == 0 {
			sc.mainCtx = res.context
		}
		for _, s := range res.defs {
			if s.Scope == ScopeProject || s.Project == dir || sc.opts.Home != "" || sc.opts.ManagedDir != "" {
				sc.keep(s)
			}
		}
	}
}

// classifyFile recognises a configuration file by its name and folder. kind is
// "claude-mcp", "claude-settings", "claude-local-settings", "client" (l is the
// location) or "" when the file is not recognised; dir is the project folder.
func classifyFile(p string) (kind string, l location, dir string) {
	base := filepath.Base(p)
	parent := filepath.Dir(p)
	switch {
	case base == ".mcp.json":
		return "claude-mcp", l, parent
	case filepath.Base(parent) == ".claude" && base == "settings.json":
		return "claude-settings", l, filepath.Dir(parent)
	case filepath.Base(parent) == ".claude" && base == "settings.local.json":
		return "claude-local-settings", l, filepath.Dir(parent)
	}
	slash := filepath.ToSlash(p)
	for _, set := range [][]location{projectLocations(), userLocations()} {
		for _, loc := range set {
			if matchSuffix(slash, loc.rel) {
				// The project is the path less as many segments as rel has
				// (".continue/mcpServers/*.yaml" strips three).
				d := slash
				for range strings.Split(loc.rel, "/") {
					d = path.Dir(d)
				}
				return "client", loc, filepath.FromSlash(d)
			}
		}
	}
	// Machine-wide files of any OS layout.
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, loc := range systemLocations(goos) {
			if matchSuffix(slash, loc.rel) {
				return "system", loc, ""
			}
		}
	}
	// Files known by name alone, wherever they are.
	byName := map[string]location{}
	for _, loc := range userLocations() {
		name := loc.rel[strings.LastIndexByte(loc.rel, '/')+1:]
		switch name {
		case "claude_desktop_config.json", "mcp_config.json", "cline_mcp_settings.json", "mcp_settings.json", "mcp-config.json":
			if _, ok := byName[name]; !ok {
				byName[name] = loc
			}
		}
	}
	if loc, ok := byName[base]; ok {
		return "client", loc, parent
	}
	return "", l, parent
}

// matchSuffix reports whether the slash path p ends with the location rel,
// which may contain one glob segment.
func matchSuffix(p, rel string) bool {
	if !strings.ContainsAny(rel, "*?[") {
		return strings.HasSuffix(p, "/"+rel)
	}
	segs := strings.Split(rel, "/")
	ps := strings.Split(p, "/")
	if len(ps) < len(segs) {
		return false
	}
	tail := ps[len(ps)-len(segs):]
	for i, s := range segs {
		if ok, _ := filepath.Match(s, tail[i]); !ok {
			return false
		}
	}
	return true
}

// scopeOfFile guesses the scope of an explicitly named file: files under a
// project's dot-folders are project files; the rest are per-user files.
func scopeOfFile(p string) string {
	base := filepath.Base(p)
	switch base {
	case "claude_desktop_config.json", "mcp_config.json", "cline_mcp_settings.json", "mcp_settings.json", "mcp-config.json":
		return ScopeUser
	}
	return ScopeProject
}

// sniffFile reads an unrecognised file given on the command line and parses it
// as the client whose root key it uses.
func sniffFile(sc *scan, p string) {
	root := sc.readJSON(p, "", "mcp-config", ScopeProject, true)
	if root == nil {
		if sc.exists(p) && !sc.hasError(p) {
			sc.fileError(unknownFileError(p))
		}
		return
	}
	dir := filepath.Dir(p)
	switch {
	case root.Get("mcpServers") != nil:
		spec := *specClaudeDesktop
		spec.client, spec.remoteNeedsType, spec.types = "generic", false, stdTypes
		sc.keep(sc.serversAt(&spec, p, root, ScopeProject, dir, "mcpServers")...)
	case root.Get("servers") != nil:
		sc.keep(sc.serversAt(specVSCode, p, root, ScopeProject, dir, "servers")...)
	case root.Get("context_servers") != nil:
		zedSettings(sc, p, ScopeProject, dir)
	default:
		sc.fileError(unknownFileError(p))
	}
}

func (sc *scan) hasError(p string) bool {
	for _, e := range sc.res.Errors {
		if e.Path == p {
			return true
		}
	}
	return false
}

func (sc *scan) exists(p string) bool {
	_, err := sc.fs.Lstat(p)
	return err == nil
}
