package cfgfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

// TestRead: a file is read whole whatever its size, the buffer sized from
// Stat (one allocation for the file, not io.ReadAll's growth).
func TestRead(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 1 << 20} {
		p := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("x"), n)
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, exists, ferr := Read(p)
		if !exists || ferr != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: %d read, exists %v, %v", n, len(got), exists, ferr)
		}
		if cap(got) != n+1 {
			t.Errorf("%d bytes read into a buffer of %d", n, cap(got))
		}
	}
}

// TestReadAll: readAll reads to the end whether the size it was given is
// right, short (the file grew since Stat) or long (it shrank), through
// reads of any length, and returns a reader's error.
func TestReadAll(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1000)
	for _, size := range []int{0, 1, 100, len(data) - 1, len(data), len(data) + 1, 3 * len(data)} {
		for name, r := range map[string]func() io.Reader{
			"whole":    func() io.Reader { return bytes.NewReader(data) },
			"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
			"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) },
		} {
			got, err := readAll(r(), size)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("size %d, %s: %d bytes, %v", size, name, len(got), err)
			}
		}
	}
	if _, err := readAll(iotest.TimeoutReader(bytes.NewReader(data)), 10); err == nil {
		t.Error("a reader's error was lost")
	}
}
