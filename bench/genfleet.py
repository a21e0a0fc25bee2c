#!/usr/bin/env python3
"""Writes HOSTS synthetic machine reports of SERVERS servers each into DIR
(host-NNNN.json), the fleet that bench/fleet.sh and bench/ab.sh merge.

    python3 bench/genfleet.py DIR HOSTS SERVERS
"""
import json, os, random, sys
out, hosts, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out)
random.seed(1)
popular = [("npx", ["-y", "@modelcontextprotocol/server-github@2025.4.8"]), ("uvx", ["mcp-server-git==0.6.2"]),
           ("npx", ["-y", "@playwright/mcp@latest"]), ("docker", ["run", "-i", "--rm", "mcp/postgres"])]
for h in range(hosts):
    srv, finds = [], []
    for i in range(per):
        sid = "s-%08x%08x" % (h, i)
        if i < len(popular):
            cmd, args = popular[i]
        else:
            cmd, args = "node", ["/home/u%d/tools/server-%d.js" % (h, i % 40)]
        remote = i % 5 == 4
        allowed = random.random() < 0.8
        fid = "f-%08x%08x" % (h, i)
        srv.append({"id": sid, "name": "server-%d" % i, "client": ["claude-code", "cursor", "vscode"][i % 3], "scope": "user",
                    "project": "", "transport": "http" if remote else "stdio", "command": "" if remote else cmd,
                    "args": [] if remote else args, "url": "https://mcp%d.example.com/mcp" % (i % 50) if remote else "",
                    "env_keys": [], "header_keys": [], "source": {"path": "/home/u%d/.claude.json" % h, "pointer": "/mcpServers/server-%d" % i, "line": 3 + i, "column": 5},
                    "status": "active" if allowed else "blocked", "decision": {"allowed": allowed, "reasons": ["ALLOWED" if allowed else "NOT_ALLOWLISTED"]},
                    "finding_ids": [fid]})
        finds.append({"id": fid, "rule": "MCPG-C002" if allowed else "MCPG-P002", "severity": "warning" if allowed else "error",
                      "category": "config" if allowed else "policy", "message": "finding %d of host %d" % (i, h), "server_id": sid,
                      "location": {"path": "/home/u%d/.claude.json" % h, "pointer": "/mcpServers/server-%d" % i, "line": 3 + i, "column": 5}})
    rep = {"schema": "mcpguard/report/v1", "tool": {"name": "mcpguard", "version": "bench"}, "generated_at": "2026-01-01T00:00:00Z",
           "host": {"hostname": "host-%04d" % h, "os": "linux", "user": "u%d" % h}, "policy": {"sources": [], "revision": "r1"},
           "servers": srv, "findings": finds, "errors": [], "sources": [],
           "summary": {"servers": per, "allowed": 0, "blocked": 0, "by_status": {}, "findings": {"error": 0, "warning": 0, "note": 0}, "errors": 0}}
    json.dump(rep, open(os.path.join(out, "host-%04d.json" % h), "w"))
