package scanner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// claudeTransports maps the entry types Claude Code accepts in config files to
// transports (§2.1). Observed with the CLI: the internal types sse-ide, ws-ide,
// sdk and claudeai-proxy are skipped when they appear in a file.
var claudeTransports = map[string]string{
	"":                TransportStdio,
	"stdio":           TransportStdio,
	"http":            TransportHTTP,
	"streamable-http": TransportHTTP,
	"sse":             TransportSSE,
	"ws":              TransportWS,
}

// internalTypes are entry types Claude Code creates at run time and refuses in
// files.
var internalTypes = map[string]string{
	"sse-ide":        "the IDE integration (from lock files)",
	"ws-ide":         "the IDE integration (from lock files)",
	"sdk":            "in-process SDK servers",
	"claudeai-proxy": "claude.ai connectors",
}

// parseClaudeEntry reads one server entry of ~/.claude.json, .mcp.json or
// managed-mcp.json. invalid is non-empty when Claude Code skips the entry at
// load time (§2.2); the server is still returned so that it can be reported.
func (sc *scan) parseClaudeEntry(path, pointer string, m *jsonc.Member) (s *Server, invalid string) {
	s = &Server{
		Name:    m.Key,
		Client:  ClientClaudeCode,
		Source:  cfgfile.Loc(path, pointer, m.KeyPos),
		Dialect: interp.Claude,
	}
	if why := entryTooLarge(m.Value); why != "" {
		sc.refuseEntry(s, why)
		return s, ""
	}
	s.HasArgs = m.Value.Get("args") != nil
	if m.Value.Kind != jsonc.Object {
		s.Transport = TransportOther
		return s, "server config must be an object, got " + m.Value.Kind.String()
	}
	f := &fieldReader{v: m.Value}
	typ, hasType := f.str("type")
	s.Type = typ
	transport, known := claudeTransports[typ]
	if hasType && len(f.problems) > 0 {
		s.Transport = TransportOther
		return s, f.problems[0]
	}
	if !known {
		s.Transport = TransportOther
		if what, ok := internalTypes[typ]; ok {
			if u, ok := f.str("url"); ok {
				s.URL = u
			}
			return s, fmt.Sprintf("type %q is internal to %s; Claude Code skips it in a config file", typ, what)
		}
		return s, `unknown server type "` + typ + `"`
	}
	s.Transport = transport
	switch transport {
	case TransportStdio:
		cmd, hasCmd := f.str("command")
		s.Command = cmd
		s.Args, _ = f.strs("args")
		s.Env, s.EnvKeys, _ = f.strMap("env")
		if !hasType && !hasCmd {
			if url, ok := f.str("url"); ok {
				s.URL = url
				s.Transport = TransportHTTP
				return s, `has a "url" but no "type"; add "type": "http" (or "sse", "ws")`
			}
		}
		if !hasCmd {
			return s, "command: required"
		}
		if cmd == "" && len(f.problems) == 0 {
			return s, "command: Command cannot be empty"
		}
		if len(f.problems) == 0 && strings.TrimSpace(cmd) != cmd {
			s.warning = "leading or trailing whitespace in the command; Claude Code runs it as written"
		}
	default:
		url, hasURL := f.str("url")
		s.URL = url
		s.Headers, s.HeaderKeys, _ = f.strMap("headers")
		if h, ok := f.str("headersHelper"); ok {
			s.detail("headers_helper", h)
		}
		if m.Value.Get("oauth") != nil {
			s.detail("oauth", true)
		}
		if !hasURL {
			return s, "url: required"
		}
	}
	if len(f.problems) > 0 {
		return s, f.problems[0]
	}
	seeThrough(s)
	return s, ""
}

// expandClaude expands a winner's command, args, url and header values with the
// server-config environment (§3.2, §3.3).
func expandClaude(s *Server, lookup interp.Lookup) *Expanded {
	e := &Expanded{}
	addMissing := func(names []string) {
		for _, n := range names {
			if !contains(e.Missing, n) {
				e.Missing = append(e.Missing, n)
			}
		}
	}
	expand := func(v string) string {
		if interp.HasRef(interp.Claude, v) {
			e.HasVar = true
		}
		out, missing := interp.ExpandClaude(v, lookup)
		addMissing(missing)
		return out
	}
	e.Command = expand(s.Command)
	// The server's own arguments unless one changes: most hold no
	// reference, and a copy each was an allocation a server.
	e.Args = s.Args
	for i, a := range s.Args {
		if x := expand(a); x != a {
			if &e.Args[0] == &s.Args[0] {
				e.Args = slices.Clone(s.Args)
			}
			e.Args[i] = x
		}
	}
	e.URL = expand(s.URL)
	if len(s.Headers) > 0 {
		e.Headers = make(map[string]string, len(s.Headers))
		for _, k := range s.HeaderKeys {
			e.Headers[k] = expand(s.Headers[k])
		}
	}
	// The second forms (Expanded.ArgvForms): most command lines hold no
	// reference after one pass, and then nothing is made.
	for i := range 1 + len(e.Args) {
		a := e.Command
		if i > 0 {
			a = e.Args[i-1]
		}
		again, _ := interp.ExpandClaude(a, lookup)
		if again != a && e.argvAgain == nil {
			e.argvAgain = append([]string{e.Command}, e.Args...)
		}
		if e.argvAgain != nil {
			e.argvAgain[i] = again
		}
	}
	if u, _ := interp.ExpandClaude(e.URL, lookup); u != e.URL {
		e.urlAgain = &u
	}
	// env values are expanded too but never take part in matching; only their
	// missing variables are reported here. The values, which only an
	// introspection reads, are expanded again when it asks (ServerEnv): a
	// map of them was ~300 bytes a server.
	for _, k := range s.EnvKeys {
		v, ok := s.Env[k]
		if !ok {
			continue // a name forwarded without a value
		}
		_, missing := interp.ExpandClaude(v, lookup)
		addMissing(missing)
	}
	if len(s.Env) > 0 {
		e.envOf = s
		e.lookup = lookup
	}
	return e
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
