package wrapargv

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		cmd         string
		args        []string
		ok          bool
		name        string
		withoutArgs bool
		inner       []string
	}{
		{"/usr/local/bin/mcpguard", []string{"proxy", "--name", "n", "--", "npx", "-y", "pkg"}, true, "n", false, []string{"npx", "-y", "pkg"}},
		{`C:\Tools\MCPGUARD.EXE`, []string{"proxy", "--name=n", FlagWithoutArgs, "--", "uvx"}, true, "n", true, []string{"uvx"}},
		{"mcpguard", []string{"proxy", "--", "a", "--", "b"}, true, "", false, []string{"a", "--", "b"}},
		{"mcpguard", []string{"proxy", "--upstream", "https://x"}, false, "", false, nil},
		{"mcpguard", []string{"proxy", "--"}, false, "", false, nil},
		{"mcpguard", []string{"proxy", "--", ""}, false, "", false, nil},
		{"mcpguard", []string{"scan", "--", "x"}, false, "", false, nil},
		{"mcpguard-linux", []string{"proxy", "--", "x"}, false, "", false, nil},
		{"npx", []string{"proxy", "--", "x"}, false, "", false, nil},
		{"", nil, false, "", false, nil},
	}
	for _, tc := range tests {
		w, ok := Split(tc.cmd, tc.args)
		if ok != tc.ok || w.Name() != tc.name || w.WithoutArgs() != tc.withoutArgs || !slices.Equal(w.Inner, tc.inner) {
			t.Errorf("Split(%q, %q) = %+v, %v", tc.cmd, tc.args, w, ok)
		}
		if ok {
			prefix := w.Prefix()
			if prefix[0] != tc.cmd || prefix[len(prefix)-1] != Separator || !slices.Equal(append(prefix[1:], w.Inner...), tc.args) {
				t.Errorf("Prefix() = %q", prefix)
			}
		}
	}
	if got := ProxyArgs("a/b", true); !slices.Equal(got, []string{"proxy", "--name", "a/b", FlagWithoutArgs}) {
		t.Errorf("ProxyArgs = %q", got)
	}
}
