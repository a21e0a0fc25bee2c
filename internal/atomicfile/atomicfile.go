package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Options tune Write.
type Options struct {
	// Perm is the new file's permission bits; zero means 0o600.
	Perm fs.FileMode
	// Owner, when set, is the file being replaced: the new file gets its
	// owner and group where the process may set them (root rewriting a
	// user's file), so a replacement does not change hands.
	Owner fs.FileInfo
	// BeforeRename runs once the temporary file is complete and synced,
	// just before it replaces path; an error stops the write and is
	// returned unwrapped (wrap checks there that nobody changed the file
	// meanwhile).
	BeforeRename func() error
	// NoSync leaves out the fsyncs: readers still see the old file or
	// the new whole, but a crash soon after may leave either, or on some
	// file systems an empty file. For outputs that can be made again (a
	// report written with --output), where waiting for a large file to
	// reach the disk would cost more than it protects.
	NoSync bool
}

// Write writes path atomically: write fills a temporary file in the same
// directory, which is synced, renamed over path, and the directory synced
// so that the rename survives a crash (unless opts.NoSync). On any error
// the temporary file is removed and path is untouched.
func Write(path string, opts Options, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	perm := opts.Perm
	if perm == 0 {
		perm = 0o600
	}
	// CreateTemp makes the file 0600; Chmod states the wanted mode for
	// systems (and umasks) that disagree.
	if err := tmp.Chmod(perm.Perm()); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if opts.Owner != nil {
		keepOwner(tmp, opts.Owner)
	}
	if err := write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !opts.NoSync {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if opts.BeforeRename != nil {
		if err := opts.BeforeRename(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The rename is durable only once the directory is; a failure here
	// leaves a complete file, so it is not reported.
	if !opts.NoSync {
		syncDir(dir)
	}
	return nil
}

// WriteFile writes data to path atomically with mode perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, Options{Perm: perm}, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}
