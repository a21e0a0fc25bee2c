package policy

import (
	"context"
	"fmt"
	"testing"
)

// benchContext is a realistic project policy: a managed allowlist with every
// entry kind, a denylist, and user-level additions.
func benchContext(b testing.TB) Value {
	entry := func(kind, v string) map[string]any {
		m := map[string]any{"key": kind, "source": map[string]any{"path": "/etc/claude-code/managed-settings.json", "pointer": "/allowedMcpServers/0", "line": 3, "column": 5, "kind": "managed-settings"}, "unsafe": false}
		switch kind {
		case "serverName":
			m["name"] = v
		case "serverCommand":
			m["command"] = []any{"npx", "-y", v}
			m["raw"] = "npx -y " + v
		case "serverUrl":
			m["url"], m["raw"] = v, v
		}
		return m
	}
	allow := []any{entry("serverName", "docs"), entry("serverCommand", "@acme/fs@1.2.3"), entry("serverUrl", "https://*.acme.example/*"), entry("serverUrl", "https://api.githubcopilot.com/*")}
	deny := []any{entry("serverName", "evil"), entry("serverCommand", "bad"), entry("serverUrl", "https://mcp.badvendor.example/*")}
	v, err := NewValue(map[string]any{"os": "linux", "project": "/p", "claude": map[string]any{
		"allow": IndexList(allow), "deny": IndexList(deny), "allow_org": IndexList(allow), "deny_org": IndexList(deny), "managed_only": map[string]any{"on": false},
		"documents": []any{}, "issues": []any{}, "broken": []any{}, "managed_mcp": nil, "strict_plugin_only": false,
	}})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// benchServerValues is benchServers as input values.
func benchServerValues(tb testing.TB, n int) []Value {
	var vals []Value
	for _, s := range benchServers(n) {
		v, err := NewValue(s)
		if err != nil {
			tb.Fatal(err)
		}
		vals = append(vals, v)
	}
	return vals
}

func benchServers(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		s := map[string]any{"name": fmt.Sprintf("srv-%d", i), "client": "claude-code", "scope": "user", "project": "", "type": "",
			"env_keys": []any{"LOG_LEVEL"}, "header_keys": []any{}, "status": "active", "enforced": true,
			"source": map[string]any{"path": "/home/dev/.claude.json", "pointer": "/mcpServers/x", "line": 3, "column": 5},
			"facts":  map[string]any{"secrets": []any{}, "url": map[string]any{"parsed": false}, "env_var_keys": []any{}, "program": "", "program_args": []any{}}}
		if i%2 == 0 {
			argv := []any{"npx", "-y", fmt.Sprintf("@acme/server-%d@1.0.%d", i, i)}
			s["transport"], s["command"], s["args"], s["url"] = "stdio", "npx", argv[1:], ""
			s["claude"] = map[string]any{"label": "user", "argv": argv, "argv_keys": []any{ArgvKey(argv)}, "url": "", "urls": []any{""}, "has_var": false, "builtin": false}
			f := s["facts"].(map[string]any)
			f["program"], f["program_args"] = "npx", argv[1:]
		} else {
			u := fmt.Sprintf("https://mcp%d.acme.example/mcp", i)
			s["transport"], s["command"], s["args"], s["url"] = "http", "", []any{}, u
			s["facts"].(map[string]any)["url"] = map[string]any{"parsed": true, "scheme": "https", "host": "mcp.acme.example", "port": "", "loopback": false}
			s["claude"] = map[string]any{"label": "user", "argv": []any{""}, "argv_keys": []any{`[""]`}, "url": u, "urls": []any{u}, "has_var": false, "builtin": false}
		}
		out[i] = s
	}
	return out
}

// BenchmarkEvalServer is one server through every shipped server rule, as a
// scan evaluates it (SPEC §7's per-server target is measured against a naive
// evaluation in the same run by bench/scan.sh).
func BenchmarkEvalServer(b *testing.B) {
	b.Run("plan", func(b *testing.B) { benchEvalServer(b, EngineOptions{}) })
	b.Run("topdown", func(b *testing.B) { benchEvalServer(b, EngineOptions{Topdown: true}) })
}

// benchEvalServer evaluates the benchmark's servers in turn: through the
// shipped plan (the default engine) or through topdown (from the sources,
// the reference the plan is held to).
func benchEvalServer(b *testing.B, opts EngineOptions) {
	e, err := NewEngine(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx := benchContext(b)
	vals := benchServerValues(b, 64)
	if e.plan != nil {
		// As the scanner makes them (policy.Object), for the plan to read.
		for i := range vals {
			vals[i] = asRecords(vals[i])
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := e.EvalServer(context.Background(), vals[i%len(vals)], ctx); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkNewEngine is the compile cost every command that evaluates policy pays once.
func BenchmarkNewEngine(b *testing.B) {
	for b.Loop() {
		if _, err := NewEngine(context.Background(), EngineOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBindShippedPlan is what an engine does before its first
// evaluation: decode the shipped plan, check it and bind its built-ins.
func BenchmarkBindShippedPlan(b *testing.B) {
	bs := builtins()
	for b.Loop() {
		if _, err := bindShippedPlan(bs); err != nil {
			b.Fatal(err)
		}
	}
}
