#!/usr/bin/env bash
# Proxy figures (SPEC §7) as differences and ratios against a baseline
# measured in the same run: the same fake MCP server spoken to directly.
#
#   added latency per pass-through round trip  = proxy - direct  (<= 100 us per message)
#   throughput kept                            = proxy / direct  (>= 50 %)
#   added time for a 1 MB tools/list           = (proxy - direct) / one decode (<= 2x, SPEC §7)
#   the per-message path of a 1 MB tools/list  = ToolsList1MB / ToolsList1MBDecode (<= 2x, issue 18)
#
#   added latency per tools/call round trip    = proxy - direct  (the id table, the audit event)
#
#   bench/proxy.sh            # COUNT=5 BENCHTIME=2s by default
#   BASE=main bench/proxy.sh  # also the round trips of a baseline build
#                             # (a git revision), interleaved: what this
#                             # tree adds over it (issue 42: <= 100 us)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$work/out"
# Interleaved: each round runs every benchmark once, so that a machine
# getting busier or quieter moves a ratio's two sides alike (go test
# -count runs one benchmark COUNT times before the next).
go test -c -o "$work/proxy.test" ./proxy
if [ -n "${BASE:-}" ]; then
  # The baseline's sources, with this tree's call benchmark when it has none.
  mkdir "$work/base"
  git archive "$BASE" | tar -x -C "$work/base"
  [ -f "$work/base/proxy/bench_call_test.go" ] || cp proxy/bench_call_test.go "$work/base/proxy/"
  (cd "$work/base" && go test -c -o "$work/base.test" ./proxy)
fi
for _ in $(seq "${COUNT:-5}"); do
  (cd proxy && "$work/proxy.test" -test.run '^$' -test.bench 'RoundTrip|Throughput|ToolsList1MB|GuardToolsList' \
    -test.benchtime "${BENCHTIME:-2s}") | tee -a "$out" >&2
  if [ -n "${BASE:-}" ]; then
    (cd "$work/base/proxy" && "$work/base.test" -test.run '^$' -test.bench '^Benchmark(RoundTrip|CallRoundTrip)$' \
      -test.benchtime "${BENCHTIME:-2s}") | sed 's/^Benchmark/BenchmarkBase:/' | tee -a "$out" >&2
  fi
done
python3 - "$out" "${BASE:-}" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"Benchmark(\S+?)-\d+\s+\d+\s+([\d.]+) ns/op", line)
    if m:
        runs.setdefault(m.group(1), []).append(float(m.group(2)))
med = {k: statistics.median(v) for k, v in runs.items()}
def us(ns): return ns / 1e3
rt = med["RoundTrip/proxy"] - med["RoundTrip/direct"]
# A round trip is two messages, one each way.
print(f"round trip: direct {us(med['RoundTrip/direct']):.1f} us, proxy {us(med['RoundTrip/proxy']):.1f} us,"
      f" added {us(rt):.1f} us per round trip = {us(rt)/2:.1f} us per message (target <= 100)")
if "CallRoundTrip/proxy" in med:
    ct = med["CallRoundTrip/proxy"] - med["CallRoundTrip/direct"]
    print(f"tools/call round trip: direct {us(med['CallRoundTrip/direct']):.1f} us, added {us(ct):.1f} us (target <= 100)")
if sys.argv[2]:
    for name in ("RoundTrip", "CallRoundTrip"):
        b = f"Base:{name}"
        if f"{b}/proxy" not in med:
            continue
        here = med[f"{name}/proxy"] - med[f"{name}/direct"]
        base = med[f"{b}/proxy"] - med[f"{b}/direct"]
        print(f"{name} vs {sys.argv[2]}: the proxy adds {us(here):.1f} us here, {us(base):.1f} us there:"
              f" {us(here-base):+.1f} us per round trip (issue 42: <= 100)")
tp = med["Throughput/direct"] / med["Throughput/proxy"]
print(f"throughput: proxy keeps {100*tp:.0f}% of a plain pipe (target >= 50%)")
for mode in ("proxy", "proxy-monitor"):
    k = f"ToolsList1MBRoundTrip/{mode}"
    if k in med:
        add = med[k] - med["ToolsList1MBRoundTrip/direct"]
        print(f"1 MB tools/list ({mode}): direct {med['ToolsList1MBRoundTrip/direct']/1e6:.2f} ms, added {add/1e6:.2f} ms"
              f" = {add/med['ToolsList1MBDecode']:.2f}x one encoding/json decode (SPEC 7: <= 2x)")
print(f"1 MB tools/list, the proxy's whole per-message path: {med['ToolsList1MB']/1e6:.2f} ms"
      f" = {med['ToolsList1MB']/med['ToolsList1MBDecode']:.2f}x one encoding/json decode"
      f" ({med['ToolsList1MBDecode']/1e6:.2f} ms; target <= 2x)")
for k in sorted(med):
    if k.startswith("GuardToolsList"):
        size = "one real 30 KB listing (github)" if "/github/" in k else "a 1 MB listing"
        print(f"{k}: {med[k]/1e6:.2f} ms for {size}")
PY
