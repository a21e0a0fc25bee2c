#!/usr/bin/env bash
# mcpguard daemon against SPEC §7 on a synthetic machine (~200 servers in 30
# files): change -> event p50/p99 over EDITS real edits, CPU while idle,
# resident memory, and the events and final state after BURST rapid writes.
#
#   bench/daemon.sh                # EDITS=100 BURST=10000 by default
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/mcpguard" ./cmd/mcpguard
go -C bench run ./daemonbench "$work/mcpguard" 2> >(grep -v '^time=' >&2)
