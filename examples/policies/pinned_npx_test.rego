package mcpguard.custom.pinned_npx_test

import data.mcpguard.custom.pinned_npx

# Only the fields the rule reads; a real input.server has many more.
server(program, args) := {"name": "tools", "transport": "stdio", "facts": {"program": program, "program_args": args}}

ids(program, args) := found if {
	found := {d.id | some d in pinned_npx.deny} with input as {"server": server(program, args), "context": {}}
}

test_unpinned_denied if {
	ids("npx", ["-y", "@acme/tools"]) == {"ACME-NPX-PIN"}
	ids("npx", ["-y", "@acme/tools@latest"]) == {"ACME-NPX-PIN"}
	ids("npx", ["@acme/tools@^1.4.0"]) == {"ACME-NPX-PIN"}
	ids("npx", ["-p", "acme-tools", "tools"]) == {"ACME-NPX-PIN"}
}

test_every_package_flag_checked if {
	# repeated flags: one result per unpinned package, never a conflict
	found := {d.evidence["package"] | some d in pinned_npx.deny} with input as {"server": server("npx", ["-p", "a@1.0.0", "-p", "b", "--package=c", "tool"]), "context": {}}
	found == {"b", "c"}
}

test_message_names_the_package if {
	some d in pinned_npx.deny with input as {"server": server("npx", ["-y", "acme-tools"]), "context": {}}
	d.msg == "server \"tools\" runs acme-tools with npx without an exact version; pin it, e.g. acme-tools@1.2.3"
	d.evidence == {"package": "acme-tools"}
	some l in pinned_npx.deny with input as {"server": server("npx", ["@acme/tools@latest"]), "context": {}}
	endswith(l.msg, "pin it, e.g. @acme/tools@1.2.3")
}

test_pinned_passes if {
	ids("npx", ["-y", "@acme/tools@1.4.2"]) == set()
	ids("npx", ["-y", "acme-tools@2.0.0-rc.1", "--port", "8080"]) == set()
	ids("npx", ["--package=@acme/tools@1.4.2", "tools"]) == set()
}

test_other_programs_and_local_paths_pass if {
	ids("node", ["server.js"]) == set()
	ids("uvx", ["acme-tools"]) == set()
	ids("npx", ["./local-server"]) == set()
}
