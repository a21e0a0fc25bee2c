package mcpguard.claude_test

import data.mcpguard.claude

# Fixtures: docs/claude-code.md §7.6, one test per row.

stdio_server(name, argv) := {
	"name": name, "transport": "stdio", "command": argv[0], "args": array.slice(argv, 1, count(argv)),
	"claude": {"label": "user", "argv": argv, "argv_keys": [json.marshal(argv)], "url": "", "urls": [""], "has_var": false},
}

http_server(name, url) := {
	"name": name, "transport": "http", "command": "", "args": [], "url": url,
	"claude": {"label": "user", "argv": [""], "argv_keys": ["[\"\"]"], "url": url, "urls": [url], "has_var": false},
}

# index builds the indexed form of a policy list, as the scanner does.
index(entries) := null if entries == null

else := {
	"count": count(entries),
	"names": {n: [e | some e in entries; e.key == "serverName"; e.name == n] | some e0 in entries; e0.key == "serverName"; n := e0.name},
	"commands": {k: [e | some e in entries; e.key == "serverCommand"; json.marshal(e.command) == k] |
		some e0 in entries
		e0.key == "serverCommand"
		k := json.marshal(e0.command)
	},
	"urls": [e | some e in entries; e.key == "serverUrl"],
	"has_command": count([e | some e in entries; e.key == "serverCommand"]) > 0,
	"has_url": count([e | some e in entries; e.key == "serverUrl"]) > 0,
	"entries": entries,
}

org_server(s, has_var) := object.union(s, {"claude": object.union(s.claude, {"label": "enterprise", "has_var": has_var})})

name_e(n) := {"key": "serverName", "name": n}

cmd_e(c) := {"key": "serverCommand", "command": c}

url_e(u) := {"key": "serverUrl", "url": u, "unsafe": false}

ctx(allow, deny) := {"claude": {"allow": index(allow), "deny": index(deny), "allow_org": index(allow), "deny_org": index(deny)}}

ctx4(allow, deny, allow_org, deny_org) := {"claude": {"allow": index(allow), "deny": index(deny), "allow_org": index(allow_org), "deny_org": index(deny_org)}}

verdict_of(s, c) := v if {
	v := claude.verdict with input as {"server": s, "context": c}
}

test_no_lists_allows_anything if {
	verdict_of(stdio_server("fs", ["npx", "-y", "@acme/fs"]), ctx(null, [])) == {"allowed": true, "reasons": ["ALLOWED"]}
}

test_empty_allowlist_blocks if {
	verdict_of(stdio_server("fs", ["npx", "-y", "@acme/fs"]), ctx([], [])).reasons == ["EMPTY_ALLOWLIST"]
}

test_name_only_admits_stdio if {
	verdict_of(stdio_server("docs", ["python", "srv.py"]), ctx([name_e("docs")], [])).allowed
}

test_name_ignored_for_stdio_when_command_entries_exist if {
	v := verdict_of(stdio_server("docs", ["python", "srv.py"]), ctx([name_e("docs"), cmd_e(["uvx", "acme-tools"])], []))
	v == {"allowed": false, "reasons": ["NOT_ALLOWLISTED"]}
}

test_name_counts_for_remote_without_url_entries if {
	verdict_of(http_server("docs", "https://docs.acme.example/mcp"), ctx([name_e("docs"), cmd_e(["uvx", "acme-tools"])], [])).allowed
}

test_command_entry_admits_any_name if {
	verdict_of(stdio_server("anything", ["uvx", "acme-tools"]), ctx([name_e("docs"), cmd_e(["uvx", "acme-tools"])], [])).allowed
}

test_name_counts_for_stdio_without_command_entries if {
	s := stdio_server("tool", ["bash", "-c", "curl x | sh"])
	verdict_of(s, ctx([url_e("https://*.acme.example/*"), name_e("tool")], [])).allowed
}

test_url_only_list_blocks_stdio if {
	verdict_of(stdio_server("any", ["node", "s.js"]), ctx([url_e("https://mcp.acme.example/*")], [])).reasons == ["NOT_ALLOWLISTED"]
}

test_deny_name_beats_allow if {
	verdict_of(stdio_server("tool", ["x"]), ctx([name_e("tool")], [name_e("tool")])) == {"allowed": false, "reasons": ["DENIED_NAME"]}
}

test_deny_url_beats_allow if {
	s := http_server("s", "https://staging.acme.example/mcp")
	verdict_of(s, ctx([url_e("https://*.acme.example/*")], [url_e("https://staging.acme.example/*")])).reasons == ["DENIED_URL"]
}

test_every_deny_reason_in_order if {
	s := stdio_server("tool", ["x"])
	verdict_of(s, ctx(null, [cmd_e(["x"]), name_e("tool")])).reasons == ["DENIED_NAME", "DENIED_COMMAND"]
}

test_deny_command_never_matches_remote if {
	verdict_of(http_server("h", "https://h.example/"), ctx(null, [cmd_e([""])])).allowed
}

test_org_server_exempt_from_empty_allowlist if {
	verdict_of(org_server(stdio_server("corp", ["/opt/corp/mcp", "--serve"]), false), ctx([], [])).allowed
}

test_org_server_with_var_needs_allowlist if {
	verdict_of(org_server(http_server("corp", "https://corp.example/mcp"), true), ctx([], [])).reasons == ["EMPTY_ALLOWLIST"]
}

test_org_server_with_var_and_no_org_allowlist if {
	# Only .claude/settings.json defines an allowlist: A_org is undefined.
	c := ctx4([name_e("zzz")], [], null, [])
	verdict_of(org_server(stdio_server("corp", ["corp-bin", "x"]), true), c).allowed
}

test_repository_deny_ignored_for_org if {
	c := ctx4(null, [name_e("corp")], null, [])
	verdict_of(org_server(stdio_server("corp", ["corp"]), false), c).allowed
}

test_user_deny_applies_to_org if {
	c := ctx4(null, [name_e("corp")], null, [name_e("corp")])
	verdict_of(org_server(stdio_server("corp", ["corp"]), false), c).reasons == ["DENIED_NAME"]
}

test_builtin_skips_allowlist_not_denylist if {
	ide := object.union(http_server("ide", "ws://127.0.0.1:1"), {"transport": "ws", "claude": {"label": "dynamic", "builtin": true, "argv": [""], "argv_keys": ["[\"\"]"], "url": "ws://127.0.0.1:1", "urls": ["ws://127.0.0.1:1"], "has_var": false}})
	verdict_of(ide, ctx([], [])).allowed
	verdict_of(ide, ctx([], [name_e("ide")])).reasons == ["DENIED_NAME"]
}

test_unsafe_url_entry_admits_nothing_but_counts if {
	s := http_server("h", "https://evil.test/x")
	unsafe := {"key": "serverUrl", "url": "https://evil.test/*", "unsafe": true}
	verdict_of(s, ctx([unsafe, name_e("h")], [])).reasons == ["NOT_ALLOWLISTED"]
}

# §7.6 rows and §7.2 notes not covered above.

remote_server(name, transport, url) := object.union(http_server(name, url), {"transport": transport})

test_command_entry_ignores_env if {
	# §7.6: allowed by command, env never compared (P007)
	s := object.union(stdio_server("srv", ["npx", "-y", "pkg@1.2.3"]), {"env_keys": ["NODE_OPTIONS"]})
	verdict_of(s, ctx([cmd_e(["npx", "-y", "pkg@1.2.3"])], [])).allowed
}

test_org_var_only_in_env_keeps_exemption if {
	# §7.6: ${CORP_TOKEN} only in env; has_var counts command, args, url and headers only
	s := object.union(org_server(stdio_server("corp", ["/opt/corp/mcp"]), false), {"facts": {"env_var_keys": ["CORP_TOKEN"]}})
	verdict_of(s, ctx([], [])).allowed
	claude.admission == "exempt-org" with input as {"server": s, "context": ctx([], [])}
}

test_org_var_admitted_by_repository_command_entry if {
	# §7.6: managed [zzz] + .claude/settings.json [corp-bin x], CORP_BIN=corp-bin: step 3
	c := ctx4([name_e("zzz"), cmd_e(["corp-bin", "x"])], [], [name_e("zzz")], [])
	s := org_server(stdio_server("corp", ["corp-bin", "x"]), true)
	verdict_of(s, c).allowed
	claude.admission == "allowlist" with input as {"server": s, "context": c}
}

test_org_var_user_allowlist_keeps_out if {
	# 0702-13: A_org holds the user's list
	c := ctx4([name_e("zzz")], [], [name_e("zzz")], [])
	verdict_of(org_server(stdio_server("corp", ["corp-bin", "x"]), true), c) == {"allowed": false, "reasons": ["NOT_ALLOWLISTED"]}
}

test_org_var_admitted_by_org_list_only if {
	# step 4: a repository serverCommand entry makes A judge by command; A_org still admits by name
	c := ctx4([name_e("corp"), cmd_e(["other"])], [], [name_e("corp")], [])
	s := org_server(stdio_server("corp", ["corp-bin"]), true)
	verdict_of(s, c).allowed
	claude.admission == "allowlist-org" with input as {"server": s, "context": c}
}

test_managed_mcp_servers_are_org if {
	# managedMcpServers entries (label "managed") are exempt, and take deny_org
	s := object.union(http_server("search", "https://search.acme.example/mcp"), {"claude": {"label": "managed"}})
	verdict_of(s, ctx([], [])).allowed
	verdict_of(s, ctx4([], [name_e("search")], [], [])).allowed
	verdict_of(s, ctx4([], [name_e("search")], [], [name_e("search")])).reasons == ["DENIED_NAME"]
}

test_org_deny_command if {
	# 0702-09: deny entries apply to org servers
	c := ctx([], [cmd_e(["/opt/corp/mcp", "--serve"])])
	verdict_of(org_server(stdio_server("corp", ["/opt/corp/mcp", "--serve"]), false), c).reasons == ["DENIED_COMMAND"]
}

test_lone_star_allow_url_admits_every_remote_never_stdio if {
	# 0702-03, with the real matcher
	c := ctx([url_e("*")], [])
	verdict_of(remote_server("h", "http", "https://h.invalid/"), c).allowed
	verdict_of(remote_server("e", "sse", "https://e.invalid/"), c).allowed
	verdict_of(remote_server("w", "ws", "ws://w.invalid/"), c).allowed
	verdict_of(stdio_server("s", ["true"]), c).reasons == ["NOT_ALLOWLISTED"]
}

test_lone_star_deny_url_blocks_remote_only if {
	# 0702-04
	c := ctx(null, [url_e("*")])
	verdict_of(remote_server("h", "http", "https://h.invalid/"), c).reasons == ["DENIED_URL"]
	verdict_of(stdio_server("s", ["true"]), c).allowed
}

test_deny_url_never_matches_stdio if {
	verdict_of(stdio_server("s", ["x"]), ctx(null, [url_e("*")])).allowed
}

test_deny_name_and_url_in_order if {
	s := remote_server("h", "sse", "https://h.invalid/sse")
	verdict_of(s, ctx(null, [url_e("https://h.invalid/*"), name_e("h")])).reasons == ["DENIED_NAME", "DENIED_URL"]
}

test_allow_url_matching if {
	c := ctx([url_e("https://*.acme.example/*")], [])
	verdict_of(http_server("a", "https://mcp.acme.example/x"), c).allowed
	verdict_of(http_server("b", "https://acme.example.evil.test/x"), c).reasons == ["NOT_ALLOWLISTED"]
}

test_second_argv_form_denied if {
	# 0301-11/12: a deny entry matching the text expanded once more blocks
	s := object.union(stdio_server("s", ["srv", "${B}"]), {"claude": {"argv_keys": [json.marshal(["srv", "${B}"]), json.marshal(["srv", "inner"])]}})
	verdict_of(s, ctx(null, [cmd_e(["srv", "inner"])])).reasons == ["DENIED_COMMAND"]
}

test_second_argv_form_never_allowed if {
	# 0301-11: no allow entry admits such a server
	s := object.union(stdio_server("s", ["srv", "${B}"]), {"claude": {"argv_keys": [json.marshal(["srv", "${B}"]), json.marshal(["srv", "inner"])]}})
	verdict_of(s, ctx([cmd_e(["srv", "inner"]), cmd_e(["srv", "${B}"])], [])).reasons == ["NOT_ALLOWLISTED"]
}

test_second_url_form_must_match_too if {
	s := object.union(http_server("h", "https://h.invalid/${B}"), {"claude": {"urls": ["https://h.invalid/${B}", "https://evil.test/"]}})
	verdict_of(s, ctx([url_e("https://h.invalid/*")], [])).reasons == ["NOT_ALLOWLISTED"]
	verdict_of(s, ctx(null, [url_e("https://evil.test/*")])).reasons == ["DENIED_URL"]
}

test_admission_values if {
	in_no := {"server": stdio_server("a", ["x"]), "context": ctx(null, [])}
	claude.admission == "no-allowlist" with input as in_no
	in_list := {"server": stdio_server("a", ["x"]), "context": ctx([name_e("a")], [])}
	claude.admission == "allowlist" with input as in_list
	in_denied := {"server": stdio_server("a", ["x"]), "context": ctx(null, [name_e("a")])}
	not claude.admission with input as in_denied
	in_blocked := {"server": stdio_server("a", ["x"]), "context": ctx([], [])}
	not claude.admission with input as in_blocked
}

test_no_conflict_on_duplicate_entries if {
	s := stdio_server("tool", ["x"])
	c := ctx([name_e("tool"), name_e("tool"), cmd_e(["x"]), cmd_e(["x"])], [name_e("other"), name_e("other")])
	verdict_of(s, c) == {"allowed": true, "reasons": ["ALLOWED"]}
}
