package daemon

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCachingFS: an unchanged file is served from memory; a changed one
// (new signature), a dirty one (event) and a replaced one are read again.
func TestCachingFS(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mcp.json")
	write(t, p, `{"a":1}`)
	c := newCachingFS()
	read := func(want string) {
		t.Helper()
		data, exists, ferr := c.ReadFile(p)
		if !exists || ferr != nil || string(data) != want {
			t.Fatalf("ReadFile = %q, %v, %v; want %q", data, exists, ferr, want)
		}
	}
	read(`{"a":1}`)
	read(`{"a":1}`)
	if n := c.diskReads(); n != 1 {
		t.Errorf("%d disk reads for an unchanged file, want 1", n)
	}
	write(t, p, `{"a":22}`) // another size: another signature
	read(`{"a":22}`)
	c.invalidate(p)
	read(`{"a":22}`)
	if n := c.diskReads(); n != 3 {
		t.Errorf("%d disk reads, want 3", n)
	}
	tmp := p + ".tmp"
	write(t, tmp, `{"b":1}`)
	if err := os.Rename(tmp, p); err != nil { // an editor's atomic save
		t.Fatal(err)
	}
	read(`{"b":1}`)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if _, exists, _ := c.ReadFile(p); exists {
		t.Error("a deleted file is still served")
	}
	if _, ok := c.endScan()[p]; !ok {
		t.Errorf("the read of %s was not recorded", p)
	}
}

// TestChangedOnDisk: the resync finds a file changed behind the cache's
// back, a new file in a listed folder, and nothing when only touched.
func TestChangedOnDisk(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mcp.json")
	write(t, p, `{"a":1}`)
	c := newCachingFS()
	c.beginScan()
	c.ReadFile(p)
	if _, err := c.ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	if got := c.changedOnDisk(); len(got) != 0 {
		t.Fatalf("changed %v right after reading", got)
	}
	write(t, p, `{"a":1}`) // rewritten, same bytes
	if got := c.changedOnDisk(); len(got) != 0 {
		t.Errorf("changed %v for a touch", got)
	}
	write(t, p, `{"a":2}`)
	if got := c.changedOnDisk(); !reflect.DeepEqual(got, []string{p}) {
		t.Errorf("changed %v, want [%s]", got, p)
	}
	c.ReadFile(p)
	write(t, filepath.Join(dir, "new.json"), `{}`)
	if got := c.changedOnDisk(); !reflect.DeepEqual(got, []string{dir}) {
		t.Errorf("changed %v, want the listed folder %s", got, dir)
	}
}

// TestPinnedServesLastGood: a pinned path is served from memory whatever
// the disk holds.
func TestPinnedServesLastGood(t *testing.T) {
	p := filepath.Join(t.TempDir(), "policy.json")
	write(t, p, `{broken`)
	c := newCachingFS()
	c.pin(p, []byte(`{"allowedMcpServers": []}`))
	if data, _, _ := c.ReadFile(p); string(data) != `{"allowedMcpServers": []}` {
		t.Errorf("pinned path served %q", data)
	}
	c.unpin(p)
	if data, _, _ := c.ReadFile(p); string(data) != `{broken` {
		t.Errorf("unpinned path served %q", data)
	}
}

// diskReads returns how many files were read from disk so far.
func (c *cachingFS) diskReads() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}
