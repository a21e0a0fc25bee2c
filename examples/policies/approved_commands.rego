# METADATA
# title: stdio servers must run programs under /opt/approved
# description: |
#   An error for every stdio server whose command is not a program installed
#   under /opt/approved/. The command is read as written (input.server.command)
#   and, for Claude Code, as Claude Code runs it after ${VAR} expansion
#   (input.server.claude.argv[0]): both must be approved.
package mcpguard.custom.approved

approved_dir := "/opt/approved/"

commands contains input.server.command

commands contains input.server.claude.argv[0]

# A path under the directory with no ".." segment (/opt/approved/../../bin/sh).
approved(cmd) if {
	startswith(cmd, approved_dir)
	not contains(cmd, "/../")
	not endswith(cmd, "/..")
}

deny contains {
	"id": "ACME-APPROVED-CMD",
	"msg": sprintf("server %q runs %q, which is not under %s", [input.server.name, cmd, approved_dir]),
	"evidence": {"command": cmd},
} if {
	input.server.transport == "stdio"
	some cmd in commands
	not approved(cmd)
}
