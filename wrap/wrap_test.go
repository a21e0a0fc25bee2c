package wrap

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
		LookupEnv: func(string) (string, bool) { return "", false }, BackupDir: filepath.Join(root, "state", "backups")}
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
	plan.Commit()
	for _, f := range plan.Files {
		if f.Err != nil || !f.Written || filepath.Dir(f.Backup) != opts.BackupDir {
			t.Errorf("%s: %+v backup %s", f.Path, f.Err, f.Backup)
		}
	}
	backup := plan.Files[0].Backup
	if got := read(t, backup); got != orig {
		t.Errorf("backup %q", got)
	}
	fi, err := os.Stat(claude)
	if err != nil {
		t.Fatal(err)
	}
	bi, _ := os.Stat(backup)
	di, _ := os.Stat(opts.BackupDir)
	if runtime.GOOS != "windows" && (fi.Mode().Perm() != 0o600 || bi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700) {
		t.Errorf("permissions %v, backup %v, its directory %v", fi.Mode().Perm(), bi.Mode().Perm(), di.Mode().Perm())
	}
	wrapped := read(t, claude)
	if !strings.Contains(wrapped, `"oauthAccount": {"emailAddress": "dev@example.com"}`) || !strings.Contains(wrapped, `"--name", "claude-code/user/gh"`) {
		t.Errorf("wrapped: %s", wrapped)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 2 { // .claude.json, .cursor: no backup, no temporary file
		t.Errorf("home holds %d entries", len(entries))
	}

	// Unwrap lists the backup and replaces it with the wrapped content;
	// the original comes back byte for byte. Wrap, unwrap, wrap, unwrap
	// leaves one backup per file.
	for i, mode := range []Mode{ModeUnwrap, ModeWrap, ModeUnwrap} {
		opts.Mode = mode
		plan, err = NewPlan(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if b := plan.Files[0].Previous; b == nil || b.Path != backup {
			t.Errorf("run %d: the file's backup is not listed: %+v", i, b)
		}
		plan.Commit()
		want := orig
		if mode == ModeWrap {
			want = wrapped
		}
		if read(t, claude) != want {
			t.Errorf("run %d (%s): %s", i, mode, read(t, claude))
		}
	}
	if read(t, backup) != wrapped {
		t.Error("the backup does not hold the content before the last change")
	}
	if entries, _ := os.ReadDir(opts.BackupDir); len(entries) != 2 {
		t.Errorf("%d backups for 2 files", len(entries))
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
	plan.Commit()
	f := plan.Files[0]
	if f.Err == nil || !strings.Contains(f.Err.Message, "changed while mcpguard was rewriting it") || f.Written {
		t.Errorf("err %v written %v", f.Err, f.Written)
	}
	if read(t, claude) != changed {
		t.Error("the changed file was overwritten")
	}
	if f.Backup != "" || existingBackup(opts.BackupDir, f.real) != nil {
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

// TestBackupDirRefused: the backup directory must be a directory of the
// user's own: a symlink or one others may write is refused, and nothing
// is written then.
func TestBackupDirRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix modes and symlinks")
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"symlink", func(t *testing.T, dir string) {
			if err := os.Symlink(t.TempDir(), dir); err != nil {
				t.Fatal(err)
			}
		}},
		{"world-writable", func(t *testing.T, dir string) {
			if err := os.Mkdir(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, _, opts := testMachine(t)
			claude := filepath.Join(home, ".claude.json")
			orig := read(t, claude)
			opts.BackupDir = filepath.Join(t.TempDir(), "backups")
			tc.setup(t, opts.BackupDir)
			plan, err := NewPlan(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			plan.Commit()
			if f := plan.Files[0]; f.Err == nil || f.Written || read(t, claude) != orig {
				t.Errorf("err %v, written %v", f.Err, f.Written)
			}
		})
	}
}

// TestDiffAndBackupRedacted: the --dry-run diff and the backup hide every
// secret of the file as the reports do, a server named by a token too,
// and keep every other byte.
func TestDiffAndBackupRedacted(t *testing.T) {
	home, _, opts := testMachine(t)
	tok, pw := "ghp_"+strings.Repeat("Ab3", 12), "hunter2hunter2"
	claude := filepath.Join(home, ".claude.json")
	write(t, claude, `{"mcpServers": {
  "`+tok+`": {"command": "npx", "args": ["-y", "pkg@1.0.0"]},
  "db": {"command": "docker", "args": ["run", "-e", "DB_PASSWORD=`+pw+`", "img@sha256:`+strings.Repeat("a", 64)+`", "postgresql://app:`+pw+`@db/x"],
         "env": {"API_KEY": "`+pw+`"}}
}}`, 0o600)
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	diff := plan.Diff()
	for _, s := range []string{tok, pw} {
		if strings.Contains(diff, s) {
			t.Errorf("the diff shows %s:\n%s", s, diff)
		}
	}
	if !strings.Contains(diff, `"proxy", "--name", "claude-code/user/REDACTED"`) || !strings.Contains(diff, `"API_KEY": "REDACTED"`) {
		t.Errorf("the diff does not show the change:\n%s", diff)
	}
	plan.Commit()
	data := read(t, plan.Files[0].Backup)
	for _, s := range []string{tok, pw} {
		if strings.Contains(data, s) {
			t.Errorf("the backup holds %s:\n%s", s, data)
		}
	}
	if !strings.Contains(data, `"DB_PASSWORD=REDACTED"`) || !strings.Contains(data, `"img@sha256:`) {
		t.Errorf("backup:\n%s", data)
	}
}

// TestTrackedFiles: a file git tracks is not wrapped unless asked; then
// its wrappers run the bare command and name project servers relative to
// the repository, so no path of this machine is committed.
func TestTrackedFiles(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	_, _, opts := testMachine(t)
	repo := filepath.Join(t.TempDir(), "repo")
	mcp := filepath.Join(repo, "sub", ".mcp.json")
	write(t, mcp, `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "fs@1.0.0"]}}}`, 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "sub/.mcp.json"}} {
		if out, err := exec.Command(git, append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	untracked := filepath.Join(repo, "other", ".mcp.json")
	write(t, untracked, `{"mcpServers": {"u": {"command": "npx", "args": ["-y", "u@1.0.0"]}}}`, 0o644)
	orig := read(t, mcp)
	opts.Paths = []string{mcp, untracked}
	plan, err := NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	plan.Commit()
	if read(t, mcp) != orig {
		t.Error("a tracked file was wrapped without --include-tracked")
	}
	for _, f := range plan.Files {
		switch f.Path {
		case mcp:
			if f.Tracked == "" || len(f.Entries) != 1 || f.Entries[0].Action != ActionSkipped || !strings.Contains(f.Entries[0].Reason, "--include-tracked") {
				t.Errorf("tracked file: %+v", f)
			}
		case untracked:
			if f.Tracked != "" || !f.Written || !strings.Contains(read(t, untracked), opts.Executable) {
				t.Errorf("untracked file: %+v\n%s", f, read(t, untracked))
			}
		}
	}
	opts.IncludeTracked = true
	opts.Paths = []string{mcp}
	plan, err = NewPlan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	plan.Commit()
	got := read(t, mcp)
	if !strings.Contains(got, `"command": "mcpguard"`) || !strings.Contains(got, `"claude-code/project/fs@sub"`) || strings.Contains(got, repo) {
		t.Errorf("wrapped tracked file:\n%s", got)
	}
	var out strings.Builder
	if err := plan.WriteText(&out, false); err != nil || !strings.Contains(out.String(), "committed") {
		t.Errorf("the output does not say the file is committed:\n%s", out.String())
	}
	// unwrap gives it back.
	opts.Mode = ModeUnwrap
	plan, _ = NewPlan(context.Background(), opts)
	plan.Commit()
	if read(t, mcp) != orig {
		t.Errorf("unwrap:\n%s", read(t, mcp))
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
	plan.Commit()
	if fi, err := os.Lstat(claude); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	if !strings.Contains(read(t, target), "proxy") {
		t.Error("the target was not rewritten")
	}
	if b := plan.Files[0].Backup; b != BackupFile(opts.BackupDir, target) {
		t.Errorf("backup %s, want the target's", b)
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
