package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLargeScanFS: the reservation is made once, when the configuration
// read reaches largeScanBytes, and never for a machine under it; what is
// read is what the machine's file system reads, owned or not.
func TestLargeScanFS(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(small, []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(strings.Repeat(" ", largeScanBytes/3)+"{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	fsys := &largeScanFS{reserve: func() { calls++ }}
	for range 100 {
		if data, ok, ferr := fsys.ReadFile(small); !ok || ferr != nil || string(data) != `{"mcpServers": {}}` {
			t.Fatalf("ReadFile(small) = %q, %v, %v", data, ok, ferr)
		}
	}
	if calls != 0 {
		t.Fatalf("%d bytes read: reserved %d times, want none", fsys.read.Load(), calls)
	}
	for i := range 5 {
		if _, ok, ferr := fsys.ReadFileOwned(big, os.Geteuid()); !ok || ferr != nil {
			t.Fatalf("ReadFileOwned(big): %v, %v", ok, ferr)
		}
		want := 0
		if fsys.read.Load() >= largeScanBytes {
			want = 1
		}
		if calls != want {
			t.Fatalf("after %d large reads (%d bytes): reserved %d times, want %d", i+1, fsys.read.Load(), calls, want)
		}
	}
	if _, ok, ferr := fsys.ReadFile(filepath.Join(dir, "missing.json")); ok || ferr != nil {
		t.Errorf("a missing file: %v, %v", ok, ferr)
	}
}
