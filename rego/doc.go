// Package rego embeds mcpguard's shipped Rego policies and their tests: the
// Claude Code allow/deny verdict (mcpguard/claude), the policy rules
// (mcpguard/policy), the policy-weakness and configuration-hygiene rules
// (mcpguard/weakness, mcpguard/hygiene), the tools policy (mcpguard/tools)
// and the entrypoints the engine evaluates (mcpguard/main; mcpguard/plan
// joins a server's two queries for the shipped plan). Importers alias it as
// bundled, because OPA's Go package of the same name is imported beside it.
package rego

import (
	"embed"
	"io/fs"
)

//go:embed mcpguard
var files embed.FS

// FS returns the shipped policies, rooted so that paths read
// "mcpguard/claude/verdict.rego".
func FS() fs.FS { return files }
