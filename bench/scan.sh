#!/usr/bin/env bash
# Whole-process timing of `mcpguard scan` (SPEC §7), as ratios against a
# baseline measured in the same run: `mcpguard version` (process start, the
# floor every command pays) on this shared machine.
#
#   bench/scan.sh            # needs hyperfine (apt-get install hyperfine)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "bench/scan.sh: needs hyperfine" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpguard" ./cmd/mcpguard
machine=$(go run ./bench/genmachine "$work/machine" 200)
demo=testdata/demo
mcp="$work/mcp/.mcp.json"
mkdir -p "$work/mcp"
# A committed .mcp.json with 10 servers: the pre-commit case.
python3 - "$mcp" <<'PY'
import json, sys
servers = {}
for i in range(10):
    servers[f"s{i}"] = ({"command": "npx", "args": ["-y", f"@acme/s{i}@1.0.{i}"]} if i % 2 == 0
                        else {"type": "http", "url": f"https://s{i}.acme.example/mcp"})
json.dump({"mcpServers": servers}, open(sys.argv[1], "w"), indent=2)
PY

B="$work/mcpguard"
hyperfine -N --warmup 20 --runs "${RUNS:-300}" --export-json "$work/out.json" \
  -n baseline "$B version" \
  -n demo "$B scan --format json --fail-on never --home $demo/home --managed-dir $demo/managed --project $demo/project" \
  -n mcp-json-10 "$B scan --format json --fail-on never $mcp" \
  -n machine-200 "$B scan --format json --fail-on never $machine" >/dev/null

python3 - "$work/out.json" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
base = res["baseline"]["median"]
print(f"{'case':<14}{'median ms':>10}{'p95 ms':>9}{'x baseline':>12}")
for name, r in res.items():
    times = sorted(r["times"])
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"{name:<14}{r['median']*1e3:>10.2f}{p95*1e3:>9.2f}{r['median']/base:>12.2f}")
PY
