package policy_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpguard/mcpguard/policy"
)

// An organisation rule: every stdio server must run a program under /opt/approved.
const approved = `package mcpguard.custom.acme

deny contains {"id": "ACME-001", "msg": sprintf("%s runs %s, outside /opt/approved", [input.server.name, input.server.command])} if {
	input.server.transport == "stdio"
	not startswith(input.server.command, "/opt/approved/")
}
`

func ExampleEngine_EvalServer() {
	dir, err := os.MkdirTemp("", "policies")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "acme.rego"), []byte(approved), 0o644); err != nil {
		log.Fatal(err)
	}

	// Compile once: the shipped policies and the organisation's.
	ctx := context.Background()
	engine, err := policy.NewEngine(ctx, policy.EngineOptions{Paths: []string{dir}})
	if err != nil {
		log.Fatal(err) // a *policy.CompileError naming path:line:col
	}

	// The policy context: managed settings allow the server "docs" by name.
	allow := policy.IndexList([]any{map[string]any{"key": "serverName", "name": "docs",
		"source": map[string]any{"path": "/etc/claude-code/managed-settings.json", "pointer": "/allowedMcpServers/0", "line": 2, "column": 25}}})
	pctx, err := policy.NewValue(map[string]any{"os": "linux", "project": "/src/app", "claude": map[string]any{
		"allow": allow, "allow_org": allow, "deny": policy.IndexList(nil), "deny_org": policy.IndexList(nil),
		"managed_only": map[string]any{"on": false}, "documents": []any{}, "issues": []any{}, "broken": []any{},
		"managed_mcp": nil, "strict_plugin_only": false,
	}})
	if err != nil {
		log.Fatal(err)
	}

	// One server: `docs: npx -y @acme/docs` in ~/.claude.json.
	argv := []string{"npx", "-y", "@acme/docs"}
	server, err := policy.NewValue(map[string]any{
		"name": "docs", "client": "claude-code", "scope": "user", "project": "", "transport": "stdio", "type": "stdio",
		"command": "npx", "args": []any{"-y", "@acme/docs"}, "url": "", "env_keys": []any{}, "header_keys": []any{},
		"status": "active", "enforced": true,
		"source": map[string]any{"path": "/home/dev/.claude.json", "pointer": "/mcpServers/docs", "line": 4, "column": 5},
		"claude": map[string]any{"label": "user", "argv": []any{"npx", "-y", "@acme/docs"}, "argv_keys": []any{policy.ArgvKey(argv)},
			"url": "", "urls": []any{""}, "has_var": false, "builtin": false},
		"facts": map[string]any{"secrets": []any{}, "url": map[string]any{"parsed": false}, "env_var_keys": []any{},
			"program": "npx", "program_args": []any{"-y", "@acme/docs"}},
	})
	if err != nil {
		log.Fatal(err)
	}

	// Evaluate many times: once per server.
	res, err := engine.EvalServer(ctx, server, pctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Claude Code:", res.Decision.Allowed, res.Decision.Reasons, res.Admission)
	for _, f := range res.Findings {
		fmt.Printf("%s [%s] %s\n", f.Rule, f.Severity, f.Message)
	}
	// Output:
	// Claude Code: true [ALLOWED] allowlist
	// MCPG-P004 [warning] stdio server "docs" is admitted by its name only: the allowlist has no serverCommand entries, so its command is never checked and any config can take the name
	// MCPG-C002 [warning] server "docs" runs @acme/docs via npx without a pinned version: every start can fetch different code; pin an exact version (pkg@1.2.3)
	// ACME-001 [error] docs runs npx, outside /opt/approved
}
