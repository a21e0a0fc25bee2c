# METADATA
# title: mcpguard's planned entrypoint
# description: |
#   What an engine without custom rules evaluates for each server through
#   the shipped plan: the verdict query's parts and the hygiene findings,
#   in one evaluation, as an array the engine reads by position (its two
#   halves compile apart for topdown: data.mcpguard.main.shipped and
#   data.mcpguard.hygiene.findings, which this is held to).
package mcpguard.plan

server := [
	data.mcpguard.claude.verdict,
	data.mcpguard.main.admission,
	data.mcpguard.policy.findings,
	data.mcpguard.hygiene.findings,
]
