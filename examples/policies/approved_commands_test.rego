package mcpguard.custom.approved_test

import data.mcpguard.custom.approved

server(command, argv0) := {"name": "srv", "transport": "stdio", "command": command, "claude": {"argv": [argv0]}}

denied(s) := commands if {
	commands := {d.evidence.command | some d in approved.deny} with input as {"server": s, "context": {}}
}

test_approved_program_passes if {
	denied(server("/opt/approved/acme-mcp", "/opt/approved/acme-mcp")) == set()
}

test_other_programs_denied if {
	denied(server("npx", "npx")) == {"npx"}
	denied(server("/usr/local/bin/acme-mcp", "/usr/local/bin/acme-mcp")) == {"/usr/local/bin/acme-mcp"}
	denied(server("/opt/approved-evil/x", "/opt/approved-evil/x")) == {"/opt/approved-evil/x"}
}

test_dot_dot_denied if {
	denied(server("/opt/approved/../../bin/sh", "/opt/approved/../../bin/sh")) == {"/opt/approved/../../bin/sh"}
}

test_expanded_command_checked_too if {
	# "${ACME_BIN}" as written, /usr/bin/python once Claude Code expands it
	denied(server("${ACME_BIN}", "/usr/bin/python")) == {"${ACME_BIN}", "/usr/bin/python"}
}

test_other_clients_without_claude_fields if {
	denied({"name": "srv", "transport": "stdio", "command": "/opt/approved/x"}) == set()
}

test_remote_servers_ignored if {
	denied({"name": "srv", "transport": "http", "command": "", "url": "https://x.example/"}) == set()
}
