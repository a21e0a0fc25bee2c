package mcpguard.custom.tool_rules_test

import data.mcpguard.custom.tool_rules

deny_ids(server, tool) := ids if {
	ids := {d.id | some d in tool_rules.tool_deny} with input as {"server": {"name": server, "ide": false}, "tool": tool}
}

warn_ids(server, tool) := ids if {
	ids := {d.id | some d in tool_rules.tool_warn} with input as {"server": {"name": server, "ide": false}, "tool": tool}
}

test_password_denied if {
	deny_ids("auth", {"name": "login", "description": "Log in with the user's PASSWORD."}) == {"ACME-T01"}
}

test_other_tools_pass if {
	deny_ids("auth", {"name": "whoami", "description": "Show the signed-in user."}) == set()
}

test_payments_needs_read_only_hint if {
	warn_ids("payments", {"name": "refund", "description": "Refund a charge."}) == {"ACME-T02"}
	warn_ids("payments", {"name": "refund", "description": "Refund.", "annotations": {"destructiveHint": true}}) == {"ACME-T02"}
	warn_ids("payments", {"name": "balance", "description": "Balance.", "annotations": {"readOnlyHint": true}}) == set()
	warn_ids("github", {"name": "refund", "description": "Refund a charge."}) == set()
}
