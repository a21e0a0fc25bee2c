package scanner

import (
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/internal/urlmatch"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
)

// policyContext is one evaluated policy context: the Claude Code lists of one
// project (or the organisation's lists for other clients), converted once for
// the engine.
type policyContext struct {
	value policy.Value
}

// blankedCredentials are environment variables Claude Code blanks when it
// expands policy entries (observed: ANTHROPIC_API_KEY, NPM_TOKEN, HTTPS_PROXY,
// AWS_SECRET_ACCESS_KEY and the OTEL_ family; GITHUB_TOKEN is not blanked).
func blankedCredential(name string) bool {
	switch name {
	case "ANTHROPIC_API_KEY", "NPM_TOKEN", "HTTPS_PROXY", "AWS_SECRET_ACCESS_KEY":
		return true
	}
	return strings.HasPrefix(name, "OTEL_")
}

// policyEnv is the environment policy entries are expanded with (§3.3 as
// observed): managed settings env over the process environment; deny entries
// also fall back to ~/.claude/settings.json env for variables set nowhere else.
// blank replaces the blanked credentials by "".
func (sc *scan) policyEnv(w *claudeWorld, deny, blank bool) interp.Lookup {
	managedEnv := managed.Env(w.managedDocs)
	var userEnv map[string]string
	if deny && w.userSettings != nil {
		userEnv = managed.Env([]*managed.Document{w.userSettings})
	}
	return func(name string) (string, bool) {
		if blank && blankedCredential(name) {
			return "", true
		}
		if v, ok := managedEnv[name]; ok {
			return v, true
		}
		if v, ok := sc.opts.LookupEnv(name); ok {
			return v, true
		}
		v, ok := userEnv[name]
		return v, ok
	}
}

// entryInputs expands policy entries for the engine. Deny entries are matched
// with and without credential blanking, so both forms are kept when they
// differ; allow serverUrl entries whose variables would change the URL's
// structure are marked unsafe (§3.4) and match nothing.
func (sc *scan) entryInputs(w *claudeWorld, entries []managed.Entry, deny bool) []any {
	out := make([]any, 0, len(entries))
	lookups := []interp.Lookup{sc.policyEnv(w, deny, true)}
	if deny {
		lookups = append(lookups, sc.policyEnv(w, deny, false))
	}
	for _, e := range entries {
		seen := map[string]bool{}
		for _, lookup := range lookups {
			m := map[string]any{"key": e.Key, "source": entrySource(e)}
			switch e.Key {
			case managed.EntryName:
				m["name"] = e.Name
			case managed.EntryCommand:
				cmd := make([]any, len(e.Command))
				for i, c := range e.Command {
					cmd[i], _ = interp.ExpandClaude(c, lookup)
				}
				m["command"] = cmd
				m["raw"] = strings.Join(e.Command, " ")
			case managed.EntryURL:
				m["url"] = urlmatch.ExpandEntry(e.URL, lookup)
				m["raw"] = e.URL
				m["unsafe"] = false
				if !deny {
					if unsafe, why := urlmatch.UnsafeAllowEntry(e.URL, lookup); unsafe {
						m["unsafe"], m["unsafe_reason"] = true, why
					}
				}
			}
			key := fmt.Sprint(m["name"], m["command"], m["url"])
			if !seen[key] {
				seen[key] = true
				out = append(out, m)
			}
		}
	}
	return out
}

func entrySource(e managed.Entry) map[string]any {
	kind := ""
	if e.Doc != nil {
		kind = e.Doc.Kind
	}
	return map[string]any{"path": e.Loc.Path, "pointer": e.Loc.Pointer, "line": e.Loc.Line, "column": e.Loc.Column, "kind": kind}
}

func locMap(l reports.Location) map[string]any {
	return map[string]any{"path": l.Path, "pointer": l.Pointer, "line": l.Line, "column": l.Column}
}

// claudeContext builds the policy context of one project (§7.1); the rules
// about the policy itself run once for it (evalContexts).
func (sc *scan) claudeContext(w *claudeWorld, p *claudeProject) *policyContext {
	var local *managed.Document
	// Every local settings document contributes; BuildLists takes one of each
	// tier, so fold the git-root copy in first.
	locals := p.localSettings
	lists := managed.BuildLists(w.managedDocs, w.userSettings, p.projectSettings, nil)
	for _, l := range locals {
		local = l
		extra := managed.BuildLists(nil, nil, nil, local)
		lists.Parsed = append(lists.Parsed, extra.Parsed...)
		if extra.AllowDefined && !lists.ManagedOnly {
			lists.AllowDefined = true
			lists.Allow = append(nonNil(lists.Allow), extra.Allow...)
		}
		lists.Deny = append(lists.Deny, extra.Deny...)
	}
	return sc.buildContext(w, lists, p.dir, w.managedDocs)
}

func nonNil(e []managed.Entry) []managed.Entry {
	if e == nil {
		return []managed.Entry{}
	}
	return e
}

// orgContext is the policy context of the organisation's verdict on the
// servers of clients other than Claude Code: the intended policy when one
// is given (--policy JSON files, an OPA bundle's settings), otherwise the
// managed settings the machine has, which the organisation wrote. With an
// intended policy it also judges Claude Code servers (applyPolicy) and is
// sc.intended.
func (sc *scan) orgContext(w *claudeWorld) *policyContext {
	if len(sc.policyFiles) > 0 {
		sc.intended = sc.intendedContext()
		return sc.intended
	}
	lists := managed.BuildLists(w.managedDocs, nil, nil, nil)
	return sc.buildContext(w, lists, sc.opts.Project, w.managedDocs)
}

// intendedContext is the intended policy's context: its documents stand
// for the organisation's whole managed configuration, on every machine and
// for every client and project — no managed file, user or project list of
// this machine takes part. What-if (Proposal) judges saved servers in the
// same context, so that its prediction is what a scan reports.
func (sc *scan) intendedContext() *policyContext {
	w := &claudeWorld{managed: &managed.Dir{}}
	lists := managed.BuildLists(sc.policyFiles, nil, nil, nil)
	return sc.buildContext(w, lists, "", sc.policyFiles)
}

func (sc *scan) buildContext(w *claudeWorld, lists *managed.Lists, project string, managedDocs []*managed.Document) *policyContext {
	listOrNil := func(defined bool, entries []managed.Entry, deny bool) any {
		if !defined {
			return nil
		}
		return policy.IndexList(sc.entryInputs(w, entries, deny))
	}
	var docs, issues []any
	seenDoc := map[*managed.Document]bool{}
	for _, l := range lists.Parsed {
		if !seenDoc[l.Doc] {
			seenDoc[l.Doc] = true
			docs = append(docs, docInput(l.Doc, lists))
		}
		for _, is := range l.Issues {
			m := locMap(is.Loc)
			m["list"], m["message"], m["effect"], m["kind"] = is.Key, is.Message, is.Effect, l.Doc.Kind
			issues = append(issues, m)
		}
	}
	var broken []any
	for _, b := range w.managed.Broken {
		broken = append(broken, map[string]any{"path": b.Path, "line": b.Error.Line, "column": b.Error.Column, "message": b.Error.Message})
	}
	var managedMCP any
	if mf := w.managed.MCP; mf != nil {
		servers := mf.Root.Get("mcpServers")
		m := map[string]any{"path": mf.Path, "parsed": mf.Root != nil, "servers_object": servers != nil && servers.Kind == jsonc.Object,
			"line": 0, "column": 0, "error": ""}
		if mf.Error != nil {
			m["line"], m["column"], m["error"] = mf.Error.Line, mf.Error.Column, mf.Error.Message
		}
		managedMCP = m
	}
	strict, _, _ := managed.StrictPluginOnlyMCP(managedDocs)
	managedOnly := map[string]any{"on": lists.ManagedOnly}
	if lists.ManagedOnlyDoc != nil {
		if m := lists.ManagedOnlyDoc.Get("allowManagedMcpServersOnly"); m != nil {
			managedOnly["source"] = locMap(lists.ManagedOnlyDoc.Loc(m))
		}
	}
	ctx := map[string]any{
		"os":      sc.opts.GOOS,
		"project": project,
		"claude": map[string]any{
			"allow":              listOrNil(lists.AllowDefined, lists.Allow, false),
			"deny":               policy.IndexList(sc.entryInputs(w, lists.Deny, true)),
			"allow_org":          listOrNil(lists.AllowOrgDefined, lists.AllowOrg, false),
			"deny_org":           policy.IndexList(sc.entryInputs(w, lists.DenyOrg, true)),
			"managed_only":       managedOnly,
			"documents":          emptyIfNil(docs),
			"issues":             emptyIfNil(issues),
			"broken":             emptyIfNil(broken),
			"managed_mcp":        managedMCP,
			"strict_plugin_only": strict,
		},
	}
	v, err := policy.NewValue(ctx)
	if err != nil {
		// The context is built from parsed JSON; a conversion failure is a bug.
		panic(fmt.Sprintf("scanner: policy context: %v", err))
	}
	pc := &policyContext{value: v}
	sc.unevaluated = append(sc.unevaluated, pc)
	return pc
}

func emptyIfNil(list []any) []any {
	if list == nil {
		return []any{}
	}
	return list
}

// docInput describes a settings document's lists for the weakness rules.
func docInput(d *managed.Document, lists *managed.Lists) map[string]any {
	m := map[string]any{"path": d.Path, "kind": d.Kind, "managed": d.IsManaged() || d.Kind == managed.KindPolicyFile}
	for _, l := range lists.Parsed {
		if l.Doc != d {
			continue
		}
		prefix := "deny"
		if l.Key == managed.KeyAllowed {
			prefix = "allow"
		}
		m[prefix+"_defined"] = l.Defined
		counts := map[string]any{managed.EntryName: 0, managed.EntryCommand: 0, managed.EntryURL: 0}
		for _, e := range l.Entries {
			counts[e.Key] = counts[e.Key].(int) + 1
		}
		m[prefix+"_counts"] = counts
		if mem := d.Get(l.Key); mem != nil {
			m[prefix+"_source"] = locMap(d.Loc(mem))
		}
	}
	if mem := d.Get("enabledPlugins"); mem != nil {
		m["enabled_plugins"] = mem.Value.Interface()
		m["enabled_plugins_source"] = locMap(d.Loc(mem))
	}
	return m
}

// evalContexts runs the policy-level rules of each context built since the
// last call, in the order they were built. A scan calls it once, at the end:
// its findings are sorted with the others then, and a scan that waited for
// the engine to judge a context before reading any file would leave the
// core that reads them idle while the shipped policies load.
func (sc *scan) evalContexts() {
	for _, pc := range sc.unevaluated {
		sc.evalContext(pc)
	}
	sc.unevaluated = nil
}

// evalContext runs the policy-level rules once per context.
func (sc *scan) evalContext(pc *policyContext) {
	if sc.opts.Policy == nil {
		return
	}
	results, err := sc.opts.Policy.EvalContext(sc.ctx, pc.value)
	if err != nil {
		sc.fileError(reports.FileError{Path: "policy", Message: err.Error()})
		return
	}
	for _, r := range results {
		loc := reports.Location{}
		if r.Location != nil {
			loc = *r.Location
		}
		f := sc.newFinding(r.Rule, loc, "", r.Message, sc.stableText(r.Message))
		f.Severity = r.Severity
		f.Evidence = r.Evidence
		if !sc.seenFindings[f.ID] {
			sc.seenFindings[f.ID] = true
			sc.res.Findings = append(sc.res.Findings, f)
		}
	}
}

// serverInput is input.server: the normalised server (never env or header
// values) plus facts the Go side computes for the rules — detected secrets
// (kinds and places, not values), the parsed URL, Claude Code's expanded argv.
// The fields the shipped rules read for few servers (a policy's message,
// an organisation's server) are made when a rule first reads one (Later):
// custom rules read the whole input.
func (sc *scan) serverInput(a *policy.InputArena, s *Server) policy.Value {
	in := a.NewObject(5)
	in.AddString("name", s.Name)
	in.AddSymbol("transport", s.Transport)
	args := in.AddStrings("args", s.Args)
	in.AddObject("claude", claudeInput(a, s))
	in.AddObject("facts", sc.facts(a, s, args))
	in.Later(12, (*laterServerFields)(s))
	return in.Value()
}

// laterServerFields makes the fields of a server's input that few rules
// read (policy.Object.Later).
type laterServerFields Server

func (l *laterServerFields) AddLater(in *policy.Object) {
	s := (*Server)(l)
	in.AddString("client", s.Client)
	in.AddSymbol("scope", s.Scope)
	in.AddString("project", s.Project)
	in.AddString("type", s.Type)
	in.AddString("command", s.Command)
	in.AddString("url", s.URL)
	in.AddStrings("env_keys", s.EnvKeys)
	in.AddStrings("header_keys", s.HeaderKeys)
	in.AddObject("source", locObject(in.Arena(), s.Source))
	in.AddString("status", string(s.Status))
	in.AddBool("enforced", s.Client == ClientClaudeCode)
	if s.wrapper != nil {
		// The server runs through mcpguard proxy; command and args are
		// the wrapped command line.
		w := in.Arena().NewObject(2)
		w.AddString("command", s.wrapper[0])
		w.AddStrings("args", s.wrapper[1:len(s.wrapper)-1])
		in.AddObject("wrapped_by", w)
	} else {
		in.AddNull("wrapped_by")
	}
}

// claudeInput is input.server.claude: Claude Code's view of the server
// after expansion, as its allow and deny lists match it.
func claudeInput(a *policy.InputArena, s *Server) *policy.Object {
	label, _ := s.Details["claude_scope"].(string)
	claude := a.NewObject(3)
	claude.AddSymbol("label", label)
	claude.AddBool("builtin", s.Scope == ScopeIDE)
	claude.AddBool("has_var", s.Expanded != nil && s.Expanded.HasVar)
	// The forms a list entry is matched with are read only when a list has
	// an entry of their kind (verdict.rego looks at has_command first), and
	// the command line and the URL only for an allowlist's message: most
	// policies have neither a serverCommand nor a serverUrl entry, and
	// making them was an argv key (its JSON text) and two arrays a server.
	claude.Later(4, (*laterClaudeFields)(s))
	return claude
}

// laterClaudeFields makes input.server.claude's later fields.
type laterClaudeFields Server

func (l *laterClaudeFields) AddLater(claude *policy.Object) {
	s := (*Server)(l)
	if e := s.Expanded; e != nil {
		claude.AddString("url", e.URL)
		forms := e.ArgvForms()
		keys := make([]string, len(forms))
		for i, f := range forms {
			keys[i] = policy.ArgvKey(f)
		}
		claude.AddStrings("argv_keys", keys)
		claude.AddStrings("urls", e.URLForms())
		claude.AddStrings("argv", forms[0]) // the single-pass expansion
		return
	}
	claude.AddString("url", s.URL)
	argv := s.Argv()
	claude.AddStrings("argv_keys", []string{policy.ArgvKey(argv)})
	claude.AddStrings("urls", []string{s.URL})
	claude.AddStrings("argv", argv)
}

// locObject is a source location as the rules read it.
func locObject(a *policy.InputArena, l reports.Location) *policy.Object {
	o := a.NewObject(4)
	o.AddString("path", l.Path)
	o.AddString("pointer", l.Pointer)
	o.AddInt("line", l.Line)
	o.AddInt("column", l.Column)
	return o
}

// facts computes what the Rego rules need but cannot see: secret kinds (the
// values stay in Go), the parsed URL, env keys whose values hold references.
// args is the input's array of s.Args, which the program's arguments most
// often are.
func (sc *scan) facts(a *policy.InputArena, s *Server, args policy.Strings) *policy.Object {
	var found []*policy.Object
	add := func(field, key string, index int, kind string) {
		f := a.NewObject(4)
		f.AddString("field", field)
		f.AddString("key", key)
		f.AddInt("index", index)
		f.AddString("kind", kind)
		found = append(found, f)
	}
	sc.secretFacts(s, add)
	facts := a.NewObject(4)
	facts.AddObjects("secrets", found)
	facts.AddObject("url", urlFacts(a, s.URL))
	prog, progArgs := program(s)
	facts.AddSymbol("program", prog)
	facts.AddStringsAgain("program_args", progArgs, args)
	facts.Later(1, (*laterFacts)(s))
	return facts
}

// laterFacts makes env_var_keys, which only an organisation server's rule
// reads (policy.rego looks at the admission first).
type laterFacts Server

func (l *laterFacts) AddLater(facts *policy.Object) {
	s := (*Server)(l)
	var varKeys []string
	for _, k := range s.EnvKeys {
		if interp.HasRef(s.Dialect, s.Env[k]) {
			varKeys = append(varKeys, k)
		}
	}
	facts.AddStrings("env_var_keys", varKeys)
}

// secretFacts reports each plaintext secret of s to add: its field, its key
// or argument index, its kind. It is the one definition of a plaintext
// secret (secrets.Detector.Secret): what the report would hide of the
// command, the arguments and the URL, and the env and header values (which
// no report shows) it calls secret.
func (sc *scan) secretFacts(s *Server, add func(field, key string, index int, kind string)) {
	det := sc.detector()
	for _, k := range s.EnvKeys {
		if kind, ok := det.Secret(k, s.Env[k]); ok {
			add("env", k, -1, kind)
		}
	}
	for _, k := range s.HeaderKeys {
		if s.Scope == ScopeIDE {
			break // the lock file's per-session token is Claude Code's own, not configuration
		}
		if kind, ok := det.Secret(k, s.Headers[k]); ok {
			add("headers", k, -1, kind)
		}
	}
	r := &redaction{det: det, command: s.Command, url: s.URL, args: s.Args}
	var found []secrets.Found
	if r.outCommand, found = det.ScanText(s.Command); len(found) > 0 {
		add("command", "", -1, found[0].Kind)
	}
	r.outArgs, found = det.ScanArgs(s.Args)
	for _, f := range found {
		add("args", f.Key, f.Index, f.Kind)
	}
	r.outURL, found = det.ScanURL(s.URL)
	for _, f := range found {
		add("url", f.Key, -1, f.Kind)
	}
	s.redacted = r // for the report (Redacted)
}

// program returns what a stdio server runs: the executable's lower-cased base
// name without .exe/.cmd/.ps1/.bat, looking through the wrappers that only
// start another program (`cmd /d /s /c`, `env [-i] [VAR=value]`), and its
// arguments.
func program(s *Server) (string, []string) {
	if s.Transport != TransportStdio {
		return "", nil
	}
	// The command and its arguments as they are, without a command line
	// made of them (two, for an expanded server): the arguments returned
	// are the server's own, or a part of them, which callers only read.
	cmd, args := s.Command, s.Args
	if e := s.Expanded; e != nil {
		cmd, args = e.Command, e.Args
	}
	// A bounded number of rounds: `env A=1 cmd /c npx ...` is two wrappers.
	for range 4 {
		inner, ok := unwrapLauncher(programName(cmd), args)
		if !ok {
			break
		}
		if len(inner) == 0 {
			return "", nil
		}
		cmd, args = inner[0], inner[1:]
	}
	return programName(cmd), args
}

// programName is a command's lower-cased base name without its Windows
// executable suffix.
func programName(p string) string {
	p = strings.ToLower(p[strings.LastIndexAny(p, `/\`)+1:])
	for _, suffix := range []string{".exe", ".cmd", ".ps1", ".bat"} {
		p = strings.TrimSuffix(p, suffix)
	}
	return p
}

// unwrapLauncher returns the command line a wrapper program runs, or false
// when prog is not a wrapper or its arguments are not a plain command line.
// `cmd /c` with a single argument holding a command line is split on spaces:
// good enough to name the program. Text with pipes, redirections or command
// separators is a script, not a wrapper: cmd stays the program, for the C004
// shell rule.
func unwrapLauncher(prog string, args []string) ([]string, bool) {
	switch prog {
	case "cmd":
		for i, a := range args {
			switch {
			case strings.EqualFold(a, "/c") || strings.EqualFold(a, "/k"):
				rest := args[i+1:]
				for _, r := range rest {
					if strings.ContainsAny(r, "|&<>^") {
						return nil, false // a script: cmd stays the program (C004)
					}
				}
				if len(rest) == 1 {
					rest = strings.Fields(strings.Trim(rest[0], `"`))
				}
				return rest, len(rest) > 0
			case strings.HasPrefix(a, "/"): // /d, /s, /q, /e:on ...
			default:
				return nil, false
			}
		}
	case "env":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				return args[i+1:], i+1 < len(args)
			case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir":
				i++ // takes a value
			case a == "-S" || a == "--split-string":
				if i+1 < len(args) {
					return append(strings.Fields(args[i+1]), args[i+2:]...), true
				}
				return nil, false
			case strings.HasPrefix(a, "-"):
			case strings.Contains(a, "="):
			default:
				return args[i:], true
			}
		}
	}
	return nil, false
}

// urlFacts parses a server URL with the WHATWG parser.
func urlFacts(a *policy.InputArena, raw string) *policy.Object {
	if raw == "" {
		return unparsedURL() // a stdio server's
	}
	scheme, hostname, port, err := urlmatch.ParseOrigin(raw)
	if err != nil {
		return unparsedURL()
	}
	o := a.NewObject(5)
	host := strings.Trim(hostname, "[]")
	o.AddBool("parsed", true)
	o.AddSymbol("scheme", scheme)
	o.AddString("host", host)
	o.AddString("port", port)
	o.AddBool("loopback", isLoopback(host))
	return o
}

// unparsedURL is the URL facts of a server without a URL, or with one
// that does not parse: every stdio server's input shares it.
var unparsedURL = sync.OnceValue(func() *policy.Object {
	o := policy.NewObject(1)
	o.AddBool("parsed", false)
	return o.Shared()
})

// isLoopback reports whether a host names this machine: localhost names and
// the loopback address ranges.
func isLoopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "::1" || h == "0:0:0:0:0:0:0:1" {
		return true
	}
	return strings.HasPrefix(h, "127.")
}

// detector returns the scan's shared secret detector, built on first use.
func (sc *scan) detector() *secrets.Detector {
	if sc.secrets == nil {
		sc.secrets = secrets.NewDetector()
	}
	return sc.secrets
}

// verdict is mcpguard's decision about a server and whether Claude Code
// itself refuses it. The two differ when only an organisation's custom Rego
// rule denies the server: mcpguard reports the violation, but Claude Code
// still loads the server, so its status must not claim it is blocked. They
// differ too when an intended policy judges (sc.intended): the decision is
// its verdict, claudeDenies what Claude Code enforces from the files it
// reads, and intendedDenies what it would enforce were the intended policy
// its managed settings.
type verdict struct {
	reports.Decision
	claudeDenies   bool
	intendedDenies bool
}

// applyPolicy evaluates the server policies for s in context pc and records
// the findings. A wrapped Claude Code server is evaluated twice: on the
// wrapped command line (mcpguard's verdict) and on the wrapper argv (what
// Claude Code enforces); see reconcileWrapped. Each input is made in
// arena, which may be nil (the heap).
//
// With an intended policy, a Claude Code server is judged in both
// contexts: pc (Claude Code's own lists) decides only whether Claude Code
// refuses it; the intended policy decides the verdict and the findings,
// and the server's "intended_change" detail says what the intended policy
// would change in Claude Code (IntendedChange).
func (sc *scan) applyPolicy(s *Server, pc *policyContext, arena *policy.InputArena) verdict {
	if sc.opts.Policy == nil || pc == nil {
		return verdict{Decision: reports.Decision{Allowed: true, Reasons: []string{reports.ReasonAllowed}}}
	}
	in := sc.intended
	if in == nil || pc == in || s.Client != ClientClaudeCode {
		return sc.judgeIn(s, pc, arena)
	}
	view := s
	if s.wrapper != nil {
		view = s.wrapperView() // what Claude Code enforces: the wrapper argv
	}
	own, err := sc.evalServer(view, pc, arena)
	if err != nil {
		return sc.policyFailed(s, err)
	}
	ownDenies := !own.Decision.Allowed
	v := sc.judgeIn(s, in, arena)
	v.claudeDenies, v.intendedDenies = ownDenies, v.claudeDenies
	if change := IntendedChange(v.claudeDenies, v.intendedDenies); change != "" {
		s.detail("intended_change", change)
	}
	return v
}

// IntendedChange is what an intended policy would change in Claude Code
// if it were the managed settings: "block" a server Claude Code loads
// today, "unblock" one its lists refuse, or "" for no change.
func IntendedChange(claudeDenies, intendedDenies bool) string {
	switch {
	case intendedDenies && !claudeDenies:
		return "block"
	case claudeDenies && !intendedDenies:
		return "unblock"
	}
	return ""
}

// judgeIn is applyPolicy in one context.
func (sc *scan) judgeIn(s *Server, pc *policyContext, arena *policy.InputArena) verdict {
	res, err := sc.evalServer(s, pc, arena)
	if err != nil {
		return sc.policyFailed(s, err)
	}
	s.detail("admission", res.Admission)
	var custom []string
	for _, r := range res.Findings {
		if r.Package != "" && r.Severity == reports.SeverityError {
			custom = append(custom, r.Rule)
		}
	}
	v := verdict{Decision: res.Decision, claudeDenies: !res.Decision.Allowed}
	findings := res.Findings
	if s.Client == ClientClaudeCode && s.wrapper != nil {
		outer, err := sc.evalServer(s.wrapperView(), pc, arena)
		if err != nil {
			return sc.policyFailed(s, err)
		}
		v, findings = sc.reconcileWrapped(s, res, outer, v, findings)
	}
	if len(custom) > 0 {
		if v.Allowed {
			v.Decision = reports.Decision{Reasons: []string{}}
		}
		v.Reasons = append(append([]string{}, v.Reasons...), custom...)
	}
	for _, r := range findings {
		sc.findingAt(s, r)
	}
	return v
}

// evalServer runs the server policies for s without recording anything.
// It resets arena for s's input: the result of the evaluation before is
// read by then, and nothing of it points into its input.
func (sc *scan) evalServer(s *Server, pc *policyContext, arena *policy.InputArena) (*policy.ServerResult, error) {
	arena.Reset()
	return sc.opts.Policy.EvalServer(sc.ctx, sc.serverInput(arena, s), pc.value)
}

// policyFailed records a policy that fails at evaluation time. It fails
// closed for this server: it is reported blocked, the state an administrator
// must look at.
func (sc *scan) policyFailed(s *Server, err error) verdict {
	sc.fileError(reports.FileError{Path: s.Source.Path, Line: s.Source.Line, Column: s.Source.Column,
		Message: fmt.Sprintf("policy evaluation failed for server %q: %v", s.Name, err)})
	return verdict{Decision: reports.Decision{Allowed: false, Reasons: []string{"POLICY_ERROR"}}, claudeDenies: true}
}

// findingAt records a rule result about s, at the rule's own location when it
// points elsewhere (a policy entry).
func (sc *scan) findingAt(s *Server, r policy.RuleResult) {
	p := pendingFinding{rule: r.Rule, message: r.Message, evidence: r.Evidence, disc: []string{sc.stableText(r.Message)}, severity: r.Severity}
	if r.Location != nil && r.Location.Path != "" {
		loc := *r.Location
		p.loc = &loc
	}
	s.pendingFindings = append(s.pendingFindings, p)
}

// loadPolicyFiles reads the --policy JSON files: documents shaped like
// managed-settings.json. A missing or malformed one is an error: a policy
// that does not load must never mean "allow all".
func (sc *scan) loadPolicyFiles() {
	for _, p := range sc.opts.PolicyFiles {
		doc, broken, exists, errs := managed.LoadSettings(sc.fs, p, managed.KindPolicyFile)
		sc.fileError(errs...)
		switch {
		case !exists:
			sc.fileError(reports.FileError{Path: p, Message: "policy file does not exist"})
			continue
		case broken != nil:
			continue
		}
		sc.policyFiles = append(sc.policyFiles, doc)
		sc.res.Policy.Sources = append(sc.res.Policy.Sources, reports.PolicySource{Path: p, Kind: managed.KindPolicyFile, Active: true})
	}
	for _, pd := range sc.opts.PolicyDocs {
		doc, broken, _, errs := managed.LoadSettings(memFile{path: pd.Path, data: pd.Data}, pd.Path, managed.KindPolicyFile)
		sc.fileError(errs...)
		src := reports.PolicySource{Path: pd.Path, Kind: KindBundleSettings, Active: broken == nil && doc != nil, Revision: pd.Revision, Digest: policy.FileDigest(pd.Data)}
		if !src.Active {
			src.Error = "unparseable"
		} else {
			sc.policyFiles = append(sc.policyFiles, doc)
		}
		sc.res.Policy.Sources = append(sc.res.Policy.Sources, src)
	}
	sc.res.Policy.Sources = append(sc.res.Policy.Sources, sc.opts.PolicySources...)
}

// KindBundleSettings is the policy source kind of an OPA bundle's
// managed-settings document.
const KindBundleSettings = "opa-bundle-settings"

// PolicyDoc is a document shaped like managed-settings.json that comes
// from no file.
type PolicyDoc struct {
	// Path names it in locations, e.g. "bundle:acme/mcpguard/managed_settings".
	Path string
	Data []byte
	// Revision is the revision of the bundle it came from.
	Revision string
}

// memFile is a cfgfile.FS that holds one file.
type memFile struct {
	path string
	data []byte
}

func (m memFile) ReadFile(path string) ([]byte, bool, *reports.FileError) {
	if path != m.path {
		return nil, false, nil
	}
	return m.data, true, nil
}

func (m memFile) ReadDir(string) ([]fs.DirEntry, error) { return nil, fs.ErrNotExist }
func (m memFile) Stat(string) (fs.FileInfo, error)      { return nil, fs.ErrNotExist }
func (m memFile) Lstat(string) (fs.FileInfo, error)     { return nil, fs.ErrNotExist }

// applyPolicyAll evaluates many servers concurrently: the evaluations are
// independent and the prepared queries are safe for concurrent use, and policy
// evaluation is most of a scan's time.
func (sc *scan) applyPolicyAll(servers []*Server, ctxOf func(*Server) *policyContext) []verdict {
	return sc.startPolicy(servers, ctxOf).wait()
}

// A policyBatch is servers being judged on worker goroutines while the
// goroutine that started it goes on: a machine scan reads and resolves the
// next project meanwhile, on the core the workers leave it.
type policyBatch struct {
	sc      *scan
	servers []*Server
	ctxOf   func(*Server) *policyContext
	out     []verdict
	taken   atomic.Int64
	wg      sync.WaitGroup
}

// startPolicy starts judging servers on GOMAXPROCS-1 worker goroutines.
// Until wait returns, the caller must not change what an evaluation reads
// of these servers, nor read what it records on them (their details and
// pending findings).
func (sc *scan) startPolicy(servers []*Server, ctxOf func(*Server) *policyContext) *policyBatch {
	b := &policyBatch{sc: sc, servers: servers, ctxOf: ctxOf, out: make([]verdict, len(servers))}
	if len(servers) == 0 {
		return b
	}
	sc.detector() // build the shared detector before the workers need it
	for range min(runtime.GOMAXPROCS(0), len(servers)) - 1 {
		b.wg.Go(b.work)
	}
	return b
}

// work judges servers until none is left. Each worker takes the next server
// itself: handing them out from one goroutine would wake it for every
// server, on a core the workers need.
func (b *policyBatch) work() {
	var arena *policy.InputArena
	if !b.sc.opts.Policy.KeepsInputs() {
		arena = new(policy.InputArena)
	}
	for {
		i := int(b.taken.Add(1)) - 1
		if i >= len(b.servers) {
			return
		}
		b.out[i] = b.sc.applyPolicy(b.servers[i], b.ctxOf(b.servers[i]), arena)
	}
}

// wait judges what is left of the batch on the calling goroutine too, and
// returns every verdict once the workers are done.
func (b *policyBatch) wait() []verdict {
	b.work()
	b.wg.Wait()
	return b.out
}
