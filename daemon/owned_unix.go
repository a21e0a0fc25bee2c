//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ownedDir makes dir a directory the daemon may keep files in, or says why
// it cannot be one. A missing directory (and its missing parents) is created
// with mode, so that a /tmp-style path is fine when the daemon makes it
// itself. An existing one must be a directory owned by the daemon's user and
// writable by nobody else; every directory above it must be owned by root or
// the daemon's user and not writable by others (unless it is sticky, as
// /tmp is; a root-owned one may be group-writable, as macOS's /var/run is);
// a symlink on the way counts only if root or the daemon's user made it,
// in such a directory.
func ownedDir(dir string, mode fs.FileMode) error {
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		dir = abs
	}
	euid := os.Geteuid()
	_, err := walkTrusted(dir, euid, false)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createDirs(dir, mode, euid); err != nil {
			return err
		}
		_, err = walkTrusted(dir, euid, false)
	}
	return err
}

// createDirs creates dir and its missing parents with mode, each one by
// Mkdir (never following an existing entry) under a checked parent.
func createDirs(dir string, mode fs.FileMode, euid int) error {
	var missing []string
	p := dir
	for {
		if _, err := os.Lstat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if _, err := walkTrusted(p, euid, true); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], mode); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", missing[i], err)
		}
		// An existing entry (made meanwhile) is judged by walkTrusted; a new
		// one gets exactly mode, whatever the umask.
		if fi, err := os.Lstat(missing[i]); err == nil && fi.IsDir() && fileUID(fi) == euid {
			_ = os.Chmod(missing[i], mode)
		}
	}
	return nil
}

// walkTrusted checks every component of path (absolute, clean) as ownedDir
// says, following symlinks it trusts, and returns the real path; with
// above, path itself is judged as a directory above the daemon's. A missing
// component is fs.ErrNotExist, wrapped.
func walkTrusted(path string, euid int, above bool) (string, error) {
	resolved := "/"
	if err := checkDirInfo(resolved, euid, true); err != nil {
		return "", err
	}
	rest := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if uid := fileUID(fi); uid != 0 && uid != euid {
				return "", &UnsafePathError{Path: next, Problem: "is a symbolic link made by " + describeUID(uid) + ", not by root or the daemon's user"}
			}
			if hops++; hops > 40 {
				return "", &UnsafePathError{Path: path, Problem: "has too many levels of symbolic links"}
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(target) {
				resolved = "/"
			}
			rest = append(strings.Split(strings.Trim(target, "/"), "/"), rest...)
			continue
		}
		if !fi.IsDir() {
			return "", &UnsafePathError{Path: next, Problem: "is " + fileKind(fi.Mode()) + ", not a directory"}
		}
		if err := checkDir(next, fi, euid, above || len(rest) > 0); err != nil {
			return "", err
		}
		resolved = next
	}
	return resolved, nil
}

func checkDirInfo(dir string, euid int, above bool) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	return checkDir(dir, fi, euid, above)
}

// checkDir judges one directory: above is true for a directory on the way
// to the one the daemon keeps files in.
func checkDir(dir string, fi fs.FileInfo, euid int, above bool) error {
	uid, perm := fileUID(fi), fi.Mode().Perm()
	if uid < 0 {
		return nil // no owners on this file system's stat: nothing to check
	}
	if above {
		switch {
		case uid != 0 && uid != euid:
			return &UnsafePathError{Path: dir, Problem: "is owned by " + describeUID(uid) + ", who could replace what is below it",
				Fix: "keep the daemon's files under directories owned by root or " + describeUID(euid)}
		case perm&0o002 != 0 && fi.Mode()&fs.ModeSticky == 0:
			return &UnsafePathError{Path: dir, Problem: fmt.Sprintf("is writable by every user (mode %04o) and not sticky", perm)}
		case perm&0o020 != 0 && uid != 0 && fi.Mode()&fs.ModeSticky == 0:
			return &UnsafePathError{Path: dir, Problem: fmt.Sprintf("is writable by its group (mode %04o)", perm), Fix: "chmod g-w " + dir}
		}
		return nil
	}
	if uid != euid {
		return &UnsafePathError{Path: dir, Problem: "is owned by " + describeUID(uid) + ", not by the daemon's user (" + describeUID(euid) + ")",
			Fix: "give a directory of the daemon's own, or a path that does not exist yet (the daemon creates it 0700)"}
	}
	if perm&0o022 != 0 {
		return &UnsafePathError{Path: dir, Problem: fmt.Sprintf("is writable by other users (mode %04o)", perm), Fix: "chmod go-w " + dir}
	}
	return nil
}

// openOwned opens a file the daemon keeps in one of its directories:
// never through a symlink (O_NOFOLLOW), never a FIFO, device or socket
// (refused from Lstat, before any open that could block or act; O_NONBLOCK
// covers a swap in between), and only the daemon's own. flag may include
// O_CREATE.
func openOwned(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if err := refuseSpecial(path, flag); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENXIO) {
			return nil, &UnsafePathError{Path: path, Problem: "changed into a symbolic link or special file while being opened"}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode())
	}
	if uid, euid := fileUID(fi), os.Geteuid(); uid >= 0 && uid != euid {
		f.Close()
		return nil, &UnsafePathError{Path: path, Problem: "is owned by " + describeUID(uid) + ", not by the daemon's user (" + describeUID(euid) + ")", Fix: "remove it"}
	}
	return f, nil
}
