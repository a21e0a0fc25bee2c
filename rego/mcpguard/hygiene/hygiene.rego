# METADATA
# title: Configuration hygiene
# description: |
#   MCPG-C001 to C005 on every server of every client. Secret detection runs in
#   Go (values never reach a policy); these rules decide what to report.
package mcpguard.hygiene

server := input.server

# MCPG-C001: a plaintext secret.
findings contains {
	"rule": "MCPG-C001",
	"msg": sprintf("server %q has a plaintext %s in %s; reference it instead (${VAR}, an env file, a secret store)", [server.name, s.kind, place(s)]),
	"evidence": {"field": s.field, "key": s.key, "kind": s.kind},
} if some s in input.server.facts.secrets

place(s) := sprintf("env %s", [s.key]) if s.field == "env"
else := sprintf("header %s", [s.key]) if s.field == "headers"
else := sprintf("argument %d", [s.index + 1]) if {
	s.field == "args"
	s.key == ""
} else := sprintf("argument %d (%s)", [s.index + 1, s.key]) if s.field == "args"
else := "the URL"

# facts.program is the program a stdio server runs, lower-cased, without its
# directory and .exe/.cmd suffix, looking through `cmd /c`; facts.program_args
# are its arguments.
program := input.server.facts.program

rest := input.server.facts.program_args

# MCPG-C002: a package launcher without a pinned version runs whatever the
# registry serves today.
findings contains {
	"rule": "MCPG-C002",
	"msg": sprintf("server %q runs %s via %s without a pinned version: every start can fetch different code; pin %s", [server.name, spec, program, hint]),
	"evidence": {"launcher": program, "package": spec},
} if {
	launchers[input.server.facts.program]
	[spec, hint] := unpinned
}

launchers := {"npx", "bunx", "pnpm", "yarn", "npm", "uvx", "uv", "pipx", "docker", "podman", "nerdctl"}

# npx, bunx, pnpm dlx, yarn dlx: pkg@version (scoped: @scope/pkg@version).
js_launcher := rest if program in {"npx", "bunx"}

else := array.slice(rest, 1, count(rest)) if {
	program in {"pnpm", "yarn"}
	rest[0] == "dlx"
} else := array.slice(rest, 1, count(rest)) if {
	program == "npm"
	rest[0] in {"exec", "x"}
}

js_package := js_launcher[flags[0] + 1] if {
	flags := [i | some i, a in js_launcher; a in {"-p", "--package"}; i + 1 < count(js_launcher)]
	count(flags) > 0
} else := substring(js_launcher[flags[0]], count("--package="), -1) if {
	flags := [i | some i, a in js_launcher; startswith(a, "--package=")]
	count(flags) > 0
} else := first_operand(js_launcher)

# first_operand is the first argument that is not a flag.
first_operand(args) := args[positions[0]] if {
	positions := [i | some i, a in args; not startswith(a, "-")]
	count(positions) > 0
}

js_version(spec) := v if {
	startswith(spec, "@")
	parts := split(substring(spec, 1, -1), "@")
	count(parts) > 1
	v := parts[1]
} else := v if {
	not startswith(spec, "@")
	parts := split(spec, "@")
	count(parts) > 1
	v := parts[1]
} else := ""

floating := {"", "latest", "next", "canary", "beta", "alpha", "*", "x"}

unpinned := [spec, "an exact version (pkg@1.2.3)"] if {
	spec := js_package
	not local_path(spec)
	floating[js_version(spec)]
}

# uvx pkg / uvx --from pkg tool / uv tool run: pkg==version or pkg@version.
unpinned := [spec, "an exact version (pkg==1.2.3)"] if {
	py_launcher
	spec := py_package
	not local_path(spec)
	not contains(spec, "==")
	not contains(spec, "@")
}

py_launcher if program == "uvx"

py_launcher if {
	program == "uv"
	rest[0] == "tool"
	rest[1] == "run"
}

py_launcher if {
	program == "pipx"
	rest[0] == "run"
}

py_args := array.slice(rest, 2, count(rest)) if program == "uv"

else := array.slice(rest, 1, count(rest)) if program == "pipx"

else := rest

py_package := py_args[flags[0] + 1] if {
	flags := [i | some i, a in py_args; a in {"--from", "--spec"}; i + 1 < count(py_args)]
	count(flags) > 0
} else := first_operand(py_args)

local_path(s) if startswith(s, ".")

local_path(s) if startswith(s, "/")

local_path(s) if startswith(s, "file:")

local_path(s) if startswith(s, "git+")

local_path(s) if regex.match(`^[A-Za-z]:[\\/]`, s)

# docker/podman run IMAGE: a tag other than latest, or a digest.
unpinned := [image, "a digest (image@sha256:...) or a version tag"] if {
	program in {"docker", "podman", "nerdctl"}
	rest[0] == "run"
	image := docker_image
	not contains(image, "@sha256:")
	docker_tag(image) in {"", "latest"}
}

docker_value_flags := {
	"-e", "--env", "-v", "--volume", "--name", "-p", "--publish", "--network", "--net", "--mount", "-w",
	"--workdir", "-u", "--user", "--entrypoint", "--env-file", "-l", "--label", "--platform", "--pull",
	"-h", "--hostname", "--add-host", "--cap-add", "--cap-drop", "--device", "--dns", "--ipc", "-m",
	"--memory", "--cpus", "--restart", "--security-opt", "--tmpfs", "--ulimit", "--runtime", "--log-driver",
}

docker_image := img if {
	args := array.slice(rest, 1, count(rest))
	positions := [i |
		some i, a in args
		not startswith(a, "-")
		not docker_value_flags[prev(args, i)]
	]
	count(positions) > 0
	img := args[positions[0]]
}

prev(args, i) := args[i - 1] if i > 0

else := ""

docker_tag(image) := t if {
	last := regex.replace(image, `^.*/`, "")
	parts := split(last, ":")
	count(parts) > 1
	t := parts[count(parts) - 1]
} else := ""

# MCPG-C003: cleartext transport to another machine.
findings contains {
	"rule": "MCPG-C003",
	"msg": sprintf("server %q talks %s:// to %s, which is not this machine: traffic and credentials cross the network in clear text", [server.name, u.scheme, u.host]),
	"evidence": {"scheme": u.scheme, "host": u.host},
} if {
	input.server.facts.url.parsed
	u := input.server.facts.url
	u.scheme in {"http", "ws"}
	not u.loopback
}

shells := {"sh", "bash", "zsh", "dash", "ksh", "fish", "cmd", "powershell", "pwsh"}

shell_flags := {"-c", "-lc", "-ic", "-cl", "/c", "/k", "-command", "-c:", "-encodedcommand", "-e"}

# MCPG-C004: the command is a shell script, or downloads code and runs it.
findings contains {
	"rule": "MCPG-C004",
	"msg": msg,
	"evidence": {"shell": program, "download_and_execute": dl},
} if {
	input.server.transport == "stdio"
	script := shell_script
	dl := download_execute(script)
	msg := c004_message(dl)
}

shell_script := s if {
	shells[input.server.facts.program]
	flags := [i | some i, a in rest; shell_flags[lower(a)]]
	count(flags) > 0
	s := concat(" ", array.slice(rest, flags[0] + 1, count(rest)))
}

# A command written as one string with a pipeline in it.
shell_script := input.server.command if {
	count(input.server.args) == 0
	contains(input.server.command, "|")
}

download_execute(s) if regex.match(`(?i)(curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^|]*\|\s*(sudo\s+)?(sh|bash|zsh|dash|python\d?|node|perl|ruby|iex|invoke-expression|pwsh|powershell)\b`, s)

download_execute(s) if regex.match(`(?i)\b(iex|invoke-expression)\b.*\b(iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b`, s)

download_execute(s) if regex.match(`(?i)(bash|sh)\s+<\(\s*(curl|wget)`, s)

default download_execute(_) := false

c004_message(true) := sprintf("server %q downloads code and executes it on every start: whoever controls that URL runs code on this machine", [server.name])

c004_message(false) := sprintf("server %q runs a shell script (%s): the command an allowlist sees is only the shell, and the script can do anything", [server.name, program])

# MCPG-C005: the deprecated SSE transport.
findings contains {
	"rule": "MCPG-C005",
	"msg": sprintf("server %q uses the deprecated SSE transport; move to streamable HTTP (\"type\": \"http\") when the server supports it", [server.name]),
	"evidence": {"transport": "sse"},
} if input.server.transport == "sse"
