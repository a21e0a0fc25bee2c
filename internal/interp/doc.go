// Package interp recognises and expands the variable-reference dialects that MCP
// clients use inside server entries: Claude Code's ${VAR} and ${VAR:-default},
// VS Code's ${env:VAR} and ${input:id}, Cursor's and Windsurf's ${env:VAR},
// Gemini CLI's $VAR, Continue's ${{ secrets.X }} and opencode's {env:VAR}.
//
// mcpguard keeps every string un-interpolated in its model and uses this package
// to find references (for MCPG-C007 and for Claude Code's "has a variable" policy
// test) and, for Claude Code only, to expand them exactly as the CLI does
// (docs/claude-code.md §3).
package interp
