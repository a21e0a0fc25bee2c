package wrap

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/policy"
)

func write(t *testing.T, path, content string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// testMachine is a home with a Claude Code user server and a Cursor file.
func testMachine(t *testing.T) (home, project string, opts Options) {
	t.Helper()
	root := t.TempDir()
	home, project = filepath.Join(root, "home"), filepath.Join(root, "project")
	write(t, filepath.Join(home, ".claude.json"), `{"oauthAccount": {"emailAddress": "dev@example.com"}, "mcpServers": {"gh": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}}}`, 0o600)
	write(t, filepath.Join(home, ".cursor", "mcp.json"), "{\n  // mine\n  \"mcpServers\": {\"t\": {\"command\": \"uvx\"},},\n}\n", 0o644)
	write(t, filepath.Join(project, ".keep"), "", 0o644)
	exe := filepath.Join(root, "bin", "mcpguard")
	write(t, exe, "#!/bin/sh\n", 0o755)
	return home, project, Options{Mode: ModeWrap, Home: home, Project: project, Executable: exe, GOOS: runtime.GOOS,
		LookupEnv: func(string) (string, bool) { return "", false }}
}

func TestPlanCommit(t *testing.T) {
	home, _, opts := testMachine(t)
	claude := filepath.Join(home, ".claude.json")
	orig := read(t, claude)
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Failed() || len(plan.Files) != 2 {
		t.Fatalf("plan: %+v %+v", plan.Errors, plan.Files)
	}
	if read(t, claude) != orig {
		t.Fatal("NewPlan wrote")
	}
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	plan.Commit(now)
	for _, f := range plan.Files {
		if f.Err != nil || !f.Written || f.Backup != f.Path+BackupSuffix {
			t.Errorf("%s: %+v backup %s", f.Path, f.Err, f.Backup)
		}
	}
	if got := read(t, claude+BackupSuffix); got != orig {
		t.Errorf("backup %q", got)
	}
	fi, err := os.Stat(claude)
	if err != nil {
		t.Fatal(err)
	}
	bi, _ := os.Stat(claude + BackupSuffix)
	if runtime.GOOS != "windows" && (fi.Mode().Perm() != 0o600 || bi.Mode().Perm() != 0o600) {
		t.Errorf("permissions %v, backup %v: ~/.claude.json holds credentials", fi.Mode().Perm(), bi.Mode().Perm())
	}
	wrapped := read(t, claude)
	if !strings.Contains(wrapped, `"oauthAccount": {"emailAddress": "dev@example.com"}`) || !strings.Contains(wrapped, `"--name", "claude-code/user/gh"`) {
		t.Errorf("wrapped: %s", wrapped)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 3 { // .claude.json, its backup, .cursor, no temporary file
		t.Errorf("home holds %d entries", len(entries))
	}

	// Unwrap: the backup of the wrapped file gets a time-stamped name, the
	// original comes back byte for byte.
	opts.Mode = ModeUnwrap
	plan, err = NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	plan.Commit(now)
	if read(t, claude) != orig {
		t.Errorf("unwrap: %s", read(t, claude))
	}
	stamped := claude + ".mcpguard.20260304T050607Z.bak"
	if read(t, stamped) != wrapped {
		t.Error("the wrapped content was not backed up under a time-stamped name")
	}
	// Wrap again: the existing backups already hold the content.
	opts.Mode = ModeWrap
	plan, _ = NewPlan(context.Background(), opts)
	plan.Commit(now.Add(time.Hour))
	if plan.Files[0].Backup != claude+BackupSuffix {
		t.Errorf("backup %s, want the existing one", plan.Files[0].Backup)
	}
	opts.Mode = ModeUnwrap
	plan, _ = NewPlan(context.Background(), opts)
	plan.Commit(now.Add(2 * time.Hour))
	if plan.Files[0].Backup != stamped {
		t.Errorf("backup %s, want %s", plan.Files[0].Backup, stamped)
	}
}

// A file that changes between the plan and the write is left alone: Claude
// Code rewrites ~/.claude.json while it runs.
func TestCommitFileChanged(t *testing.T) {
	home, _, opts := testMachine(t)
	claude := filepath.Join(home, ".claude.json")
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	changed := `{"numStartups": 2, "mcpServers": {"gh": {"command": "npx", "args": ["-y", "pkg@1.0.0"]}}}`
	write(t, claude, changed, 0o600)
	plan.Commit(time.Now())
	f := plan.Files[0]
	if f.Err == nil || !strings.Contains(f.Err.Message, "changed while mcpguard was rewriting it") || f.Written {
		t.Errorf("err %v written %v", f.Err, f.Written)
	}
	if read(t, claude) != changed {
		t.Error("the changed file was overwritten")
	}
	if _, err := os.Stat(claude + BackupSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Error("a backup was written for a file that was not")
	}
	if !plan.Failed() || !plan.Files[1].Written {
		t.Error("the other file was not written, or the run did not fail")
	}
	// The check right before the rename.
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	write(t, p, "new", 0o644)
	fi, _ := os.Stat(p)
	if err := replaceFile(p, []byte("old"), []byte("x"), fi); !errors.Is(err, ErrChanged) || read(t, p) != "new" {
		t.Errorf("replaceFile: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary file left: %d entries", len(entries))
	}
}

func TestBackupNames(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mcp.json")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	got := []string{}
	for _, content := range []string{"a", "a", "b", "c", "b", "c"} {
		b, err := backup(p, []byte(content), 0o600, now)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(b))
	}
	want := []string{"mcp.json.mcpguard.bak", "mcp.json.mcpguard.bak", "mcp.json.mcpguard.20260102T030405Z.bak",
		"mcp.json.mcpguard.20260102T030405Z-2.bak", "mcp.json.mcpguard.20260102T030405Z.bak", "mcp.json.mcpguard.20260102T030405Z-2.bak"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("backups %v, want %v", got, want)
	}
}

// A symlinked configuration (dotfiles) stays a symlink: its target is
// rewritten.
func TestSymlinkKept(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	home, _, opts := testMachine(t)
	claude := filepath.Join(home, ".claude.json")
	target := filepath.Join(home, "dotfiles", "claude.json")
	write(t, target, read(t, claude), 0o600)
	os.Remove(claude)
	if err := os.Symlink(target, claude); err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	plan.Commit(time.Now())
	if fi, err := os.Lstat(claude); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	if !strings.Contains(read(t, target), "proxy") {
		t.Error("the target was not rewritten")
	}
	if _, err := os.Stat(target + BackupSuffix); err != nil {
		t.Error("no backup next to the target")
	}
}

func TestPlanErrors(t *testing.T) {
	home, project, opts := testMachine(t)
	write(t, filepath.Join(home, ".cursor", "mcp.json"), "{\n  \"mcpServers\": {\n", 0o644)
	other := filepath.Join(project, "notes.json")
	write(t, other, `{"a": 1}`, 0o644)
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Errors) != 1 || plan.Errors[0].Line != 3 || !strings.HasSuffix(plan.Errors[0].Path, "mcp.json") {
		t.Errorf("errors %+v", plan.Errors)
	}
	if len(plan.Files) != 1 || !plan.Files[0].Changed() {
		t.Errorf("the good file is not planned: %+v", plan.Files)
	}
	opts.Paths = []string{other, filepath.Join(project, "missing.json")}
	plan, err = NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Errors) != 2 || len(plan.Files) != 0 {
		t.Errorf("errors %+v files %d", plan.Errors, len(plan.Files))
	}
	for _, bad := range []Options{
		{Mode: ModeWrap, Executable: "mcpguard"},
		{Mode: ModeWrap, Executable: "/usr/bin/other"},
		{Mode: ModeWrap, Executable: "/usr/bin/mcpguard", Clients: []string{"zed"}},
	} {
		if _, err := NewPlan(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

func TestProxyNameUnique(t *testing.T) {
	_, _, opts := testMachine(t)
	root := filepath.Dir(opts.Home)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	write(t, filepath.Join(a, ".mcp.json"), `{"mcpServers": {"x": {"command": "a"}}}`, 0o644)
	write(t, filepath.Join(b, ".cursor", "mcp.json"), `{"mcpServers": {"x": {"command": "b"}}}`, 0o644)
	opts.Paths = []string{a, b}
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range plan.Files {
		for _, e := range f.Entries {
			names[e.ProxyName] = true
		}
	}
	for _, want := range []string{"claude-code/project/x@" + a, "cursor/project/x@" + b} {
		if !names[want] {
			t.Errorf("no %s in %v", want, names)
		}
	}
	if len(plan.Files) != 2 {
		t.Errorf("%d files: the home's files are not selected by PATH", len(plan.Files))
	}
}

func TestWarningsAndRefusals(t *testing.T) {
	home, _, opts := testMachine(t)
	managed := filepath.Join(filepath.Dir(home), "managed")
	write(t, filepath.Join(home, ".claude.json"), `{"mcpServers": {
		"gh": {"command": "npx", "args": ["-y", "pkg@1.0.0"]},
		"denied": {"command": "bad-mcp"}}}`, 0o600)
	engine, err := policy.NewEngine(context.Background(), policy.EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts.ManagedDir, opts.Policy, opts.Clients = managed, engine, []string{"claude-code"}
	entry := func(plan *Plan, name string) FileEntry {
		for _, e := range plan.Files[0].Entries {
			if e.Name == name {
				return e
			}
		}
		t.Fatalf("no entry %s", name)
		return FileEntry{}
	}

	// An allowlist of the wrapped commands refuses the wrappers: a warning
	// gives the entry to add; a server the allowlist refuses anyway is
	// wrapped without one.
	write(t, filepath.Join(managed, "managed-settings.json"), `{"allowedMcpServers": [{"serverCommand": ["npx", "-y", "pkg@1.0.0"]}]}`, 0o644)
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Warnings) != 1 || !strings.Contains(plan.Warnings[0].Message, `"--name","claude-code/user/gh","--","npx","-y","pkg@1.0.0"]}`) {
		t.Errorf("warnings %+v", plan.Warnings)
	}
	if e := entry(plan, "gh"); e.Action != ActionWrapped {
		t.Errorf("gh: %+v", e)
	}

	// A deny entry on the command line would stop matching: not wrapped.
	write(t, filepath.Join(managed, "managed-settings.json"), `{"deniedMcpServers": [{"serverCommand": ["bad-mcp"]}]}`, 0o644)
	plan, err = NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if e := entry(plan, "denied"); e.Action != ActionSkipped || !strings.Contains(e.Reason, "deny entry") {
		t.Errorf("denied: %+v", e)
	}
	if bytes.Contains(plan.Files[0].After, []byte(`"bad-mcp"]`)) || len(plan.Warnings) != 0 {
		t.Errorf("the denied server was wrapped, or warned about: %+v", plan.Warnings)
	}
	if e := entry(plan, "gh"); e.Action != ActionWrapped {
		t.Errorf("gh: %+v", e)
	}
}
