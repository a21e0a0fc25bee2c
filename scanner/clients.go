package scanner

import (
	"fmt"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// entrySpec describes how one client writes server entries, so that a single
// parser reads every "named object of servers" format (docs/clients.md §7).
type entrySpec struct {
	client  string
	dialect interp.Dialect
	// urlKeys are the fields that hold a remote URL, in priority order, with the
	// transport each implies when the entry has no "type" ("" = see inferRemote).
	urlKeys []urlKey
	// types maps "type" values to transports; nil means the client has no type
	// field and the transport is inferred.
	types map[string]string
	// remoteNeedsType marks clients whose remote entries without "type" are of an
	// unknown shape (C006), e.g. Claude Desktop.
	remoteNeedsType bool
	// remoteDocumented marks clients whose URL fields name their transport
	// (Codex url = streamable HTTP, Gemini httpUrl / url): a remote entry without
	// "type" is then not "transport_inferred" (docs/clients.md §7).
	remoteDocumented bool
	// headersKey is the field that holds HTTP headers; "" means "headers".
	headersKey string
	// disabledKey / enabledKey: a boolean that turns a server off.
	disabledKey string
	enabledKey  string
	// extra reads client-specific fields into the server (details, status).
	extra func(sc *scan, s *Server, f *fieldReader)
}

type urlKey struct {
	key       string
	transport string
}

var (
	stdTypes = map[string]string{
		"stdio": TransportStdio, "http": TransportHTTP, "streamable-http": TransportHTTP,
		"streamableHttp": TransportHTTP, "sse": TransportSSE, "ws": TransportWS,
	}
	urlHTTP = []urlKey{{"url", TransportHTTP}}
)

// parseEntries reads the object of named servers at pointer in a file.
func (sc *scan) parseEntries(spec *entrySpec, path string, servers *jsonc.Member, pointer, scope, project string) []*Server {
	if servers.Value.Kind != jsonc.Object {
		sc.fileFindingEvidence("MCPG-C006", cfgfile.Loc(path, pointer, servers.KeyPos),
			fmt.Sprintf("%q must be an object of named servers, not %s; %s loads nothing from it", servers.Key, servers.Value.Kind, spec.client),
			map[string]any{"problem": "wrong type"}, servers.Key)
		return nil
	}
	if sc.tooManyServers(path, pointer, servers) {
		return nil
	}
	var out []*Server
	for i := range servers.Value.Members {
		m := &servers.Value.Members[i]
		s := sc.parseEntry(spec, path, pointer+"/"+jsonc.PointerToken(m.Key), m.Key, m.KeyPos, m.Value, scope, project)
		out = append(out, s)
	}
	return out
}

// parseEntry reads one server entry of a non-Claude-Code client.
func (sc *scan) parseEntry(spec *entrySpec, path, pointer, name string, pos jsonc.Pos, v *jsonc.Value, scope, project string) *Server {
	s := &Server{
		Name: name, Client: spec.client, Scope: scope, Project: project,
		Source:  cfgfile.Loc(path, pointer, pos),
		Dialect: spec.dialect,
	}
	if why := entryTooLarge(v); why != "" {
		return sc.refuseEntry(s, why)
	}
	s.HasArgs = v.Get("args") != nil
	if v.Kind != jsonc.Object {
		s.Transport = TransportOther
		sc.invalid(s, "server entry must be an object, got "+v.Kind.String())
		return s
	}
	f := &fieldReader{v: v}
	typ, hasType := f.str("type")
	s.Type = typ
	s.Command, _ = f.str("command")
	s.Args, _ = f.strs("args")
	s.Env, s.EnvKeys, _ = f.strMap("env")
	if c, ok := f.str("cwd"); ok {
		s.Cwd = c
	}
	urlTransport := ""
	for _, k := range spec.urlKeys {
		if u, ok := f.str(k.key); ok {
			s.URL, urlTransport = u, k.transport
			s.detail("url_field", k.key)
			break
		}
	}
	// Headers are read for stdio entries too: the client ignores them, or
	// rejects the entry, but a credential written there is still in the file.
	hk := spec.headersKey
	if hk == "" {
		hk = "headers"
	}
	if f.v.Member(hk) != nil {
		s.Headers, s.HeaderKeys, _ = f.strMap(hk)
	}
	switch {
	case hasType && spec.types != nil:
		t, ok := spec.types[typ]
		if !ok {
			s.Transport = TransportOther
			sc.finding(s, "MCPG-C006", fmt.Sprintf("server %q has an unknown type %q for %s", name, typ, spec.client),
				map[string]any{"problem": "unknown type", "type": typ})
		}
		s.Transport = t
		if !ok {
			s.Transport = TransportOther
		}
	case s.Command != "":
		s.Transport = TransportStdio
	case urlTransport != "":
		s.Transport = urlTransport
		if !spec.remoteDocumented {
			s.detail("transport_inferred", true)
		}
		if spec.remoteNeedsType {
			sc.finding(s, "MCPG-C006", fmt.Sprintf("server %q has a URL but %s documents no remote entries in this file; the entry's effect is unknown", name, spec.client),
				map[string]any{"problem": "unknown shape"})
		}
	default:
		s.Transport = TransportOther
	}
	if s.Transport == TransportStdio && s.Command == "" {
		sc.invalid(s, "stdio server without a command")
	} else if s.Transport != TransportStdio && s.Transport != TransportOther && s.URL == "" {
		sc.invalid(s, "remote server without a URL")
	} else if s.Transport == TransportOther && s.Command == "" && s.URL == "" && s.Status == "" {
		sc.invalid(s, "entry has neither a command nor a URL")
	}
	if s.Transport == TransportStdio && s.Status != reports.StatusInvalid {
		seeThrough(s)
	}
	if spec.disabledKey != "" {
		if b, ok := f.boolean(spec.disabledKey); ok && b {
			s.detail("disabled_by", spec.disabledKey)
			sc.clientStatus(s, reports.StatusDisabled, reports.ReasonClientDisabled)
		}
	}
	if spec.enabledKey != "" {
		if b, ok := f.boolean(spec.enabledKey); ok && !b {
			s.detail("disabled_by", spec.enabledKey+": false")
			sc.clientStatus(s, reports.StatusDisabled, reports.ReasonClientDisabled)
		}
	}
	if spec.extra != nil {
		spec.extra(sc, s, f)
	}
	for _, p := range f.problems {
		sc.finding(s, "MCPG-C006", fmt.Sprintf("server %q: %s", name, p), map[string]any{"problem": p}, p)
	}
	if s.Status == "" {
		s.Status = reports.StatusActive
		s.Decision = sc.judge(s)
		if !s.Decision.Allowed {
			s.Status = reports.StatusBlocked
		}
	}
	sc.checkVars(s)
	return s
}

// geminiVars are the names Gemini CLI substitutes itself in extension and
// settings files (${extensionPath}, ${workspacePath}, ${/}): not environment
// variables.
var geminiVars = map[string]bool{"extensionPath": true, "workspacePath": true, "pathSeparator": true}

// invalid marks a server as invalid with a C006 finding.
func (sc *scan) invalid(s *Server, why string) {
	s.Status = reports.StatusInvalid
	s.Decision = reports.Decision{Reasons: []string{reports.ReasonInvalid}}
	s.detail("invalid", why)
	sc.finding(s, "MCPG-C006", fmt.Sprintf("%s server %q is not usable: %s", s.Client, s.Name, why), map[string]any{"problem": why}, why)
}

// needsApproval marks a loaded server whose file the client reads only after
// the user trusts or approves it (Codex and Gemini CLI project files): an
// active server becomes st (pending-approval or rejected) and keeps its policy
// decision; disabled, invalid and blocked servers keep their status.
func (sc *scan) needsApproval(s *Server, st reports.Status, why string) {
	s.detail("approval", why)
	if s.Status == reports.StatusActive {
		s.Status = st
	}
}

// clientStatus sets a status the client itself decides (disabled flags,
// client allowlists, untrusted projects) unless one is already set.
func (sc *scan) clientStatus(s *Server, st reports.Status, reason string) {
	if s.Status == reports.StatusInvalid {
		return
	}
	s.Status = st
	s.Decision = reports.Decision{Allowed: st != reports.StatusBlocked, Reasons: []string{reason}}
}

// checkVars raises C007 for environment references that have no value, in the
// client's own dialect. Prompted inputs and editor variables are never missing.
func (sc *scan) checkVars(s *Server) {
	if s.Dialect == interp.None || s.Dialect == interp.Claude {
		return
	}
	var missing []string
	check := func(v string) {
		for _, r := range interp.Refs(s.Dialect, v) {
			if r.Kind != interp.KindEnv || s.Client == ClientGemini && geminiVars[r.Name] {
				continue
			}
			if _, ok := sc.opts.LookupEnv(r.Name); !ok && !contains(missing, r.Name) {
				missing = append(missing, r.Name)
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
	if len(missing) > 0 && (sc.opts.Home != "" || !sc.machine) {
		sc.unsetVars(s, missing, fmt.Sprintf("server %q references %s, unset in mcpguard's environment and without a default",
			s.Name, strings.Join(missing, ", ")), map[string]any{"variables": missing, "dialect": string(s.Dialect)})
	}
}

// unsetVars records the variables a server references without a default.
// A machine scan knows the environment the client starts with: an unset
// one is MCPG-C007, a warning (machineMsg). Path mode judges the committed
// text as a fresh clone anywhere would be judged: it reads no environment
// (Scan), and each such reference is a note that the server needs the
// variable at run time, the same on a laptop that has it and on a CI runner
// that does not.
func (sc *scan) unsetVars(s *Server, names []string, machineMsg string, evidence map[string]any) {
	if sc.machine {
		sc.finding(s, "MCPG-C007", machineMsg, evidence, names...)
		return
	}
	evidence["at_run_time"] = true
	msg := fmt.Sprintf("server %q needs %s at run time: the file gives no default", s.Name, strings.Join(names, ", "))
	sc.finding(s, "MCPG-C007", msg, evidence, names...)
	s.pendingFindings[len(s.pendingFindings)-1].severity = reports.SeverityNote
}
