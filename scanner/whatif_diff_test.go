package scanner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestWhatIfEqualsScan is the differential test of the intended policy's
// one meaning: on generated machines — each with managed lists of its own,
// user and project allowlists, Claude Code servers of every scope and
// approval state, and servers of clients that enforce nothing — what-if's
// prediction for a saved report under a proposal (report --policy) is, for
// every server, what a scan of the same machine reports with the proposal
// as --policy: the same status, decision and reasons, and the same change
// in Claude Code. The servers spell no secret and no ${VAR}: a saved
// report holds neither (docs/report-schema.md#what-if says so).
func TestWhatIfEqualsScan(t *testing.T) {
	engine, err := policy.NewEngine(context.Background(), policy.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	machines, servers, changes := 0, 0, map[string]int{}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 45))
		root := t.TempDir()
		m := genMachine(t, rng, root)
		base := scanner.Options{Home: m.home, ManagedDir: m.managed, Project: m.project, GOOS: "linux", LookupEnv: emptyEnv, Policy: engine}
		saved := scanFor(t, base)
		withPolicy := base
		withPolicy.PolicyFiles = []string{m.intended}
		want := scanFor(t, withPolicy)

		p, err := scanner.NewProposal(scanner.ProposalOptions{Policy: engine, PolicyFiles: []string{m.intended}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Judge(context.Background(), "linux", saved.Servers)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]reports.Server{}
		for _, s := range want.Servers {
			byID[s.ID] = s
		}
		if len(want.Servers) != len(saved.Servers) {
			t.Fatalf("seed %d: %d servers with --policy, %d without", seed, len(want.Servers), len(saved.Servers))
		}
		for i, s := range saved.Servers {
			w, ok := byID[s.ID]
			if !ok {
				t.Fatalf("seed %d: server %s (%s) not in the scan with --policy", seed, s.ID, s.Name)
			}
			g := got[i]
			wantChange, _ := w.Details["intended_change"].(string)
			if g.Status != w.Status || g.Decision.Allowed != w.Decision.Allowed || !slices.Equal(g.Decision.Reasons, w.Decision.Reasons) || g.Change != wantChange {
				t.Errorf("seed %d: %s %s %q (saved %s %v):\n  what-if %s %v %v change %q\n  scan    %s %v %v change %q",
					seed, s.Client, s.Scope, s.Name, s.Status, s.Decision.Reasons,
					g.Status, g.Decision.Allowed, g.Decision.Reasons, g.Change, w.Status, w.Decision.Allowed, w.Decision.Reasons, wantChange)
			}
			if g.Judged != scanner.PolicyJudges(&s) {
				t.Errorf("seed %d: %q judged %v", seed, s.Name, g.Judged)
			}
			servers++
			changes[wantChange]++
			if s.Scope == scanner.ScopePlugin {
				changes["plugin "+string(s.Status)]++
			}
		}
		machines++
	}
	// The machines must exercise what they are for: servers the proposal
	// would block and unblock in Claude Code, and both verdicts.
	if changes["block"] == 0 || changes["unblock"] == 0 {
		t.Errorf("the generated machines change nothing in Claude Code: %v", changes)
	}
	t.Logf("%d machines, %d servers, changes %v", machines, servers, changes)
}

func scanFor(t *testing.T, opts scanner.Options) *reports.Report {
	t.Helper()
	res, err := scanner.Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("generated machine has errors: %v", res.Errors)
	}
	return runner.BuildReport(res, runner.Meta{Version: "test"}, nil)
}

type genMachineDirs struct{ home, managed, project, intended string }

// genMachine writes a random machine under root and an intended policy
// beside it, both drawn from one small pool of servers, so that list
// entries match some servers and miss others.
func genMachine(t *testing.T, rng *rand.Rand, root string) genMachineDirs {
	t.Helper()
	m := genMachineDirs{home: filepath.Join(root, "home"), managed: filepath.Join(root, "managed"),
		project: filepath.Join(root, "home", "src", "app"), intended: filepath.Join(root, "intended.json")}
	type entry struct {
		name string
		body map[string]any
	}
	pool := func(i int) entry {
		n := fmt.Sprintf("srv-%d", i)
		switch i % 4 {
		case 0:
			return entry{n, map[string]any{"command": "npx", "args": []string{"-y", fmt.Sprintf("@acme/pkg-%d@1.0.%d", i, i)}}}
		case 1:
			return entry{n, map[string]any{"command": "uvx", "args": []string{fmt.Sprintf("tool-%d==0.%d", i, i)}}}
		case 2:
			return entry{n, map[string]any{"type": "http", "url": fmt.Sprintf("https://mcp%d.acme.example/mcp", i)}}
		}
		return entry{n, map[string]any{"type": "sse", "url": fmt.Sprintf("https://sse%d.other.example/sse", i)}}
	}
	const poolSize = 12
	pick := func(k int) map[string]any {
		out := map[string]any{}
		for range k {
			e := pool(rng.IntN(poolSize))
			out[e.name] = e.body
		}
		return out
	}
	listEntry := func() map[string]any {
		e := pool(rng.IntN(poolSize))
		switch rng.IntN(3) {
		case 0:
			return map[string]any{"serverName": e.name}
		case 1:
			if cmd, ok := e.body["command"].(string); ok {
				return map[string]any{"serverCommand": append([]string{cmd}, e.body["args"].([]string)...)}
			}
		}
		if u, ok := e.body["url"].(string); ok {
			return map[string]any{"serverUrl": u}
		}
		return map[string]any{"serverName": e.name}
	}
	lists := func() map[string]any {
		doc := map[string]any{}
		if rng.IntN(3) > 0 {
			var allow []any
			for range rng.IntN(6) {
				allow = append(allow, listEntry())
			}
			doc["allowedMcpServers"] = append([]any{}, allow...)
		}
		if rng.IntN(2) == 0 {
			var deny []any
			for range 1 + rng.IntN(3) {
				deny = append(deny, listEntry())
			}
			doc["deniedMcpServers"] = deny
		}
		return doc
	}
	names := func(servers map[string]any) []string {
		var out []string
		for n := range servers {
			if rng.IntN(2) == 0 {
				out = append(out, n)
			}
		}
		slices.Sort(out)
		return out
	}
	projectServers := pick(1 + rng.IntN(4))
	project := map[string]any{
		"mcpServers":             pick(rng.IntN(3)),
		"enabledMcpjsonServers":  names(projectServers),
		"disabledMcpjsonServers": []string{},
		"disabledMcpServers":     names(pick(2)),
	}
	writeJSON(t, filepath.Join(m.home, ".claude.json"), map[string]any{
		"mcpServers": pick(1 + rng.IntN(5)),
		"projects":   map[string]any{m.project: project},
	})
	writeJSON(t, filepath.Join(m.project, ".mcp.json"), map[string]any{"mcpServers": projectServers})
	settings := map[string]any{}
	if rng.IntN(2) == 0 {
		settings = lists()
	}
	if rng.IntN(3) > 0 {
		// A plugin whose servers may duplicate the user's (Claude Code then
		// drops the plugin's as suppressed).
		plugins := filepath.Join(m.home, ".claude", "plugins")
		install := filepath.Join(plugins, "cache", "mkt", "pa", "1.0.0")
		writeJSON(t, filepath.Join(install, ".claude-plugin", "plugin.json"), map[string]any{"name": "pa", "version": "1.0.0", "mcpServers": pick(1 + rng.IntN(3))})
		writeJSON(t, filepath.Join(plugins, "marketplaces", "mkt", ".claude-plugin", "marketplace.json"),
			map[string]any{"name": "mkt", "owner": map[string]any{"name": "acme"}, "plugins": []any{map[string]any{"name": "pa", "source": "./pa"}}})
		writeJSON(t, filepath.Join(plugins, "known_marketplaces.json"), map[string]any{"mkt": map[string]any{
			"source": map[string]any{"source": "github", "repo": "acme/mkt"}, "installLocation": filepath.Join(plugins, "marketplaces", "mkt")}})
		writeJSON(t, filepath.Join(plugins, "installed_plugins.json"), map[string]any{"version": 2, "plugins": map[string]any{
			"pa@mkt": []any{map[string]any{"scope": "user", "installPath": install, "version": "1.0.0"}}}})
		settings["enabledPlugins"] = map[string]any{"pa@mkt": true}
	}
	if len(settings) > 0 {
		writeJSON(t, filepath.Join(m.home, ".claude", "settings.json"), settings)
	}
	writeJSON(t, filepath.Join(m.home, ".cursor", "mcp.json"), map[string]any{"mcpServers": pick(1 + rng.IntN(3))})
	writeJSON(t, filepath.Join(m.project, ".cursor", "mcp.json"), map[string]any{"mcpServers": pick(rng.IntN(2))})
	writeJSON(t, filepath.Join(m.home, ".gemini", "settings.json"), map[string]any{"mcpServers": pick(rng.IntN(3))})
	if err := os.MkdirAll(m.managed, 0o755); err != nil {
		t.Fatal(err)
	}
	if rng.IntN(4) > 0 {
		writeJSON(t, filepath.Join(m.managed, "managed-settings.json"), lists())
	}
	intended := lists()
	if _, ok := intended["allowedMcpServers"]; !ok {
		intended["deniedMcpServers"] = []any{listEntry(), listEntry()}
	}
	writeJSON(t, m.intended, intended)
	return m
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "${") {
		t.Fatalf("%s: a generated file spells a variable", path)
	}
}
