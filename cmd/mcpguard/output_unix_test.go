//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputNotAFile: --output naming a named pipe writes into the pipe
// (as /dev/null or /dev/stdout are written), where a file renamed over it
// would replace it; a symbolic link keeps pointing to the report it names.
func TestOutputNotAFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"a": {"command": "node"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := testEnv(dir, dir, nil)
	out := t.TempDir()

	t.Run("named pipe", func(t *testing.T) {
		pipe := filepath.Join(out, "pipe")
		if err := syscall.Mkfifo(pipe, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		// A reader that does not block on open, and a writer of our own so
		// that it sees no end of file before mcpguard has written.
		r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() { b, _ := io.ReadAll(r); got <- string(b) }()
		_, stderr, code := runCLI(t, env, "scan", "--format", "json", "--output", pipe, cfg)
		w.Close()
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		select {
		case s := <-got:
			if !strings.Contains(s, `"schema": "mcpguard/report/v1"`) {
				t.Errorf("the pipe's reader got %q, want the report", s)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the pipe's reader got no end of file")
		}
		if fi, err := os.Lstat(pipe); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the pipe was replaced: %v, %v", fi.Mode(), err)
		}
		assertNoTemporaries(t, out)
	})

	t.Run("symbolic link", func(t *testing.T) {
		target := filepath.Join(out, "report.json")
		link := filepath.Join(out, "latest.json")
		if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("report.json", link); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := runCLI(t, env, "scan", "--format", "json", "--output", link, cfg); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
		}
		if data, err := os.ReadFile(target); err != nil || !strings.Contains(string(data), `"schema": "mcpguard/report/v1"`) {
			t.Errorf("the link's file holds %q, %v", data, err)
		}
		assertNoTemporaries(t, out)
	})
}

func assertNoTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
