package scanner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/oracle"
)

// TestRedteamProjectPathSpelling: Claude Code 2.1.332 applies a local or
// project install record only when its projectPath is spelled exactly as
// the working directory. Recorded with ../shared/tools/claude-code-oracle
// on 1203-01 with projectPath replaced (cwd /tmp/mcpguard-oracle/project,
// no git): every spelling below printed "No MCP servers configured", and
// the exact path printed plugin:pa:s1. mcpguard compares filepath.Clean of
// both and reports plugin:pa:s1 active.
func TestRedteamProjectPathSpelling(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "testdata", "oracle", "cases", "1203-01-record-other-project.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range []string{
		oracle.ParentDir + "/project/",
		oracle.ParentDir + "/project/.",
		oracle.ParentDir + "/home/../project",
		"/" + oracle.ParentDir + "/project",
	} {
		t.Run(pp, func(t *testing.T) {
			data := strings.Replace(string(base), `"projectPath": "/tmp/elsewhere"`, `"projectPath": "`+pp+`"`, 1)
			if data == string(base) {
				t.Fatal("the base case changed; adapt the test")
			}
			c, err := oracle.ParseCase([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			res, project := scanCase(t, c)
			checkCase(t, c, res, project)
		})
	}
}

// TestRedteamPluginFileBOM: Claude Code 2.1.332 reads installed_plugins.json
// and known_marketplaces.json with JSON.parse, which refuses a leading
// UTF-8 byte order mark. Recorded with ../shared/tools/claude-code-oracle:
// 1203-03 (local record for the cwd, loads plugin:pa:s1) and 1204-01 (pa
// blocked, plugin:pb:s2 loads) each with a BOM prepended to that one file
// print "No MCP servers configured"; without the BOM they print the
// recorded servers. mcpguard must not report a plugin server active (and
// should say the file is malformed, path:1:1).
func TestRedteamPluginFileBOM(t *testing.T) {
	for _, tc := range []struct{ file, name string }{
		{"1203-03-record-local-scope-cwd.txtar", "home/.claude/plugins/installed_plugins.json"},
		{"1204-01-blocked-github.txtar", "home/.claude/plugins/known_marketplaces.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, err := os.ReadFile(filepath.Join("..", "testdata", "oracle", "cases", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			marker := "-- " + tc.name + " --\n"
			if !strings.Contains(string(base), marker) {
				t.Fatal("the base case changed; adapt the test")
			}
			data := strings.Replace(string(base), marker, marker+"\ufeff", 1)
			c, err := oracle.ParseCase([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			res, _ := scanCase(t, c)
			for _, s := range res.Servers {
				if s.Scope == "plugin" && s.Status == "active" {
					t.Errorf("%s is active; Claude Code loads no plugin when %s starts with a BOM", s.Name, tc.name)
				}
			}
		})
	}
}
