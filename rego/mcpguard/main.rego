# METADATA
# title: mcpguard entrypoints
# description: |
#   The two queries the engine prepares once and evaluates many times:
#   `server` for each server (input.server, input.context) and `context` once per
#   policy context (input.context).
package mcpguard.main

default admission := ""

admission := data.mcpguard.claude.admission

server := {
	"verdict": data.mcpguard.claude.verdict,
	"admission": admission,
	"findings": [f | some f in data.mcpguard.rules.server_findings],
	"deny": data.mcpguard.generated.deny,
	"warn": data.mcpguard.generated.warn,
}

context := {"findings": [f | some f in data.mcpguard.rules.context_findings]}
