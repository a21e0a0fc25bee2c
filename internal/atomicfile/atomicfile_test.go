package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteReplacesAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o640); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "new" {
		t.Fatalf("content %q, %v", data, err)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	assertOnly(t, dir, "f.json")
}

func TestWriteFailureLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	for name, opts := range map[string]Options{
		"write fails":         {},
		"before rename fails": {BeforeRename: func() error { return boom }},
	} {
		t.Run(name, func(t *testing.T) {
			err := Write(path, opts, func(w io.Writer) error {
				if _, err := io.WriteString(w, "half"); err != nil {
					return err
				}
				if opts.BeforeRename == nil {
					return boom
				}
				return nil
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
			if data, _ := os.ReadFile(path); string(data) != "old" {
				t.Errorf("content %q after a failed write", data)
			}
			assertOnly(t, dir, "f.json")
		})
	}
}

func TestWriteIntoMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "f.json")
	if err := WriteFile(path, []byte("x"), 0o600); err == nil {
		t.Fatal("no error writing into a missing directory")
	}
}

// assertOnly fails unless dir holds exactly the named entries: no
// temporary file may be left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(names) {
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		t.Fatalf("directory holds %v, want %v", got, names)
	}
	for i, e := range entries {
		if e.Name() != names[i] {
			t.Fatalf("directory holds %s, want %v", e.Name(), names)
		}
	}
}

// TestWriteNoSync replaces the file as Write does, without the fsyncs.
func TestWriteNoSync(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	for _, content := range []string{"first", "second, longer than the first"} {
		if err := Write(path, Options{NoSync: true}, func(w io.Writer) error { _, err := io.WriteString(w, content); return err }); err != nil {
			t.Fatal(err)
		}
		if data, err := os.ReadFile(path); err != nil || string(data) != content {
			t.Fatalf("content %q, %v; want %q", data, err, content)
		}
	}
	assertOnly(t, dir, "report.json")
}
