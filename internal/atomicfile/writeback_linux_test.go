package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestEarlyWriteback: the hints cover the file from its start, in order,
// without gaps or overlaps, each at least writebackEvery long, and the
// file holds exactly what was written.
func TestEarlyWriteback(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "big"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type span struct{ off, n int64 }
	var spans []span
	w := &earlyWriteback{f: f, start: func(off, n int64) { spans = append(spans, span{off, n}) }}
	var want bytes.Buffer
	block := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	for i := range 3*writebackEvery/len(block) + 3 {
		p := block[:len(block)-i] // sizes that do not divide the interval
		want.Write(p)
		if n, err := w.Write(p); err != nil || n != len(p) {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	if len(spans) != 3 {
		t.Fatalf("%d hints for %d bytes, want 3: %v", len(spans), want.Len(), spans)
	}
	var next int64
	for _, s := range spans {
		if s.off != next || s.n < writebackEvery {
			t.Fatalf("hints %v: gap, overlap or short span at %d", spans, next)
		}
		next = s.off + s.n
	}
	got, err := os.ReadFile(f.Name())
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("file differs from what was written (%d bytes, want %d), %v", len(got), want.Len(), err)
	}
}

// TestWriteLargeFile goes through Write with the real hint.
func TestWriteLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	data := bytes.Repeat([]byte("x"), 2*writebackEvery+12345)
	if err := WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, want %d, %v", len(got), len(data), err)
	}
	assertOnly(t, filepath.Dir(path), "report.json")
}
