// Package rego embeds mcpguard's shipped Rego policies and their tests: the
// Claude Code allow/deny verdict (mcpguard/claude), the policy-weakness and
// configuration-hygiene rules (mcpguard/rules) and the entrypoints the engine
// evaluates (mcpguard/main). Importers alias it as bundled, because OPA's Go
// package of the same name is imported beside it.
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
