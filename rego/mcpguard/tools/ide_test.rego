package mcpguard.tools_test

import data.mcpguard.tools

ide_input(server, names) := {
	"server": server,
	"tools": [{"name": n, "pointer": sprintf("/tools/%d", [i])} | some i, n in names],
}

test_allowlisted_tools_pass if {
	count(tools.findings) == 0 with input as ide_input({"name": "ide", "ide": true}, ["executeCode", "getDiagnostics"])
}

test_other_tool_is_denied if {
	fs := tools.findings with input as ide_input({"name": "ide", "ide": true}, ["executeCode", "openFile"])
	count(fs) == 1
	some f in fs
	f.rule == "MCPG-I001"
	f.evidence.tool == "openFile"
	f.pointer == "/tools/1"
}

test_name_ide_implies_ide if {
	tools.ide_denied == {"runTerminal"} with input as ide_input({"name": "ide", "ide": false}, ["runTerminal"])
}

test_ide_flag_without_the_name if {
	tools.ide_denied == {"close_tab"} with input as ide_input({"name": "vscode-bridge", "ide": true}, ["close_tab", "getDiagnostics"])
}

test_matching_is_exact if {
	tools.ide_denied == {"executecode", "getDiagnostics ", "mcp__ide__executeCode"} with input as ide_input({"name": "ide", "ide": true}, ["executecode", "getDiagnostics ", "mcp__ide__executeCode"])
}

test_nameless_tool_is_denied if {
	tools.ide_denied == {""} with input as ide_input({"name": "ide", "ide": true}, [""])
}

test_other_servers_are_not_judged if {
	count(tools.findings) == 0 with input as ide_input({"name": "github", "ide": false}, ["create_issue"])
}
