package scanner

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// OpenAI Codex keeps its servers in TOML tables [mcp_servers.<name>]
// (docs/clients.md §3.5). The layers, as codex-rs/core/src/config_loader reads
// them: /etc/codex/config.toml (system, Unix), $CODEX_HOME/config.toml (user,
// default ~/.codex), <project>/.codex/config.toml (loaded only for trusted
// projects), managed_config.toml (/etc/codex on Unix, $CODEX_HOME on Windows)
// on top; requirements.toml (/etc/codex, %ProgramData%\OpenAI\Codex) is an
// admin allowlist of server identities.

// specCodex reads one [mcp_servers.<name>] table. Codex has no "type": command
// means stdio, url means streamable HTTP (no SSE); headers are http_headers.
var specCodex = &entrySpec{client: ClientCodex, dialect: interp.None, urlKeys: urlHTTP,
	enabledKey: "enabled", remoteDocumented: true, headersKey: "http_headers", extra: codexExtras}

// Policy source kind of requirements.toml (SPEC §5 policy.sources[].kind).
const policyKindCodexRequirements = "codex-requirements"

// codexHome is $CODEX_HOME, or ~/.codex; "" when neither is known.
func (sc *scan) codexHome() string {
	if v, ok := sc.opts.LookupEnv("CODEX_HOME"); ok && v != "" {
		return absPath(v)
	}
	if sc.opts.Home == "" {
		return ""
	}
	return filepath.Join(sc.opts.Home, ".codex")
}

// codexUserConfig handles ~/.codex/config.toml (relocated to $CODEX_HOME by
// the location list in machine scans).
func codexUserConfig(sc *scan, path, scope, project string) {
	sc.codexConfig(path, "config", scope, project)
}

// codexLayer handles managed_config.toml and the system config.toml: ordinary
// config layers whose servers load for every user (scope system).
func codexLayer(layer string) fileHandler {
	return func(sc *scan, path, _, _ string) {
		for _, s := range sc.codexConfig(path, layer, ScopeSystem, "") {
			s.detail("codex_layer", layer)
		}
	}
}

// codexProjectConfig handles <project>/.codex/config.toml: Codex loads it only
// when the user config marks the project trusted (trust_level = "trusted");
// otherwise the layer is disabled until the user trusts the folder.
func codexProjectConfig(sc *scan, path, scope, project string) {
	if !sc.exists(path) {
		// Nothing to read either way: spare resolving the project's .codex
		// against the Codex home, a walk of symbolic links per project and
		// scan (a daemon's every rescan).
		return
	}
	if home := sc.codexHome(); home != "" && sc.samePath(filepath.Dir(path), home) {
		// The project is the home directory: this is the user config, which
		// Codex never reads twice.
		if !sc.machine {
			sc.codexConfig(path, "config", ScopeUser, "")
		}
		return
	}
	servers := sc.codexConfig(path, "config", scope, project)
	if len(servers) == 0 || project == "" {
		return
	}
	level, key, known := sc.codexTrust(project)
	for _, s := range servers {
		switch {
		case !known:
			s.detail("approval", "unknown: no Codex user config to read project trust from")
		case level == "trusted":
			s.detail("approval", fmt.Sprintf("trusted: [projects.%q] trust_level = \"trusted\"", key))
		case level == "untrusted":
			sc.needsApproval(s, reports.StatusRejected, fmt.Sprintf("untrusted: [projects.%q] trust_level = \"untrusted\"; Codex disables this file", key))
		default:
			sc.needsApproval(s, reports.StatusPendingApproval, "pending: the project is not trusted in the Codex user config; Codex disables this file until the user trusts the folder")
		}
	}
	sc.applyCodexRequirements(servers)
}

// codexConfig reads one Codex config layer and keeps its servers.
func (sc *scan) codexConfig(path, kind, scope, project string) []*Server {
	root := sc.readTOML(path, ClientCodex, kind, scope)
	if root == nil {
		return nil
	}
	m := root.Member("mcp_servers")
	if m == nil {
		return nil
	}
	servers := sc.parseEntries(specCodex, path, m, "/mcp_servers", scope, project)
	if scope != ScopeProject {
		sc.applyCodexRequirements(servers)
	}
	sc.keep(servers...)
	return servers
}

// codexExtras reads the Codex-only fields: variables forwarded by name,
// header sources, tool filters and approval modes, and the transport rules
// Codex enforces (a server entry that breaks them makes Codex reject the whole
// file).
func codexExtras(sc *scan, s *Server, f *fieldReader) {
	if names, ok := f.strs("env_vars"); ok {
		s.detail("env_vars", names)
		for _, n := range names {
			if !contains(s.EnvKeys, n) {
				s.EnvKeys = append(s.EnvKeys, n)
			}
		}
	}
	addHeader := func(k string) {
		if !contains(s.HeaderKeys, k) {
			s.HeaderKeys = append(s.HeaderKeys, k)
		}
	}
	if m, keys, ok := f.strMap("env_http_headers"); ok {
		// Header name -> environment variable NAME: no secret here.
		s.detail("env_http_headers", m)
		for _, k := range keys {
			addHeader(k)
		}
	}
	if v, ok := f.str("bearer_token_env_var"); ok {
		s.detail("bearer_token_env_var", v)
		addHeader("Authorization")
		if v != "" && (sc.opts.Home != "" || !sc.machine) {
			if _, set := sc.opts.LookupEnv(v); !set {
				sc.unsetVars(s, []string{v}, fmt.Sprintf("server %q takes its bearer token from %s, unset in mcpguard's environment; Codex fails to start the server without it", s.Name, v),
					map[string]any{"variables": []string{v}, "dialect": "env-var-fields"})
			}
		}
	}
	if v, ok := f.str("bearer_token"); ok {
		// The deprecated literal token: a secret in the file. Kept in memory
		// for the secret checks, never printed.
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers["Authorization"] = "Bearer " + v
		addHeader("Authorization")
		s.detail("bearer_token_inline", true)
	}
	if b, ok := f.boolean("required"); ok {
		s.detail("required", b)
	}
	if v, ok := f.strs("enabled_tools"); ok {
		s.detail("enabled_tools", v)
	}
	if v, ok := f.strs("disabled_tools"); ok {
		s.detail("disabled_tools", v)
	}
	if v, ok := f.str("default_tools_approval_mode"); ok {
		s.detail("default_tools_approval_mode", v)
	}
	if tools := f.v.Member("tools"); tools != nil {
		if tools.Value.Kind != jsonc.Object {
			f.problem("tools: expected a table, got %s", tools.Value.Kind)
		} else {
			modes := map[string]string{}
			for _, t := range tools.Value.Members {
				mode := t.Value.Get("approval_mode")
				switch {
				case t.Value.Kind != jsonc.Object:
					f.problem("tools.%s: expected a table, got %s", t.Key, t.Value.Kind)
				case mode == nil:
				case mode.Kind != jsonc.String:
					f.problem("tools.%s.approval_mode: expected a string, got %s", t.Key, mode.Kind)
				default:
					modes[t.Key] = mode.Str
				}
			}
			if len(modes) > 0 {
				s.detail("tool_approval_modes", modes)
			}
		}
	}
	for _, k := range []string{"startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec"} {
		if v := f.v.Get(k); v != nil {
			if v.Kind != jsonc.Number {
				f.problem("%s: expected a number, got %s", k, v.Kind)
			} else {
				s.detail(k, numberDetail(v))
			}
		}
	}
	if v, ok := f.strs("scopes"); ok {
		s.detail("oauth_scopes", v)
	}
	if v, ok := f.str("oauth_resource"); ok {
		s.detail("oauth_resource", v)
	}
	// Codex's RawMcpServerConfig -> McpServerConfig conversion.
	has := func(k string) bool { return f.v.Member(k) != nil }
	var conflict string
	switch {
	case has("command"):
		for _, k := range []string{"url", "bearer_token_env_var", "bearer_token", "http_headers", "env_http_headers", "oauth_resource"} {
			if has(k) {
				conflict = k + " is not supported for stdio"
				break
			}
		}
	case has("url"):
		for _, k := range []string{"args", "env", "env_vars", "cwd", "bearer_token"} {
			if has(k) {
				conflict = k + " is not supported for streamable_http"
				break
			}
		}
	}
	switch {
	case conflict != "":
		sc.invalid(s, conflict+"; Codex rejects the whole config file")
	case len(f.problems) > 0:
		sc.invalid(s, "a field has the wrong type; Codex rejects the whole config file")
	}
}

// codexTrust returns the trust_level Codex applies to a project directory and
// the [projects] key it came from: the directory itself, else the project
// root (the nearest folder with a .git marker). known is false when there is
// no user config to read.
func (sc *scan) codexTrust(dir string) (level, key string, known bool) {
	home := sc.codexHome()
	if home == "" {
		return "", "", false
	}
	trust := map[string]string{}
	read := func(path string) {
		root := sc.quietTOML(path)
		projects := root.Get("projects")
		if projects == nil || projects.Kind != jsonc.Object {
			return
		}
		for _, m := range projects.Members {
			if v := m.Value.Get("trust_level"); v.IsString() {
				trust[filepath.Clean(m.Key)] = v.Str
			}
		}
	}
	if sc.machine && sc.opts.GOOS != "windows" {
		read(filepath.Join(string(filepath.Separator), "etc", "codex", "config.toml"))
	}
	read(filepath.Join(home, "config.toml"))
	candidates := []string{filepath.Clean(dir)}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if sc.exists(filepath.Join(d, ".git")) {
			if d != candidates[0] {
				candidates = append(candidates, d)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, c := range candidates {
		for _, k := range []string{c, realPath(c)} {
			if l, ok := trust[k]; ok {
				return l, k, true
			}
		}
	}
	return "", candidates[len(candidates)-1], true
}

// codexIdentity is one requirements.toml [mcp_servers.<name>.identity].
type codexIdentity struct {
	command, url string
}

// codexRequirementsPath is where Codex reads admin requirements on this OS.
func (sc *scan) codexRequirementsPath() string {
	if sc.opts.GOOS == "windows" {
		base := filepath.Join(string(filepath.Separator), "ProgramData")
		if v, ok := sc.opts.LookupEnv("ProgramData"); ok && v != "" {
			base = v
		}
		return filepath.Join(base, "OpenAI", "Codex", "requirements.toml")
	}
	return filepath.Join(string(filepath.Separator), "etc", "codex", "requirements.toml")
}

// codexRequirements returns the server allowlist of requirements.toml and its
// path; ok is false when there is none (path mode, no file, no [mcp_servers]
// table, or a file Codex cannot parse).
func (sc *scan) codexRequirements() (list map[string]codexIdentity, path string, ok bool) {
	if !sc.machine {
		return nil, "", false
	}
	path = sc.codexRequirementsPath()
	root := sc.quietTOML(path)
	servers := root.Get("mcp_servers")
	if servers == nil || servers.Kind != jsonc.Object {
		return nil, path, false
	}
	list = map[string]codexIdentity{}
	for _, m := range servers.Members {
		id := m.Value.Get("identity")
		var ci codexIdentity
		if v := id.Get("command"); v.IsString() {
			ci.command = v.Str
		} else if v := id.Get("url"); v.IsString() {
			ci.url = v.Str
		} else {
			// Codex cannot deserialize this requirement: it refuses to start
			// at all, which the requirements handler reports.
			return nil, path, false
		}
		list[m.Key] = ci
	}
	return list, path, true
}

// applyCodexRequirements blocks the loaded Codex servers whose name and
// identity do not match an entry of requirements.toml (Codex's
// filter_mcp_servers_by_requirements: command or url compared exactly).
func (sc *scan) applyCodexRequirements(servers []*Server) {
	list, path, ok := sc.codexRequirements()
	if !ok {
		return
	}
	for _, s := range servers {
		if !s.Status.Loaded() {
			continue
		}
		id, listed := list[s.Name]
		var why string
		switch {
		case !listed:
			why = "not listed in " + path
		case id.command != "" && (s.Transport != TransportStdio || s.Command != id.command):
			why = fmt.Sprintf("identity mismatch: %s requires command %q", path, id.command)
		case id.url != "" && (s.Transport != TransportHTTP || s.URL != id.url):
			why = fmt.Sprintf("identity mismatch: %s requires url %q", path, id.url)
		default:
			s.detail("client_policy", "allowed by "+path)
			continue
		}
		s.detail("client_policy", why)
		sc.clientStatus(s, reports.StatusBlocked, reports.ReasonClientBlocked)
	}
}

// codexRequirementsFile handles requirements.toml: a policy source of its
// own (kind codex-requirements) whose server identities Codex enforces.
func codexRequirementsFile(sc *scan, path, _, _ string) {
	root := sc.readTOML(path, ClientCodex, "requirements", ScopeSystem)
	if root == nil {
		if sc.exists(path) {
			sc.res.Policy.Sources = append(sc.res.Policy.Sources, reports.PolicySource{Path: path, Kind: policyKindCodexRequirements,
				Error: "unparseable: Codex refuses to start while its requirements file is invalid"})
		}
		return
	}
	src := reports.PolicySource{Path: path, Kind: policyKindCodexRequirements, Active: true}
	if m := root.Member("mcp_servers"); m != nil {
		if m.Value.Kind != jsonc.Object {
			sc.fileFindingEvidence("MCPG-C006", cfgfile.Loc(path, "/mcp_servers", m.KeyPos),
				fmt.Sprintf("\"mcp_servers\" must be a table of server requirements, not %s; Codex refuses to start", m.Value.Kind),
				map[string]any{"problem": "wrong type"}, "mcp_servers")
			src.Active, src.Error = false, "mcp_servers is not a table"
		}
		for _, e := range m.Value.Members {
			id := e.Value.Get("identity")
			if id.Get("command").IsString() || id.Get("url").IsString() {
				continue
			}
			sc.fileFindingEvidence("MCPG-C006", cfgfile.Loc(path, jsonc.Pointer("mcp_servers", e.Key), e.KeyPos),
				fmt.Sprintf("requirement %q has no identity.command or identity.url string; Codex cannot parse its requirements and refuses to start", e.Key),
				map[string]any{"problem": "invalid requirement"}, e.Key)
			src.Active, src.Error = false, "invalid requirement "+e.Key
		}
	}
	sc.res.Policy.Sources = append(sc.res.Policy.Sources, src)
}

// readTOML reads a TOML client file (its root is always a table).
func (sc *scan) readTOML(path, client, kind, scope string) *jsonc.Value {
	return sc.readConfig(path, client, kind, scope, func(data []byte) (*jsonc.Value, []reports.FileError) {
		root, perr := parseTOML(path, data)
		if perr != nil {
			return nil, []reports.FileError{*perr}
		}
		return root, nil
	})
}

// quietTOML parses a TOML file for a lookup (trust table, requirements)
// without recording anything: the file's own handler reports its errors.
func (sc *scan) quietTOML(path string) *jsonc.Value {
	data, exists, ferr := sc.fs.ReadFile(path)
	if !exists || ferr != nil {
		return nil
	}
	root, _ := parseTOML(path, data)
	return root
}

// parseTOML parses a TOML document into the jsonc value model, with the
// position of every key, so that the generic entry parser reads Codex files as
// it reads JSON. go-toml's decoder checks the document first (syntax, duplicate
// keys, redefined tables); the unstable AST then gives the byte offsets.
// TOML dates and times become numbers: no Codex field takes one, and the
// entry parser must see that they are not strings.
func parseTOML(path string, data []byte) (root *jsonc.Value, ferr *reports.FileError) {
	if e := checkUTF8(path, data); e != nil {
		return nil, e
	}
	ix := jsonc.NewLineIndex(data)
	if at, why := tomlOverLimits(data); at >= 0 {
		p := ix.Pos(at)
		return nil, &reports.FileError{Path: path, Line: p.Line, Column: p.Col, Message: "invalid TOML: " + why}
	}
	defer func() {
		if r := recover(); r != nil {
			root, ferr = nil, &reports.FileError{Path: path, Message: fmt.Sprintf("invalid TOML: parser failure: %v", r)}
		}
	}()
	var probe map[string]any
	if len(data) > maxTOMLDecode {
		// go-toml's duplicate-key tracker is quadratic in the keys of a table;
		// the builder below checks the same rules in linear time.
	} else if err := toml.Unmarshal(data, &probe); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			p := ix.LineCol(line, col)
			return nil, &reports.FileError{Path: path, Line: p.Line, Column: p.Col, Message: "invalid TOML: " + strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &reports.FileError{Path: path, Message: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	b := &tomlBuilder{ix: ix, root: &jsonc.Value{Kind: jsonc.Object, Pos: jsonc.Pos{Line: 1, Col: 1}}, keys: map[*jsonc.Value]map[string]int{}, kind: map[*jsonc.Value]tomlKind{}}
	b.cur = b.root
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		if err := b.expression(p.Expression()); err != nil {
			return nil, &reports.FileError{Path: path, Line: err.pos.Line, Column: err.pos.Col, Message: "invalid TOML: " + err.msg}
		}
	}
	if err := p.Error(); err != nil {
		fe := &reports.FileError{Path: path, Message: "invalid TOML: " + err.Error()}
		var pe *unstable.ParserError
		if errors.As(err, &pe) && pe.Highlight != nil {
			if off := cap(data) - cap(pe.Highlight); off >= 0 && off <= len(data) {
				pos := ix.Pos(off)
				fe.Line, fe.Column = pos.Line, pos.Col
			}
		}
		return nil, fe
	}
	return b.root, nil
}

// maxTOMLDecode bounds the documents go-toml's decoder validates first (for
// its messages); larger ones rely on the builder's own checks.
const maxTOMLDecode = 256 << 10

// tomlKind records how a table or array came to be, for TOML's rules on
// redefinition: a [header] may define an implicit table once; dotted keys
// extend only tables they created; inline tables and static arrays are
// closed.
type tomlKind uint8

const (
	tomlImplicit tomlKind = iota // created as the parent of a [header]
	tomlExplicit                 // defined by its own [header] or [[header]]
	tomlDotted                   // created by a dotted key
	tomlInline                   // an inline table { ... }
	tomlStatic                   // an array value [ ... ]
	tomlTables                   // an array of tables [[...]]
)

// tomlBuilder assembles the tree of one TOML document, expression by
// expression.
type tomlBuilder struct {
	ix    *jsonc.LineIndex
	root  *jsonc.Value
	cur   *jsonc.Value // the table the next key/value pairs go into
	depth int
	// keys indexes the members of every table, so that large documents build
	// in linear time.
	keys map[*jsonc.Value]map[string]int
	kind map[*jsonc.Value]tomlKind
}

// member returns the member key of table t, or nil.
func (b *tomlBuilder) member(t *jsonc.Value, key string) *jsonc.Member {
	if i, ok := b.keys[t][key]; ok {
		return &t.Members[i]
	}
	return nil
}

// add appends a member to table t.
func (b *tomlBuilder) add(t *jsonc.Value, m jsonc.Member) *jsonc.Member {
	if b.keys[t] == nil {
		b.keys[t] = map[string]int{}
	}
	b.keys[t][m.Key] = len(t.Members)
	t.Members = append(t.Members, m)
	return &t.Members[len(t.Members)-1]
}

type tomlError struct {
	pos jsonc.Pos
	msg string
}

func (b *tomlBuilder) at(n *unstable.Node) jsonc.Pos { return b.ix.Pos(int(n.Raw.Offset)) }

func keyParts(it unstable.Iterator) []*unstable.Node {
	var parts []*unstable.Node
	for it.Next() {
		parts = append(parts, it.Node())
	}
	return parts
}

func (b *tomlBuilder) expression(e *unstable.Node) *tomlError {
	switch e.Kind {
	case unstable.Table, unstable.ArrayTable:
		parts := keyParts(e.Key())
		if len(parts) == 0 {
			return &tomlError{msg: "empty table name"}
		}
		parent, err := b.headerPath(parts[:len(parts)-1])
		if err != nil {
			return err
		}
		last := parts[len(parts)-1]
		key, pos := string(last.Data), b.at(last)
		m := b.member(parent, key)
		if e.Kind == unstable.ArrayTable {
			if m == nil {
				arr := &jsonc.Value{Kind: jsonc.Array, Pos: pos}
				b.kind[arr] = tomlTables
				m = b.add(parent, jsonc.Member{Key: key, KeyPos: pos, Value: arr})
			}
			if m.Value.Kind != jsonc.Array || b.kind[m.Value] != tomlTables {
				return &tomlError{pos: pos, msg: fmt.Sprintf("key %s is not an array of tables", key)}
			}
			t := &jsonc.Value{Kind: jsonc.Object, Pos: pos}
			b.kind[t] = tomlExplicit
			m.Value.Elems = append(m.Value.Elems, t)
			b.cur = t
			return nil
		}
		switch {
		case m == nil:
			t := &jsonc.Value{Kind: jsonc.Object, Pos: pos}
			b.kind[t] = tomlExplicit
			b.add(parent, jsonc.Member{Key: key, KeyPos: pos, Value: t})
			b.cur = t
		case m.Value.Kind == jsonc.Object && b.kind[m.Value] == tomlImplicit:
			b.kind[m.Value] = tomlExplicit
			b.cur = m.Value
		default:
			return &tomlError{pos: pos, msg: fmt.Sprintf("table %s already exists", key)}
		}
	case unstable.KeyValue:
		return b.keyValue(b.cur, e)
	}
	return nil
}

// headerPath walks (and creates) the parent tables of a [header].
func (b *tomlBuilder) headerPath(parts []*unstable.Node) (*jsonc.Value, *tomlError) {
	t := b.root
	for _, part := range parts {
		key, pos := string(part.Data), b.at(part)
		m := b.member(t, key)
		switch {
		case m == nil:
			nt := &jsonc.Value{Kind: jsonc.Object, Pos: pos}
			b.kind[nt] = tomlImplicit
			b.add(t, jsonc.Member{Key: key, KeyPos: pos, Value: nt})
			t = nt
		case m.Value.Kind == jsonc.Object && b.kind[m.Value] != tomlInline:
			t = m.Value
		case m.Value.Kind == jsonc.Array && b.kind[m.Value] == tomlTables && len(m.Value.Elems) > 0:
			t = m.Value.Elems[len(m.Value.Elems)-1]
		default:
			return nil, &tomlError{pos: pos, msg: fmt.Sprintf("key %s is not a table", key)}
		}
	}
	return t, nil
}

// keyValue sets key = value (a possibly dotted key) in table t. Dotted keys
// extend only the tables that dotted keys created.
func (b *tomlBuilder) keyValue(t *jsonc.Value, kv *unstable.Node) *tomlError {
	parts := keyParts(kv.Key())
	if len(parts) == 0 {
		return &tomlError{msg: "empty key"}
	}
	for _, part := range parts[:len(parts)-1] {
		key, pos := string(part.Data), b.at(part)
		m := b.member(t, key)
		switch {
		case m == nil:
			nt := &jsonc.Value{Kind: jsonc.Object, Pos: pos}
			b.kind[nt] = tomlDotted
			b.add(t, jsonc.Member{Key: key, KeyPos: pos, Value: nt})
			t = nt
		case m.Value.Kind == jsonc.Object && b.kind[m.Value] == tomlDotted:
			t = m.Value
		default:
			return &tomlError{pos: pos, msg: fmt.Sprintf("key %s is already defined", key)}
		}
	}
	last := parts[len(parts)-1]
	key, pos := string(last.Data), b.at(last)
	if b.member(t, key) != nil {
		return &tomlError{pos: pos, msg: fmt.Sprintf("key %s is already defined", key)}
	}
	v, err := b.value(kv.Value(), pos)
	if err != nil {
		return err
	}
	b.add(t, jsonc.Member{Key: key, KeyPos: pos, Value: v})
	return nil
}

// close marks an inline table and the tables its dotted keys made as closed.
func (b *tomlBuilder) close(v *jsonc.Value) {
	if v.Kind != jsonc.Object || b.kind[v] == tomlInline {
		return
	}
	b.kind[v] = tomlInline
	for _, m := range v.Members {
		b.close(m.Value)
	}
}

// value converts one value node; fallback positions arrays, which have no
// range of their own in the AST.
func (b *tomlBuilder) value(n *unstable.Node, fallback jsonc.Pos) (*jsonc.Value, *tomlError) {
	b.depth++
	defer func() { b.depth-- }()
	if b.depth > jsonc.DefaultMaxDepth {
		return nil, &tomlError{pos: fallback, msg: fmt.Sprintf("nesting deeper than %d levels", jsonc.DefaultMaxDepth)}
	}
	switch n.Kind {
	case unstable.String:
		return &jsonc.Value{Kind: jsonc.String, Pos: b.at(n), Str: string(n.Data)}, nil
	case unstable.Bool:
		return &jsonc.Value{Kind: jsonc.Bool, Pos: b.at(n), Bool: string(n.Data) == "true"}, nil
	case unstable.Integer, unstable.Float, unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		return &jsonc.Value{Kind: jsonc.Number, Pos: b.at(n), Str: string(n.Data)}, nil
	case unstable.Array:
		arr := &jsonc.Value{Kind: jsonc.Array, Pos: fallback}
		b.kind[arr] = tomlStatic
		it := n.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind == unstable.Comment {
				continue
			}
			ev, err := b.value(c, fallback)
			if err != nil {
				return nil, err
			}
			if len(arr.Elems) == 0 && c.Kind != unstable.Array {
				arr.Pos = ev.Pos
			}
			arr.Elems = append(arr.Elems, ev)
		}
		return arr, nil
	case unstable.InlineTable:
		obj := &jsonc.Value{Kind: jsonc.Object, Pos: b.at(n)}
		it := n.Children()
		for it.Next() {
			c := it.Node()
			if c.Kind != unstable.KeyValue {
				continue
			}
			if err := b.keyValue(obj, c); err != nil {
				return nil, err
			}
		}
		b.close(obj)
		return obj, nil
	}
	return nil, &tomlError{pos: fallback, msg: "unsupported value " + n.Kind.String()}
}

// numberDetail is a number for a report detail: a float64 when it is finite,
// else its literal text (JSON has no inf or nan).
func numberDetail(v *jsonc.Value) any {
	if f, err := strconv.ParseFloat(v.Str, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	return v.Str
}

// samePath reports whether a and b name the same file, through symlinks;
// the real paths are remembered for the scan (the same home is compared
// with every project of every location).
func (sc *scan) samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	return a == b || sc.realPath(a) == sc.realPath(b)
}

func (sc *scan) realPath(p string) string {
	if r, ok := sc.realPaths[p]; ok {
		return r
	}
	if sc.realPaths == nil {
		sc.realPaths = map[string]string{}
	}
	r := realPath(p)
	sc.realPaths[p] = r
	return r
}

// realPath resolves symbolic links, or returns the cleaned path.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// sortedStrings returns a sorted copy of a set's keys.
func sortedStrings(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkUTF8 returns an error at the first invalid UTF-8 byte, as the JSON
// reader does: TOML and YAML documents must be UTF-8.
func checkUTF8(path string, data []byte) *reports.FileError {
	if p, bad := jsonc.InvalidUTF8(data); bad {
		return &reports.FileError{Path: path, Line: p.Line, Column: p.Col, Message: "invalid UTF-8"}
	}
	return nil
}

// tomlOverLimits scans TOML text for arrays and inline tables of more than
// cfgfile.MaxElements elements, or more than cfgfile.MaxValues values in
// all, without parsing it: a hostile file is refused at the cost of one
// pass over its bytes, before the parser builds millions of nodes. It
// returns the offset of the container and why, or -1.
func tomlOverLimits(data []byte) (int, string) {
	type open struct{ at, n int }
	var stack []open
	total := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case '"', '\'':
			quote := []byte{c}
			if i+2 < len(data) && data[i+1] == c && data[i+2] == c {
				quote = []byte{c, c, c}
			}
			i += len(quote)
			for i < len(data) && !bytes.HasPrefix(data[i:], quote) {
				if c == '"' && data[i] == '\\' {
					i++
				}
				i++
			}
			i += len(quote) - 1
		case '[', '{':
			stack = append(stack, open{at: i})
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) == 0 {
				continue
			}
			top := &stack[len(stack)-1]
			if top.n++; top.n >= cfgfile.MaxElements {
				return top.at, fmt.Sprintf("more than %d elements", cfgfile.MaxElements)
			}
			if total++; total >= cfgfile.MaxValues {
				return top.at, fmt.Sprintf("more than %d values in the document", cfgfile.MaxValues)
			}
		}
	}
	return -1, ""
}
