#!/usr/bin/env bash
# Fleet merge (issue 13, SPEC §7): HOSTS machine reports of SERVERS servers
# each (default 1,000 x 100 = 100,000 servers) merged by `mcpguard report`
# into JSON, HTML and CSV, against Python's json.load of the same files in
# the same run (target: <= 2 s and no slower than json.load), with peak
# RSS; and the HTML page's load time in headless Chromium when it is
# installed.
#
#   bench/fleet.sh            # HOSTS=1000 SERVERS=100 RUNS=3
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpguard" ./cmd/mcpguard
hosts=${HOSTS:-1000} servers=${SERVERS:-100} runs=${RUNS:-3}
python3 bench/genfleet.py "$work/reports" "$hosts" "$servers"
du -sh "$work/reports" | awk '{print "reports: " $1}'
python3 - "$work" "$runs" <<'PY'
import glob, json, resource, statistics, subprocess, sys, time
work, runs = sys.argv[1], int(sys.argv[2])
files = sorted(glob.glob(work + "/reports/*.json"))
load = "import glob, json, sys\nfor f in sorted(glob.glob(sys.argv[1] + '/reports/*.json')):\n    json.load(open(f))\n"
cases = {"python json.load": ["python3", "-c", load, work]}
for fmt in ("json", "html", "csv"):
    cases["report --format " + fmt] = [work + "/mcpguard", "report", work + "/reports", "--format", fmt, "--fail-on", "never", "-o", work + "/out." + fmt]
times = {k: [] for k in cases}
peak = {}
for _ in range(runs):
    for k, cmd in cases.items():
        t = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        _, status, ru = __import__("os").wait4(p.pid, 0)
        times[k].append(time.perf_counter() - t)
        peak[k] = max(peak.get(k, 0), ru.ru_maxrss)
        if status != 0:
            sys.exit(f"{k}: exit status {status}")
base = statistics.median(times["python json.load"])
print(f"{'case':<24}{'median s':>10}{'x json.load':>13}{'peak RSS MiB':>14}")
for k, v in times.items():
    m = statistics.median(v)
    print(f"{k:<24}{m:>10.2f}{m/base:>13.2f}{peak[k]/1024:>14.1f}")
PY
if command -v chromium >/dev/null; then
  # Open, run and paint the page (--screenshot waits for the load event:
  # the script has parsed the data and rendered the first pages), against
  # the same for an empty page in the same run: the difference is what the
  # fleet page itself costs the browser. (--dump-dom would also time
  # serialising the whole DOM back, data blocks included.)
  echo '<!doctype html><title>floor</title>' >"$work/empty.html"
  render() {
    local start end
    start=$(date +%s%N)
    timeout 300 chromium --headless=new --no-sandbox --disable-gpu --window-size=1400,1000 --screenshot="$work/shot.png" "file://$1" >/dev/null 2>&1
    end=$(date +%s%N)
    echo $(( (end - start) / 1000000 ))
  }
  floor=$(render "$work/empty.html") page=$(render "$work/out.html")
  echo "chromium: empty page ${floor} ms, fleet page ($(du -h "$work/out.html" | cut -f1)) ${page} ms: the page adds $((page - floor)) ms"
fi
