package main

import (
	"slices"
	"strings"
	"testing"
)

// TestCommandNames: each command is listed under its own name, so that a
// run whose first argument names it builds that command alone; any other
// first argument builds them all.
func TestCommandNames(t *testing.T) {
	env := testEnv(t.TempDir(), t.TempDir(), nil)
	var all []string
	for _, c := range commands() {
		if got := c.make(env).Name(); got != c.name {
			t.Errorf("%q makes the command %q", c.name, got)
		}
		all = append(all, c.name)
		if sub := newRootCmd(streams{}, env, c.name).Commands(); len(sub) != 1 || sub[0].Name() != c.name {
			t.Errorf("%s: the tree holds %d commands", c.name, len(sub))
		}
	}
	for _, name := range []string{"", "help", "completion", "scna", "--home"} {
		var got []string
		for _, c := range newRootCmd(streams{}, env, name).Commands() {
			got = append(got, c.Name())
		}
		slices.Sort(got)
		want := slices.Clone(all)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%q: commands %v, want %v", name, got, want)
		}
	}
	// The root's help lists them all; a misspelt command is suggested.
	out, _, code := runCLI(t, env, "--help")
	for _, name := range all {
		if code != exitOK || !strings.Contains(out, "  "+name+" ") {
			t.Errorf("root help (exit %d) lacks %s:\n%s", code, name, out)
		}
	}
	if _, stderr, code := runCLI(t, env, "scna"); code != exitError || !strings.Contains(stderr, "scan") {
		t.Errorf("a misspelt command (exit %d): %s", code, stderr)
	}
	if out, _, code := runCLI(t, env, "scan", "--help"); code != exitOK || !strings.Contains(out, "--fail-on") {
		t.Errorf("scan --help (exit %d):\n%s", code, out)
	}
}
