# METADATA
# title: remote servers should live under corp.example
# description: |
#   A warning for every remote (http, sse, ws) server whose URL is not on
#   corp.example or one of its subdomains, matched with Claude Code's own
#   serverUrl matcher (mcpguard.url_match).
package mcpguard.custom.corp_remote

# https only; the host wildcard admits any port (see MCPG-P005).
patterns := ["https://corp.example/*", "https://*.corp.example/*", "wss://*.corp.example/*"]

on_corp if {
	some p in patterns
	mcpguard.url_match(p, input.server.url)
}

warn contains {
	"id": "ACME-REMOTE-HOST",
	"msg": sprintf("remote server %q at %s is outside *.corp.example", [input.server.name, input.server.url]),
	"evidence": {"url": input.server.url},
} if {
	input.server.transport != "stdio"
	not on_corp
}
