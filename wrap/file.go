package wrap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/internal/atomicfile"
	"github.com/mcpguard/mcpguard/internal/cfgfile"
)

// BackupSuffix ends the name of the backup written next to a file before its
// first change: <file>.mcpguard.bak. When that name holds other content, the
// backup is <file>.mcpguard.<UTC time>.bak (with -2, -3, ... when taken).
const BackupSuffix = ".mcpguard.bak"

// ErrChanged reports a file that changed on disk between the moment mcpguard
// read it and the moment it would have replaced it (a running client rewrote
// it). Nothing is written then.
var ErrChanged = errors.New("the file changed while mcpguard was rewriting it (a running client may have saved it); nothing written, run the command again")

// readFile reads a configuration file for rewriting.
func readFile(path string) ([]byte, error) {
	data, exists, ferr := cfgfile.Read(path)
	switch {
	case ferr != nil:
		return nil, errors.New(ferr.Message)
	case !exists:
		return nil, fs.ErrNotExist
	}
	return data, nil
}

// backup copies orig, the current content of path, next to it unless a backup
// with the same content exists, and returns the backup's path. A backup
// never overwrites another: an existing <file>.mcpguard.bak with different
// content keeps it, and the copy gets a time-stamped name instead.
func backup(path string, orig []byte, perm fs.FileMode, now time.Time) (string, error) {
	base := path + BackupSuffix
	stem := strings.TrimSuffix(base, ".bak")
	candidates := []string{base}
	if entries, err := os.ReadDir(filepath.Dir(path)); err == nil {
		prefix := filepath.Base(stem) + "."
		for _, e := range entries {
			if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".bak") && len(n) > len(prefix)+len(".bak") {
				candidates = append(candidates, filepath.Join(filepath.Dir(path), n))
			}
		}
		sort.Strings(candidates[1:])
	}
	for _, c := range candidates {
		if data, err := os.ReadFile(c); err == nil && bytes.Equal(data, orig) {
			return c, nil
		}
	}
	name := base
	if _, err := os.Lstat(base); err == nil {
		ts := now.UTC().Format("20060102T150405Z")
		name = stem + "." + ts + ".bak"
		for i := 2; ; i++ {
			if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
				break
			}
			name = fmt.Sprintf("%s.%s-%d.bak", stem, ts, i)
		}
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.Perm())
	if err != nil {
		return "", fmt.Errorf("write backup: %w", err)
	}
	_, werr := f.Write(orig)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(name)
		return "", fmt.Errorf("write backup %s: %w", name, werr)
	}
	return name, nil
}

// replaceFile writes data over path atomically with path's permissions
// (and owner, where the OS allows). Just before the rename the file is read
// again; if it no longer holds orig, nothing is written and the error is
// ErrChanged.
func replaceFile(path string, orig, data []byte, fi fs.FileInfo) error {
	return atomicfile.Write(path, atomicfile.Options{
		Perm:  fi.Mode().Perm(),
		Owner: fi,
		BeforeRename: func() error {
			if cur, err := readFile(path); err != nil || !bytes.Equal(cur, orig) {
				return ErrChanged
			}
			return nil
		},
	}, func(w io.Writer) error { _, err := w.Write(data); return err })
}
