#!/usr/bin/env bash
# scan --introspect against SPEC §7: 10 local stdio servers in at most the
# slowest one's time + 200 ms. The servers (bench/mcpserver) take 50 ms to
# 500 ms to start; the floor is the same scan of the slowest server alone,
# measured interleaved in the same run (RUNS each, medians).
#
#   bench/introspect.sh            # RUNS=15 by default
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpguard" ./cmd/mcpguard
go -C bench build -o "$work/mcpserver" ./mcpserver
mkdir -p "$work/managed" "$work/one/.cursor" "$work/ten/.cursor"
server() { printf '"s%s": {"command": "%s", "args": ["-delay", "%sms"]}' "$1" "$work/mcpserver" "$2"; }
{
	printf '{"mcpServers": {'
	server 10 500
	printf '}}\n'
} >"$work/one/.cursor/mcp.json"
{
	printf '{"mcpServers": {'
	for i in 1 2 3 4 5 6 7 8 9; do server "$i" $((i * 50)); printf ', '; done
	server 10 500
	printf '}}\n'
} >"$work/ten/.cursor/mcp.json"
scan() { # home
	local t0 t1
	t0=$(date +%s%N)
	"$work/mcpguard" scan --introspect --format json --fail-on never \
		--home "$1" --managed-dir "$work/managed" --project "$work" >"$work/out.json"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}
check() { # expected ok count
	local ok
	ok=$(grep -Eo '"status": ?"ok"' "$work/out.json" | wc -l)
	[ "$ok" -eq "$1" ] || { echo "want $1 servers introspected, got $ok" >&2; exit 1; }
}
one=() ten=()
for _ in $(seq "$runs"); do
	one+=("$(scan "$work/one")"); check 1
	ten+=("$(scan "$work/ten")"); check 10
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
m1=$(median "${one[@]}") m10=$(median "${ten[@]}")
awk -v a="$m1" -v b="$m10" 'BEGIN {
	printf "slowest server alone: %.1f ms (median)\n10 servers:           %.1f ms (median)\n", a/1000, b/1000
	printf "added by the other 9: %.1f ms (target <= 200 ms) = %.2fx the 200 ms budget\n", (b-a)/1000, (b-a)/1000/200
}'
