package scanner

import (
	"slices"

	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
)

// Client identifiers (SPEC §5).
const (
	ClientClaudeCode    = "claude-code"
	ClientClaudeDesktop = "claude-desktop"
	ClientCursor        = "cursor"
	ClientVSCode        = "vscode"
	ClientWindsurf      = "windsurf"
	ClientGemini        = "gemini-cli"
	ClientAntigravity   = "antigravity"
	ClientCodex         = "codex"
	ClientZed           = "zed"
	ClientCline         = "cline"
	ClientRoo           = "roo-code"
	ClientKilo          = "kilo-code"
	ClientContinue      = "continue"
	ClientJunie         = "junie"
	ClientKiro          = "kiro"
	ClientCopilotCLI    = "copilot-cli"
	ClientOpenCode      = "opencode"
)

// Scopes. Claude Code uses managed, local, project, user, plugin and ide; other
// clients user, project or system.
const (
	ScopeManaged = "managed"
	ScopeLocal   = "local"
	ScopeProject = "project"
	ScopeUser    = "user"
	ScopePlugin  = "plugin"
	// ScopeExtension is a Claude Desktop extension (.mcpb) of one user.
	ScopeExtension = "extension"
	ScopeIDE       = "ide"
	ScopeSystem    = "system"
)

// Transports (docs/clients.md §7).
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
	TransportWS    = "ws"
	TransportOther = "other"
)

// Server is one server entry of one client configuration file.
type Server struct {
	ID         string
	Name       string
	Client     string
	Scope      string
	Project    string // absolute project directory for local- and project-scope servers
	Transport  string
	Type       string // the entry's "type" as written, "" when absent
	Command    string
	Args       []string
	URL        string
	Cwd        string
	Env        map[string]string // values never leave memory
	EnvKeys    []string          // env names, in source order (includes variables forwarded by name)
	Headers    map[string]string // values never leave memory
	HeaderKeys []string
	Source     reports.Location
	Status     reports.Status
	Decision   reports.Decision
	// FindingIDs lists the ids of the findings about this server.
	FindingIDs []string
	// Dialect is the client's variable syntax, for C007 and policy matching.
	Dialect interp.Dialect
	// Details holds client-specific facts that are safe to print: Claude Code's own
	// scope label, trust, disabled flags, tool filters, approval state.
	Details map[string]any
	// HasArgs says whether the entry as written has an "args" member: wrap
	// adds one to an entry without (wrapargv.ProxyArgs), and its preview of
	// the wrapped command line must say the same. A bool rather than the
	// entry itself: the whole entry as Go maps would hold a copy of every
	// env value for the rest of the scan.
	HasArgs bool
	// Expanded is the Claude Code view after ${VAR} expansion, used for policy
	// matching; nil for other clients.
	Expanded *Expanded
	// DeclaredTools is the tool list a Claude Desktop extension's manifest
	// declares, for tool analysis (runner); nil for other servers.
	DeclaredTools *DeclaredTools

	// wrapper is the argv prefix [mcpguard, proxy flags..., "--"] of a server
	// that runs through `mcpguard proxy` (or that the scan was asked to judge as
	// wrapped, Options.WrapPreview); Command and Args are then the wrapped
	// command line, which mcpguard's own rules judge.
	wrapper []string
	// wrapperExpanded is the Claude Code view of the whole wrapper argv, the
	// command line Claude Code starts and matches serverCommand entries with.
	wrapperExpanded *Expanded

	pendingFindings []pendingFinding
	// unrecorded marks a copy that another project's resolution merges
	// with and drops (userEntries): what it would record in details goes
	// nowhere, so its details map is never made.
	unrecorded bool
	// warning is a load-time warning Claude Code prints for an entry it still
	// loads (C006).
	warning string
	// judged is set once the policy has decided this server.
	judged bool
	// refused marks an entry over the limits (limits.go): reported, never
	// resolved or evaluated.
	refused bool
	// redacted is what the policy's facts found scanning the command
	// line and the URL for secrets, for Redacted.
	redacted *redaction
}

// redaction is a server's command, arguments and URL as a detector
// redacted them, with the values it saw.
type redaction struct {
	det                *secrets.Detector
	command, url       string
	args               []string
	outCommand, outURL string
	outArgs            []string
}

// Redacted returns the server's command, arguments and URL with their
// secrets hidden (det's RedactText, RedactArgs and RedactURL). The
// policy's facts scan the same values for the same detector: their result
// is reused while the values are the ones they saw, so each value is
// scanned for secrets once.
func (s *Server) Redacted(det *secrets.Detector) (command string, args []string, url string) {
	if r := s.redacted; r != nil && r.det == det && r.command == s.Command && r.url == s.URL && slices.Equal(r.args, s.Args) {
		return r.outCommand, slices.Clone(r.outArgs), r.outURL
	}
	return det.RedactText(s.Command), det.RedactArgs(s.Args), det.RedactURL(s.URL)
}

// Expanded is a Claude Code server entry after variable expansion
// (docs/claude-code.md §3).
type Expanded struct {
	Command string
	Args    []string
	URL     string
	Headers map[string]string
	// argvAgain and urlAgain are the command line and the URL expanded
	// once more, when that changes them (ArgvForms, URLForms).
	argvAgain []string
	urlAgain  *string
	// Env is the server's env block expanded as Claude Code expands it
	// before starting the server (values never leave memory), when a
	// caller gives it; ServerEnv makes it otherwise.
	Env map[string]string
	// envOf and lookup are the server whose env block ServerEnv expands,
	// and the environment it expands it with.
	envOf  *Server
	lookup interp.Lookup
	// ClientEnv is what Claude Code adds to its own environment from the
	// settings env blocks (user, then managed, later winning); a server it
	// starts inherits it. Values never leave memory.
	ClientEnv map[string]string
	// Missing lists referenced variables that are unset and have no default.
	Missing []string
	// HasVar is true when command, args, url or a header value holds a reference;
	// env references do not count (§7.2 hasVar).
	HasVar bool
}

// ServerEnv is the server's env block expanded as Claude Code expands it
// before starting the server: Env when it is set, otherwise made now.
func (e *Expanded) ServerEnv() map[string]string {
	if e.Env != nil || e.envOf == nil {
		return e.Env
	}
	env := make(map[string]string, len(e.envOf.Env))
	for _, k := range e.envOf.EnvKeys {
		if v, ok := e.envOf.Env[k]; ok {
			env[k], _ = interp.ExpandClaude(v, e.lookup)
		}
	}
	return env
}

// ArgvForms are the command lines (argv) policy matching sees: the
// single-pass expansion and, when it still holds a reference, that text
// expanded once more. Observed with the CLI: a deny entry that matches any
// form blocks; an allow entry admits only when it matches every form. They
// are made when asked for: a policy reads them only when a list has a
// serverCommand entry.
func (e *Expanded) ArgvForms() [][]string {
	argv := append([]string{e.Command}, e.Args...)
	if e.argvAgain == nil {
		return [][]string{argv}
	}
	return [][]string{argv, e.argvAgain}
}

// URLForms are the URLs policy matching sees, as ArgvForms are the
// command lines.
func (e *Expanded) URLForms() []string {
	if e.urlAgain == nil {
		return []string{e.URL}
	}
	return []string{e.URL, *e.urlAgain}
}

// Argv returns [command, args...]. For a server wrapped by `mcpguard proxy`
// it is the wrapped command line; see Wrapper.
func (s *Server) Argv() []string { return append([]string{s.Command}, s.Args...) }

// Wrapper returns the argv prefix [mcpguard, proxy flags..., "--"] of a server
// that runs through `mcpguard proxy`, or nil. The client starts
// append(s.Wrapper(), s.Argv()...).
func (s *Server) Wrapper() []string { return append([]string(nil), s.wrapper...) }

func (s *Server) detail(key string, v any) {
	if s.unrecorded {
		return
	}
	if s.Details == nil {
		s.Details = map[string]any{}
	}
	s.Details[key] = v
}

// Result is everything one scan produced.
type Result struct {
	Servers  []*Server
	Findings []reports.Finding
	Errors   []reports.FileError
	// Sources lists every configuration file that was read or looked for and
	// found, with its role, so reports can show coverage.
	Sources []reports.Source
	// Policy describes the policy sources in effect (managed settings and the
	// like); filled by the resolution and the policy engine.
	Policy reports.PolicyInfo
}
