package mcpguard.custom.org_test

import data.mcpguard.custom.org

patterns := ["https://*.acme.example/*"]

test_remote_off_acme_is_denied if {
	some d in org.deny with input.server as {"name": "t", "transport": "http", "url": "https://mcp.tracker.example.com/mcp"}
		with data.org.remote_patterns as patterns
	d.id == "ORG-001"
}

test_remote_on_acme_is_fine if {
	count(org.deny) == 0 with input.server as {"name": "d", "transport": "http", "url": "https://docs.acme.example/mcp"}
		with data.org.remote_patterns as patterns
}

test_unwrapped_local_server_warns if {
	some w in org.warn with input.server as {"name": "l", "transport": "stdio", "wrapped_by": null}
	w.id == "ORG-002"
}

test_password_tool_is_withheld if {
	some d in org.tool_deny with input.tool as {"name": "login", "description": "Asks the user for their Password."}
	d.id == "ORG-T01"
}
