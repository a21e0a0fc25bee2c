package scanner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/urlmatch"
	"github.com/mcpguard/mcpguard/policy"
)

// TestServerInputMatchesMaps: the input serverInput builds field by field
// (policy.Object) is the value the Go maps it replaced convert to, for every
// server of the demo, of the client goldens' machines and of a generated
// machine, wrapped servers and expanded variables included; and so is
// each made in turn in one arena.
func TestServerInputMatchesMaps(t *testing.T) {
	demo, _ := filepath.Abs("../testdata/demo")
	home, managedDir, project, err := benchdata.WriteMachine(t.TempDir(), 200)
	if err != nil {
		t.Fatal(err)
	}
	machines := []Options{
		{Home: filepath.Join(demo, "home"), ManagedDir: filepath.Join(demo, "managed"), Project: filepath.Join(demo, "project")},
		{Home: home, ManagedDir: managedDir, Project: project},
	}
	// Wrapped servers, expanded variables, secrets in every field.
	wrapped := t.TempDir()
	if err := os.MkdirAll(filepath.Join(wrapped, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	claudeJSON := `{"mcpServers": {
		"gh": {"command": "/usr/local/bin/mcpguard", "args": ["proxy", "--name", "gh", "--", "npx", "-y", "@acme/gh@1.2.3", "--token", "ghp_aaaaBBBBccccDDDDeeeeFFFFgggg1234hhhh"],
			"env": {"GITHUB_TOKEN": "${API_TOKEN}", "NODE_OPTIONS": "--require x"}},
		"shell": {"command": "/usr/local/bin/mcpguard", "args": ["proxy", "--", "cmd", "/c", "npx", "-y", "pkg"]},
		"remote": {"type": "http", "url": "https://user:pw@mcp.acme.example:8443/mcp?api_key=abc123def456ghi789", "headers": {"Authorization": "Bearer ${API_TOKEN}"}},
		"local": {"type": "sse", "url": "http://[::1]:9000/sse"},
		"vars": {"command": "${HOME}/bin/tool", "args": ["--root", "${MISSING:-/srv}"]}
	}}`
	if err := os.WriteFile(filepath.Join(wrapped, "home", ".claude.json"), []byte(claudeJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	machines = append(machines, Options{Home: filepath.Join(wrapped, "home"), ManagedDir: filepath.Join(wrapped, "managed"), Project: filepath.Join(wrapped, "project")})
	clients, _ := filepath.Glob("testdata/clients/*/home")
	for _, h := range clients {
		machines = append(machines, Options{Home: h, ManagedDir: filepath.Join(filepath.Dir(h), "managed"), Project: filepath.Join(filepath.Dir(h), "project")})
	}
	sc := &scan{}
	arena := new(policy.InputArena) // every input in turn
	n := 0
	for _, m := range machines {
		m.LookupEnv = func(k string) (string, bool) {
			return map[string]string{"HOME": "/home/dev", "API_TOKEN": "t"}[k], k == "HOME" || k == "API_TOKEN"
		}
		m.GOOS = "linux"
		res, err := Scan(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Servers {
			views := []*Server{s}
			if s.wrapper != nil {
				views = append(views, s.wrapperView())
			}
			for _, v := range views {
				want, err := policy.NewValue(sc.serverInputRef(v))
				if err != nil {
					t.Fatal(err)
				}
				if got := sc.serverInput(nil, v); !got.Equal(want) {
					t.Errorf("%s %q: input\n%s\nwant\n%s", m.Home, v.Name, got, want)
				}
				arena.Reset()
				if got := sc.serverInput(arena, v); !got.Equal(want) {
					t.Errorf("%s %q: input made in an arena\n%s\nwant\n%s", m.Home, v.Name, got, want)
				}
				n++
			}
		}
	}
	if n < 250 {
		t.Fatalf("compared %d inputs, want the machines' 250 or more", n)
	}
}

// The input of a server as it was built before policy.Object: Go maps that
// policy.NewValue converts.
func (sc *scan) serverInputRef(s *Server) map[string]any {
	args := make([]any, len(s.Args))
	for i, a := range s.Args {
		args[i] = a
	}
	in := map[string]any{
		"name": s.Name, "client": s.Client, "scope": s.Scope, "project": s.Project,
		"transport": s.Transport, "type": s.Type, "command": s.Command, "args": args, "url": s.URL,
		"env_keys": strsRef(s.EnvKeys), "header_keys": strsRef(s.HeaderKeys),
		"source": locMap(s.Source), "status": string(s.Status),
		"enforced":   s.Client == ClientClaudeCode,
		"wrapped_by": nil,
	}
	if s.wrapper != nil {
		// The server runs through mcpguard proxy; command and args above are the
		// wrapped command line.
		in["wrapped_by"] = map[string]any{"command": s.wrapper[0], "args": strsRef(s.wrapper[1 : len(s.wrapper)-1])}
	}
	label, _ := s.Details["claude_scope"].(string)
	claude := map[string]any{"label": label, "argv": strsRef(s.Argv()), "url": s.URL, "has_var": false, "builtin": s.Scope == ScopeIDE}
	claude["argv_keys"] = []any{policy.ArgvKey(s.Argv())}
	claude["urls"] = []any{s.URL}
	if s.Expanded != nil {
		claude["argv"] = strsRef(append([]string{s.Expanded.Command}, s.Expanded.Args...))
		claude["url"] = s.Expanded.URL
		claude["has_var"] = s.Expanded.HasVar
		var keys, urls []any
		for _, f := range s.Expanded.ArgvForms() {
			keys = append(keys, policy.ArgvKey(f))
		}
		for _, u := range s.Expanded.URLForms() {
			urls = append(urls, u)
		}
		claude["argv_keys"], claude["urls"] = keys, urls
	}
	in["claude"] = claude
	in["facts"] = sc.factsRef(s)
	return in
}

func strsRef(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

// factsRef is facts as Go maps.
func (sc *scan) factsRef(s *Server) map[string]any {
	var found []any
	add := func(field, key string, index int, kind string) {
		found = append(found, map[string]any{"field": field, "key": key, "index": index, "kind": kind})
	}
	sc.secretFacts(s, add)
	facts := map[string]any{"secrets": emptyIfNil(found), "url": urlFactsRef(s.URL)}
	prog, progArgs := program(s)
	facts["program"], facts["program_args"] = prog, strsRef(progArgs)
	var varKeys []any
	for _, k := range s.EnvKeys {
		if interp.HasRef(s.Dialect, s.Env[k]) {
			varKeys = append(varKeys, k)
		}
	}
	facts["env_var_keys"] = emptyIfNil(varKeys)
	return facts
}

// urlFactsRef is urlFacts as a Go map.
func urlFactsRef(raw string) map[string]any {
	if raw == "" {
		return map[string]any{"parsed": false}
	}
	u, err := urlmatch.Parse(raw)
	if err != nil {
		return map[string]any{"parsed": false}
	}
	host := strings.Trim(u.Hostname, "[]")
	return map[string]any{"parsed": true, "scheme": u.Scheme, "host": host, "port": u.Port, "loopback": isLoopback(host)}
}
