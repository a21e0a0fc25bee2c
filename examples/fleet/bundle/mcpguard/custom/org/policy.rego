# METADATA
# title: ACME's MCP rules, shipped to every laptop and CI job as a signed bundle
# description: |
#   Remote servers only on ACME's own hosts (ORG-001); local servers should
#   run through mcpguard proxy (ORG-002); no tool may ask for a password
#   (ORG-T01, withheld by the proxy). The hosts live in the bundle's data
#   (data.org.remote_patterns), the lists in data.mcpguard.managed_settings.
package mcpguard.custom.org

# Matched with Claude Code's own serverUrl matcher.
on_acme if {
	some p in data.org.remote_patterns
	mcpguard.url_match(p, input.server.url)
}

deny contains {
	"id": "ORG-001",
	"msg": sprintf("remote server %q at %s is not on an ACME host", [input.server.name, input.server.url]),
	"evidence": {"url": input.server.url},
} if {
	input.server.transport != "stdio"
	not on_acme
}

warn contains {
	"id": "ORG-002",
	"msg": sprintf("local server %q does not run through mcpguard proxy (mcpguard wrap)", [input.server.name]),
} if {
	input.server.transport == "stdio"
	input.server.wrapped_by == null
}

tool_deny contains {"id": "ORG-T01", "msg": sprintf("tool %s asks for a password", [input.tool.name])} if {
	contains(lower(object.get(input.tool, "description", "")), "password")
}
