# METADATA
# title: Claude Code's allow/deny verdict
# description: |
#   The algorithm of docs/claude-code.md §7.2 as Claude Code 2.1.329 applies it:
#   deny first (name exact, command array exact, URL pattern), the organisation
#   exemption, then the allowlist with the per-transport rule. mcpguard applies
#   the same verdict to every other client's servers.
package mcpguard.claude

server := input.server

lists := input.context.claude

stdio if server.transport == "stdio"

remote if server.transport in {"http", "sse", "ws"}

# An organisation server: managed-mcp.json ("enterprise") or managedMcpServers
# ("managed"). Deny entries from project and local settings never apply to it.
org if server.claude.label in {"enterprise", "managed"}

deny_list := lists.deny_org if org

else := lists.deny

# The deny entries that match, each with the reason it gives.
deny_matches contains [e, "DENIED_NAME"] if {
	some e in deny_list
	e.key == "serverName"
	e.name == server.name
}

# A server's command line and URL can take two forms (the single-pass
# expansion, and that text expanded again when it still holds a reference):
# a deny entry blocks when it matches any form.
argvs := object.get(server.claude, "argvs", [server.claude.argv])

urls := object.get(server.claude, "urls", [server.claude.url])

deny_matches contains [e, "DENIED_COMMAND"] if {
	stdio
	some e in deny_list
	e.key == "serverCommand"
	some argv in argvs
	e.command == argv
}

deny_matches contains [e, "DENIED_URL"] if {
	remote
	some e in deny_list
	e.key == "serverUrl"
	some u in urls
	mcpguard.url_match(e.url, u)
}

denied_by contains r if some [_, r] in deny_matches

# Every matching deny reason, in the order name, command, URL.
deny_reasons := [r |
	some r in ["DENIED_NAME", "DENIED_COMMAND", "DENIED_URL"]
	denied_by[r]
]

has_key(list, k) if {
	some e in list
	e.key == k
}

# The kind of entry that judges this server under allowlist `list`: the
# per-transport rule ignores name entries for a stdio server as soon as the list
# has a serverCommand entry, and for a remote server as soon as it has a
# serverUrl entry (unsafe ones count, §3.4).
judging_key(list) := "serverCommand" if {
	stdio
	has_key(list, "serverCommand")
} else := "serverUrl" if {
	remote
	has_key(list, "serverUrl")
} else := "serverName"

admits(e) if {
	e.key == "serverName"
	e.name == server.name
}

# An allow entry admits only when it matches every form.
admits(e) if {
	e.key == "serverCommand"
	every argv in argvs {
		e.command == argv
	}
}

admits(e) if {
	e.key == "serverUrl"
	not e.unsafe
	every u in urls {
		mcpguard.url_match(e.url, u)
	}
}

# allow_check(list) is §7.2 allowCheck: "ALLOWED", "EMPTY_ALLOWLIST" or
# "NOT_ALLOWLISTED". A null list is an undefined allowlist: no restriction.
allow_check(list) := "ALLOWED" if {
	list == null
} else := "EMPTY_ALLOWLIST" if {
	count(list) == 0
} else := "ALLOWED" if {
	k := judging_key(list)
	some e in list
	e.key == k
	admits(e)
} else := "NOT_ALLOWLISTED"

allowed := {"allowed": true, "reasons": ["ALLOWED"]}

# How an allowed server passed, for the weakness rules: "exempt-org",
# "exempt-builtin", "no-allowlist", "allowlist" or "allowlist-org".
admission := pass if count(deny_reasons) == 0

pass := "exempt-builtin" if {
	server.claude.builtin
} else := "exempt-org" if {
	org
	not server.claude.has_var
} else := "no-allowlist" if {
	lists.allow == null
} else := "allowlist" if {
	allow_check(lists.allow) == "ALLOWED"
} else := "allowlist-org" if {
	org
	allow_check(lists.allow_org) == "ALLOWED"
}

verdict := {"allowed": false, "reasons": deny_reasons} if {
	count(deny_reasons) > 0
} else := allowed if {
	pass
} else := {"allowed": false, "reasons": [allow_check(lists.allow)]}
