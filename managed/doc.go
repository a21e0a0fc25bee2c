// Package managed reads Claude Code's enterprise policy sources — the managed
// directory's managed-settings.json, managed-settings.d/*.json drop-ins and
// managed-mcp.json — and the user, project and local settings documents that
// take part in the same decisions, keeping every value's source position.
//
// It reports the states in which a managed file fails open, fails closed or
// stops Claude Code from running at all (docs/claude-code.md §2.5, §4, §11.1),
// because a policy file that is present but ignored is worse than none.
package managed
