# METADATA
# title: Policy verdicts and weaknesses
# description: |
#   MCPG-P001 and P002 report Claude Code's verdict; P003 to P007 report policies
#   that are weaker than they look (docs/claude-code.md §11). Server rules read
#   input.server; context rules read input.context only and run once per policy
#   context.
package mcpguard.policy

import data.mcpguard.claude

# where renders a source location as path:line:col.
where(src) := sprintf("%s:%d:%d", [src.path, src.line, src.column])

# describe renders a policy entry for messages.
describe(e) := sprintf("serverName %q", [e.name]) if e.key == "serverName"
else := sprintf("serverCommand %s", [json.marshal(e.command)]) if e.key == "serverCommand"
else := sprintf("serverUrl %q", [e.raw])

# The note every verdict on another client's server carries.
enforcement := "" if input.server.enforced
else := sprintf(" (%s does not enforce this policy itself: only mcpguard reports it)", [input.server.client])

# MCPG-P001: a deny entry matches.
findings contains {
	"rule": "MCPG-P001",
	"msg": sprintf("server %q is denied by %s%s.", [input.server.name, concat("; ", descs), enforcement]),
	"evidence": {"reasons": claude.deny_reasons, "entries": [e.source | some [e, _] in claude.deny_matches]},
} if {
	claude.denied
	descs := sort({sprintf("%s at %s", [describe(e), where(e.source)]) | some [e, _] in claude.deny_matches})
}

# MCPG-P002: the allowlist does not admit the server.
findings contains {
	"rule": "MCPG-P002",
	"msg": sprintf("server %q is not on the allowlist: %s%s.", [input.server.name, why, enforcement]),
	"evidence": object.union({"reason": reason, "judging_key": key}, allow_evidence),
} if {
	v := claude.verdict
	v.allowed == false
	not claude.denied
	reason := v.reasons[0]
	key := judging_key_or_none
	why := allow_miss_reason(reason, key)
}

judging_key_or_none := claude.judging_key(input.context.claude.allow) if input.context.claude.allow != null

else := ""

allow_miss_reason("EMPTY_ALLOWLIST", _) := "allowedMcpServers is [], so only organisation servers without ${...} may run, and this organisation server has ${...} in its command, arguments, URL or headers" if {
	claude.org
	input.server.claude.has_var
} else := "allowedMcpServers is [], so only organisation servers may run"

allow_miss_reason("NOT_ALLOWLISTED", "serverCommand") := sprintf(
	"no serverCommand entry equals %s; name entries are ignored for stdio servers once the allowlist has a serverCommand entry",
	[json.marshal(input.server.claude.argv)],
)

allow_miss_reason("NOT_ALLOWLISTED", "serverUrl") := sprintf(
	"no serverUrl pattern matches %q; name entries are ignored for remote servers once the allowlist has a serverUrl entry",
	[input.server.claude.url],
)

allow_miss_reason("NOT_ALLOWLISTED", "serverName") := sprintf("no serverName entry is %q%s", [input.server.name, name_hint])

name_hint := ", and a name with characters outside [A-Za-z0-9_-] can never be allow-listed by name" if {
	not regex.match(`^[a-zA-Z0-9_-]+$`, input.server.name)
} else := ""

allow_evidence := object.union(ignored_name, org_var)

ignored_name := {"ignored_name_entry": true} if {
	judging_key_or_none != "serverName"
	input.context.claude.allow.names[input.server.name]
} else := {}

org_var := {"org_server_with_var": true} if {
	claude.org
	input.server.claude.has_var
} else := {}

# MCPG-P004: admitted by name alone, so the command (or URL) is never checked.
findings contains {
	"rule": "MCPG-P004",
	"msg": sprintf("%s server %q is admitted by its name only: the allowlist has no %s entries, so its %s is never checked and any config can take the name%s",
		[kind, input.server.name, missing, checked, enforcement]),
	"evidence": {"transport": kind, "admission": claude.admission},
} if {
	claude.admission in {"allowlist", "allowlist-org"}
	list := admitting_list
	claude.judging_key(list) == "serverName"
	[kind, missing, checked] := name_only_terms
}

admitting_list := input.context.claude.allow if claude.admission == "allowlist"

else := input.context.claude.allow_org

name_only_terms := ["stdio", "serverCommand", "command"] if claude.stdio

else := ["remote", "serverUrl", "URL"] if claude.remote

admitted_on_text := {"serverCommand": "command line", "serverName": "name", "serverUrl": "URL"}

# Variables that change what an allow-listed command does.
injectable := {
	"NODE_OPTIONS", "NODE_PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
	"DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH", "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE",
	"RUBYOPT", "RUBYLIB", "PERL5OPT", "PERL5LIB", "PERLLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
	"JDK_JAVA_OPTIONS", "CLASSPATH", "BASH_ENV", "ENV", "ZDOTDIR", "PATH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH",
	"NPM_CONFIG_PREFIX", "UV_INDEX_URL", "PIP_INDEX_URL", "NPM_CONFIG_REGISTRY",
}

# MCPG-P007: an allow-listed command whose env can inject code: serverCommand
# compares argv only, never env.
findings contains {
	"rule": "MCPG-P007",
	"msg": sprintf("server %q passes policy on its %s, but its env sets %s, which can make that command run other code; policy never compares env%s",
		[input.server.name, admitted_on, concat(", ", bad), enforcement]),
	"evidence": {"keys": bad, "admission": claude.admission},
} if {
	claude.admission in {"allowlist", "allowlist-org"}
	input.server.transport == "stdio"
	count(input.server.env_keys) > 0
	admitted_on := admitted_on_text[claude.judging_key(admitting_list)]
	bad := sort([k | some k in input.server.env_keys; injectable[upper(k)]])
	count(bad) > 0
}

# An organisation server keeps its exemption with ${VAR} inside env, and the
# value then comes from the user's environment or settings.
findings contains {
	"rule": "MCPG-P007",
	"msg": sprintf("organisation server %q takes %s from the user's environment (${...} in env keeps its allowlist exemption); the user controls what the command loads",
		[input.server.name, concat(", ", bad)]),
	"evidence": {"keys": bad, "admission": "exempt-org"},
} if {
	# The admission first: env_var_keys is made only when read (scanner's
	# facts), and few servers are the organisation's.
	claude.admission == "exempt-org"
	count(input.server.facts.env_var_keys) > 0
	bad := sort([k | some k in input.server.facts.env_var_keys; injectable[upper(k)]])
	count(bad) > 0
}
