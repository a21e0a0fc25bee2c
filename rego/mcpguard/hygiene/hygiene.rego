# METADATA
# title: Configuration hygiene
# description: |
#   MCPG-C001 to C005 on every server of every client. Secret detection runs in
#   Go (values never reach a policy); these rules decide what to report.
package mcpguard.hygiene

# MCPG-C001: a plaintext secret.
findings contains {
	"rule": "MCPG-C001",
	"msg": sprintf("server %q has a plaintext %s in %s; reference it instead (${VAR}, an env file, a secret store)", [input.server.name, s.kind, place(s)]),
	"evidence": {"field": s.field, "key": s.key, "kind": s.kind},
} if some s in input.server.facts.secrets

place(s) := sprintf("env %s", [s.key]) if s.field == "env"
else := sprintf("header %s", [s.key]) if s.field == "headers"
else := "the command" if s.field == "command"
else := sprintf("argument %d", [s.index + 1]) if {
	s.field == "args"
	s.key == ""
} else := sprintf("argument %d (%s)", [s.index + 1, s.key]) if s.field == "args"
else := "the URL"

# input.server.facts.program is the program a stdio server runs, lower-cased,
# without its directory and .exe/.cmd suffix, looking through `cmd /d /s /c`
# and `env [VAR=value]`; facts.program_args are its arguments. The rules read
# input directly rather than through alias rules: each alias costs every
# server an evaluation step per use (docs/performance.md).

# MCPG-C002: a package launcher without a pinned version runs whatever the
# registry serves today. One finding per unpinned package (npx -p a -p b).
findings contains {
	"rule": "MCPG-C002",
	"msg": sprintf("server %q runs %s via %s without a pinned version: every start can fetch different code; pin %s", [input.server.name, spec, input.server.facts.program, hint]),
	"evidence": {"launcher": input.server.facts.program, "package": spec},
} if {
	launchers[input.server.facts.program]
	some [spec, hint] in unpinned
}

# launchers maps each package launcher to the registry it fetches from. Each
# unpinned rule below looks its own kind up first: without it, every
# launcher's server tried the others' argument forms (a uvx server the four
# npm launchers', an npx server uv's and pipx's subcommands).
launchers := {
	"npx": "npm", "bunx": "npm", "pnpm": "npm", "yarn": "npm", "npm": "npm",
	"uvx": "pypi", "uv": "pypi", "pipx": "pypi",
	"docker": "image", "podman": "image", "nerdctl": "image",
}

# operand(args, value_flags) is the first argument that is neither a flag nor
# the value of a flag that takes one (written apart: "--registry URL"). Most
# launches name it first (uvx pkg) or after one flag without a value (npx -y
# pkg): those two are tried before the general rule, which gathers every
# position after such a flag first: a set lookup per argument instead of a
# function call. (Not `not value_flags[args[i - 1]]`: OPA evaluates the
# inner reference outside the negation, so i = 0 fails.)
operand(args, value_flags) := args[0] if {
	not startswith(args[0], "-")
} else := args[1] if {
	startswith(args[0], "-")
	not value_flags[args[0]]
	not startswith(args[1], "-")
} else := args[positions[0]] if {
	after_flag := {j | some i, a in args; value_flags[a]; j := i + 1}
	positions := [i |
		some i, a in args
		not startswith(a, "-")
		not after_flag[i]
	]
	count(positions) > 0
}

# npx, bunx, pnpm dlx, yarn dlx, npm exec / npm x: pkg@version (scoped:
# @scope/pkg@version), given with -p/--package or as the first operand.
js_launcher := input.server.facts.program_args if input.server.facts.program in {"npx", "bunx"}

else := array.slice(input.server.facts.program_args, 1, count(input.server.facts.program_args)) if {
	input.server.facts.program in {"pnpm", "yarn"}
	input.server.facts.program_args[0] == "dlx"
} else := array.slice(input.server.facts.program_args, 1, count(input.server.facts.program_args)) if {
	input.server.facts.program == "npm"
	input.server.facts.program_args[0] in {"exec", "x"}
}

js_value_flags := {
	"-p", "--package", "-c", "--call", "--registry", "--cache", "--userconfig", "--prefix",
	"-w", "--workspace", "--loglevel", "--node-options", "--shell", "--script-shell",
}

js_package_flag if {
	some a in js_launcher
	a in {"-p", "--package"}
}

js_package_flag if {
	some a in js_launcher
	startswith(a, "--package=")
}

# The two rules below look through the arguments again only when
# js_package_flag (computed once) found a flag: most launches name the
# package as the operand.
js_packages contains js_launcher[i + 1] if {
	js_package_flag
	some i, a in js_launcher
	a in {"-p", "--package"}
}

js_packages contains substring(a, count("--package="), -1) if {
	js_package_flag
	some a in js_launcher
	startswith(a, "--package=")
}

js_packages contains operand(js_launcher, js_value_flags) if not js_package_flag

# js_version is what follows the package name's "@": "" when there is none.
js_version(spec) := concat("@", array.slice(parts, 1, count(parts))) if {
	startswith(spec, "@")
	parts := split(substring(spec, 1, -1), "@")
	count(parts) > 1
} else := concat("@", array.slice(parts, 1, count(parts))) if {
	not startswith(spec, "@")
	parts := split(spec, "@")
	count(parts) > 1
} else := ""

# An exact semver version (npm also accepts a leading "=" or "v"). Ranges
# (^1.2.3, ~1.2, 1.x, 1), dist-tags (latest, next) and "" float.
exact_version(v) if regex.match(`^=?v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`, v)

unpinned contains [spec, "an exact version (pkg@1.2.3)"] if {
	launchers[input.server.facts.program] == "npm"
	some spec in js_packages
	spec != ""
	not local_path(spec)
	not exact_version(js_version(spec))
}

# uvx pkg / uvx --from pkg tool / uv tool run / pipx run [--spec pkg]:
# pkg==version or pkg@version.
unpinned contains [spec, "an exact version (pkg==1.2.3)"] if {
	launchers[input.server.facts.program] == "pypi"
	py_launcher
	spec := py_package
	not local_path(spec)
	not py_pinned(spec)
}

py_launcher if input.server.facts.program == "uvx"

py_launcher if {
	input.server.facts.program == "uv"
	input.server.facts.program_args[0] == "tool"
	input.server.facts.program_args[1] == "run"
}

py_launcher if {
	input.server.facts.program == "pipx"
	input.server.facts.program_args[0] == "run"
}

py_args := array.slice(input.server.facts.program_args, 2, count(input.server.facts.program_args)) if input.server.facts.program == "uv"

else := array.slice(input.server.facts.program_args, 1, count(input.server.facts.program_args)) if input.server.facts.program == "pipx"

else := input.server.facts.program_args

py_value_flags := {
	"--from", "--spec", "--with", "-w", "--with-editable", "--with-requirements", "--python", "-p",
	"--index", "--index-url", "-i", "--extra-index-url", "--default-index", "--find-links", "-f",
	"--constraints", "-c", "--overrides", "--build-constraints", "--pip-args", "--cache-dir",
	"--directory", "--project", "--config-file", "--env-file", "--color", "--index-strategy",
	"--keyring-provider", "--resolution", "--prerelease", "--exclude-newer", "--link-mode",
	"--python-preference", "--refresh-package", "--reinstall-package", "--upgrade-package", "-P",
}

# The package comes from --from / --spec (the first one, written apart or with
# "="), or else it is the first operand.
py_package := py_args[froms[0] + 1] if {
	froms := [i | some i, a in py_args; a in {"--from", "--spec"}; i + 1 < count(py_args)]
	count(froms) > 0
} else := substring(py_args[froms[0]], indexof(py_args[froms[0]], "=") + 1, -1) if {
	strings.any_prefix_match(py_args, ["--from=", "--spec="]) # one call, not a regexp per argument
	froms := [i | some i, a in py_args; regex.match(`^--(from|spec)=`, a)]
	count(froms) > 0
} else := operand(py_args, py_value_flags)

# name==1.2.3 (or ===), or name@1.2.3 (uvx); a wildcard, a range or @latest floats.
py_pinned(spec) if regex.match(`^[^=<>!~@*\s]+\s*===?\s*[A-Za-z0-9.+!_-]+$`, spec)

py_pinned(spec) if {
	regex.match(`^[^=<>!~@*\s]+@[A-Za-z0-9.+!_-]+$`, spec)
	not endswith(lower(spec), "@latest")
}

# A local path or a repository, not a registry package: ".", "/", "~",
# "file:", "git+" or a Windows drive ("C:\\", "C:/"). One match instead of a rule
# per prefix: every package spec of every server is checked.
local_path(s) if regex.match(`^([./~]|file:|git\+|[A-Za-z]:[\\/])`, s)

# docker/podman/nerdctl run IMAGE (or container run): a tag other than latest,
# or a digest.
unpinned contains [image, "a digest (image@sha256:...) or a version tag"] if {
	launchers[input.server.facts.program] == "image"
	image := docker_image
	not contains(image, "@sha256:")
	docker_tag(image) in {"", "latest"}
}

docker_value_flags := {
	"-e", "--env", "-v", "--volume", "--name", "-p", "--publish", "--network", "--net", "--mount", "-w",
	"--workdir", "-u", "--user", "--entrypoint", "--env-file", "-l", "--label", "--platform", "--pull",
	"-h", "--hostname", "--add-host", "--cap-add", "--cap-drop", "--device", "--dns", "--ipc", "-m",
	"--memory", "--cpus", "--restart", "--security-opt", "--tmpfs", "--ulimit", "--runtime", "--log-driver",
	"--log-opt", "-a", "--attach", "--cidfile", "--gpus", "--group-add", "--pid", "--userns", "--uts",
	"--shm-size", "--stop-signal", "--stop-timeout", "--volumes-from", "--expose", "--link", "--ip",
	"--ip6", "--cgroupns", "--cgroup-parent", "-c", "--cpu-shares", "--cpuset-cpus", "--memory-swap",
	"--pids-limit", "--sysctl", "--storage-opt", "--health-cmd", "--label-file", "--mac-address",
	"--dns-search", "--dns-option", "--isolation", "--network-alias", "--annotation",
}

docker_run_args := array.slice(input.server.facts.program_args, 1, count(input.server.facts.program_args)) if input.server.facts.program_args[0] == "run"

else := array.slice(input.server.facts.program_args, 2, count(input.server.facts.program_args)) if {
	input.server.facts.program_args[0] == "container"
	input.server.facts.program_args[1] == "run"
}

docker_image := operand(docker_run_args, docker_value_flags)

docker_tag(image) := t if {
	last := regex.replace(image, `^.*/`, "")
	parts := split(last, ":")
	count(parts) > 1
	t := parts[count(parts) - 1]
} else := ""

# MCPG-C003: cleartext transport to another machine.
findings contains {
	"rule": "MCPG-C003",
	"msg": sprintf("server %q talks %s:// to %s, which is not this machine: traffic and credentials cross the network in clear text", [input.server.name, u.scheme, u.host]),
	"evidence": {"scheme": u.scheme, "host": u.host},
} if {
	input.server.facts.url.parsed
	u := input.server.facts.url
	u.scheme in {"http", "ws"}
	not u.loopback
}

# MCPG-C004: the command is a shell script, or downloads code and runs it.
findings contains {
	"rule": "MCPG-C004",
	"msg": c004_message(dl, shell),
	"evidence": {"shell": shell, "download_and_execute": dl},
} if {
	input.server.transport == "stdio"
	[shell, script] := shell_script
	dl := download_execute(script)
}

posix_shells := {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"}

# The programs other than cmd that script_flag knows (posix_shells,
# powershell and pwsh; a test holds the two lists together): no other
# program's arguments can hold a script flag, so they are not looked through.
script_shells := {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "powershell", "pwsh"}

# A flag after which the shell reads its script from the command line: -c and
# any cluster holding it (-lc, -ec, -xc); PowerShell's -Command and
# -EncodedCommand and their prefixes; cmd's /c and /k.
script_flag(shell, a) if {
	posix_shells[shell]
	regex.match(`^-[A-Za-z]*c[A-Za-z]*$`, a)
}

script_flag("fish", "--command")

script_flag(shell, a) if {
	shell in {"powershell", "pwsh"}
	regex.match(`(?i)^(-{1,2}|/)(c|co|com|comm|comma|comman|command|e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedco|encodedcom|encodedcomm|encodedcomma|encodedcomman|encodedcommand)(:.*)?$`, a)
}

script_flag("cmd", a) if lower(a) in {"/c", "/k"}

# script_after(shell, args) is the text after the first script flag.
script_after(shell, args) := concat(" ", array.slice(args, flags[0] + 1, count(args))) if {
	flags := [i | some i, a in args; script_flag(shell, a)]
	count(flags) > 0
}

# cmd /c as the Windows wrapper of npx and other launchers is normal (facts
# look through it); cmd counts as a shell only when the text uses pipes or
# command separators, or downloads and executes.
cmd_script := script_after("cmd", input.server.facts.program_args) if input.server.facts.program == "cmd"

else := concat(" ", array.slice(input.server.args, 1, count(input.server.args))) if {
	# script_flag("cmd", ...) written out, and before the regexp: it fails
	# at once for almost every server, and the regexp would run for each.
	lower(input.server.args[0]) in {"/c", "/k"}
	regex.match(`(?i)(^|[\\/])cmd(\.exe)?$`, input.server.command)
}

# shell_script is [shell, script]; shell is "" for a pipeline written as the
# whole command string.
shell_script := [input.server.facts.program, s] if {
	script_shells[input.server.facts.program]
	s := script_after(input.server.facts.program, input.server.facts.program_args)
} else := ["cmd", s] if {
	s := cmd_script
	cmd_runs_script(s)
} else := ["", input.server.command] if {
	count(input.server.args) == 0
	contains(input.server.command, "|")
}

cmd_runs_script(s) if regex.match(`[|&]`, s)

cmd_runs_script(s) if download_execute(s)

download_execute(s) if regex.match(`(?i)(curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b[^|]*\|\s*(sudo\s+)?(sh|bash|zsh|dash|python\d?|node|perl|ruby|iex|invoke-expression|pwsh|powershell)\b`, s)

download_execute(s) if regex.match(`(?i)\b(iex|invoke-expression)\b.*\b(iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b`, s)

download_execute(s) if regex.match(`(?i)(bash|sh|zsh|source|\.)\s+<\(\s*(curl|wget)`, s)

default download_execute(_) := false

c004_message(true, _) := sprintf("server %q downloads code and executes it on every start: whoever controls that URL runs code on this machine", [input.server.name])

c004_message(false, shell) := sprintf("server %q runs a shell script (%s): the command an allowlist sees is only the shell, and the script can do anything", [input.server.name, shell]) if shell != ""

c004_message(false, "") := sprintf("server %q runs a shell pipeline written as one command string: the command an allowlist sees is not what runs", [input.server.name])

# MCPG-C005: the deprecated SSE transport.
findings contains {
	"rule": "MCPG-C005",
	"msg": sprintf("server %q uses the deprecated SSE transport; move to streamable HTTP (\"type\": \"http\") when the server supports it", [input.server.name]),
	"evidence": {"transport": "sse"},
} if input.server.transport == "sse"
