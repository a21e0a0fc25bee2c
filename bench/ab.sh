#!/usr/bin/env bash
# A/B of two mcpguard binaries on the workloads of issue 47: interleaved
# pairs (A then B or B then A, the order drawn anew each pair), the median
# of the per-pair ratios B/A of wall time and of CPU time (user + system)
# with their spread (min-max), and peak RSS.
# A ratio above 1 means B is slower. Before timing, the outputs of A and B
# are compared (cmp, with timestamps and CycloneDX serial numbers blanked) on the demo
# machine, generated machines and a generated fleet, in JSON, SARIF and
# HTML.
#
#   bench/ab.sh A_BINARY B_BINARY                # PAIRS=20 WORK="onefile m50 m200 big fleet"
#   WORK=fleet PAIRS=30 bench/ab.sh old/mcpguard new/mcpguard
#   CHECK=0 bench/ab.sh A B                       # timing only, outputs not compared
#
# Workloads: onefile (`scan .mcp.json`, 10 servers: the pre-commit hook),
# m50 and m200 (genmachine's laptops of ~55 and ~220 servers), big (~11,000
# servers: time and peak RSS), fleet (`report DIR` of HOSTS x SERVERS
# machine reports, by default 1,000 x 100, timed with python's json.load of
# the same files in the same rounds; FORMAT=html merges into that format
# instead of json), daemon (bench/daemonbench's 200-server
# daemon, 30 edits: the ratio is of CPU per edit, not of time).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: bench/ab.sh A_BINARY B_BINARY" >&2; exit 2; }
a=$(realpath "$1") b=$(realpath "$2")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Copies: the two binaries get the same kind of file (and page cache).
cp "$a" "$work/A"; cp "$b" "$work/B"
work_list=${WORK:-onefile m50 m200 big fleet}

gen() { go -C bench run ./genmachine "$work/$1" "$2"; }
m50=$(gen m50 50) m200=$(gen m200 200)
case " $work_list " in *" big "*) big=$(gen big 10000) ;; *) big="" ;; esac
mkdir -p "$work/one"
python3 - "$work/one/.mcp.json" <<'PY'
import json, sys
servers = {}
for i in range(10):
    servers[f"s{i}"] = ({"command": "npx", "args": ["-y", f"@acme/s{i}@1.0.{i}"]} if i % 2 == 0
                        else {"type": "http", "url": f"https://s{i}.acme.example/mcp"})
json.dump({"mcpServers": servers}, open(sys.argv[1], "w"), indent=2)
PY
case " $work_list " in *" daemon "*) go -C bench build -o "$work/daemonbench" ./daemonbench ;; esac
case " $work_list " in *" fleet "*) python3 bench/genfleet.py "$work/fleet" "${HOSTS:-1000}" "${SERVERS:-100}" ;; esac
python3 bench/genfleet.py "$work/fleet-small" 20 30

# Same outputs: every format that has an encoder of its own.
demo=testdata/demo
same() { # name, args...
  local name=$1; shift
  [ "${CHECK:-1}" = 1 ] || return 0
  for bin in A B; do
    "$work/$bin" "$@" >"$work/out.$bin" 2>/dev/null || true
    sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z| UTC)/TIME/g; s/urn:uuid:[0-9a-f-]{36}/UUID/g' "$work/out.$bin" >"$work/norm.$bin"
  done
  if cmp -s "$work/norm.A" "$work/norm.B"; then echo "same: $name ($(wc -c <"$work/out.A") bytes)"; else echo "DIFFERENT: $name" >&2; exit 1; fi
}
for fmt in json sarif html; do
  same "demo $fmt" scan --format "$fmt" --fail-on never --home $demo/home --managed-dir $demo/managed --project $demo/project
  same "onefile $fmt" scan --format "$fmt" --fail-on never "$work/one/.mcp.json"
  # shellcheck disable=SC2086 # genmachine prints flags
  same "m200 $fmt" scan --format "$fmt" --fail-on never $m200
  [ -z "$big" ] || same "big $fmt" scan --format "$fmt" --fail-on never $big
done
# shellcheck disable=SC2086
"$work/A" scan --format json --fail-on never $m200 >"$work/fleet-small/m200.json" || true
for fmt in json sarif html; do
  same "report m200.json $fmt" report "$work/fleet-small/m200.json" --format "$fmt" --fail-on never
done
for fmt in json html csv cyclonedx; do
  same "fleet-small $fmt" report "$work/fleet-small" --format "$fmt" --fail-on never
  [ ! -d "$work/fleet" ] || same "fleet $fmt" report "$work/fleet" --format "$fmt" --fail-on never
done

python3 - "$work" "${PAIRS:-20}" "$work_list" "$m50" "$m200" "$big" <<'PY'
import os, random, statistics, subprocess, sys, time
work, pairs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
m50, m200, big = sys.argv[4].split(), sys.argv[5].split(), sys.argv[6].split()
scan = ["scan", "--format", "json", "--fail-on", "never"]
args = {"onefile": scan + [work + "/one/.mcp.json"], "m50": scan + m50, "m200": scan + m200, "big": scan + big,
        "daemon": None, "fleet": ["report", work + "/fleet", "--format", os.environ.get("FORMAT", "json"), "--fail-on", "never", "-o", work + "/fleet.out"]}
load = "import glob, json, sys\nfor f in sorted(glob.glob(sys.argv[1] + '/*.json')):\n    json.load(open(f))\n"

def daemon_cpu(bin):
    # CPU per edit of a 200-server daemon (ms), and its peak RSS (MiB).
    env = dict(os.environ, IDLE="0", EDITS="30", BURST="1")
    out = subprocess.run([work + "/daemonbench", bin], env=env, capture_output=True, text=True, check=True).stdout
    cpu = float(next(l for l in out.splitlines() if l.startswith("CPU per edit")).split()[3].rstrip("ms"))
    rss = float(next(l for l in out.splitlines() if l.startswith("peak RSS")).split()[-2])
    return cpu / 1e3, rss, cpu / 1e3

def timed(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_maxrss / 1024, ru.ru_utime + ru.ru_stime

print(f"load average {os.getloadavg()[0]:.2f} at start")
print(f"{'workload':<9}{'A ms':>9}{'B ms':>9}{'B/A':>7}{'spread':>14}{'pairs':>6}{'A MiB':>8}{'B MiB':>8}{'CPU B/A':>9}{'spread':>14}")
for name in names:
    cmd = args[name]
    ratios, cpus, ta, tb, ra, rb, py = [], [], [], [], [], [], []
    for i in range(pairs + 1):  # one warm-up pair
        order = random.sample("AB", 2)
        if name == "fleet":  # python's json.load of the same files, in the same rounds
            order.insert(random.randrange(3), "P")
        got = {}
        for who in order:
            if name == "daemon":
                got[who] = daemon_cpu(work + "/" + who)
            else:
                got[who] = timed(["python3", "-c", load, work + "/fleet"] if who == "P" else [work + "/" + who] + cmd)
        if i == 0:
            continue
        ratios.append(got["B"][0] / got["A"][0])
        cpus.append(got["B"][2] / got["A"][2])
        ta.append(got["A"][0]); tb.append(got["B"][0]); ra.append(got["A"][1]); rb.append(got["B"][1])
        if "P" in got:
            py.append(got["P"][0])
    med = statistics.median
    print(f"{name:<9}{med(ta)*1e3:>9.1f}{med(tb)*1e3:>9.1f}{med(ratios):>7.3f}{min(ratios):>7.3f}-{max(ratios):<6.3f}{pairs:>6}{med(ra):>8.1f}{med(rb):>8.1f}{med(cpus):>9.3f}{min(cpus):>7.3f}-{max(cpus):<6.3f}")
    if py:
        print(f"{'':<9}python json.load {med(py)*1e3:.1f} ms: A {med(ta)/med(py):.2f}x, B {med(tb)/med(py):.2f}x")
print(f"load average {os.getloadavg()[0]:.2f} at end")
PY
