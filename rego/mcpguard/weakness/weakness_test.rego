package mcpguard.weakness_test

import data.mcpguard.weakness

# Fixtures in the shape of scanner/policy.go's buildContext.

managed_path := "/etc/claude-code/managed-settings.json"

project_path := "/p/.claude/settings.json"

src(path, line) := {"path": path, "pointer": "/allowedMcpServers/0", "line": line, "column": 5, "kind": "managed-settings"}

url_e(u, line) := {"key": "serverUrl", "url": u, "raw": u, "unsafe": false, "source": src(managed_path, line)}

name_e(n, line) := {"key": "serverName", "name": n, "source": src(managed_path, line)}

list(entries) := {
	"count": count(entries), "names": {}, "commands": {},
	"urls": [e | some e in entries; e.key == "serverUrl"],
	"has_command": false, "has_url": count([e | some e in entries; e.key == "serverUrl"]) > 0,
	"entries": entries,
}

empty_context := {
	"allow": null, "deny": list([]), "allow_org": null, "deny_org": list([]),
	"managed_only": {"on": false}, "documents": [], "issues": [], "broken": [], "managed_mcp": null,
	"strict_plugin_only": false,
}

context(patch) := {"os": "linux", "project": "/p", "claude": object.union(empty_context, patch)}

findings(c) := fs if {
	fs := weakness.findings with input as {"context": c}
}

of_rule(c, rule) := [f | some f in findings(c); f.rule == rule]

one(c, rule) := f if [f] := of_rule(c, rule)

none(c, rule) if count(of_rule(c, rule)) == 0

test_nothing_for_an_empty_context if {
	count(findings(context({}))) == 0
}

# ---------------------------------------------------------------- MCPG-P003

test_p003_broken_managed_document if {
	b := {"path": "/etc/claude-code/managed-settings.d/10-mcp.json", "line": 1, "column": 24, "message": "invalid JSON: unexpected end of input"}
	f := one(context({"broken": [b]}), "MCPG-P003")
	f.evidence == {"effect": "fatal"}
	f.location == {"path": b.path, "pointer": "", "line": 1, "column": 24}
	contains(f.msg, "(invalid JSON: unexpected end of input): every claude command exits 1")
}

test_p003_each_broken_document if {
	bs := [
		{"path": "/a.json", "line": 1, "column": 1, "message": "x"},
		{"path": "/b.json", "line": 1, "column": 1, "message": "settings document must be a JSON object, not array"},
	]
	count(of_rule(context({"broken": bs}), "MCPG-P003")) == 2
}

mcp_file(parsed, servers_object, err) := {"path": "/etc/claude-code/managed-mcp.json", "parsed": parsed, "servers_object": servers_object, "line": 2, "column": 3, "error": err}

test_p003_managed_mcp_unparsed if {
	f := one(context({"managed_mcp": mcp_file(false, false, "invalid JSON: trailing comma")}), "MCPG-P003")
	startswith(f.msg, "managed-mcp.json cannot be used (invalid JSON: trailing comma), yet it keeps exclusive control")
	f.evidence == {"effect": "fail-closed", "older_clients": "fail-open"}
	f.location == {"path": "/etc/claude-code/managed-mcp.json", "pointer": "", "line": 2, "column": 3}
}

test_p003_managed_mcp_without_servers_object if {
	f := one(context({"managed_mcp": mcp_file(true, false, "")}), "MCPG-P003")
	startswith(f.msg, "managed-mcp.json has no \"mcpServers\" object")
}

test_p003_managed_mcp_fine if {
	none(context({"managed_mcp": mcp_file(true, true, "")}), "MCPG-P003")
	none(context({"managed_mcp": null}), "MCPG-P003")
}

issue(kind, list_key, effect) := {
	"path": "/x.json", "pointer": "/allowedMcpServers", "line": 2, "column": 3,
	"list": list_key, "message": "allowedMcpServers[0] is dropped: allow serverName \"b.c\" must match ^[a-zA-Z0-9_-]+$",
	"effect": effect, "kind": kind,
}

test_p003_list_issue_fail_closed if {
	f := one(context({"issues": [issue("managed-settings", "allowedMcpServers", "fail-closed")]}), "MCPG-P003")
	f.evidence == {"effect": "fail-closed", "list": "allowedMcpServers"}
	startswith(f.msg, "allowedMcpServers in a managed settings file is silently repaired by Claude Code and fails closed (more is blocked than intended): allowedMcpServers[0] is dropped")
	f.location == {"path": "/x.json", "pointer": "/allowedMcpServers", "line": 2, "column": 3}
}

test_p003_list_issue_fail_open if {
	f := one(context({"issues": [issue("managed-drop-in", "deniedMcpServers", "fail-open")]}), "MCPG-P003")
	f.evidence == {"effect": "fail-open", "list": "deniedMcpServers"}
	contains(f.msg, "fails open (less is blocked than intended)")
}

test_p003_list_issue_policy_file if {
	one(context({"issues": [issue("policy-file", "deniedMcpServers", "fail-open")]}), "MCPG-P003")
}

test_c006_list_issue_in_user_files if {
	every kind in ["user-settings", "project-settings", "local-settings"] {
		c := context({"issues": [issue(kind, "deniedMcpServers", "fail-open")]})
		none(c, "MCPG-P003")
		f := one(c, "MCPG-C006")
		f.evidence == {"effect": "fail-open", "list": "deniedMcpServers"}
		startswith(f.msg, "deniedMcpServers: allowedMcpServers[0] is dropped")
	}
}

test_p003_never_matching_allow_url if {
	e := url_e("*.acme.example", 4)
	f := one(context({"allow": list([e]), "allow_org": list([e])}), "MCPG-P003")
	f.msg == sprintf("serverUrl \"*.acme.example\" in %s can never match (it does not parse as a URL with a scheme); it admits nothing (fail-closed)", [managed_path])
	f.evidence == {"effect": "fail-closed", "list": "allow"}
	f.location == {"path": managed_path, "pointer": "/allowedMcpServers/0", "line": 4, "column": 5}
}

test_p003_never_matching_deny_url if {
	e := url_e("evil.test/*", 4)
	f := one(context({"deny": list([e]), "deny_org": list([e])}), "MCPG-P003")
	endswith(f.msg, "it denies nothing (fail-open)")
	f.evidence == {"effect": "fail-open", "list": "deny"}
}

test_p003_never_matching_in_org_list_only if {
	e := url_e("*.evil.test", 4)
	one(context({"deny_org": list([e])}), "MCPG-P003")
}

test_p003_matching_urls_are_fine if {
	c := context({
		"allow": list([url_e("https://mcp.acme.example/mcp", 1), url_e("*", 2), name_e("x", 3)]),
		"deny": list([url_e("*", 4), url_e("https://evil.test/*", 5)]),
	})
	none(c, "MCPG-P003")
}

test_p003_unsafe_allow_url if {
	e := object.union(url_e("https://${HOST}/*", 6), {"url": "https://evil.test/x?/*", "unsafe": true, "unsafe_reason": "HOST adds a query"})
	f := one(context({"allow": list([e])}), "MCPG-P003")
	f.msg == "allow serverUrl \"https://${HOST}/*\" is skipped by Claude Code: the values of its variables change the URL's structure (HOST adds a query); it admits nothing"
	f.evidence == {"effect": "fail-closed"}
}

# ---------------------------------------------------------------- MCPG-P005

test_p005_weak_pattern if {
	# the real mcpguard.url_weaknesses builtin
	e := url_e("https://*.acme.example/*", 2)
	fs := of_rule(context({"allow": list([e])}), "MCPG-P005")
	kinds := {f.evidence.kind | some f in fs}
	kinds["host-wildcard-any-port"]
	some f in fs
	f.evidence.kind == "host-wildcard-any-port"
	f.evidence.example == "https://x.acme.example:9000/x"
	startswith(f.msg, "allow serverUrl \"https://*.acme.example/*\" is broader than it looks: a wildcard host without a port admits every port")
	endswith(f.msg, " (it admits https://x.acme.example:9000/x)")
	f.location.line == 2
}

test_p005_glued_wildcard if {
	e := url_e("https://mcp.acme.example*", 2)
	kinds := {f.evidence.kind | some f in of_rule(context({"allow": list([e])}), "MCPG-P005")}
	kinds["glued-wildcard"]
	kinds["no-path"]
}

test_p005_allow_all if {
	f := one(context({"allow": list([url_e("*", 2)])}), "MCPG-P005")
	f.evidence.kind == "allow-all"
}

test_p005_safe_pattern if {
	none(context({"allow": list([url_e("https://mcp.acme.example/mcp/*", 2)])}), "MCPG-P005")
}

test_p005_not_for_deny_entries if {
	none(context({"deny": list([url_e("https://*.evil.test/*", 2)])}), "MCPG-P005")
}

test_p005_not_for_unparseable if {
	# reported as P003 instead
	none(context({"allow": list([url_e("*.acme.example", 2)])}), "MCPG-P005")
}

test_p005_once_for_allow_and_allow_org if {
	e := url_e("*", 2)
	count(of_rule(context({"allow": list([e]), "allow_org": list([e])}), "MCPG-P005")) == 1
}

# ---------------------------------------------------------------- MCPG-P006

counts(n, c, u) := {"serverName": n, "serverCommand": c, "serverUrl": u}

doc(kind, managed, allow_defined, allow_counts) := {
	"path": doc_path[kind], "kind": kind, "managed": managed,
	"allow_defined": allow_defined, "allow_counts": allow_counts,
	"allow_source": {"path": doc_path[kind], "pointer": "/allowedMcpServers", "line": 2, "column": 3},
	"deny_defined": false, "deny_counts": counts(0, 0, 0),
}

doc_path := {
	"managed-settings": managed_path, "managed-drop-in": "/etc/claude-code/managed-settings.d/10.json",
	"policy-file": "/org/policy.json", "user-settings": "/home/dev/.claude/settings.json",
	"project-settings": project_path, "local-settings": "/p/.claude/settings.local.json",
}

managed_empty := doc("managed-settings", true, true, counts(0, 0, 0))

managed_names := doc("managed-settings", true, true, counts(2, 0, 0))

managed_only_on := {"on": true, "source": {"path": managed_path, "pointer": "/allowManagedMcpServersOnly", "line": 4, "column": 3}}

p006_kinds(c) := {f.evidence.kind | some f in of_rule(c, "MCPG-P006")}

test_p006_repository_widens_managed_list if {
	# §7.6: managed [], .claude/settings.json [{serverName:"x"}]
	c := context({"documents": [managed_empty, doc("project-settings", false, true, counts(1, 0, 0))]})
	f := one(c, "MCPG-P006")
	f.evidence == {"kind": "project-settings"}
	startswith(f.msg, "allowedMcpServers in this repository settings file widens the organisation's allowlist")
	f.location == {"path": project_path, "pointer": "/allowedMcpServers", "line": 2, "column": 3}
}

test_p006_user_and_local_widen if {
	c := context({"documents": [managed_empty, doc("user-settings", false, true, counts(0, 0, 1)), doc("local-settings", false, true, counts(0, 0, 1))]})
	p006_kinds(c) == {"user-settings", "local-settings"}
}

test_p006_policy_file_counts_as_managed if {
	c := context({"documents": [doc("policy-file", true, true, counts(1, 0, 0)), doc("user-settings", false, true, counts(1, 0, 0))]})
	p006_kinds(c) == {"user-settings"}
}

test_p006_no_widening_with_managed_only if {
	c := context({"managed_only": managed_only_on, "documents": [managed_empty, doc("project-settings", false, true, counts(1, 0, 0))]})
	none(c, "MCPG-P006")
}

test_p006_no_widening_without_managed_list if {
	c := context({"documents": [doc("managed-settings", true, false, counts(0, 0, 0)), doc("project-settings", false, true, counts(1, 0, 0))]})
	none(c, "MCPG-P006")
}

test_p006_no_widening_by_empty_or_absent_lists if {
	c := context({"documents": [
		managed_empty,
		doc("project-settings", false, true, counts(0, 0, 0)),
		doc("user-settings", false, false, counts(0, 0, 0)),
	]})
	none(c, "MCPG-P006")
}

test_p006_managed_only_without_allowlist if {
	c := context({"managed_only": managed_only_on, "documents": [doc("managed-settings", true, false, counts(0, 0, 0)), doc("user-settings", false, true, counts(0, 0, 0))]})
	f := one(c, "MCPG-P006")
	f.evidence == {"kind": "managed-only-without-allowlist"}
	f.location == {"path": managed_path, "pointer": "/allowManagedMcpServersOnly", "line": 4, "column": 3}
	startswith(f.msg, "allowManagedMcpServersOnly is on but no managed settings define allowedMcpServers")
}

test_p006_managed_only_with_allowlist if {
	c := context({"managed_only": managed_only_on, "documents": [managed_names]})
	none(c, "MCPG-P006")
}

test_p006_repository_command_entry_disables_names if {
	c := context({"documents": [managed_names, doc("project-settings", false, true, counts(0, 1, 0))]})
	p006_kinds(c) == {"project-settings", "command-entry-disables-names"}
	some f in of_rule(c, "MCPG-P006")
	f.evidence.kind == "command-entry-disables-names"
	f.location.path == project_path
	startswith(f.msg, "a serverCommand entry in this repository file makes Claude Code ignore every serverName allow entry")
}

test_p006_local_command_entry_disables_names if {
	c := context({"documents": [managed_names, doc("local-settings", false, true, counts(0, 1, 0))]})
	p006_kinds(c)["command-entry-disables-names"]
}

test_p006_command_entry_negatives if {
	# allowManagedMcpServersOnly: repository lists do not count
	none(context({"managed_only": managed_only_on, "documents": [managed_names, doc("project-settings", false, true, counts(0, 1, 0))]}), "MCPG-P006")

	# no managed name entries to disable
	not p006_kinds(context({"documents": [managed_empty, doc("project-settings", false, true, counts(0, 1, 0))]}))["command-entry-disables-names"]

	# the organisation's own list already has a serverCommand entry
	with_cmd := doc("managed-settings", true, true, counts(2, 1, 0))
	not p006_kinds(context({"documents": [with_cmd, doc("project-settings", false, true, counts(0, 1, 0))]}))["command-entry-disables-names"]
	user_cmd := doc("user-settings", false, true, counts(0, 1, 0))
	not p006_kinds(context({"documents": [managed_names, user_cmd, doc("project-settings", false, true, counts(0, 1, 0))]}))["command-entry-disables-names"]

	# a user's command entry is not a repository's
	not p006_kinds(context({"documents": [managed_names, user_cmd]}))["command-entry-disables-names"]
}

plugins_doc(kind, plugins) := object.union(doc(kind, false, false, counts(0, 0, 0)), {
	"enabled_plugins": plugins,
	"enabled_plugins_source": {"path": doc_path[kind], "pointer": "/enabledPlugins", "line": 5, "column": 3},
})

test_p006_repository_enables_plugins if {
	c := context({"documents": [plugins_doc("project-settings", {"db@acme": true, "off@acme": false, "str@acme": "true", "a@b": true})]})
	f := one(c, "MCPG-P006")
	f.evidence == {"kind": "repository-enables-plugins", "plugins": ["a@b", "db@acme"]}
	f.location.pointer == "/enabledPlugins"
	contains(f.msg, "enables plugins (a@b, db@acme)")
}

test_p006_plugins_negatives if {
	none(context({"documents": [plugins_doc("project-settings", {"off@acme": false})]}), "MCPG-P006")
	none(context({"documents": [plugins_doc("project-settings", {})]}), "MCPG-P006")
	none(context({"documents": [plugins_doc("user-settings", {"db@acme": true})]}), "MCPG-P006")
	none(context({"documents": [plugins_doc("local-settings", {"db@acme": true})]}), "MCPG-P006")
}

test_p006_plugins_regardless_of_managed_only if {
	# allowManagedMcpServersOnly governs allowlists, not plugins
	c := context({"managed_only": managed_only_on, "documents": [managed_names, plugins_doc("project-settings", {"db@acme": true})]})
	p006_kinds(c) == {"repository-enables-plugins"}
}

# ---------------------------------------------------------------- robustness

test_no_conflict_on_duplicates if {
	e := url_e("*.acme.example", 4)
	c := context({
		"allow": list([e, e, url_e("*", 5), url_e("*", 5)]), "allow_org": list([e]),
		"deny": list([e, e]), "deny_org": list([e]),
		"issues": [issue("managed-settings", "allowedMcpServers", "fail-closed"), issue("managed-settings", "allowedMcpServers", "fail-closed")],
		"documents": [managed_names, managed_names, doc("project-settings", false, true, counts(1, 1, 0)), doc("project-settings", false, true, counts(1, 1, 0))],
	})
	count(of_rule(c, "MCPG-P003")) == 3
	count(of_rule(c, "MCPG-P006")) == 2
}
