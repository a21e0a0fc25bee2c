package cfgfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
)

// FS is what a scan reads. Every file read and directory listing of a scan
// goes through one FS, so that a long-running process can observe what a
// scan looked at (to watch it) and serve unchanged files from memory while
// re-reading only the ones that changed.
//
// Implementations must be safe for concurrent use.
type FS interface {
	// ReadFile returns the contents of a configuration file with Read's
	// semantics: exists is false, with a nil error, when the path does not
	// exist; every other failure is a FileError naming the path.
	ReadFile(path string) (data []byte, exists bool, ferr *reports.FileError)
	// ReadDir lists a directory as os.ReadDir does.
	ReadDir(dir string) ([]fs.DirEntry, error)
	// Stat and Lstat describe a path as os.Stat and os.Lstat do.
	Stat(path string) (fs.FileInfo, error)
	Lstat(path string) (fs.FileInfo, error)
}

// OS is the machine's file system.
type OS struct{}

// ReadFile reads path with Read.
func (OS) ReadFile(path string) ([]byte, bool, *reports.FileError) { return Read(path) }

// ReadDir is os.ReadDir.
func (OS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// Stat is os.Stat.
func (OS) Stat(path string) (fs.FileInfo, error) { return os.Stat(path) }

// Lstat is os.Lstat.
func (OS) Lstat(path string) (fs.FileInfo, error) { return os.Lstat(path) }

// Glob returns the paths that match pattern, sorted, reading directories
// through fsys. Any path element may hold wildcards (filepath.Match syntax);
// a malformed pattern matches nothing. Like filepath.Glob it ignores I/O
// errors.
func Glob(fsys FS, pattern string) []string {
	pattern = filepath.Clean(pattern)
	if !hasMeta(pattern) {
		if _, err := fsys.Lstat(pattern); err != nil {
			return nil
		}
		return []string{pattern}
	}
	dir, file := filepath.Split(pattern)
	dir = cleanDir(dir)
	var dirs []string
	if hasMeta(dir) {
		dirs = Glob(fsys, dir)
	} else {
		dirs = []string{dir}
	}
	var out []string
	for _, d := range dirs {
		entries, err := fsys.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if ok, err := filepath.Match(file, e.Name()); err == nil && ok {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out
}

func hasMeta(p string) bool { return strings.ContainsAny(p, `*?[`) }

// cleanDir drops the trailing separator filepath.Split leaves, keeping a
// root as it is.
func cleanDir(d string) string {
	if d == "" {
		return "."
	}
	if v := filepath.VolumeName(d); len(d) == len(v)+1 {
		return d // "/" or `C:\`
	}
	return d[:len(d)-1]
}

// OwnedReader is an FS that can also read with ReadOwned's check.
type OwnedReader interface {
	ReadFileOwned(path string, uid int) (data []byte, exists bool, ferr *reports.FileError)
}

// ReadFileOwned reads path with ReadOwned.
func (OS) ReadFileOwned(path string, uid int) ([]byte, bool, *reports.FileError) {
	return ReadOwned(path, uid)
}

// ForHome returns fsys reading every file under home with ReadOwned's
// check for the home's owner, when that owner is not the effective user
// (root scanning every home) and fsys can (OwnedReader); fsys otherwise.
func ForHome(fsys FS, home string) FS {
	or, ok := fsys.(OwnedReader)
	if home == "" || !ok {
		return fsys
	}
	fi, err := fsys.Stat(home)
	if err != nil {
		return fsys
	}
	uid, ok := ownerOf(fi)
	if !ok || uid == os.Geteuid() {
		return fsys
	}
	return homeFS{FS: fsys, or: or, home: filepath.Clean(home), uid: uid}
}

// homeFS is ForHome's FS.
type homeFS struct {
	FS
	or   OwnedReader
	home string
	uid  int
}

// ReadFile reads a file under the home with the owner's check.
func (h homeFS) ReadFile(path string) ([]byte, bool, *reports.FileError) {
	if rel, err := filepath.Rel(h.home, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return h.or.ReadFileOwned(path, h.uid)
	}
	return h.FS.ReadFile(path)
}
