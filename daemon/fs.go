package daemon

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/reports"
)

// cachingFS is the scan's file system in the daemon. It records every path
// a scan asks about (what to watch) and keeps each file's contents with the
// file's stat signature: a file is read from disk again only when an event
// marked it dirty or its signature changed, so a rescan after one edit reads
// one file. Directory listings and stats are not cached: they are cheap,
// and a listing must see files created since.
type cachingFS struct {
	mu    sync.Mutex
	files map[string]*cachedFile
	// asked holds every path of the current scan: files read or stat'ed,
	// directories listed (true).
	asked map[string]bool
	// pinned serves a path's last good contents instead of the disk's, for
	// --policy files that became invalid: the daemon keeps enforcing the
	// last good policy.
	pinned map[string][]byte
	// listings fingerprints the names of each directory the last scan
	// listed, so that the resync sees a file appear in a listed folder.
	listings map[string][32]byte
	// reads counts reads from disk, for tests and status.
	reads int
}

type cachedFile struct {
	sig   fileSig
	data  []byte
	ferr  *reports.FileError
	exist bool
	dirty bool
	hash  [32]byte
}

// fileSig is what changes when a file changes: device and inode (a replace
// by rename), size, modification and change times.
type fileSig struct {
	dev, ino     uint64
	size         int64
	mtime, ctime time.Time
	mode         fs.FileMode
}

func newCachingFS() *cachingFS {
	return &cachingFS{files: map[string]*cachedFile{}, asked: map[string]bool{}, pinned: map[string][]byte{}, listings: map[string][32]byte{}}
}

func signature(fi fs.FileInfo) fileSig {
	s := fileSig{size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
	sysSig(fi, &s)
	return s
}

// beginScan clears the record of asked paths; endScan returns it.
func (c *cachingFS) beginScan() {
	c.mu.Lock()
	c.asked = map[string]bool{}
	c.listings = map[string][32]byte{}
	c.mu.Unlock()
}

func (c *cachingFS) endScan() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

func (c *cachingFS) note(p string, dir bool) {
	c.mu.Lock()
	c.asked[p] = c.asked[p] || dir
	c.mu.Unlock()
}

// ReadFile serves a file from memory when it is unchanged since it was
// read, and reads it (with cfgfile.Read's checks) otherwise.
func (c *cachingFS) ReadFile(path string) ([]byte, bool, *reports.FileError) {
	return c.readFile(path, -1)
}

// ReadFileOwned is ReadFile with cfgfile.ReadOwned's check for uid (a file
// of another user's home: the scan of every home).
func (c *cachingFS) ReadFileOwned(path string, uid int) ([]byte, bool, *reports.FileError) {
	return c.readFile(path, uid)
}

func (c *cachingFS) readFile(path string, uid int) ([]byte, bool, *reports.FileError) {
	c.note(path, false)
	c.mu.Lock()
	if data, ok := c.pinned[path]; ok {
		c.mu.Unlock()
		return data, true, nil
	}
	cf := c.files[path]
	c.mu.Unlock()
	fi, statErr := os.Stat(path)
	if cf != nil && !cf.dirty {
		switch {
		case statErr == nil && cf.exist && cf.ferr == nil && signature(fi) == cf.sig:
			return cf.data, true, nil
		case statErr != nil && !cf.exist && os.IsNotExist(statErr):
			return nil, false, nil
		}
	}
	data, exists, ferr := cfgfile.ReadOwned(path, uid)
	nf := &cachedFile{data: data, exist: exists, ferr: ferr, hash: sha256.Sum256(data)}
	if fi2, err := os.Stat(path); err == nil {
		nf.sig = signature(fi2)
	}
	c.mu.Lock()
	c.files[path] = nf
	c.reads++
	c.mu.Unlock()
	return data, exists, ferr
}

// ReadDir lists a directory and records it for watching.
func (c *cachingFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	c.note(dir, true)
	entries, err := os.ReadDir(dir)
	sum := listingSum(entries, err)
	c.mu.Lock()
	c.listings[dir] = sum
	c.mu.Unlock()
	return entries, err
}

func listingSum(entries []fs.DirEntry, err error) [32]byte {
	h := sha256.New()
	if err != nil {
		h.Write([]byte("error\x00"))
	}
	for _, e := range entries {
		h.Write([]byte(e.Name()))
		h.Write([]byte{0})
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// Stat records path and stats it.
func (c *cachingFS) Stat(path string) (fs.FileInfo, error) {
	c.note(path, false)
	return os.Stat(path)
}

// Lstat records path and lstats it.
func (c *cachingFS) Lstat(path string) (fs.FileInfo, error) {
	c.note(path, false)
	return os.Lstat(path)
}

// invalidate marks paths dirty: the next read goes to the disk whatever
// the signature says (a coarse timestamp can hide a rewrite).
func (c *cachingFS) invalidate(paths ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range paths {
		if cf := c.files[p]; cf != nil {
			cf.dirty = true
		}
	}
}

// invalidateUnder marks dirty every file at or below dir (a directory
// replaced as a whole).
func (c *cachingFS) invalidateUnder(dir string) {
	prefix := dir + string(os.PathSeparator)
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, cf := range c.files {
		if p == dir || strings.HasPrefix(p, prefix) {
			cf.dirty = true
		}
	}
}

// invalidateAll marks every file dirty (watcher overflow).
func (c *cachingFS) invalidateAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cf := range c.files {
		cf.dirty = true
	}
}

// changedOnDisk compares every cached file with the disk — its signature,
// and its content hash when the signature moved — and every listed
// directory with its listing, and marks what differs dirty. It is the
// periodic resync: stats and, rarely, reads; no scan when nothing changed.
func (c *cachingFS) changedOnDisk() []string {
	c.mu.Lock()
	paths := make([]string, 0, len(c.files))
	for p := range c.files {
		paths = append(paths, p)
	}
	listings := make(map[string][32]byte, len(c.listings))
	for d, sum := range c.listings {
		listings[d] = sum
	}
	c.mu.Unlock()
	var changed []string
	for d, sum := range listings {
		if listingSum(os.ReadDir(d)) != sum {
			changed = append(changed, d)
		}
	}
	for _, p := range paths {
		c.mu.Lock()
		cf := c.files[p]
		c.mu.Unlock()
		fi, err := os.Stat(p)
		switch {
		case err != nil && !cf.exist && os.IsNotExist(err):
			continue
		case err == nil && cf.exist && signature(fi) == cf.sig && !cf.dirty:
			continue
		}
		data, exists, ferr := cfgfile.Read(p)
		if exists == cf.exist && sha256.Sum256(data) == cf.hash && (ferr == nil) == (cf.ferr == nil) {
			// Touched, not changed: keep the contents, learn the signature.
			if err == nil {
				c.mu.Lock()
				cf.sig = signature(fi)
				c.mu.Unlock()
			}
			continue
		}
		c.invalidate(p)
		changed = append(changed, p)
	}
	return changed
}

// pin serves data for path until unpin, whatever the disk holds.
func (c *cachingFS) pin(path string, data []byte) {
	c.mu.Lock()
	c.pinned[path] = data
	c.mu.Unlock()
}

func (c *cachingFS) unpin(path string) {
	c.mu.Lock()
	delete(c.pinned, path)
	c.mu.Unlock()
}

var _ cfgfile.FS = (*cachingFS)(nil)
