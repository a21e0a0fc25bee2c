package scanner

import (
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// The entry specs of the clients whose files are objects of named servers.
var (
	specClaudeDesktop = &entrySpec{client: ClientClaudeDesktop, dialect: interp.None,
		urlKeys: urlHTTP, types: map[string]string{"stdio": TransportStdio}, remoteNeedsType: true}
	specCursor = &entrySpec{client: ClientCursor, dialect: interp.Cursor, urlKeys: urlHTTP, types: stdTypes,
		extra: editorExtras}
	specVSCode = &entrySpec{client: ClientVSCode, dialect: interp.VSCode, urlKeys: urlHTTP, types: stdTypes,
		extra: editorExtras}
	specWindsurf = &entrySpec{client: ClientWindsurf, dialect: interp.Windsurf,
		urlKeys: []urlKey{{"serverUrl", TransportHTTP}, {"url", TransportHTTP}}, types: stdTypes, disabledKey: "disabled"}
	// Gemini CLI: httpUrl is streamable HTTP, url is SSE, tcp (host:port) a
	// WebSocket.
	specGemini = &entrySpec{client: ClientGemini, dialect: interp.Shell, remoteDocumented: true,
		urlKeys: []urlKey{{"httpUrl", TransportHTTP}, {"url", TransportSSE}, {"tcp", TransportWS}}, extra: geminiExtras}
	specAntigravity = &entrySpec{client: ClientAntigravity, dialect: interp.None, urlKeys: []urlKey{{"serverUrl", TransportHTTP}, {"url", TransportHTTP}}, disabledKey: "disabled"}
	specCline       = &entrySpec{client: ClientCline, dialect: interp.None, urlKeys: urlHTTP, types: stdTypes, disabledKey: "disabled", extra: autoApproveExtras}
	specRoo         = &entrySpec{client: ClientRoo, dialect: interp.None, urlKeys: urlHTTP, types: stdTypes, disabledKey: "disabled", extra: autoApproveExtras}
	specKilo        = &entrySpec{client: ClientKilo, dialect: interp.None, urlKeys: urlHTTP, types: stdTypes, disabledKey: "disabled", extra: autoApproveExtras}
	specJunie       = &entrySpec{client: ClientJunie, dialect: interp.None, urlKeys: urlHTTP}
	specKiro        = &entrySpec{client: ClientKiro, dialect: interp.None, urlKeys: urlHTTP, types: stdTypes, disabledKey: "disabled", extra: autoApproveExtras}
	specCopilotCLI  = &entrySpec{client: ClientCopilotCLI, dialect: interp.None, urlKeys: urlHTTP,
		types: map[string]string{"local": TransportStdio, "stdio": TransportStdio, "http": TransportHTTP, "sse": TransportSSE}}
	specZed = &entrySpec{client: ClientZed, dialect: interp.None, urlKeys: urlHTTP, enabledKey: "enabled"}
	// specContinueJSON reads Claude/Cursor/Cline-shaped JSON dropped into
	// .continue/mcpServers/; Continue accepts the types stdio, sse and http
	// (packages/config-yaml/src/schemas/mcp/json.ts) and turns ${VAR} in env
	// into ${{ secrets.VAR }}.
	specContinueJSON = &entrySpec{client: ClientContinue, dialect: interp.Continue, urlKeys: urlHTTP,
		types: map[string]string{"stdio": TransportStdio, "sse": TransportSSE, "http": TransportHTTP}}
)

// editorExtras records Cursor and VS Code fields that matter to a reviewer.
func editorExtras(sc *scan, s *Server, f *fieldReader) {
	if v, ok := f.str("envFile"); ok {
		// A file of secrets: the path is reported and its variable names
		// become env keys; its values are never kept.
		s.detail("env_file", v)
		for _, k := range sc.envFileKeys(s, v) {
			if !contains(s.EnvKeys, k) {
				s.EnvKeys = append(s.EnvKeys, k)
			}
		}
	}
	if auth := f.v.Get("auth"); auth != nil && auth.Kind == jsonc.Object {
		var keys []string
		for _, m := range auth.Members {
			keys = append(keys, m.Key)
		}
		s.detail("auth_keys", keys)
	}
	if b, ok := f.boolean("sandboxEnabled"); ok {
		s.detail("sandbox_enabled", b)
	}
	if f.v.Get("dev") != nil {
		s.detail("dev_mode", true)
	}
}

// geminiExtras records Gemini CLI's per-server trust and tool filters.
func geminiExtras(_ *scan, s *Server, f *fieldReader) {
	if b, ok := f.boolean("trust"); ok {
		s.detail("trust", b) // true skips every tool-call confirmation
	}
	if v, ok := f.strs("includeTools"); ok {
		s.detail("include_tools", v)
	}
	if v, ok := f.strs("excludeTools"); ok {
		s.detail("exclude_tools", v)
	}
}

// autoApproveExtras records the tools Cline-family clients run without asking.
func autoApproveExtras(_ *scan, s *Server, f *fieldReader) {
	for _, key := range []string{"autoApprove", "alwaysAllow"} {
		if v, ok := f.strs(key); ok && len(v) > 0 {
			s.detail("auto_approve", v)
		}
	}
}

// envFileKeys returns the variable names an envFile defines, in file order.
// ${workspaceFolder} resolves to the server's project and ${userHome} to the
// home directory; a file that cannot be located or read gives no names.
func (sc *scan) envFileKeys(s *Server, ref string) []string {
	p := ref
	for _, r := range interp.Refs(s.Dialect, ref) {
		var val string
		switch {
		case r.Kind == interp.KindPredefined && (r.Name == "workspaceFolder" || r.Name == "workspaceRoot") && s.Project != "":
			val = s.Project
		case r.Kind == interp.KindPredefined && r.Name == "userHome" && sc.opts.Home != "":
			val = sc.opts.Home
		default:
			return nil
		}
		p = strings.Replace(p, r.Text, val, 1)
	}
	if !filepath.IsAbs(p) {
		if s.Project == "" {
			return nil
		}
		p = filepath.Join(s.Project, p)
	}
	data, exists, ferr := sc.fs.ReadFile(p)
	if !exists || ferr != nil {
		return nil
	}
	var keys []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "export "))
		if line == "" || line[0] == '#' {
			continue
		}
		if k, _, ok := strings.Cut(line, "="); ok {
			if k = strings.TrimSpace(k); k != "" && !strings.ContainsAny(k, " \t\"'") {
				keys = append(keys, k)
			}
		}
	}
	return keys
}
