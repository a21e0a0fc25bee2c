# METADATA
# title: Weaknesses of the policy itself
# description: |
#   Context rules (input.context only): managed files that fail open, fail
#   closed or stop Claude Code (P003), URL patterns broader than they look
#   (P005), allowlists a non-managed file can widen (P006).
package mcpguard.weakness

loc(src) := {"path": src.path, "pointer": object.get(src, "pointer", ""), "line": src.line, "column": src.column}

# MCPG-P003: a managed settings document that is not a JSON object stops every
# claude command.
findings contains {
	"rule": "MCPG-P003",
	"msg": sprintf("managed settings document is not a JSON object (%s): every claude command exits 1 until it is fixed or removed, and developers may delete it to get working; mcpguard computes the statuses without it", [b.message]),
	"location": loc(b),
	"evidence": {"effect": "fatal"},
} if some b in input.context.claude.broken

# managed-mcp.json keeps exclusive control whenever it exists.
findings contains {
	"rule": "MCPG-P003",
	"msg": msg,
	"location": {"path": f.path, "pointer": "", "line": f.line, "column": f.column},
	"evidence": {"effect": "fail-closed", "older_clients": "fail-open"},
} if {
	f := input.context.claude.managed_mcp
	f != null
	msg := managed_mcp_problem(f)
}

managed_mcp_problem(f) := sprintf("managed-mcp.json cannot be used (%s), yet it keeps exclusive control while it exists: no organisation server from it loads and every user, local and project server is suppressed (silent lockdown); clients older than 2.1.154 treat it as absent and load everything (fail-open)", [f.error]) if {
	not f.parsed
} else := "managed-mcp.json has no \"mcpServers\" object: Claude Code 2.1.329 still gives it exclusive control with zero servers, while older clients treated such a file as absent (fail-open)" if {
	not f.servers_object
}

# A policy list Claude Code silently repairs: a non-array allow list becomes []
# (fail closed), a non-array deny list is dropped (fail open), invalid entries
# are dropped one by one.
findings contains {
	"rule": "MCPG-P003",
	"msg": sprintf("%s in a managed settings file is silently repaired by Claude Code and %s: %s", [i.list, effect_text[i.effect], i.message]),
	"location": loc(i),
	"evidence": {"effect": i.effect, "list": i.list},
} if {
	some i in input.context.claude.issues
	i.kind in managed_kinds
}

managed_kinds := {"managed-settings", "managed-drop-in", "policy-file"}

effect_text := {"fail-open": "fails open (less is blocked than intended)", "fail-closed": "fails closed (more is blocked than intended)"}

# Policy-list problems in user, project and local settings: the user's own
# lists, reported as inert entries.
findings contains {
	"rule": "MCPG-C006",
	"msg": sprintf("%s: %s", [i.list, i.message]),
	"location": loc(i),
	"evidence": {"effect": i.effect, "list": i.list},
} if {
	some i in input.context.claude.issues
	not i.kind in managed_kinds
}

all_entries contains [e, "allow"] if some e in input.context.claude.allow.entries

all_entries contains [e, "allow"] if some e in input.context.claude.allow_org.entries

all_entries contains [e, "deny"] if some e in input.context.claude.deny.entries

all_entries contains [e, "deny"] if some e in input.context.claude.deny_org.entries

# A serverUrl pattern that can never match: a deny entry that does nothing, an
# allow entry that admits nothing.
findings contains {
	"rule": "MCPG-P003",
	"msg": sprintf("serverUrl %q in %s can never match (it does not parse as a URL with a scheme); it %s", [e.raw, e.source.path, never_effect[list]]),
	"location": loc(e.source),
	"evidence": {"effect": never_kind[list], "list": list},
} if {
	some [e, list] in all_entries
	e.key == "serverUrl"
	e.raw != "*"
	mcpguard.url_never_matches(e.url)
}

never_effect := {"deny": "denies nothing (fail-open)", "allow": "admits nothing (fail-closed)"}

never_kind := {"deny": "fail-open", "allow": "fail-closed"}

# An allow serverUrl entry whose ${VAR} values would change the URL's structure
# is skipped with only a log warning (§3.4).
findings contains {
	"rule": "MCPG-P003",
	"msg": sprintf("allow serverUrl %q is skipped by Claude Code: the values of its variables change the URL's structure (%s); it admits nothing", [e.raw, e.unsafe_reason]),
	"location": loc(e.source),
	"evidence": {"effect": "fail-closed"},
} if {
	some [e, "allow"] in all_entries
	e.unsafe
}

# MCPG-P005: an allow pattern broader than it looks.
findings contains {
	"rule": "MCPG-P005",
	"msg": sprintf("allow serverUrl %q is broader than it looks: %s%s", [e.raw, w.detail, admits_text(w.example)]),
	"location": loc(e.source),
	"evidence": {"kind": w.kind, "example": w.example},
} if {
	some [e, "allow"] in all_entries
	e.key == "serverUrl"
	some w in mcpguard.url_weaknesses(e.raw)
}

admits_text(example) := "" if example == ""

else := sprintf(" (it admits %s)", [example])

docs := input.context.claude.documents

managed_allow_defined if {
	some d in docs
	d.managed
	d.allow_defined
}

managed_only := input.context.claude.managed_only.on

# MCPG-P006: without allowManagedMcpServersOnly, user, project and local lists
# are concatenated into the managed one, even in an untrusted folder.
findings contains {
	"rule": "MCPG-P006",
	"msg": sprintf("allowedMcpServers in this %s widens the organisation's allowlist: without allowManagedMcpServersOnly, Claude Code adds its entries to the managed list (even in an untrusted folder); set allowManagedMcpServersOnly: true in managed settings", [kind_text[d.kind]]),
	"location": loc(d.allow_source),
	"evidence": {"kind": d.kind},
} if {
	managed_allow_defined
	not managed_only
	some d in docs
	not d.managed
	d.allow_defined
	sum([n | some n in d.allow_counts]) > 0
}

kind_text := {"user-settings": "user settings file", "project-settings": "repository settings file", "local-settings": "local settings file"}

# allowManagedMcpServersOnly with no managed allowlist: no allowlist at all.
findings contains {
	"rule": "MCPG-P006",
	"msg": "allowManagedMcpServersOnly is on but no managed settings define allowedMcpServers: Claude Code then applies no allowlist at all and discards the user's own list too",
	"location": loc(input.context.claude.managed_only.source),
	"evidence": {"kind": "managed-only-without-allowlist"},
} if {
	managed_only
	not managed_allow_defined
}

# A repository serverCommand entry turns every serverName entry off for stdio
# servers, so servers the administrator allowed by name are blocked.
findings contains {
	"rule": "MCPG-P006",
	"msg": "a serverCommand entry in this repository file makes Claude Code ignore every serverName allow entry for stdio servers, including the administrator's: servers allowed by name are blocked",
	"location": loc(d.allow_source),
	"evidence": {"kind": "command-entry-disables-names"},
} if {
	not managed_only
	some m in docs
	m.managed
	m.allow_counts.serverName > 0
	not org_command_entry
	some d in docs
	d.kind in {"project-settings", "local-settings"}
	d.allow_defined
	d.allow_counts.serverCommand > 0
}

# The organisation's own allowlist (managed or user settings) already has a
# serverCommand entry: name entries are dead for stdio servers anyway.
org_command_entry if {
	some d in docs
	not d.kind in {"project-settings", "local-settings"}
	d.allow_defined
	d.allow_counts.serverCommand > 0
}

# A repository's enabledPlugins turns on plugins the user installed, even in an
# untrusted folder (observed).
findings contains {
	"rule": "MCPG-P006",
	"msg": sprintf("this repository settings file enables plugins (%s); Claude Code honours it even in an untrusted folder, so a cloned repository can switch on any MCP server a user-installed plugin ships", [concat(", ", on)]),
	"location": loc(d.enabled_plugins_source),
	"evidence": {"kind": "repository-enables-plugins", "plugins": on},
} if {
	some d in docs
	d.kind == "project-settings"
	on := sort([p | some p, v in d.enabled_plugins; v == true])
	count(on) > 0
}
