# METADATA
# title: Claude Code's allow/deny verdict
# description: |
#   The algorithm of docs/claude-code.md §7.2 as Claude Code 2.1.329 applies it:
#   deny first (name exact, command array exact, URL pattern), the organisation
#   exemption, then the allowlist with the per-transport rule. mcpguard applies
#   the same verdict to every other client's servers.
package mcpguard.claude

# The lists (input.context.claude) arrive indexed for O(1) lookups: null for
# an undefined allowlist, or {count, names: {name: [entry]}, commands:
# {argv_key: [entry]}, urls: [entry], has_command, has_url, entries}. An argv
# key is the JSON text of the argv. Rules read input directly, not through
# alias rules, which cost every server an evaluation step per use.

stdio if input.server.transport == "stdio"

# One body with a set lookup: a body per transport was three tries of every
# server's input (17 evaluation steps, against 5).
remote if input.server.transport in {"http", "sse", "ws"}

# An organisation server: managed-mcp.json ("enterprise") or managedMcpServers
# ("managed"). Deny entries from project and local settings never apply to it.
org if input.server.claude.label in {"enterprise", "managed"}

deny := input.context.claude.deny_org if org

else := input.context.claude.deny

# A server's command line and URL can take two forms (the single-pass
# expansion, and that text expanded again when it still holds a reference):
# a deny entry blocks when it matches any form, an allow entry admits only when
# it matches every form.
deny_matches contains [e, "DENIED_NAME"] if some e in deny.names[input.server.name]

# has_command first: a server's argv keys are made only when read
# (scanner's claudeInput), and most lists have no serverCommand entry.
deny_matches contains [e, "DENIED_COMMAND"] if {
	stdio
	deny.has_command
	some k in input.server.claude.argv_keys
	some e in deny.commands[k]
}

deny_matches contains [e, "DENIED_URL"] if {
	remote
	some e in deny.urls
	some u in input.server.claude.urls
	mcpguard.url_match(e.url, u)
}

# A set, computed once: a partial rule would be evaluated again for each
# reason looked up below.
denied_by := {r | some [_, r] in deny_matches}

# denied: some deny entry matches. Rules ask it rather than counting the
# reasons: a rule is evaluated once per server and then remembered, where
# each count and comparison was two built-in calls.
denied if count(deny_matches) > 0

# Every matching deny reason, in the order name, command, URL. Most servers
# match no deny entry, and then the reasons are not looked up one by one.
deny_reasons := [] if {
	not denied
} else := [r |
	some r in ["DENIED_NAME", "DENIED_COMMAND", "DENIED_URL"]
	denied_by[r]
]

# The kind of entry that judges this server under allowlist `list`: the
# per-transport rule ignores name entries for a stdio server as soon as the list
# has a serverCommand entry, and for a remote server as soon as it has a
# serverUrl entry (unsafe ones count, §3.4).
judging_key(list) := "serverCommand" if {
	stdio
	list.has_command
} else := "serverUrl" if {
	remote
	list.has_url
} else := "serverName"

# The judging key is computed once: a body per key that each called
# judging_key was three evaluations of it for every server.
admitted(list) if admitted_by(judging_key(list), list)

admitted_by("serverName", list) if list.names[input.server.name]

admitted_by("serverCommand", list) if {
	[k] := input.server.claude.argv_keys
	list.commands[k]
}

admitted_by("serverUrl", list) if {
	some e in list.urls
	not e.unsafe
	every u in input.server.claude.urls {
		mcpguard.url_match(e.url, u)
	}
}

# allow_check(list) is §7.2 allowCheck: "ALLOWED", "EMPTY_ALLOWLIST" or
# "NOT_ALLOWLISTED". A null list is an undefined allowlist: no restriction.
allow_check(list) := "ALLOWED" if {
	list == null
} else := "EMPTY_ALLOWLIST" if {
	list.count == 0
} else := "ALLOWED" if {
	admitted(list)
} else := "NOT_ALLOWLISTED"

allowed := {"allowed": true, "reasons": ["ALLOWED"]}

# How an allowed server passed, for the weakness rules: "exempt-org",
# "exempt-builtin", "no-allowlist", "allowlist" or "allowlist-org".
admission := pass if not denied

pass := "exempt-builtin" if {
	input.server.claude.builtin
} else := "exempt-org" if {
	org
	not input.server.claude.has_var
} else := "no-allowlist" if {
	input.context.claude.allow == null
} else := "allowlist" if {
	allow_check(input.context.claude.allow) == "ALLOWED"
} else := "allowlist-org" if {
	org
	allow_check(input.context.claude.allow_org) == "ALLOWED"
}

verdict := {"allowed": false, "reasons": deny_reasons} if {
	denied
} else := allowed if {
	pass
} else := {"allowed": false, "reasons": [allow_check(input.context.claude.allow)]}
