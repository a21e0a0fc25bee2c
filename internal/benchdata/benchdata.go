// Package benchdata builds the inputs of the benchmarks: synthetic machines
// (a home with Claude Code user and local scopes, several projects and other
// clients' files, sized like the SPEC §7 targets: 200 servers in 30 files),
// and large tools/list results made of the tool lists captured from popular
// MCP servers (toolcheck/testdata/tools/real).
package benchdata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteMachine writes a realistic machine with 1.1 n servers (22 blocks of
// n/20) spread over 30 files: ~/.claude.json with user and local scopes for
// several projects, each project's .mcp.json and settings, and the other
// clients' user files. n=200 writes 220 servers, n=10000 writes 11,000.
func WriteMachine(root string, n int) (home, managedDir, project string, err error) {
	home = filepath.Join(root, "home")
	managedDir = filepath.Join(root, "managed")
	files := map[string]string{}
	entry := func(i int) string {
		switch i % 4 {
		case 0:
			return fmt.Sprintf(`{"command": "npx", "args": ["-y", "@acme/server-%d@1.2.%d", "--root", "/srv/data/%d"], "env": {"LOG_LEVEL": "info", "TOKEN": "${ACME_TOKEN_%d}"}}`, i, i, i, i)
		case 1:
			return fmt.Sprintf(`{"type": "http", "url": "https://mcp%d.acme.example/mcp", "headers": {"Authorization": "Bearer ${ACME_TOKEN}"}}`, i)
		case 2:
			return fmt.Sprintf(`{"command": "uvx", "args": ["acme-tool-%d==0.%d.0"]}`, i, i)
		}
		return fmt.Sprintf(`{"type": "sse", "url": "https://sse%d.acme.example/sse"}`, i)
	}
	servers := func(from, count int) string {
		var parts []string
		for i := from; i < from+count; i++ {
			parts = append(parts, fmt.Sprintf("    %q: %s", fmt.Sprintf("srv-%d", i), entry(i)))
		}
		return "{\n" + strings.Join(parts, ",\n") + "\n  }"
	}
	// 30 files: .claude.json, 8 projects x (.mcp.json + settings.json + settings.local.json)
	// = 24, plus 5 other clients.
	const projects = 8
	per := n / 20 // blocks: .claude.json user + 8 locals + 8 .mcp.json + 5 clients = 22
	var locals []string
	next := 0
	take := func() int { from := next; next += per; return from }
	userFrom := take()
	for p := 0; p < projects; p++ {
		dir := filepath.Join(root, "src", fmt.Sprintf("app%d", p))
		if p == 0 {
			project = dir
		}
		locals = append(locals, fmt.Sprintf("    %q: {\"hasTrustDialogAccepted\": %v, \"mcpServers\": %s}", dir, p%2 == 0, servers(take(), per)))
		files[filepath.Join(dir, ".mcp.json")] = "{\n  \"mcpServers\": " + servers(take(), per) + "\n}\n"
		files[filepath.Join(dir, ".claude", "settings.json")] = `{"enabledMcpjsonServers": ["srv-1", "srv-2"], "permissions": {"allow": ["Bash(ls:*)"]}}`
		files[filepath.Join(dir, ".claude", "settings.local.json")] = `{"enableAllProjectMcpServers": true}`
	}
	files[filepath.Join(home, ".claude.json")] = "{\n  \"numStartups\": 100,\n  \"mcpServers\": " + servers(userFrom, per) +
		",\n  \"projects\": {\n" + strings.Join(locals, ",\n") + "\n  }\n}\n"
	for _, rel := range []string{".cursor/mcp.json", ".codeium/windsurf/mcp_config.json", ".config/Claude/claude_desktop_config.json", ".gemini/settings.json", ".kiro/settings/mcp.json"} {
		files[filepath.Join(home, rel)] = "{\n  \"mcpServers\": " + servers(take(), per) + "\n}\n"
	}
	files[filepath.Join(managedDir, "managed-settings.json")] = `{"deniedMcpServers": [{"serverName": "srv-3"}]}`
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", "", "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", "", "", err
		}
	}
	return home, managedDir, project, nil
}

// RealListing returns a tools/list result ({"tools": [...]}) of at least
// size bytes shaped like one real large listing: the tools of the captured
// lists in dir (files holding a JSON-RPC response), whole servers in file
// name order, each tool as captured (its members in their order) and never
// repeated or renamed, so that a text naming a sibling tool names a tool of
// the listing. A tool whose name an earlier server used is left out (one
// listing does not hold two tools of one name). It fails if dir holds less
// than size.
func RealListing(dir string, size int) ([]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var tools []json.RawMessage
	seen := map[string]bool{}
	n := 0
	for _, f := range files {
		if n >= size {
			break
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Result struct {
				Tools []json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, raw := range doc.Result.Tools {
			var t struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &t); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			var c bytes.Buffer
			if err := json.Compact(&c, raw); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			tools = append(tools, c.Bytes())
			n += c.Len() + 1
		}
	}
	if n < size {
		return nil, fmt.Errorf("the lists of %s hold %d bytes of tools, want %d", dir, n, size)
	}
	return json.Marshal(map[string]any{"tools": tools})
}

// RealToolList returns a tools/list result ({"tools": [...]}) of at least size
// bytes made of the tools of every captured list in dir (files holding a
// JSON-RPC response), repeated as often as needed; copies are renamed
// (name_N) so that every name is unique, as on one large server.
func RealToolList(dir string, size int) ([]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no captured tool lists in %s", dir)
	}
	var pool []map[string]any
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Result struct {
				Tools []map[string]any `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		pool = append(pool, doc.Result.Tools...)
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("no tools in the lists of %s", dir)
	}
	var tools []any
	seen, next := map[string]bool{}, map[string]int{}
	for n := 0; n < size; {
		for _, t := range pool {
			c := make(map[string]any, len(t))
			for k, v := range t {
				c[k] = v
			}
			// Two servers may have a tool of the same name (github and
			// gitlab do): number each name's copies apart.
			base := fmt.Sprint(t["name"])
			name := ""
			for name == "" || seen[name] {
				name = fmt.Sprintf("%s_%d", base, next[base])
				next[base]++
			}
			seen[name] = true
			c["name"] = name
			b, err := json.Marshal(c)
			if err != nil {
				return nil, err
			}
			n += len(b) + 1
			tools = append(tools, c)
		}
	}
	return json.Marshal(map[string]any{"tools": tools})
}
