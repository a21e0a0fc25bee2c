# METADATA
# title: Tool rules (docs/policies.md, "Tool rules")
# description: |
#   No tool may ask the model for credentials (ACME-T01, withheld by the
#   proxy); tools of the payments server must say whether they are read-only
#   (ACME-T02). Run with `mcpguard tools --policy` or `mcpguard proxy --policy`.
package mcpguard.custom.tool_rules

# No tool may ask the model for credentials.
tool_deny contains {"id": "ACME-T01", "msg": sprintf("tool %s asks for a password", [input.tool.name])} if {
	contains(lower(input.tool.description), "password")
}

# Tools of the payments server must say whether they are read-only.
tool_warn contains {"id": "ACME-T02", "msg": sprintf("tool %s has no readOnlyHint", [input.tool.name])} if {
	input.server.name == "payments"
	not "readOnlyHint" in object.keys(object.get(input.tool, "annotations", {}))
}
