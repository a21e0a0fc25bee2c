package wrap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpguard/mcpguard/internal/atomicfile"
)

// Backups are kept in the state directory (Options.BackupDir), one per
// configuration file: never beside the file, where a backup inside a git
// repository is one `git add .` from being committed, and never one per
// run. A backup is the file as it was before mcpguard last changed it,
// with its secrets hidden as every output hides them (redactDocument): it
// shows what the file held; unwrap needs none to put a file back.

// BackupFile is the backup of the file at path (symlinks resolved): the
// file's base name after a digest of its whole path, so that two files of
// one name never share a backup.
func BackupFile(dir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dir, hex.EncodeToString(sum[:6])+"-"+filepath.Base(path))
}

// backupDir makes dir (0700) if it is missing and checks it is a directory
// of its own: not a symlink, writable by nobody else.
func backupDir(dir string) error {
	if dir == "" {
		return errors.New("no backup directory (the state directory)")
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("backup directory %s: not an absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("backup directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("backup directory: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("backup directory %s: not a directory (a symlink is refused)", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("backup directory %s: writable by other users (mode %04o)", dir, fi.Mode().Perm())
	}
	return nil
}

// writeBackup replaces the backup of path with content (already redacted),
// mode 0600, atomically, and returns its name.
func writeBackup(dir, path string, content []byte) (string, error) {
	if err := backupDir(dir); err != nil {
		return "", err
	}
	name := BackupFile(dir, path)
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("write backup %s: not a regular file", name)
	}
	if err := atomicfile.WriteFile(name, content, 0o600); err != nil {
		return "", fmt.Errorf("write backup: %w", err)
	}
	return name, nil
}

// Backup is the backup a file has in a backup directory.
type Backup struct {
	Path string    `json:"path"`
	Time time.Time `json:"time"`
}

// existingBackup is the backup of path in dir, or nil.
func existingBackup(dir, path string) *Backup {
	if dir == "" {
		return nil
	}
	name := BackupFile(dir, path)
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return &Backup{Path: name, Time: fi.ModTime().UTC()}
}
