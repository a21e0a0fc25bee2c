# METADATA
# title: mcpguard entrypoints
# description: |
#   The verdict query the engine prepares once and evaluates for each server
#   (input.server, input.context): Claude Code's verdict, the policy rules and
#   the custom rules. The hygiene and weakness rules are compiled apart
#   (data.mcpguard.hygiene.findings, data.mcpguard.weakness.findings) so that the
#   two halves compile in parallel.
package mcpguard.main

default admission := ""

admission := data.mcpguard.claude.admission

server := {
	"verdict": data.mcpguard.claude.verdict,
	"admission": admission,
	"findings": data.mcpguard.policy.findings,
	"deny": data.mcpguard.generated.deny,
	"warn": data.mcpguard.generated.warn,
}

