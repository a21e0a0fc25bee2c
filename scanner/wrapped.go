package scanner

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/internal/wrapargv"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
)

// Servers wrapped by `mcpguard wrap` run `mcpguard proxy [flags] -- CMD ARGS`
// (internal/wrapargv). The scanner sees through the wrapper: the report and
// mcpguard's own rules (hygiene, custom Rego, --policy files) judge the
// wrapped command line. Claude Code, however, matches its serverCommand allow
// and deny entries against the argv it actually starts, the wrapper's; so for
// a Claude Code server the status comes from Claude Code's lists applied to the
// wrapper argv, and MCPG-P008 reports when the two verdicts differ.

// ruleWrapVerdict is the rule for a wrapper that changes Claude Code's verdict.
const ruleWrapVerdict = "MCPG-P008"

// seeThrough replaces a wrapped stdio server's command line by the one it
// wraps and records the wrapper (names and flags only) in details.wrapped_by.
func seeThrough(s *Server) {
	if s.Transport != TransportStdio || s.wrapper != nil {
		return
	}
	w, ok := wrapargv.Split(s.Command, s.Args)
	if !ok {
		return
	}
	s.wrapper = w.Prefix()
	s.Command = w.Inner[0]
	s.Args = append([]string{}, w.Inner[1:]...)
	s.detail("wrapped_by", map[string]any{"command": w.Command, "args": append([]string{}, w.Flags...)})
}

// expandServer expands a Claude Code winner (expandClaude) and, for a wrapped
// server, the whole wrapper argv Claude Code starts. A server that is not
// wrapped yet is first offered to Options.WrapPreview.
func (sc *scan) expandServer(s *Server, lookup interp.Lookup) {
	if s.wrapper == nil && sc.opts.WrapPreview != nil && s.Transport == TransportStdio && s.Status != reports.StatusInvalid {
		if prefix := sc.opts.WrapPreview(s); len(prefix) > 0 {
			s.wrapper = append([]string{}, prefix...)
		}
	}
	s.Expanded = expandClaude(s, lookup)
	s.wrapperExpanded = nil
	if s.wrapper != nil {
		outer := *s
		outer.Command, outer.Args = s.wrapper[0], s.wrapperArgs()
		s.wrapperExpanded = expandClaude(&outer, lookup)
	}
}

// wrapperArgs returns the arguments of the wrapper argv: the proxy flags, the
// separator and the wrapped command line.
func (s *Server) wrapperArgs() []string {
	args := make([]string, 0, len(s.wrapper)+len(s.Args))
	args = append(args, s.wrapper[1:]...)
	args = append(args, s.Command)
	return append(args, s.Args...)
}

// wrapperView is s as Claude Code sees it: the wrapper argv as its command
// line. It shares s's maps, which policy input building only reads.
func (s *Server) wrapperView() *Server {
	v := *s
	v.Command, v.Args = s.wrapper[0], s.wrapperArgs()
	v.Expanded = s.wrapperExpanded
	v.wrapper, v.wrapperExpanded, v.pendingFindings = nil, nil, nil
	return &v
}

// reconcileWrapped combines the verdicts of Claude Code's lists on the wrapped
// command line (inner, with every rule's findings) and on the wrapper argv
// (outer, what Claude Code enforces; its findings are discarded). The status
// follows outer; the decision and findings follow inner, except that an
// allowlist entry spelling the wrapper argv admits the wrapped command too
// (the wrapper runs exactly it). When the verdicts differ otherwise, an
// MCPG-P008 finding says why.
func (sc *scan) reconcileWrapped(s *Server, inner, outer *policy.ServerResult, v verdict, findings []policy.RuleResult) (verdict, []policy.RuleResult) {
	v.claudeDenies = !outer.Decision.Allowed
	if inner.Decision.Allowed == outer.Decision.Allowed {
		return v, findings
	}
	det := sc.detector()
	argv := append(append([]string{}, s.wrapper...), s.Argv()...)
	shown := redactedArgv(det, argv)
	redacted := strings.Join(shown, "\x00") != strings.Join(argv, "\x00")
	evidence := map[string]any{
		"wrapper_argv":         shown,
		"claude_code_decision": decisionMap(outer.Decision),
		"inner_decision":       decisionMap(inner.Decision),
	}
	add := func(kind string, sev reports.Severity, msg string) {
		evidence["case"] = kind
		s.pendingFindings = append(s.pendingFindings, pendingFinding{rule: ruleWrapVerdict, message: msg, evidence: evidence,
			disc: []string{kind}, severity: sev})
	}
	quoted := jsonText(shown)
	note := ""
	if redacted {
		note = " (secret values are redacted here; spell them as the entry does)"
	}
	switch {
	case inner.Decision.Allowed:
		// Claude Code refuses the wrapper although it admits the wrapped command.
		if contains(outer.Decision.Reasons, reports.ReasonDeniedCommand) {
			add("wrapper-denied", reports.SeverityWarning, fmt.Sprintf(
				"server %q runs through mcpguard proxy and a serverCommand deny entry matches the wrapped command line %s, so Claude Code refuses the server although its own command is allowed; remove the wrapper (mcpguard unwrap) or the deny entry%s",
				s.Name, quoted, note))
			break
		}
		entry := jsonText(map[string]any{"serverCommand": shown})
		evidence["entry"] = map[string]any{"serverCommand": shown}
		add("allowlist", reports.SeverityWarning, fmt.Sprintf(
			"server %q runs through mcpguard proxy, and Claude Code matches serverCommand entries against the command line it starts: no allowedMcpServers entry equals %s, so Claude Code refuses the server although its own command is allowlisted; the policy owners must add %s to allowedMcpServers, or remove the wrapper (mcpguard unwrap)%s",
			s.Name, quoted, entry, note))
	case contains(inner.Decision.Reasons, reports.ReasonDeniedCommand):
		// The wrapper hides the command line from a deny entry.
		add("deny-evaded", reports.SeverityError, fmt.Sprintf(
			"server %q runs through mcpguard proxy, which hides its command line from Claude Code's deny list: the serverCommand deny entry that matches %s does not match the command line Claude Code starts, %s, so Claude Code loads a server the policy denies; remove the server or its wrapper (mcpguard unwrap), or deny the wrapped command line too",
			s.Name, jsonText(redactedArgv(det, s.Argv())), quoted))
	default:
		// An allowlist entry that spells the wrapper argv admits the wrapped
		// command: the policy owners allowed exactly this wrapped command line.
		v.Decision = outer.Decision
		s.detail("admission", outer.Admission)
		s.detail("admitted_as", "wrapped")
		kept := findings[:0:0]
		for _, f := range findings {
			if !isListRule(f) {
				kept = append(kept, f)
			}
		}
		for _, f := range outer.Findings {
			if isListRule(f) {
				kept = append(kept, f)
			}
		}
		findings = kept
	}
	return v, findings
}

// isListRule reports whether a shipped rule judges Claude Code's allow and deny
// lists (MCPG-P001 to P007), whose findings depend on the argv matched.
func isListRule(f policy.RuleResult) bool {
	return f.Package == "" && strings.HasPrefix(f.Rule, "MCPG-P")
}

// redactedArgv is argv with credential-like values redacted.
func redactedArgv(det *secrets.Detector, argv []string) []string {
	if len(argv) == 0 {
		return argv
	}
	return append([]string{det.RedactText(argv[0])}, det.RedactArgs(argv[1:])...)
}

func decisionMap(d reports.Decision) map[string]any {
	reasons := make([]any, len(d.Reasons))
	for i, r := range d.Reasons {
		reasons[i] = r
	}
	return map[string]any{"allowed": d.Allowed, "reasons": reasons}
}

// jsonText renders v as compact JSON without HTML escaping, for messages.
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ProxyName is the --name `mcpguard wrap` gives the proxy of this server:
// <client>/<scope>/<server name>, followed for local and project servers by
// "@" and the project directory (the ~/.claude.json projects key for local
// servers, the folder holding the project file otherwise), so that the name
// — which keys the tool pins — is unique per definition.
func (s *Server) ProxyName() string {
	n := s.Client + "/" + s.Scope + "/" + s.Name
	switch s.Scope {
	case ScopeLocal:
		toks := strings.Split(s.Source.Pointer, "/")
		if len(toks) > 2 && toks[1] == "projects" {
			return n + "@" + strings.ReplaceAll(strings.ReplaceAll(toks[2], "~1", "/"), "~0", "~")
		}
		if s.Project != "" {
			return n + "@" + s.Project
		}
	case ScopeProject:
		dir := filepath.Dir(s.Source.Path)
		if filepath.Base(s.Source.Path) != ".mcp.json" {
			dir = filepath.Dir(dir) // .cursor/mcp.json, .vscode/mcp.json
		}
		return n + "@" + dir
	}
	return n
}

// PinName is the name the server's tool pins are kept under: the --name
// of the proxy that wraps it, when it is wrapped and names itself, or else
// the name `mcpguard wrap` would give it (ProxyName). Introspection and the
// proxy so share one pin per server.
func (s *Server) PinName() string {
	if s.wrapper != nil {
		if w, ok := wrapargv.Split(s.wrapper[0], append(s.wrapper[1:len(s.wrapper):len(s.wrapper)], s.Argv()...)); ok && w.Name() != "" {
			return w.Name()
		}
	}
	return s.ProxyName()
}
