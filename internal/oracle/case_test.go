package oracle

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sample = `Prose.
-- env --
TOOL=uvx
-- managed/managed-settings.json --
{"deniedMcpServers": [{"serverName": "b"}]}
-- managed/managed-mcp.json --
-- home/.claude.json --
{"mcpServers": {"a": {"command": "true"}, "b": {"command": "true"}, "name with spaces": {"command": "true"}}}
-- parent/.mcp.json --
{"mcpServers": {"p": {"command": "true"}}}
-- want --
# a comment
user a active ALLOWED
user b blocked DENIED_NAME
user "name with spaces" active ALLOWED
project p pending-approval ALLOWED
finding MCPG-C007 user a
-- order --
a
name with spaces
p
-- oracle --
list exit=0
| Checking MCP server health…
| a: true  - ✘ Failed to connect
| name with spaces: true  - ✘ Failed to connect
| p: true  - ⏸ Pending approval (run ` + "`claude`" + ` to approve)
| MCP config diagnostics ⚠
|  └ [Warning] [a] mcpServers.a: Missing environment variables: X
get "a" exit=0
| Scope: User config (available in all your projects)
| Status: ✘ Failed to connect
get "b" exit=1
! No MCP server named "b".
get "name with spaces" exit=0
| Scope: User config (available in all your projects)
| Status: ✘ Failed to connect
get "p" exit=0
| Scope: Project config (shared via .mcp.json)
| Status: ⏸ Pending approval (run ` + "`claude`" + ` to approve)
`

func TestParseCase(t *testing.T) {
	c, err := ParseCase([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.Format()); got != sample {
		t.Errorf("Format does not round-trip:\n%s", got)
	}
	if !slices.Equal(c.Env, []string{"TOOL=uvx"}) {
		t.Errorf("Env = %q", c.Env)
	}
	if len(c.Want) != 4 || c.Want[2].Name != "name with spaces" || !slices.Equal(c.Want[1].Reasons, []string{"DENIED_NAME"}) {
		t.Errorf("Want = %+v", c.Want)
	}
	if len(c.Findings) != 1 || c.Findings[0] != (Finding{Rule: "MCPG-C007", Scope: "user", Name: "a"}) {
		t.Errorf("Findings = %+v", c.Findings)
	}
	if !c.HasParent() {
		t.Error("HasParent = false")
	}
	if got, want := c.ServerNames(), []string{"a", "b", "name with spaces", "p"}; !slices.Equal(got, want) {
		t.Errorf("ServerNames = %q, want %q", got, want)
	}
	a := c.Oracle
	if a == nil || a.ListExit != 0 || len(a.Listed) != 3 || a.Listed[2] != (ListedServer{Name: "p", Status: ListedPending, Line: a.List[3]}) {
		t.Fatalf("Oracle = %+v", a)
	}
	if g := a.Gets["b"]; g.Exit != 1 || g.Err != `No MCP server named "b".` {
		t.Errorf("get b = %+v", g)
	}
	if got := string(a.Format()); !strings.HasSuffix(sample, "-- oracle --\n"+got) {
		t.Errorf("Answers.Format:\n%s", got)
	}
	if p := Consistent(c); len(p) != 0 {
		t.Errorf("Consistent: %q", p)
	}
}

func TestParseCaseErrors(t *testing.T) {
	for _, in := range []string{
		"no sections",
		"x\n-- want --\nuser a active ALLOWED\n-- want --\n",
		"x\n-- bogus/file --\n-- want --\n",
		"x\n-- home/../etc --\n-- want --\n",
		"x\n-- want --\nuser a running ALLOWED\n",
		"x\n-- want --\nglobal a active ALLOWED\n",
		"x\n-- want --\nuser a active MAYBE\n",
		"x\n-- want --\nuser \"a active\n",
		"x\n-- want --\nfinding C007 user a\n",
		"x\n-- env --\nNOEQUALS\n-- want --\n",
		"x\n-- git --\nhome\n-- want --\n",
		"x\n-- want --\n-- oracle --\nlist exit=x\n",
		"x\n-- want --\n-- oracle --\nget a exit=0\n",
	} {
		if _, err := ParseCase([]byte(in)); err == nil {
			t.Errorf("ParseCase(%q): no error", in)
		}
	}
}

func TestConsistentReportsDisagreement(t *testing.T) {
	for _, tc := range []struct{ from, to, problem string }{
		{"user a active ALLOWED", "user a blocked DENIED_NAME", "want blocked, but mcp list shows it"},
		{"user b blocked DENIED_NAME", "user b active ALLOWED", "does not show it"},
		{"project p pending-approval ALLOWED", "project p active ALLOWED", "want active, mcp list shows pending"},
		{"project p pending-approval ALLOWED", "local p pending-approval ALLOWED", "want scope local"},
		{"user a active ALLOWED", "user a active ALLOWED\nlocal a active ALLOWED", "claim to be the winner"},
		{"user a active ALLOWED", "user a active NOT_ALLOWLISTED", "reasons must be ALLOWED"},
		{"user b blocked DENIED_NAME", "user b blocked DENIED_URL,DENIED_NAME", "out of order"},
		{"user b blocked DENIED_NAME", "user b suppressed", "suppressed: want one of"},
		{"a\nname with spaces\np", "p\na\nname with spaces", "order: want"},
		{"finding MCPG-C007 user a", "finding MCPG-C007 user b", "do not mention"},
	} {
		c, err := ParseCase([]byte(strings.Replace(sample, tc.from, tc.to, 1)))
		if err != nil {
			t.Fatal(err)
		}
		probs := Consistent(c)
		if !slices.ContainsFunc(probs, func(p string) bool { return strings.Contains(p, tc.problem) }) {
			t.Errorf("%q -> %q: want a problem containing %q, got %q", tc.from, tc.to, tc.problem, probs)
		}
	}
}

func TestSetOracle(t *testing.T) {
	c, err := ParseCase([]byte("x\n-- want --\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := newAnswers(0, []byte("Checking MCP server health…\n\nu: true  - ✘ Failed to connect — ENOENT: gone\n"), nil)
	a.Gets["u"] = newGet(0, []byte("u:\n  Scope: User config (available in all your projects)\n  Status: ✘ Failed to connect\n  Issue: ENOENT\n"), nil)
	a.Gets["v"] = newGet(1, nil, []byte("\nNo MCP server named \"v\".\nmore\n"))
	c.SetOracle(a)
	want := "x\n-- want --\n-- oracle --\nlist exit=0\n| Checking MCP server health…\n| u: true  - ✘ Failed to connect\n" +
		"get \"u\" exit=0\n| Scope: User config (available in all your projects)\n| Status: ✘ Failed to connect\n" +
		"get \"v\" exit=1\n! No MCP server named \"v\".\n"
	if got := string(c.Format()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	back, err := ParseCase(c.Format())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(back.Oracle.Format()); got != string(a.Format()) {
		t.Errorf("re-parsed oracle differs:\n%s", got)
	}
}

func TestMaterialize(t *testing.T) {
	c, err := ParseCase([]byte("x\n-- git --\nparent\n-- managed/managed-settings.d/10-a.json --\n{}\n-- managed/managed-mcp.json --\n-- project/.mcp.json --\n{}\n-- want --\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	managed, home, project, parent, err := c.Materialize(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		filepath.Join(managed, "managed-settings.d", "10-a.json"),
		filepath.Join(project, ".mcp.json"),
		filepath.Join(parent, ".git", "HEAD"),
	} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(managed, "managed-mcp.json")); err != nil || fi.Size() != 0 {
		t.Errorf("zero-byte managed-mcp.json: %v %v", fi, err)
	}
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		t.Errorf("home: %v", err)
	}
}
