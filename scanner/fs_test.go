package scanner_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// recordingFS serves the machine's files, or an override, and records
// every path a scan asked about.
type recordingFS struct {
	cfgfile.OS
	mu       sync.Mutex
	asked    map[string]bool
	override map[string][]byte
}

func (r *recordingFS) note(p string) {
	r.mu.Lock()
	r.asked[p] = true
	r.mu.Unlock()
}

func (r *recordingFS) ReadFile(p string) ([]byte, bool, *reports.FileError) {
	r.note(p)
	if data, ok := r.override[p]; ok {
		return data, true, nil
	}
	return r.OS.ReadFile(p)
}

func (r *recordingFS) ReadDir(p string) ([]fs.DirEntry, error) { r.note(p); return r.OS.ReadDir(p) }
func (r *recordingFS) Stat(p string) (fs.FileInfo, error)      { r.note(p); return r.OS.Stat(p) }
func (r *recordingFS) Lstat(p string) (fs.FileInfo, error)     { r.note(p); return r.OS.Lstat(p) }

// TestEveryReadGoesThroughFS: every file a whole-machine scan reports as a
// source was read through Options.FS, and a file that exists only in the
// FS is scanned as if it were on disk.
func TestEveryReadGoesThroughFS(t *testing.T) {
	demo, err := filepath.Abs(filepath.Join("..", "testdata", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(demo, "home")
	virtual := filepath.Join(home, ".kiro", "settings", "mcp.json")
	rec := &recordingFS{asked: map[string]bool{}, override: map[string][]byte{
		virtual: []byte(`{"mcpServers": {"only-in-memory": {"command": "node", "args": ["server.js"]}}}`),
	}}
	res, err := scanner.Scan(context.Background(), scanner.Options{
		Home: home, ManagedDir: filepath.Join(demo, "managed"), Project: filepath.Join(demo, "project"),
		WorkDir: demo, GOOS: "linux", FS: rec, Policy: testEngine(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sources) < 5 {
		t.Fatalf("only %d sources: the demo machine did not scan", len(res.Sources))
	}
	for _, src := range res.Sources {
		if !rec.asked[src.Path] {
			t.Errorf("source %s was not read through Options.FS", src.Path)
		}
	}
	found := false
	for _, s := range res.Servers {
		if s.Name == "only-in-memory" && s.Source.Path == virtual {
			found = true
		}
	}
	if !found {
		t.Errorf("the server of %s, served by the FS only, was not scanned", virtual)
	}
}
