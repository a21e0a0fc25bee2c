package main

import (
	"debug/elf"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionLine: the module version and the VCS revision come from the
// build information Go writes into the binary.
func TestVersionLine(t *testing.T) {
	platform := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "mcpguard dev (" + platform + ")"},
		{"go install of a release", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"},
			Settings: []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}}}, true, "mcpguard v0.1.0 (" + platform + ")"},
		{"a build from a checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20261201234524-a8db06017eea+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "a8db06017eea7dc2f5b54f616f41b20739de2379"},
				{Key: "vcs.time", Value: "2026-12-01T23:45:24Z"}, {Key: "vcs.modified", Value: "true"}, {Key: "CGO_ENABLED", Value: "1"}}}, true,
			"mcpguard v0.1.1-0.20261201234524-a8db06017eea+dirty (revision a8db06017eea7dc2f5b54f616f41b20739de2379 2026-12-01T23:45:24Z, modified; " + platform + ", cgo)"},
		{"go build -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "mcpguard dev (" + platform + ")"},
	} {
		if got := versionLine(tc.info, tc.ok); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestVersionFlag: `mcpguard --version` and `mcpguard version` print the
// same line.
func TestVersionFlag(t *testing.T) {
	env := testEnv(t.TempDir(), t.TempDir(), nil)
	cmd, _, code1 := runCLI(t, env, "version")
	flag, _, code2 := runCLI(t, env, "--version")
	if code1 != exitOK || code2 != exitOK || cmd != flag || strings.TrimSpace(cmd) != env.about {
		t.Errorf("version %q (exit %d), --version %q (exit %d), want %q", cmd, code1, flag, code2, env.about)
	}
}

// TestStaticBinary: the build README's Install section gives is one static
// binary, as the README says: no program interpreter (dynamic loader), no
// shared libraries.
func TestStaticBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks an ELF binary")
	}
	f, err := elf.Open(testBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: it is linked dynamically", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary needs %v", libs)
	}
}
