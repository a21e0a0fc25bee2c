package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"strconv"
)

// The daemon, often root, keeps its state, lock, key, events and socket in
// directories that nobody else may change, and opens its files without
// following symlinks, refusing anything but a regular file: a user who could
// plant a symlink or a FIFO there could make it write over a root-only file,
// read one into an event, or hang it at start.

// UnsafePathError reports a path the daemon refuses to use: a directory
// another user owns or may write to, a symlink, a file that is not regular.
// It never carries a file's contents.
type UnsafePathError struct {
	Path string
	// Problem says what is wrong ("is a symbolic link", "is owned by uid
	// 1001 (bob), not by the daemon's user (root)").
	Problem string
	// Fix says what to do, when there is something obvious.
	Fix string
}

func (e *UnsafePathError) Error() string {
	msg := e.Path + " " + e.Problem
	if e.Fix != "" {
		msg += ": " + e.Fix
	}
	return msg
}

// ErrUnsafePath matches every *UnsafePathError with errors.Is.
var ErrUnsafePath = errors.New("unsafe path")

// Is makes errors.Is(err, ErrUnsafePath) true.
func (e *UnsafePathError) Is(target error) bool { return target == ErrUnsafePath }

// describeUID names a uid for messages: "uid 1001 (bob)".
func describeUID(uid int) string {
	s := "uid " + strconv.Itoa(uid)
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		s += " (" + u.Username + ")"
	}
	return s
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// notRegular is the error for a file the daemon will not open.
func notRegular(path string, m fs.FileMode) error {
	return &UnsafePathError{Path: path, Problem: "is " + fileKind(m) + ", not a regular file",
		Fix: "the daemon opens only regular files of its own there, never following links; remove it"}
}

// refuseSpecial refuses, from Lstat and before any open, a path that is
// not a regular file (a symlink, a FIFO, a device, a socket); a missing
// one is an error unless flag creates it.
func refuseSpecial(path string, flag int) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return notRegular(path, fi.Mode())
	case err != nil && (!errors.Is(err, fs.ErrNotExist) || flag&os.O_CREATE == 0):
		return err
	}
	return nil
}

// readOwned reads a regular file of the daemon's (openOwned) whole; a
// missing file is fs.ErrNotExist.
func readOwned(path string, limit int64) ([]byte, error) {
	f, err := openOwned(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d the daemon reads", path, fi.Size(), limit)
	}
	buf := make([]byte, fi.Size())
	n, err := f.ReadAt(buf, 0)
	if err != nil && n != len(buf) {
		return nil, err
	}
	return buf[:n], nil
}
