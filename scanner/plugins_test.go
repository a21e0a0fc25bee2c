package scanner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/oracle"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// loadOracleCase lays out one case of the oracle corpus and returns the
// options that scan it with the shipped policies.
func loadOracleCase(t *testing.T, name string) scanner.Options {
	t.Helper()
	c, err := oracle.LoadCase(filepath.Join("..", "testdata", "oracle", "cases", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	opts := layoutCase(t, c)
	opts.Policy = testEngine(t)
	return opts
}

func pluginServers(res *scanner.Result) []*scanner.Server {
	var out []*scanner.Server
	for _, s := range res.Servers {
		if s.Scope == scanner.ScopePlugin {
			out = append(out, s)
		}
	}
	return out
}

// TestPluginFileErrors: a malformed installed_plugins.json is an error at
// the offending value (path:line:col), and no plugin server is reported as
// loading from it, as Claude Code loads none.
func TestPluginFileErrors(t *testing.T) {
	cases := []struct {
		name, data, msg string
		line, col       int
	}{
		{"syntax", "{\"version\": 2, \"plugins\": {\n  \"pa@mkt\": [\n", "", 3, 1},
		{"not an object", `[]`, "must hold a JSON object", 1, 1},
		{"no version", `{"plugins": {}}`, `"version" must be 1 or 2`, 1, 1},
		{"version 3", `{"version": 3, "plugins": {}}`, `"version" must be 1 or 2`, 1, 13},
		{"plugins not an object", `{"version": 2, "plugins": []}`, `"plugins" must be an object`, 1, 27},
		{"records not an array", `{"version": 2, "plugins": {"pa@mkt": {}}}`, "must be an array", 1, 38},
		{"record a string", "{\"version\": 2, \"plugins\": {\"pa@mkt\": [\n  \"bogus\"]}}", "record 0 of \"pa@mkt\" is malformed: not an object", 2, 3},
		{"no installPath", `{"version": 2, "plugins": {"pa@mkt": [{"scope": "user"}]}}`, `no "installPath" string`, 1, 39},
		{"bad scope", `{"version": 2, "plugins": {"pa@mkt": [{"scope": "global", "installPath": "/x"}]}}`, `scope "global"`, 1, 39},
		{"version 1 without installedAt", `{"version": 1, "plugins": {"pa@mkt": {"installPath": "/x", "version": "1"}}}`, `no "installedAt" string`, 1, 38},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := loadOracleCase(t, "1203-02-record-project-scope-cwd")
			path := filepath.Join(opts.Home, ".claude", "plugins", "installed_plugins.json")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := scanner.Scan(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := pluginServers(res); len(got) != 0 {
				t.Errorf("plugin servers from a malformed file: %v", got[0].Name)
			}
			for _, e := range res.Errors {
				if e.Path == path && e.Line == tc.line && e.Column == tc.col && strings.Contains(e.Message, tc.msg) {
					return
				}
			}
			t.Errorf("no error %s:%d:%d %q; have %+v", path, tc.line, tc.col, tc.msg, res.Errors)
		})
	}
}

// TestPluginBadKeySkipsOnlyThatKey: a key that is not plugin@marketplace is
// an error of its own, and the other plugins still load (observed, 1206-10).
func TestPluginBadKeySkipsOnlyThatKey(t *testing.T) {
	opts := loadOracleCase(t, "1206-10-bad-plugin-key")
	res, err := scanner.Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, `"bogus" is not plugin@marketplace`) || res.Errors[0].Line == 0 {
		t.Errorf("errors = %+v", res.Errors)
	}
	if got := pluginServers(res); len(got) != 1 || got[0].Status != reports.StatusActive {
		t.Errorf("plugin servers = %v", got)
	}
}

// TestMarketplaceBlockSource: a plugin server the managed marketplace policy
// keeps off names the blocking entry as its decision's source, with the
// finding there.
func TestMarketplaceBlockSource(t *testing.T) {
	for _, tc := range []struct {
		name, rule, key, entry string
		line                   int
	}{
		{"1204-01-blocked-github", "MCPG-P001", "blockedMarketplaces", `{"repo":"acme/mkt","source":"github"}`, 3},
		{"1204-05-strict-lists-one", "MCPG-P002", "strictKnownMarketplaces", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := loadOracleCase(t, tc.name)
			res, err := scanner.Scan(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			var blocked *scanner.Server
			for _, s := range pluginServers(res) {
				if s.Status == reports.StatusBlocked {
					blocked = s
				}
			}
			if blocked == nil {
				t.Fatal("no blocked plugin server")
			}
			pol, _ := blocked.Details["marketplace_policy"].(map[string]any)
			settings := filepath.Join(opts.ManagedDir, "managed-settings.json")
			if pol["path"] != settings || pol["line"] != tc.line || pol["key"] != tc.key {
				t.Errorf("marketplace_policy = %v", pol)
			}
			if tc.entry != "" && pol["entry"] != tc.entry {
				t.Errorf("entry = %v, want %s", pol["entry"], tc.entry)
			}
			found := false
			for _, f := range res.Findings {
				if f.Rule == tc.rule && f.ServerID == blocked.ID {
					found = true
					if f.Location.Path != settings || f.Location.Line != tc.line {
						t.Errorf("finding at %+v", f.Location)
					}
				}
			}
			if !found {
				t.Errorf("no %s finding for %s", tc.rule, blocked.Name)
			}
		})
	}
}

// TestMarketplaceListIssues: lists Claude Code drops are P003 findings at
// the value, saying which way they fail.
func TestMarketplaceListIssues(t *testing.T) {
	for _, tc := range []struct{ name, effect string }{
		{"1204-13-blocked-not-an-array", "fail-open"},
		{"1204-17-strict-not-an-array", "fail-closed"},
		{"1204-18-blocked-invalid-entry", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := scanner.Scan(context.Background(), loadOracleCase(t, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				if f.Rule == "MCPG-P003" && f.Location.Line > 0 && (tc.effect == "" || f.Evidence["effect"] == tc.effect) {
					return
				}
			}
			t.Errorf("no P003 finding (%s)", tc.effect)
		})
	}
}

// FuzzPluginFiles feeds arbitrary bytes to the plugin files (which: 0
// installed_plugins.json, 1 known_marketplaces.json, 2 the marketplace's
// marketplace.json, 3 managed-settings.json with its marketplace lists).
// The property: no panic, every server has a status and an id, every error
// names a path and a message.
func FuzzPluginFiles(f *testing.F) {
	seeds := []string{
		`{"version":2,"plugins":{"pa@mkt":[{"scope":"local","projectPath":"/elsewhere","installPath":"/x"},{"scope":"user","installPath":"/y"}]}}`,
		`{"version":1,"plugins":{"pa@mkt":{"installPath":"/x","version":"1","installedAt":"t"}}}`,
		`{"mkt":{"source":{"source":"git","url":"git@github.com:acme/mkt.git"},"installLocation":"/m"}}`,
		`{"name":"mkt","plugins":[{"name":"pa"},{"name":7}]}`,
		`{"blockedMarketplaces":[{"source":"hostPattern","hostPattern":"(["},{"source":"github","repo":"acme/*"}],"strictKnownMarketplaces":{"x":1}}`,
		`{"allowedMarketplaces":[{"source":"url","url":"%zz://"}],"enabledPlugins":{"pa@mkt":true}}`,
		`{`, `[]`, ``,
	}
	for _, s := range seeds {
		for which := uint8(0); which < 4; which++ {
			f.Add([]byte(s), which)
		}
	}
	c, err := oracle.LoadCase(filepath.Join("..", "testdata", "oracle", "cases", "1204-01-blocked-github.txtar"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		opts := layoutCase(t, c)
		plugins := filepath.Join(opts.Home, ".claude", "plugins")
		targets := []string{
			filepath.Join(plugins, "installed_plugins.json"),
			filepath.Join(plugins, "known_marketplaces.json"),
			filepath.Join(plugins, "marketplaces", "mkt", ".claude-plugin", "marketplace.json"),
			filepath.Join(opts.ManagedDir, "managed-settings.json"),
		}
		writeAbs(t, targets[int(which)%len(targets)], string(data))
		res, err := scanner.Scan(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Servers {
			if s.Status == "" || s.ID == "" {
				t.Fatalf("server without status or id: %+v", s)
			}
		}
		for _, e := range res.Errors {
			if e.Path == "" || e.Message == "" {
				t.Fatalf("error without path or message: %+v", e)
			}
		}
	})
}

// TestUnloadablePlugins: an enabled plugin Claude Code cannot load (its
// marketplace unknown, without an install location, not listing it, or a
// marketplace.json without a plugins array) is never silent: a C006 finding
// at its installed_plugins.json key, and an error at a malformed file.
func TestUnloadablePlugins(t *testing.T) {
	cases := []struct {
		name, file, data, errAt string
	}{
		{"unknown marketplace", "known_marketplaces.json", `{}`, ""},
		{"no install location", "known_marketplaces.json", `{"mkt": {"source": {"source": "github", "repo": "acme/mkt"}}}`, "known_marketplaces.json"},
		{"not listed", "marketplaces/mkt/.claude-plugin/marketplace.json", `{"name": "mkt", "plugins": [{"name": "other"}]}`, ""},
		{"plugins not an array", "marketplaces/mkt/.claude-plugin/marketplace.json", `{"name": "mkt", "plugins": {"pa": {}}}`, "marketplace.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := loadOracleCase(t, "1203-02-record-project-scope-cwd")
			path := filepath.Join(opts.Home, ".claude", "plugins", filepath.FromSlash(tc.file))
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := scanner.Scan(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(pluginServers(res)) != 0 {
				t.Error("servers of a plugin Claude Code cannot load")
			}
			found := false
			for _, f := range res.Findings {
				found = found || f.Rule == "MCPG-C006" && strings.Contains(f.Message, `enabled plugin "pa@mkt" loads nothing`) &&
					strings.HasSuffix(f.Location.Path, "installed_plugins.json") && f.Location.Line > 0
			}
			if !found {
				t.Errorf("no C006 finding; findings %+v", res.Findings)
			}
			if tc.errAt != "" {
				ok := false
				for _, e := range res.Errors {
					ok = ok || strings.HasSuffix(e.Path, tc.errAt) && e.Line > 0
				}
				if !ok {
					t.Errorf("no error at %s: %+v", tc.errAt, res.Errors)
				}
			}
		})
	}
}

// TestPluginOfAnotherProject: in a machine scan, a plugin installed only
// for another project that ~/.claude.json knows is reported with that
// project (where it loads), and not for the main project (where it does
// not).
func TestPluginOfAnotherProject(t *testing.T) {
	opts := loadOracleCase(t, "1203-03-record-local-scope-cwd") // local record for <root>/project
	other := opts.Project
	main := filepath.Join(filepath.Dir(other), "main")
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	writeAbs(t, filepath.Join(opts.Home, ".claude.json"), `{"projects": {"`+other+`": {}, "`+main+`": {}}}`)
	opts.Project = main
	res, err := scanner.Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	got := pluginServers(res)
	if len(got) != 1 || got[0].Project != other || got[0].Status != reports.StatusActive || got[0].Name != "plugin:pa:s1" {
		for _, s := range got {
			t.Logf("%s project=%q %s", s.Name, s.Project, s.Status)
		}
		t.Fatalf("want plugin:pa:s1 active for %s only", other)
	}
	// The same plugin installed for the user as well loads in the main
	// project: reported once, machine-wide.
	writeAbs(t, filepath.Join(opts.Home, ".claude", "plugins", "installed_plugins.json"), `{"version": 2, "plugins": {"pa@mkt": [
  {"scope": "user", "installPath": "`+filepath.Join(opts.Home, ".claude", "plugins", "cache", "mkt", "pa", "1.0.0")+`"}]}}`)
	res, err = scanner.Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := pluginServers(res); len(got) != 1 || got[0].Project != "" || got[0].Status != reports.StatusActive {
		t.Fatalf("a user-installed plugin: %d servers, first %+v", len(got), got)
	}
}
