package scanner

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// fileHandler parses one configuration file of a client.
type fileHandler func(sc *scan, path, scope, project string)

// location is a configuration file at a fixed place: relative to the home
// directory, to a project, or absolute (system files).
type location struct {
	rel     string // slash-separated; any element may be a glob ("*.yaml")
	client  string
	handler fileHandler
	// env names the environment variable that relocates the file in a
	// machine scan (CODEX_HOME, COPILOT_HOME, ProgramData), if any.
	env string
}

// codeUserDirs are VS Code's user directories (and those of its forks that keep
// the same layout) on macOS, Linux and Windows, relative to the home directory.
var codeUserDirs = []string{
	"Library/Application Support/Code/User", ".config/Code/User", "AppData/Roaming/Code/User",
	"Library/Application Support/Code - Insiders/User", ".config/Code - Insiders/User", "AppData/Roaming/Code - Insiders/User",
}

// forkUserDirs are the user directories of VS Code forks where Cline-family
// extensions also store their settings.
var forkUserDirs = []string{
	"Library/Application Support/Cursor/User", ".config/Cursor/User", "AppData/Roaming/Cursor/User",
	"Library/Application Support/Windsurf/User", ".config/Windsurf/User", "AppData/Roaming/Windsurf/User",
}

// userLocations lists per-user files of every client at its Linux, macOS and
// Windows locations (docs/clients.md). Scanning all three layouts costs a few
// stats and lets --home point at a home copied from another OS.
func userLocations() []location {
	locs := []location{
		{rel: "Library/Application Support/Claude/claude_desktop_config.json", client: ClientClaudeDesktop, handler: jsonServers(specClaudeDesktop, false, "mcpServers")},
		{rel: "AppData/Roaming/Claude/claude_desktop_config.json", client: ClientClaudeDesktop, handler: jsonServers(specClaudeDesktop, false, "mcpServers")},
		{rel: "AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json", client: ClientClaudeDesktop, handler: jsonServers(specClaudeDesktop, false, "mcpServers")},
		{rel: ".config/Claude/claude_desktop_config.json", client: ClientClaudeDesktop, handler: jsonServers(specClaudeDesktop, false, "mcpServers")},
		{rel: ".cursor/mcp.json", client: ClientCursor, handler: jsonServers(specCursor, true, "mcpServers")},
		{rel: ".vscode/mcp.json", client: ClientVSCode, handler: vscodeMCP},
		{rel: ".codeium/windsurf/mcp_config.json", client: ClientWindsurf, handler: jsonServers(specWindsurf, true, "mcpServers")},
		{rel: ".codeium/mcp_config.json", client: ClientWindsurf, handler: jsonServers(specWindsurf, true, "mcpServers")},
		{rel: ".gemini/settings.json", client: ClientGemini, handler: geminiSettings},
		{rel: ".gemini/extensions/*/gemini-extension.json", client: ClientGemini, handler: geminiExtension},
		{rel: ".gemini/antigravity/mcp_config.json", client: ClientAntigravity, handler: jsonServers(specAntigravity, true, "mcpServers")},
		{rel: ".gemini/config/mcp_config.json", client: ClientAntigravity, handler: jsonServers(specAntigravity, true, "mcpServers")},
		{rel: ".config/zed/settings.json", client: ClientZed, handler: zedSettings},
		{rel: "AppData/Roaming/Zed/settings.json", client: ClientZed, handler: zedSettings},
		{rel: ".cline/data/settings/cline_mcp_settings.json", client: ClientCline, handler: jsonServers(specCline, true, "mcpServers")},
		{rel: ".cline/mcp.json", client: ClientCline, handler: jsonServers(specCline, true, "mcpServers")},
		{rel: ".kilocode/cli/global/settings/mcp_settings.json", client: ClientKilo, handler: jsonServers(specKilo, true, "mcpServers")},
		{rel: ".junie/mcp/mcp.json", client: ClientJunie, handler: jsonServers(specJunie, true, "mcpServers")},
		{rel: ".kiro/settings/mcp.json", client: ClientKiro, handler: jsonServers(specKiro, true, "mcpServers")},
		{rel: ".copilot/mcp-config.json", client: ClientCopilotCLI, handler: relocated(jsonServers(specCopilotCLI, true, "mcpServers"), "COPILOT_HOME", "mcp-config.json"), env: "COPILOT_HOME"},
		{rel: ".config/opencode/opencode.json", client: ClientOpenCode, handler: opencodeConfig},
		{rel: ".config/opencode/opencode.jsonc", client: ClientOpenCode, handler: opencodeConfig},
	}
	for _, d := range codeUserDirs {
		locs = append(locs,
			location{rel: d + "/mcp.json", client: ClientVSCode, handler: vscodeMCP},
			location{rel: d + "/settings.json", client: ClientVSCode, handler: vscodeSettings},
		)
	}
	for _, d := range append(append([]string{}, codeUserDirs...), forkUserDirs...) {
		locs = append(locs,
			location{rel: d + "/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", client: ClientCline, handler: jsonServers(specCline, true, "mcpServers")},
			location{rel: d + "/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", client: ClientRoo, handler: jsonServers(specRoo, true, "mcpServers")},
			location{rel: d + "/globalStorage/kilocode.kilo-code/settings/mcp_settings.json", client: ClientKilo, handler: jsonServers(specKilo, true, "mcpServers")},
		)
	}
	locs = append(locs, extensionLocations()...)
	return append(locs, extraUserLocations()...)
}

// projectLocations lists the files other clients read inside a project (Claude
// Code's .mcp.json and .claude/ settings are resolved separately).
func projectLocations() []location {
	locs := []location{
		{rel: ".cursor/mcp.json", client: ClientCursor, handler: jsonServers(specCursor, true, "mcpServers")},
		{rel: ".vscode/mcp.json", client: ClientVSCode, handler: vscodeMCP},
		{rel: ".vscode/settings.json", client: ClientVSCode, handler: vscodeSettings},
		{rel: ".gemini/settings.json", client: ClientGemini, handler: geminiSettings},
		{rel: ".zed/settings.json", client: ClientZed, handler: zedSettings},
		{rel: ".junie/mcp/mcp.json", client: ClientJunie, handler: jsonServers(specJunie, true, "mcpServers")},
		{rel: ".kiro/settings/mcp.json", client: ClientKiro, handler: jsonServers(specKiro, true, "mcpServers")},
		{rel: ".roo/mcp.json", client: ClientRoo, handler: jsonServers(specRoo, true, "mcpServers")},
		{rel: ".kilocode/mcp.json", client: ClientKilo, handler: jsonServers(specKilo, true, "mcpServers")},
		{rel: ".continue/mcpServers/*.json", client: ClientContinue, handler: jsonServers(specContinueJSON, true, "mcpServers")},
		{rel: "opencode.json", client: ClientOpenCode, handler: opencodeConfig},
		{rel: "opencode.jsonc", client: ClientOpenCode, handler: opencodeConfig},
	}
	locs = append(locs, extraProjectLocations()...)
	user := map[string]bool{}
	for _, l := range userLocations() {
		user[l.rel] = true
	}
	for i := range locs {
		if user[locs[i].rel] {
			locs[i].handler = notHomeTwice(locs[i].handler)
		}
	}
	return locs
}

// notHomeTwice wraps the handler of a project file that is also a per-user
// file (".cursor/mcp.json", ".gemini/settings.json", ...): when the project is
// the home directory, the file is the user's own, which the client reads once.
// A machine scan has read it already; a path scan reads it as a user file.
func notHomeTwice(h fileHandler) fileHandler {
	return func(sc *scan, path, scope, project string) {
		if sc.opts.Home != "" && project != "" && sc.samePath(project, sc.opts.Home) {
			if sc.machine {
				return
			}
			scope, project = ScopeUser, ""
		}
		h(sc, path, scope, project)
	}
}

// relocated returns a handler that, in a machine scan, reads the file from
// $env/elem... when the environment variable is set (CODEX_HOME, COPILOT_HOME,
// ProgramData), as the client does. Explicit paths are read as given.
func relocated(h fileHandler, env string, elem ...string) fileHandler {
	return func(sc *scan, path, scope, project string) {
		if sc.machine {
			if v, ok := sc.opts.LookupEnv(env); ok && v != "" {
				path = filepath.Join(append([]string{v}, elem...)...)
			}
		}
		h(sc, path, scope, project)
	}
}

// expand resolves a location's glob under base; most locations are plain paths.
func (sc *scan) expand(l location, base string) []string {
	p := filepath.Join(base, filepath.FromSlash(l.rel))
	if !strings.ContainsAny(l.rel, "*?[") {
		return []string{p}
	}
	return cfgfile.Glob(sc.fs, p)
}

// readConfig reads a client file and parses it with parse, recording the
// source and every error. It returns nil when the file is absent,
// unreadable or malformed (parse returns no root).
func (sc *scan) readConfig(path, client, kind, scope string, parse func(data []byte) (*jsonc.Value, []reports.FileError)) *jsonc.Value {
	data, exists, ferr := sc.fs.ReadFile(path)
	if !exists {
		return nil
	}
	src := reports.Source{Path: path, Client: client, Kind: kind, Scope: scope}
	if ferr != nil {
		sc.fileError(*ferr)
		src.Error = ferr.Message
		sc.source(src)
		return nil
	}
	root, errs := parse(data)
	sc.fileError(errs...)
	if root == nil {
		src.Error = "unparseable"
	}
	sc.source(src)
	return root
}

// readJSON reads a JSON (or, with jsoncMode, JSONC) client file whose root
// must be an object.
func (sc *scan) readJSON(path, client, kind, scope string, jsoncMode bool) *jsonc.Value {
	return sc.readConfig(path, client, kind, scope, func(data []byte) (*jsonc.Value, []reports.FileError) {
		root, errs := cfgfile.ParseJSON(path, data, jsoncMode)
		sc.duplicateKeys(path, root)
		if root != nil && root.Kind != jsonc.Object {
			errs = append(errs, reports.FileError{Path: path, Line: root.Pos.Line, Column: root.Pos.Col, Message: "must hold a JSON object, not " + root.Kind.String()})
			root = nil
		}
		return root, errs
	})
}

// jsonServers returns a handler for a JSON file whose servers sit at the
// member path keys (e.g. "mcpServers", or "mcp", "servers").
func jsonServers(spec *entrySpec, jsoncMode bool, keys ...string) fileHandler {
	return func(sc *scan, path, scope, project string) {
		root := sc.readJSON(path, spec.client, "mcp-config", scope, jsoncMode)
		if root == nil {
			return
		}
		sc.keep(sc.serversAt(spec, path, root, scope, project, keys...)...)
	}
}

// serversAt parses the servers at the member path keys under root.
func (sc *scan) serversAt(spec *entrySpec, path string, root *jsonc.Value, scope, project string, keys ...string) []*Server {
	v := root
	var m *jsonc.Member
	for _, k := range keys {
		if m = v.Member(k); m == nil {
			return nil
		}
		v = m.Value
	}
	return sc.parseEntries(spec, path, m, jsonc.Pointer(keys...), scope, project)
}

// vscodeMCP reads a VS Code mcp.json: "servers" plus the "inputs" that
// ${input:id} references name.
func vscodeMCP(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientVSCode, "mcp-config", scope, true)
	if root == nil {
		return
	}
	servers := sc.serversAt(specVSCode, path, root, scope, project, "servers")
	sc.vscodeRules(path, servers, root.Get("inputs"))
	sc.keep(servers...)
}

// vscodeSettings reads the legacy "mcp": {"servers": ..., "inputs": ...} block
// of a VS Code settings.json (JSONC).
func vscodeSettings(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientVSCode, "settings", scope, true)
	if root == nil {
		return
	}
	servers := sc.serversAt(specVSCode, path, root, scope, project, "mcp", "servers")
	sc.vscodeRules(path, servers, root.Get("mcp").Get("inputs"))
	sc.keep(servers...)
}

// vscodeRules records the prompted inputs each server uses (ids only: the
// values are typed by the user) and applies chat.mcp.access.
func (sc *scan) vscodeRules(path string, servers []*Server, inputs *jsonc.Value) {
	declared := map[string]bool{}
	if inputs != nil && inputs.Kind == jsonc.Array {
		for _, in := range inputs.Elems {
			if id := in.Get("id"); id.IsString() {
				declared[id.Str] = true
			}
		}
	}
	access, from := sc.vscodeAccess(path)
	for _, s := range servers {
		used := map[string]bool{}
		check := func(v string) {
			for _, r := range interp.Refs(interp.VSCode, v) {
				if r.Kind == interp.KindInput {
					used[r.Name] = true
				}
			}
		}
		check(s.Command)
		for _, a := range s.Args {
			check(a)
		}
		check(s.URL)
		for _, k := range s.EnvKeys {
			check(s.Env[k])
		}
		for _, k := range s.HeaderKeys {
			check(s.Headers[k])
		}
		if len(used) > 0 {
			ids := sortedStrings(used)
			s.detail("inputs", ids)
			var undefined []string
			for _, id := range ids {
				if !declared[id] {
					undefined = append(undefined, id)
				}
			}
			if len(undefined) > 0 {
				sc.finding(s, "MCPG-C007", fmt.Sprintf("server %q references %s, which no entry of \"inputs\" defines; VS Code cannot resolve it",
					s.Name, strings.Join(quoteAll(undefined, "${input:", "}"), ", ")),
					map[string]any{"inputs": undefined, "dialect": string(interp.VSCode)}, undefined...)
			}
		}
		if access == "none" || access == "registry" {
			s.detail("client_policy", "chat.mcp.access: "+access+" ("+from+")")
			sc.clientStatus(s, reports.StatusBlocked, reports.ReasonClientBlocked)
		}
	}
}

// vscodeAccess returns the most restrictive chat.mcp.access ("none",
// "registry" or "all"; chat.mcp.enabled: false counts as "none") of the VS
// Code user settings that govern a file: those of its own user directory, or
// for workspace files those of every stable VS Code user directory present
// under the home. It is an application-scope setting: workspace settings
// cannot change it.
func (sc *scan) vscodeAccess(path string) (access, from string) {
	if sc.opts.Home == "" {
		return "", ""
	}
	var candidates []string
	for _, d := range codeUserDirs {
		dir := filepath.Join(sc.opts.Home, filepath.FromSlash(d))
		if filepath.Dir(path) == dir {
			candidates = []string{filepath.Join(dir, "settings.json")}
			break
		}
		if !strings.Contains(d, "Insiders") {
			candidates = append(candidates, filepath.Join(dir, "settings.json"))
		}
	}
	rank := map[string]int{"": 0, "all": 0, "registry": 1, "none": 2}
	for _, c := range candidates {
		root := sc.quietJSON(c)
		v := ""
		if a := root.Get("chat.mcp.access"); a.IsString() {
			v = a.Str
		}
		if e := root.Get("chat.mcp.enabled"); e != nil && e.Kind == jsonc.Bool && !e.Bool {
			v = "none"
		}
		if r, ok := rank[v]; ok && r > rank[access] {
			access, from = v, c
		}
	}
	return access, from
}

// quietJSON parses a JSONC file for a lookup (trust, allowlists, access)
// without recording anything: the file's own handler reports its errors.
func (sc *scan) quietJSON(path string) *jsonc.Value {
	data, exists, ferr := sc.fs.ReadFile(path)
	if !exists || ferr != nil {
		return nil
	}
	root, _ := cfgfile.ParseJSON(path, data, true)
	if root == nil || root.Kind != jsonc.Object {
		return nil
	}
	return root
}

// geminiSettings reads Gemini CLI settings: mcpServers plus the name-only
// mcp.allowed / mcp.excluded lists that Gemini enforces itself. Gemini merges
// the lists of every settings layer (system defaults, user, trusted workspace,
// system), so each server is judged against all of them; a workspace's
// settings load only in a trusted folder.
func geminiSettings(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientGemini, "settings", scope, true)
	if root == nil {
		return
	}
	servers := sc.serversAt(specGemini, path, root, scope, project, "mcpServers")
	if scope == ScopeProject && project != "" {
		trusted, known, why := sc.geminiTrust(project)
		for _, s := range servers {
			switch {
			case !known:
				s.detail("approval", why)
			case trusted:
				s.detail("approval", "trusted: "+why)
			default:
				sc.needsApproval(s, reports.StatusPendingApproval, "pending: "+why+"; Gemini CLI ignores this file until the folder is trusted (headless runs load it)")
			}
		}
	}
	sc.geminiLists(servers, path, root)
	sc.keep(servers...)
}

// geminiExtension reads an extension's gemini-extension.json; the settings
// allowlists apply to its servers too.
func geminiExtension(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientGemini, "extension", scope, true)
	if root == nil {
		return
	}
	servers := sc.serversAt(specGemini, path, root, scope, project, "mcpServers")
	for _, s := range servers {
		s.detail("extension", filepath.Base(filepath.Dir(path)))
	}
	sc.geminiLists(servers, "", nil)
	sc.keep(servers...)
}

// geminiSystemFile handles the system settings ("settings") or system defaults
// ("system-defaults") file wherever Gemini CLI reads it.
func geminiSystemFile(which string) fileHandler {
	return func(sc *scan, path, _, _ string) {
		if sc.machine {
			settings, defaults := sc.geminiSystemPaths()
			path = settings
			if which == "system-defaults" {
				path = defaults
			}
		}
		geminiSettings(sc, path, ScopeSystem, "")
	}
}

// geminiSystemPaths returns Gemini CLI's system settings and system defaults
// files: GEMINI_CLI_SYSTEM_SETTINGS_PATH / GEMINI_CLI_SYSTEM_DEFAULTS_PATH, or
// the OS location (C:\ProgramData\gemini-cli follows %ProgramData%).
func (sc *scan) geminiSystemPaths() (settings, defaults string) {
	root := string(filepath.Separator)
	switch sc.opts.GOOS {
	case "darwin":
		settings = filepath.Join(root, "Library", "Application Support", "GeminiCli", "settings.json")
	case "windows":
		base := filepath.Join(root, "ProgramData")
		if v, ok := sc.opts.LookupEnv("ProgramData"); ok && v != "" {
			base = v
		}
		settings = filepath.Join(base, "gemini-cli", "settings.json")
	default:
		settings = filepath.Join(root, "etc", "gemini-cli", "settings.json")
	}
	if v, ok := sc.opts.LookupEnv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); ok && v != "" {
		settings = v
	}
	defaults = filepath.Join(filepath.Dir(settings), "system-defaults.json")
	if v, ok := sc.opts.LookupEnv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH"); ok && v != "" {
		defaults = v
	}
	return settings, defaults
}

// geminiLayers returns the settings documents that apply to every Gemini
// server, lowest precedence first: system defaults, user, system. System
// files count in machine scans only.
func (sc *scan) geminiLayers() (defaults, user, system *jsonc.Value) {
	if sc.machine {
		s, d := sc.geminiSystemPaths()
		defaults, system = sc.quietJSON(d), sc.quietJSON(s)
	}
	if sc.opts.Home != "" {
		user = sc.quietJSON(filepath.Join(sc.opts.Home, ".gemini", "settings.json"))
	}
	return defaults, user, system
}

// geminiLists blocks the servers that the merged mcp.allowed / mcp.excluded
// lists (older allowMCPServers / excludeMCPServers) exclude. own is the file
// the servers come from, already parsed.
func (sc *scan) geminiLists(servers []*Server, ownPath string, own *jsonc.Value) {
	if len(servers) == 0 {
		return
	}
	d, u, sys := sc.geminiLayers()
	layers := []*jsonc.Value{d, u, sys}
	if own != nil && (sc.opts.Home == "" || ownPath != filepath.Join(sc.opts.Home, ".gemini", "settings.json")) {
		layers = append(layers, own)
	}
	var allowed, excluded []string
	hasAllowed := false
	seen := map[*jsonc.Value]bool{}
	for _, l := range layers {
		if l == nil || seen[l] {
			continue
		}
		seen[l] = true
		a, ok := l.Get("mcp").Get("allowed").StringSlice()
		if !ok {
			a, ok = l.Get("allowMCPServers").StringSlice()
		}
		if ok {
			allowed, hasAllowed = append(allowed, a...), true
		}
		x, _ := l.Get("mcp").Get("excluded").StringSlice()
		excluded = append(excluded, x...)
		x, _ = l.Get("excludeMCPServers").StringSlice()
		excluded = append(excluded, x...)
	}
	for _, s := range servers {
		switch {
		case contains(excluded, s.Name):
			s.detail("client_policy", "mcp.excluded")
			sc.clientStatus(s, reports.StatusBlocked, reports.ReasonClientBlocked)
		case hasAllowed && !contains(allowed, s.Name):
			s.detail("client_policy", "not in mcp.allowed")
			sc.clientStatus(s, reports.StatusBlocked, reports.ReasonClientBlocked)
		}
	}
}

// geminiTrust decides whether Gemini CLI loads the workspace settings of dir
// (packages/cli/src/config/trustedFolders.ts): folder trust on (the default)
// and the longest matching rule of trustedFolders.json is TRUST_FOLDER or
// TRUST_PARENT (which trusts the rule's parent). known is false when there is
// no trust file location to read.
func (sc *scan) geminiTrust(dir string) (trusted, known bool, why string) {
	d, u, sys := sc.geminiLayers()
	enabled := true
	for _, l := range []*jsonc.Value{d, u, sys} {
		if v := l.Get("security").Get("folderTrust").Get("enabled"); v != nil && v.Kind == jsonc.Bool {
			enabled = v.Bool
		}
	}
	if !enabled {
		return true, true, "folder trust is disabled (security.folderTrust.enabled: false)"
	}
	file := ""
	if v, ok := sc.opts.LookupEnv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); ok && v != "" {
		file = v
	} else if sc.opts.Home != "" {
		file = filepath.Join(sc.opts.Home, ".gemini", "trustedFolders.json")
	}
	if file == "" {
		return false, false, "unknown: no Gemini trustedFolders.json to read"
	}
	loc := realPath(dir)
	best, level := -1, ""
	if rules := sc.quietJSON(file); rules != nil {
		for _, m := range rules.Members {
			if !m.Value.IsString() {
				continue
			}
			eff := m.Key
			if m.Value.Str == "TRUST_PARENT" {
				eff = filepath.Dir(m.Key)
			}
			eff = realPath(eff)
			rel, err := filepath.Rel(eff, loc)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
				continue
			}
			if len(m.Key) > best {
				best, level = len(m.Key), m.Value.Str
			}
		}
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return true, true, level + " in " + file
	case "DO_NOT_TRUST":
		return false, true, "DO_NOT_TRUST in " + file
	}
	return false, true, "no rule for the folder in " + file
}

// zedSettings reads Zed's context_servers, including the legacy
// {"command": {"path", "args", "env"}} shape and extension-provided servers.
func zedSettings(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientZed, "settings", scope, true)
	if root == nil {
		return
	}
	m := root.Member("context_servers")
	if m == nil {
		return
	}
	if m.Value.Kind != jsonc.Object {
		sc.parseEntries(specZed, path, m, "/context_servers", scope, project)
		return
	}
	for i := range m.Value.Members {
		e := &m.Value.Members[i]
		pointer := jsonc.Pointer("context_servers", e.Key)
		v := e.Value
		if cmd := v.Get("command"); cmd != nil && cmd.Kind == jsonc.Object {
			// Legacy shape: lift command.path/args/env to the top level.
			v = zedLegacy(v, cmd)
		}
		s := sc.parseEntry(specZed, path, pointer, e.Key, e.KeyPos, v, scope, project)
		if s.refused {
			sc.keep(s)
			continue
		}
		s.HasArgs = e.Value.Get("args") != nil
		if src := e.Value.Get("source"); src != nil && src.Kind == jsonc.String && src.Str == "extension" {
			s.Transport, s.Status = TransportOther, reports.StatusActive
			s.Decision = sc.judge(s)
			s.detail("source", "extension")
			delete(s.Details, "invalid")
			s.pendingFindings = nil // an extension server has no command of its own to check
		}
		sc.keep(s)
	}
}

// zedLegacy rewrites {"command": {"path", "args", "env"}, ...} into the flat shape.
func zedLegacy(v, cmd *jsonc.Value) *jsonc.Value {
	flat := &jsonc.Value{Kind: jsonc.Object, Pos: v.Pos, End: v.End}
	for _, m := range v.Members {
		if m.Key != "command" {
			flat.Members = append(flat.Members, m)
		}
	}
	for _, m := range cmd.Members {
		switch m.Key {
		case "path":
			flat.Members = append(flat.Members, jsonc.Member{Key: "command", KeyPos: m.KeyPos, Value: m.Value})
		case "args", "env":
			flat.Members = append(flat.Members, m)
		}
	}
	return flat
}

// opencodeConfig reads opencode's "mcp" block: {"type": "local", "command":
// [argv...]} or {"type": "remote", "url": ...}.
func opencodeConfig(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientOpenCode, "config", scope, true)
	if root == nil {
		return
	}
	m := root.Member("mcp")
	if m == nil || m.Value.Kind != jsonc.Object {
		return
	}
	spec := &entrySpec{client: ClientOpenCode, dialect: "opencode", urlKeys: urlHTTP,
		types: map[string]string{"local": TransportStdio, "remote": TransportHTTP}, enabledKey: "enabled"}
	for i := range m.Value.Members {
		e := &m.Value.Members[i]
		v := e.Value
		if cmd := v.Get("command"); cmd != nil && cmd.Kind == jsonc.Array && len(cmd.Elems) > 0 {
			// Split the argv array into command and args.
			flat := &jsonc.Value{Kind: jsonc.Object, Pos: v.Pos, End: v.End}
			for _, mm := range v.Members {
				switch mm.Key {
				case "command":
					flat.Members = append(flat.Members,
						jsonc.Member{Key: "command", KeyPos: mm.KeyPos, Value: cmd.Elems[0]},
						jsonc.Member{Key: "args", KeyPos: mm.KeyPos, Value: &jsonc.Value{Kind: jsonc.Array, Elems: cmd.Elems[1:]}})
				case "environment":
					flat.Members = append(flat.Members, jsonc.Member{Key: "env", KeyPos: mm.KeyPos, Value: mm.Value})
				default:
					flat.Members = append(flat.Members, mm)
				}
			}
			v = flat
		}
		s := sc.parseEntry(spec, path, jsonc.Pointer("mcp", e.Key), e.Key, e.KeyPos, v, scope, project)
		if !s.refused {
			s.HasArgs = e.Value.Get("args") != nil
		}
		sc.keep(s)
	}
}

// listDir returns the names in dir, or nil.
func (sc *scan) listDir(dir string) []string {
	entries, err := sc.fs.ReadDir(dir)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
