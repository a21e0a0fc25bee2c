#!/usr/bin/env bash
# The cost of hostile configurations (issue 17, SPEC §8) as ratios against
# Python's json.load of the same file, measured in the same run: wall time
# and peak RSS of `mcpguard scan FILE` (target: <= 4x the time and <= 2x
# the memory), or the time to refuse it (target: < 1 s).
#
#   bench/hostile.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpguard" ./cmd/mcpguard
python3 - "$work" <<'PY'
import json, os, sys
w = sys.argv[1]
def write(name, doc, fmt="json"):
    d = os.path.join(w, name); os.makedirs(d)
    json.dump(doc, open(os.path.join(d, ".mcp.json"), "w"))
# The shapes of the issue: one server with 4 million short args (20 MB),
# one 16 MB command.
def write_text(name, rel, text):
    d = os.path.join(w, name); os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
    open(os.path.join(d, rel), "w").write(text)
write_text("toml-args-4m", ".codex/config.toml", "[mcp_servers.x]\ncommand = \"npx\"\nargs = [" + ",".join('"a%d"' % (i % 10) for i in range(4_000_000)) + "]\n")
write_text("yaml-args-4m", ".continue/mcpServers/x.yaml", "name: x\nversion: 1\nschema: v1\nmcpServers:\n  - name: x\n    command: npx\n    args: [" + ", ".join("a%d" % (i % 10) for i in range(4_000_000)) + "]\n")
write("args-4m", {"mcpServers": {"x": {"command": "npx", "args": ["a%d" % (i % 10) for i in range(4_000_000)]}}})
write("command-16mb", {"mcpServers": {"x": {"command": "n" * 16_000_000}}})
# What the limits still accept: servers just under the entry limits, and a
# ~/.claude.json-like file of thousands of projects with long histories.
write("entries-at-limit", {"mcpServers": {"s%d" % s: {"command": "npx", "args": ["--opt-%d=%s" % (i, "v" * 80) for i in range(9_000)]} for s in range(10)}})
write("many-servers", {"mcpServers": {"s%d" % i: {"command": "npx", "args": ["-y", "@acme/s%d@1.0.0" % i]} for i in range(5_000)}})
projects = {}
for p in range(3000):
    projects["/home/dev/src/p%d" % p] = {"allowedTools": [], "history": [{"display": "fix the build " * 20, "pastedContents": {}} for _ in range(50)],
        "mcpServers": {"local%d" % p: {"command": "node", "args": ["server.js"]}}, "hasTrustDialogAccepted": p % 2 == 0}
write("claude-json-3000-projects", {"projects": projects, "mcpServers": {"gh": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}}})
PY
measure() { # prints "seconds maxrss_kb exit"
  /usr/bin/time -f "%e %M %x" -o "$work/t" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$work/t"
}
printf "%-28s %8s %10s %10s %9s %9s  %s\n" case "size MB" "mcpguard s" "python s" "time x" "memory x" "outcome"
for d in "$work"/*/; do
  name=$(basename "$d")
  f=$(find "$d" -type f | head -n 1)
  # Python's own reader of the format is the floor: json, tomllib; YAML
  # files are read as JSON-compatible text by PyYAML when installed, else
  # timed against json.load of the same size is meaningless: skipped.
  case "$f" in
    *.toml) reader="import tomllib,sys; tomllib.load(open(sys.argv[1],'rb'))" ;;
    *.yaml) python3 -c "import yaml" 2>/dev/null || { printf "%-28s (no PyYAML for a floor) " "$name"; read -r mt mm mx < <(measure "$work/mcpguard" scan --format json --fail-on never "$d"); echo "mcpguard ${mt}s exit $mx"; continue; }
            reader="import yaml,sys; yaml.load(open(sys.argv[1]), Loader=getattr(yaml,'CSafeLoader',yaml.SafeLoader))" ;;
    *) reader="import json,sys; json.load(open(sys.argv[1]))" ;;
  esac
  read -r mt mm mx < <(measure "$work/mcpguard" scan --format json --fail-on never "$d")
  read -r pt pm px < <(measure python3 -c "$reader" "$f")
  outcome=accepted
  if [ "$mx" = 2 ]; then outcome="refused (exit 2)"; fi
  python3 -c "
import sys
mt,mm,pt,pm=map(float,sys.argv[1:5]); size=float(sys.argv[5])/1e6
print(f'%-28s %8.1f %10.2f %10.2f %9.2f %9.2f  %s' % (sys.argv[6], size, mt, pt, mt/pt, mm/pm, sys.argv[7]))
" "$mt" "$mm" "$pt" "$pm" "$(stat -c %s "$f")" "$name" "$outcome"
done
