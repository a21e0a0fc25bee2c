#!/usr/bin/env bash
# Whole-process timing of `mcpguard scan` (SPEC §7, issue 18), as ratios
# against the floor measured in the same run: bench/floor, a program of the
# bench module (bench/go.mod, which takes the root module's OPA) that imports OPA, compiles a one-rule policy and
# evaluates it once. The commands run interleaved (one of each, RUNS times,
# in a new order each round) so that a machine getting busier or quieter
# moves them all alike; the figures are medians.
#
# Then the per-server figures: the marginal cost of a server (genmachine's
# N=10,000 machine against its N=200 one, 11,000 and 220 servers as the
# reports count them) against one naive prepared evaluation of a one-rule
# policy (bench/floor -evals), the three interleaved in a new order each
# round, medians; and the peak RSS of the large scan (issue 18: <= 1x and
# <= 150 MB).
#
#   bench/scan.sh            # RUNS=200 and BIG_RUNS=7 by default
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpguard" ./cmd/mcpguard
go -C bench build -o "$work/floor" ./floor   # bench/ is a module of its own (bench/go.mod)
machine=$(go -C bench run ./genmachine "$work/machine" 200)
big=$(go -C bench run ./genmachine "$work/big" 10000)
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
python3 - "${RUNS:-200}" <<PY
import random, statistics, subprocess, time
cmds = {
    "floor": ["$work/floor"],
    "version": ["$B", "version"],
    "demo": "$B scan --format json --fail-on never --home $demo/home --managed-dir $demo/managed --project $demo/project".split(),
    "mcp-json-10": "$B scan --format json --fail-on never $mcp".split(),
    "machine-200": "$B scan --format json --fail-on never $machine".split(),
}
runs = int("${RUNS:-200}")
times = {k: [] for k in cmds}
for i in range(runs + 10):
    # A command runs faster or slower after some others than after the rest
    # (two binaries' one-file scans read 1.10x with one run first, 0.97x
    # with the other): each round runs them in a new order.
    for k, c in random.sample(list(cmds.items()), len(cmds)):
        t = time.perf_counter()
        subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if i >= 10:  # warm-up rounds
            times[k].append(time.perf_counter() - t)
base = statistics.median(times["floor"])
print(f"{'case':<14}{'median ms':>10}{'p95 ms':>9}{'x floor':>9}")
for k, v in times.items():
    v.sort()
    print(f"{k:<14}{statistics.median(v)*1e3:>10.2f}{v[int(0.95*(len(v)-1))]*1e3:>9.2f}{statistics.median(v)/base:>9.2f}")
PY

python3 - "${BIG_RUNS:-7}" <<PY
import json, os, random, statistics, subprocess, sys, time
runs = int(sys.argv[1])
small = "$B scan --format json --fail-on never $machine".split()
big = "$B scan --format json --fail-on never $big".split()
naive_cmd = ["$work/floor", "-evals", "20000"]
ts, tb, rss, naives = [], [], [], []
for i in range(runs + 1):
    # The naive evaluation is measured in the same rounds as the scans, in
    # a new order each round: the machine's speed drifts within minutes.
    for cmd in random.sample([small, big, naive_cmd], 3):
        if cmd is naive_cmd:
            ns_per_eval = float(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
            if i > 0:
                naives.append(ns_per_eval)
            continue
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        if i > 0:  # one warm-up round
            (ts if cmd is small else tb).append(time.perf_counter() - t)
            if cmd is big:
                rss.append(ru.ru_maxrss / 1024)
naive = statistics.median(naives)
# genmachine writes about 1.1 N servers (22 blocks of N/20): count them.
ns, nb = (len(json.loads(subprocess.run(cmd, capture_output=True, check=False).stdout)["servers"]) for cmd in (small, big))
marginal = (statistics.median(tb) - statistics.median(ts)) / (nb - ns) * 1e9
print(f"{ns} servers {statistics.median(ts)*1e3:.0f} ms, {nb:,} servers {statistics.median(tb)*1e3:.0f} ms")
print(f"marginal cost of a server {marginal/1e3:.1f} us = {marginal/naive:.1f}x one naive prepared eval ({naive/1e3:.1f} us; target <= 1x)")
print(f"{nb:,}-server scan peak RSS {statistics.median(rss):.0f} MB (target <= 150)")
PY
