package scanner

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExpandedShares: a winner's expansion shares the server's arguments
// when none holds a reference and copies them when one does, leaving the
// server's own as written; its env block is expanded when asked for
// (ServerEnv), each value as Claude Code expands it, and a variable with
// neither value nor default is missing whether it is in an argument or
// in the env block.
func TestExpandedShares(t *testing.T) {
	home := t.TempDir()
	claudeJSON := `{"mcpServers": {
		"plain": {"command": "npx", "args": ["-y", "pkg@1.0.0"], "env": {"LEVEL": "info", "TOKEN": "${TOKEN}", "ROOT": "${ROOT:-/srv}", "GONE": "${NOPE}"}},
		"vars": {"command": "npx", "args": ["-y", "pkg@1.0.0", "--root", "${ROOT:-/srv}", "--dir=${HOME}/x"]},
		"noenv": {"command": "uvx", "args": ["tool"]}
	}}`
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte(claudeJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TOKEN": "t-value", "HOME": "/home/dev"}
	res, err := Scan(context.Background(), Options{Home: home, ManagedDir: filepath.Join(home, "managed"), GOOS: "linux",
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Server{}
	for _, s := range res.Servers {
		byName[s.Name] = s
	}
	plain, vars, noenv := byName["plain"], byName["vars"], byName["noenv"]
	if plain == nil || vars == nil || noenv == nil || plain.Expanded == nil || vars.Expanded == nil || noenv.Expanded == nil {
		t.Fatalf("servers %v", byName)
	}
	if &plain.Expanded.Args[0] != &plain.Args[0] {
		t.Error("arguments without a reference were copied")
	}
	if want := []string{"-y", "pkg@1.0.0", "--root", "/srv", "--dir=/home/dev/x"}; !slices.Equal(vars.Expanded.Args, want) {
		t.Errorf("expanded args %q, want %q", vars.Expanded.Args, want)
	}
	if want := []string{"-y", "pkg@1.0.0", "--root", "${ROOT:-/srv}", "--dir=${HOME}/x"}; !slices.Equal(vars.Args, want) {
		t.Errorf("the server's own args became %q", vars.Args)
	}
	if want := map[string]string{"LEVEL": "info", "TOKEN": "t-value", "ROOT": "/srv", "GONE": "${NOPE}"}; !maps.Equal(plain.Expanded.ServerEnv(), want) {
		t.Errorf("env %v, want %v", plain.Expanded.ServerEnv(), want)
	}
	if !slices.Equal(plain.Expanded.Missing, []string{"NOPE"}) {
		t.Errorf("missing %q, want NOPE", plain.Expanded.Missing)
	}
	if got := noenv.Expanded.ServerEnv(); len(got) != 0 {
		t.Errorf("a server without env: %v", got)
	}
	given := map[string]string{"A": "b"}
	noenv.Expanded.Env = given
	if got := noenv.Expanded.ServerEnv(); !maps.Equal(got, given) {
		t.Errorf("a given Env: ServerEnv %v", got)
	}
}

// TestMissingVarsMessage: C007's message for Claude Code is the one fmt
// wrote, names quoted as %q quotes them.
func TestMissingVarsMessage(t *testing.T) {
	for _, c := range []struct {
		name    string
		missing []string
	}{
		{"gh", []string{"TOKEN"}},
		{"a \"quoted\" name\t\u2028\xff", []string{"A", "B_2", "C"}},
		{"", []string{"X"}},
	} {
		want := fmt.Sprintf("server %q references %s, which %s no value and no default; Claude Code keeps the literal text",
			c.name, strings.Join(quoteAll(c.missing, "${", "}"), ", "), plural(len(c.missing), "has", "have"))
		if got := missingVarsMessage(c.name, c.missing); got != want {
			t.Errorf("%q\nwant %q", got, want)
		}
	}
}

// TestExtensionSubstitution pins the substitution of the mcpb reference
// implementation (getMcpConfigForManifest): a list setting as its own
// argument expands to one argument per entry, inside a longer string it
// stays as written, and an empty or missing value as a whole argument is
// kept as written.
func TestExtensionSubstitution(t *testing.T) {
	v := &extensionVariables{
		scalars: map[string]string{"__dirname": "/ext", "/": "/", "user_config.units": "metric", "user_config.empty": ""},
		lists:   map[string][]string{"user_config.dirs": {"/a", "/b c"}},
	}
	cases := []struct {
		arg  string
		want []string
	}{
		{"${__dirname}${/}server.js", []string{"/ext/server.js"}},
		{"${user_config.dirs}", []string{"/a", "/b c"}},
		{"--dirs=${user_config.dirs}", []string{"--dirs=${user_config.dirs}"}},
		{"--units=${user_config.units}", []string{"--units=metric"}},
		{"${user_config.empty}", []string{"${user_config.empty}"}},
		{"${user_config.missing}", []string{"${user_config.missing}"}},
		{"--e=${user_config.empty}", []string{"--e="}},
		{"$HOME ${HOME", []string{"$HOME ${HOME"}},
	}
	for _, tc := range cases {
		if got := substituteArg(tc.arg, v); !slices.Equal(got, tc.want) {
			t.Errorf("%q -> %q, want %q", tc.arg, got, tc.want)
		}
	}
}
