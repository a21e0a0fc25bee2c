package scanner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
)

// TestProposalJudge judges saved servers under proposed lists: what each
// client does with the new verdict, and what a report cannot tell.
func TestProposalJudge(t *testing.T) {
	dir := t.TempDir()
	proposal := filepath.Join(dir, "proposal.json")
	if err := os.WriteFile(proposal, []byte(`{
  "allowedMcpServers": [
    {"serverName": "docs"},
    {"serverCommand": ["uvx", "docs-server==1.0"]},
    {"serverCommand": ["npx", "-y", "pkg@1.0.0", "--token", "s3cr3t-value-123456"]},
    {"serverUrl": "https://mcp.example.com/*"}
  ],
  "deniedMcpServers": [{"serverName": "evil"}]
}`), 0o600); err != nil {
		t.Fatal(err)
	}
	engine, err := policy.NewEngine(context.Background(), policy.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProposal(ProposalOptions{Policy: engine, PolicyFiles: []string{proposal}})
	if err != nil {
		t.Fatal(err)
	}
	allowed := reports.Decision{Allowed: true, Reasons: []string{reports.ReasonAllowed}}
	notAllowlisted := reports.Decision{Reasons: []string{reports.ReasonNotAllowlisted}}
	stdio := func(name, client, scope string, status reports.Status, d reports.Decision, argv ...string) reports.Server {
		return reports.Server{ID: "s-" + name, Name: name, Client: client, Scope: scope, Transport: TransportStdio,
			Command: argv[0], Args: argv[1:], Status: status, Decision: d,
			Details: map[string]any{"claude_scope": scope}}
	}
	remote := func(name, client, scope, url string, status reports.Status, d reports.Decision) reports.Server {
		return reports.Server{ID: "s-" + name, Name: name, Client: client, Scope: scope, Transport: TransportHTTP, URL: url,
			Status: status, Decision: d, Details: map[string]any{"claude_scope": scope}}
	}
	tests := []struct {
		saved       reports.Server
		wantAllowed bool
		wantStatus  reports.Status
		wantJudged  bool
		wantChange  string
	}{
		// Every status stays what the client does today; the decision is the
		// proposal's, and for Claude Code the change says what it would
		// stop or start loading were the proposal its managed settings.
		{stdio("node-tool", ClientClaudeCode, ScopeUser, reports.StatusActive, allowed, "node", "tool.js"), false, reports.StatusActive, true, "block"},
		{remote("api", ClientClaudeCode, ScopeUser, "https://mcp.example.com/mcp", reports.StatusBlocked, notAllowlisted), true, reports.StatusBlocked, true, "unblock"},
		{stdio("evil", ClientClaudeCode, ScopeProject, reports.StatusActive, allowed, "node", "evil.js"), false, reports.StatusActive, true, "block"},
		// Managed servers are the organisation's own: exempt.
		{remote("org", ClientClaudeCode, ScopeManaged, "https://org.internal/mcp", reports.StatusActive, allowed), true, reports.StatusActive, true, ""},
		// Other clients keep their status; mcpguard's verdict changes.
		{stdio("docs", ClientCursor, ScopeUser, reports.StatusActive, notAllowlisted, "uvx", "docs-server==1.0"), true, reports.StatusActive, true, ""},
		{stdio("other", ClientCursor, ScopeUser, reports.StatusActive, allowed, "uvx", "other==1.0"), false, reports.StatusActive, true, ""},
		// A client that blocked a server itself still blocks it, and no
		// policy verdict applies (as in a scan).
		{stdio("docs", ClientCursor, ScopeUser, reports.StatusBlocked, reports.Decision{Reasons: []string{reports.ReasonClientBlocked}}, "uvx", "docs-server==1.0"), false, reports.StatusBlocked, false, ""},
		// Claude Code ignores name entries for stdio servers once the list
		// has a serverCommand entry.
		{stdio("docs", ClientClaudeCode, ScopeUser, reports.StatusActive, allowed, "node", "docs.js"), false, reports.StatusActive, true, "block"},
		// A report redacts secrets: an entry that spells one matches nothing.
		{stdio("tok", ClientClaudeCode, ScopeUser, reports.StatusActive, allowed, "npx", "-y", "pkg@1.0.0", "--token", "REDACTED"), false, reports.StatusActive, true, "block"},
		// An invalid entry, which its client skips, is not judged.
		{stdio("bad", ClientCursor, ScopeUser, reports.StatusInvalid, reports.Decision{Reasons: []string{reports.ReasonInvalid}}, ""), false, reports.StatusInvalid, false, ""},
		// Nor is a shadowed definition.
		{stdio("old", ClientClaudeCode, ScopeUser, reports.StatusShadowed, reports.Decision{Reasons: []string{}}, "node", "old.js"), false, reports.StatusShadowed, false, ""},
	}
	saved := make([]reports.Server, len(tests))
	for i, tc := range tests {
		saved[i] = tc.saved
	}
	got, err := p.Judge(context.Background(), "linux", saved)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		g := got[i]
		if g.Decision.Allowed != tc.wantAllowed || g.Status != tc.wantStatus || g.Judged != tc.wantJudged || g.Change != tc.wantChange {
			t.Errorf("%s (%s, %s, was %s): got allowed %v, status %s, judged %v, change %q (%v); want %v, %s, %v, %q", tc.saved.Name, tc.saved.Client, tc.saved.Scope,
				tc.saved.Status, g.Decision.Allowed, g.Status, g.Judged, g.Change, g.Decision.Reasons, tc.wantAllowed, tc.wantStatus, tc.wantJudged, tc.wantChange)
		}
	}
	if len(saved[0].Details) != 1 {
		t.Errorf("Judge changed the saved server's details: %v", saved[0].Details)
	}
}

// TestProposalLoadErrors: a proposal that does not load is an error, never
// an empty policy that allows everything.
func TestProposalLoadErrors(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte("{\"allowedMcpServers\": [\n  {\"serverName\": }]}"), 0o600); err != nil {
		t.Fatal(err)
	}
	engine, err := policy.NewEngine(context.Background(), policy.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{broken, "broken.json:2:18"},
		{filepath.Join(dir, "missing.json"), "missing.json: policy file does not exist"},
	} {
		_, err := NewProposal(ProposalOptions{Policy: engine, PolicyFiles: []string{tc.path}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", filepath.Base(tc.path), err, tc.want)
		}
	}
	if _, err := NewProposal(ProposalOptions{}); err == nil {
		t.Error("a proposal without an engine loaded")
	}
}

// TestProposalExtensionPolicy: a proposal that sets Claude Desktop's
// extension keys judges the saved extensions as the enterprise settings
// would on each host (the status stays what Claude Desktop does today, the
// change says what it would do); one that sets none leaves the extension
// policy's verdicts alone.
func TestProposalExtensionPolicy(t *testing.T) {
	engine, err := policy.NewEngine(context.Background(), policy.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ext := func(name string, status reports.Status, d reports.Decision, signature string, extra map[string]any) reports.Server {
		details := map[string]any{"extension": map[string]any{"extension_id": name, "version": "1.0.0"},
			"installation": map[string]any{"signature": signature}}
		for k, v := range extra {
			details[k] = v
		}
		return reports.Server{ID: "s-" + name, Name: name, Client: ClientClaudeDesktop, Scope: ScopeExtension, Transport: TransportStdio,
			Command: "node", Args: []string{"/x/" + name + "/index.js"}, Status: status, Decision: d, Details: details}
	}
	allowed := reports.Decision{Allowed: true, Reasons: []string{reports.ReasonAllowed}}
	offToday := reports.Decision{Reasons: []string{reports.ReasonExtensionsDisabled}}
	saved := []reports.Server{
		ext("signed", reports.StatusActive, allowed, "signed", nil),
		ext("unsigned", reports.StatusActive, allowed, "unsigned", nil),
		ext("off", reports.StatusBlocked, offToday, "signed", map[string]any{"disabled_by": "isEnabled: false"}),
		{ID: "s-cursor", Name: "docs", Client: ClientCursor, Scope: ScopeUser, Transport: TransportStdio, Command: "uvx", Args: []string{"docs"}, Status: reports.StatusActive, Decision: allowed},
	}
	cases := []struct {
		name, proposal string
		want           []string // status reasons change, per saved server
	}{
		{"extensions off", `{"isDesktopExtensionEnabled": false}`,
			[]string{"active EXTENSIONS_DISABLED block", "active EXTENSIONS_DISABLED block", "blocked EXTENSIONS_DISABLED ", "active ALLOWED "}},
		{"signatures required", `{"isDxtSignatureRequired": true}`,
			[]string{"active ALLOWED ", "active EXTENSION_UNSIGNED block", "blocked ALLOWED unblock", "active ALLOWED "}},
		{"lists only", `{"allowedMcpServers": [{"serverName": "docs"}]}`,
			[]string{"active NOT_ALLOWLISTED ", "active NOT_ALLOWLISTED ", "blocked EXTENSIONS_DISABLED ", "active ALLOWED "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "proposal.json")
			if err := os.WriteFile(file, []byte(tc.proposal), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := NewProposal(ProposalOptions{Policy: engine, PolicyFiles: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Judge(context.Background(), "darwin", saved)
			if err != nil {
				t.Fatal(err)
			}
			for i, j := range got {
				s := string(j.Status) + " " + strings.Join(j.Decision.Reasons, ",") + " " + j.Change
				if s != tc.want[i] {
					t.Errorf("%s: %q, want %q", saved[i].Name, s, tc.want[i])
				}
			}
		})
	}
}
