# METADATA
# title: mcpguard entrypoints
# description: |
#   The verdict query the engine prepares once and evaluates for each server
#   (input.server, input.context): Claude Code's verdict, the policy rules and
#   the custom rules (server; shipped when there are no custom rules). The
#   hygiene and weakness rules are compiled apart
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

# The verdict query of an engine without custom rules: server without the
# custom deny and warn lists, which would cost every server two rule
# evaluations of an empty list (six of its ~95 evaluation steps).
shipped := {
	"verdict": data.mcpguard.claude.verdict,
	"admission": admission,
	"findings": data.mcpguard.policy.findings,
}

