package scanner

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/policy"
)

// fileHandler parses one configuration file of a client.
type fileHandler func(sc *scan, path, scope, project string)

// location is a configuration file at a fixed place: relative to the home
// directory, to a project, or absolute (system files).
type location struct {
	rel     string // slash-separated; may end in a glob ("*.yaml")
	client  string
	handler fileHandler
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
		{"Library/Application Support/Claude/claude_desktop_config.json", ClientClaudeDesktop, jsonServers(specClaudeDesktop, false, "mcpServers")},
		{"AppData/Roaming/Claude/claude_desktop_config.json", ClientClaudeDesktop, jsonServers(specClaudeDesktop, false, "mcpServers")},
		{"AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude/claude_desktop_config.json", ClientClaudeDesktop, jsonServers(specClaudeDesktop, false, "mcpServers")},
		{".config/Claude/claude_desktop_config.json", ClientClaudeDesktop, jsonServers(specClaudeDesktop, false, "mcpServers")},
		{".cursor/mcp.json", ClientCursor, jsonServers(specCursor, true, "mcpServers")},
		{".vscode/mcp.json", ClientVSCode, jsonServers(specVSCode, true, "servers")},
		{".codeium/windsurf/mcp_config.json", ClientWindsurf, jsonServers(specWindsurf, true, "mcpServers")},
		{".codeium/mcp_config.json", ClientWindsurf, jsonServers(specWindsurf, true, "mcpServers")},
		{".gemini/settings.json", ClientGemini, geminiSettings},
		{".gemini/extensions/*/gemini-extension.json", ClientGemini, jsonServers(specGemini, true, "mcpServers")},
		{".gemini/antigravity/mcp_config.json", ClientAntigravity, jsonServers(specAntigravity, true, "mcpServers")},
		{".gemini/config/mcp_config.json", ClientAntigravity, jsonServers(specAntigravity, true, "mcpServers")},
		{".config/zed/settings.json", ClientZed, zedSettings},
		{"AppData/Roaming/Zed/settings.json", ClientZed, zedSettings},
		{".cline/data/settings/cline_mcp_settings.json", ClientCline, jsonServers(specCline, true, "mcpServers")},
		{".cline/mcp.json", ClientCline, jsonServers(specCline, true, "mcpServers")},
		{".kilocode/cli/global/settings/mcp_settings.json", ClientKilo, jsonServers(specKilo, true, "mcpServers")},
		{".junie/mcp/mcp.json", ClientJunie, jsonServers(specJunie, true, "mcpServers")},
		{".kiro/settings/mcp.json", ClientKiro, jsonServers(specKiro, true, "mcpServers")},
		{".copilot/mcp-config.json", ClientCopilotCLI, jsonServers(specCopilotCLI, true, "mcpServers")},
		{".config/opencode/opencode.json", ClientOpenCode, opencodeConfig},
		{".config/opencode/opencode.jsonc", ClientOpenCode, opencodeConfig},
	}
	for _, d := range codeUserDirs {
		locs = append(locs,
			location{d + "/mcp.json", ClientVSCode, jsonServers(specVSCode, true, "servers")},
			location{d + "/settings.json", ClientVSCode, vscodeSettings},
		)
	}
	for _, d := range append(append([]string{}, codeUserDirs...), forkUserDirs...) {
		locs = append(locs,
			location{d + "/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json", ClientCline, jsonServers(specCline, true, "mcpServers")},
			location{d + "/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json", ClientRoo, jsonServers(specRoo, true, "mcpServers")},
			location{d + "/globalStorage/kilocode.kilo-code/settings/mcp_settings.json", ClientKilo, jsonServers(specKilo, true, "mcpServers")},
		)
	}
	return append(locs, extraUserLocations()...)
}

// projectLocations lists the files other clients read inside a project (Claude
// Code's .mcp.json and .claude/ settings are resolved separately).
func projectLocations() []location {
	locs := []location{
		{".cursor/mcp.json", ClientCursor, jsonServers(specCursor, true, "mcpServers")},
		{".vscode/mcp.json", ClientVSCode, jsonServers(specVSCode, true, "servers")},
		{".vscode/settings.json", ClientVSCode, vscodeSettings},
		{".gemini/settings.json", ClientGemini, geminiSettings},
		{".zed/settings.json", ClientZed, zedSettings},
		{".junie/mcp/mcp.json", ClientJunie, jsonServers(specJunie, true, "mcpServers")},
		{".kiro/settings/mcp.json", ClientKiro, jsonServers(specKiro, true, "mcpServers")},
		{".roo/mcp.json", ClientRoo, jsonServers(specRoo, true, "mcpServers")},
		{".kilocode/mcp.json", ClientKilo, jsonServers(specKilo, true, "mcpServers")},
		{".continue/mcpServers/*.json", ClientContinue, jsonServers(specContinueJSON, true, "mcpServers")},
		{"opencode.json", ClientOpenCode, opencodeConfig},
		{"opencode.jsonc", ClientOpenCode, opencodeConfig},
	}
	return append(locs, extraProjectLocations()...)
}

// expand resolves a location's glob under base; most locations are plain paths.
func (l location) expand(base string) []string {
	p := filepath.Join(base, filepath.FromSlash(l.rel))
	if !strings.ContainsAny(l.rel, "*?[") {
		return []string{p}
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil
	}
	sort.Strings(matches)
	return matches
}

// readJSON reads and parses a client file, recording the source and errors.
// It returns nil when the file is absent, unreadable or malformed.
func (sc *scan) readJSON(path, client, kind, scope string, jsoncMode bool) *jsonc.Value {
	data, exists, ferr := cfgfile.Read(path)
	if !exists {
		return nil
	}
	src := Source{Path: path, Client: client, Kind: kind, Scope: scope}
	if ferr != nil {
		sc.fileError(*ferr)
		src.Error = ferr.Message
		sc.source(src)
		return nil
	}
	root, errs := cfgfile.ParseJSON(path, data, jsoncMode)
	sc.fileError(errs...)
	if root != nil && root.Kind != jsonc.Object {
		sc.fileError(policy.FileError{Path: path, Line: root.Pos.Line, Column: root.Pos.Col, Message: "must hold a JSON object, not " + root.Kind.String()})
		root = nil
	}
	if root == nil {
		src.Error = "unparseable"
	}
	sc.source(src)
	return root
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

// vscodeSettings reads the legacy "mcp": {"servers": ...} block of a VS Code
// settings.json (JSONC).
func vscodeSettings(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientVSCode, "settings", scope, true)
	if root == nil {
		return
	}
	servers := sc.serversAt(specVSCode, path, root, scope, project, "mcp", "servers")
	if access := root.Get("chat.mcp.access"); access != nil && access.Kind == jsonc.String && access.Str == "none" {
		for _, s := range servers {
			s.detail("client_policy", "chat.mcp.access: none")
			sc.clientStatus(s, StatusBlocked, policy.ReasonClientBlocked)
		}
	}
	sc.keep(servers...)
}

// geminiSettings reads Gemini CLI settings: mcpServers plus the name-only
// mcp.allowed / mcp.excluded lists that Gemini enforces itself.
func geminiSettings(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientGemini, "settings", scope, true)
	if root == nil {
		return
	}
	servers := sc.serversAt(specGemini, path, root, scope, project, "mcpServers")
	allowed, hasAllowed := root.Get("mcp").Get("allowed").StringSlice()
	if !hasAllowed {
		allowed, hasAllowed = root.Get("allowMCPServers").StringSlice()
	}
	excluded, _ := root.Get("mcp").Get("excluded").StringSlice()
	if x, ok := root.Get("excludeMCPServers").StringSlice(); ok {
		excluded = append(excluded, x...)
	}
	for _, s := range servers {
		switch {
		case contains(excluded, s.Name):
			s.detail("client_policy", "mcp.excluded")
			sc.clientStatus(s, StatusBlocked, policy.ReasonClientBlocked)
		case hasAllowed && !contains(allowed, s.Name):
			s.detail("client_policy", "not in mcp.allowed")
			sc.clientStatus(s, StatusBlocked, policy.ReasonClientBlocked)
		}
	}
	sc.keep(servers...)
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
		s.Raw = e.Value.Interface()
		if src := e.Value.Get("source"); src != nil && src.Kind == jsonc.String && src.Str == "extension" {
			s.Transport, s.Status = TransportOther, StatusActive
			s.Decision = sc.judge(s)
			s.detail("source", "extension")
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
		s.Raw = e.Value.Interface()
		sc.keep(s)
	}
}

// listDir returns the names in dir, or nil.
func listDir(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
