package scanner

import "sort"

// Base is what a Location's Path is relative to.
type Base string

// The bases of config locations.
const (
	// BaseHome is the user's home directory (--home).
	BaseHome Base = "home"
	// BaseClaudeConfig is Claude Code's configuration directory: ~/.claude,
	// or $CLAUDE_CONFIG_DIR.
	BaseClaudeConfig Base = "claude-config"
	// BaseProject is a project directory: --project and every project that
	// ~/.claude.json knows.
	BaseProject Base = "project"
	// BaseManaged is Claude Code's managed directory (--managed-dir).
	BaseManaged Base = "managed"
	// BaseRoot is the file system root: machine-wide files.
	BaseRoot Base = "root"
)

// Location is one place where a client reads MCP configuration. Locations
// returns the whole table; the scan walks it, and the daemon derives what to
// watch from it.
type Location struct {
	Client string
	// Scope is the scope of the servers found there (ScopeUser,
	// ScopeProject, ScopeLocal, ScopeManaged, ScopePlugin, ScopeIDE,
	// ScopeSystem).
	Scope string
	Base  Base
	// Path is slash-separated and relative to Base; any element may be a
	// glob (filepath.Match syntax).
	Path string
	// OS lists the operating systems whose layout puts the file there;
	// empty means every OS. Per-user files of every layout are read on
	// every OS (a home copied from another machine scans the same);
	// machine-wide files only on their own OS.
	OS []string
	// Env names an environment variable that moves the file in a machine
	// scan (CODEX_HOME, COPILOT_HOME, CLAUDE_CONFIG_DIR, ...), if any.
	Env string
}

// claudeLocations are Claude Code's own files, which its resolution reads
// together rather than one by one (docs/claude-code.md §1).
func claudeLocations() []Location {
	c := ClientClaudeCode
	return []Location{
		{Client: c, Scope: ScopeUser, Base: BaseHome, Path: ".claude.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopeUser, Base: BaseClaudeConfig, Path: ".claude.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopeUser, Base: BaseClaudeConfig, Path: ".config.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopeUser, Base: BaseClaudeConfig, Path: ".claude-custom-oauth.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopeUser, Base: BaseClaudeConfig, Path: "settings.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopeManaged, Base: BaseClaudeConfig, Path: "remote-settings.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopePlugin, Base: BaseClaudeConfig, Path: "plugins/installed_plugins.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopePlugin, Base: BaseClaudeConfig, Path: "plugins/known_marketplaces.json", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopeIDE, Base: BaseClaudeConfig, Path: "ide/*.lock", Env: "CLAUDE_CONFIG_DIR"},
		{Client: c, Scope: ScopeProject, Base: BaseProject, Path: ".mcp.json"},
		{Client: c, Scope: ScopeProject, Base: BaseProject, Path: ".claude/settings.json"},
		{Client: c, Scope: ScopeLocal, Base: BaseProject, Path: ".claude/settings.local.json"},
		{Client: c, Scope: ScopeManaged, Base: BaseManaged, Path: "managed-settings.json"},
		{Client: c, Scope: ScopeManaged, Base: BaseManaged, Path: "managed-settings.d/*.json"},
		{Client: c, Scope: ScopeManaged, Base: BaseManaged, Path: "managed-mcp.json"},
	}
}

// Locations returns every configuration location of every supported
// client, scope and OS layout, in a stable order. Plugin directories,
// marketplaces and IDE lock files named inside these files are found at
// scan time; a watcher learns them from the scan's reads (Options.FS).
func Locations() []Location {
	out := claudeLocations()
	for _, l := range userLocations() {
		scope := ScopeUser
		if l.scope != "" {
			scope = l.scope
		}
		out = append(out, Location{Client: l.client, Scope: scope, Base: BaseHome, Path: l.rel, Env: l.env})
	}
	out = append(out, extensionFiles()...)
	for _, l := range projectLocations() {
		out = append(out, Location{Client: l.client, Scope: ScopeProject, Base: BaseProject, Path: l.rel, Env: l.env})
	}
	system := map[string]int{} // rel -> index in out
	for _, goos := range []string{"darwin", "linux", "windows"} {
		for _, l := range systemLocations(goos) {
			if i, ok := system[l.rel]; ok {
				out[i].OS = append(out[i].OS, goos)
				continue
			}
			system[l.rel] = len(out)
			out = append(out, Location{Client: l.client, Scope: ScopeSystem, Base: BaseRoot, Path: l.rel, OS: []string{goos}, Env: l.env})
		}
	}
	for i := range out {
		if len(out[i].OS) == 3 {
			out[i].OS = nil // every OS this table knows
		}
		sort.Strings(out[i].OS)
	}
	return out
}
