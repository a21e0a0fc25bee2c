package scanner

import (
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
	specGemini = &entrySpec{client: ClientGemini, dialect: interp.Shell,
		urlKeys: []urlKey{{"httpUrl", TransportHTTP}, {"url", TransportSSE}}, extra: geminiExtras}
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
	// .continue/mcpServers/.
	specContinueJSON = &entrySpec{client: ClientContinue, dialect: interp.Continue, urlKeys: urlHTTP, types: stdTypes}
)

// editorExtras records Cursor and VS Code fields that matter to a reviewer.
func editorExtras(_ *scan, s *Server, f *fieldReader) {
	if v, ok := f.str("envFile"); ok {
		// A file of secrets: its values are never read, the path is reported.
		s.detail("env_file", v)
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
