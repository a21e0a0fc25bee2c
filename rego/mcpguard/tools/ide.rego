# METADATA
# title: IDE tool allowlist
# description: |
#   MCPG-I001. Claude Code shows the model only two tools of its "ide" server,
#   mcp__ide__executeCode and mcp__ide__getDiagnostics (ALLOWED_IDE_TOOLS), and
#   filters out every other tool that server offers (docs/threats.md §3).
#   `mcpguard tools --ide` and the proxy's --ide mode apply the same allowlist.
#
#   Input: {"server": {"name": string, "ide": boolean},
#           "tools": [{"name": string, "pointer": string}]}
#   where pointer is the JSON pointer of the tool object in the tools/list
#   document. A tool without a string name has the name "".
package mcpguard.tools

# ide_allowed_tools are the exact, case-sensitive names an IDE server may offer.
ide_allowed_tools := {"executeCode", "getDiagnostics"}

# ide_server holds for an IDE server: --ide, or the server name "ide", which
# is the name Claude Code gives the IDE extension's server.
default ide_server := false

ide_server if input.server.ide == true

ide_server if input.server.name == "ide"

# ide_denied is the set of tool names outside the allowlist.
ide_denied contains tool.name if {
	ide_server
	some tool in input.tools
	not ide_allowed_tools[tool.name]
}

findings contains {
	"rule": "MCPG-I001",
	"msg": sprintf("IDE server offers tool %q, which is outside the IDE allowlist (%s); Claude Code filters it out, and any other client exposes it", [tool.name, concat(", ", sort(ide_allowed_tools))]),
	"evidence": {"kind": "ide-allowlist", "tool": tool.name, "allowed": sort(ide_allowed_tools)},
	"pointer": tool.pointer,
} if {
	ide_server
	some tool in input.tools
	ide_denied[tool.name]
}
