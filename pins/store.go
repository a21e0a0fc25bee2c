package pins

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpguard/mcpguard/internal/atomicfile"
	"github.com/mcpguard/mcpguard/internal/filelock"
	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// The pin store (docs/pins.md) keeps the pins of MCPG-T003 on disk, where
// every proxy a client starts (one per server, often all at once) reads
// and writes them. Three files live side by side:
//
//	pins.json       the Set (0600), replaced atomically on every write
//	pins.json.key   the HMAC key of the launch pins (0600), never inside
//	                the pin file, so that sharing or backing up a pin file
//	                does not hand out what brute-forces short env values
//	pins.json.lock  an empty file that carries the advisory lock; it is
//	                never removed (removing a lock file lets two processes
//	                lock two different files)
//
// The key and lock names append ".key" and ".lock" to the pin file's whole
// name, so that any --pins path (even one ending in ".key") has its own
// key and lock and never collides with them.
//
// Writers take an exclusive lock, read, change, write a temporary file in
// the same directory, fsync it, rename it over the pin file and fsync the
// directory: a reader sees the old file or the new one, never a mix, and a
// crash leaves one of them. Readers take a shared lock when they can (on
// Windows a file that is open cannot be replaced, so an unlocked reader
// could make a writer fail); a reader that finds no lock file or cannot
// lock it reads without it, which atomic renames make safe.

// MaxFileSize is the largest pin file the store reads. Pins are a few
// KiB per server; anything near the limit is hostile or broken.
const MaxFileSize = 64 << 20

// pinKeySize is the length of the key NewKey makes and the key file
// must hold.
const pinKeySize = 32

// Store is a pin file on disk shared by several processes. Its methods
// are safe for concurrent use by goroutines; separate processes (and
// separate PinStores of one path) coordinate through the lock file.
type Store struct {
	path, keyPath, lockPath string
	key                     []byte

	// updateMu serializes this store's Updates: on systems whose file
	// locks belong to the process rather than to the open file (fcntl
	// locks), the OS lock alone would not exclude a second goroutine.
	updateMu sync.Mutex

	mu    sync.Mutex // guards stamp
	stamp fileStamp
}

// fileStamp identifies the version of the pin file a store last read or
// wrote.
type fileStamp struct {
	valid  bool        // false until the first Load or Update
	exists bool        // the file existed
	info   fs.FileInfo // when exists
}

// DefaultPath returns the pin file of a user: on Linux and other Unix
// systems $XDG_STATE_HOME/mcpguard/pins.json or else
// HOME/.local/state/mcpguard/pins.json; on macOS HOME/Library/Application
// Support/mcpguard/pins.json; on Windows %LOCALAPPDATA%\mcpguard\pins.json
// or else HOME\AppData\Local\mcpguard\pins.json. A relative variable is
// ignored (as the XDG base directory specification requires): pins that
// followed the working directory would re-trust every server in each new
// directory. Pins are state, not
// configuration: they are machine-local and regenerate on first use, so
// they belong in the state (not the config or the roaming) directory.
//
// It depends only on its arguments, so that callers (and tests) inject the
// environment. It returns "" when neither the variable nor home is set.
func DefaultPath(goos, home string, lookupEnv func(string) (string, bool)) string {
	env := func(k string) string {
		if lookupEnv == nil {
			return ""
		}
		v, _ := lookupEnv(k)
		return v
	}
	switch goos {
	case "windows":
		join := func(elems ...string) string { return joinOS(`\`, elems...) }
		if d := env("LOCALAPPDATA"); windowsAbs(d) {
			return join(d, "mcpguard", "pins.json")
		}
		if home == "" {
			return ""
		}
		return join(home, "AppData", "Local", "mcpguard", "pins.json")
	case "darwin", "ios":
		if home == "" {
			return ""
		}
		return joinOS("/", home, "Library", "Application Support", "mcpguard", "pins.json")
	}
	if d := env("XDG_STATE_HOME"); strings.HasPrefix(d, "/") {
		return joinOS("/", d, "mcpguard", "pins.json")
	}
	if home == "" {
		return ""
	}
	return joinOS("/", home, ".local", "state", "mcpguard", "pins.json")
}

// joinOS joins path elements with the separator of the target system
// rather than the running one, so that DefaultPath is the same
// function on every host.
func joinOS(sep string, elems ...string) string {
	return strings.TrimRight(elems[0], `/\`) + sep + strings.Join(elems[1:], sep)
}

// windowsAbs reports whether p is an absolute Windows path (C:\x or a UNC
// \\server\share path).
func windowsAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// OpenStore opens the pin file at path: it creates the directory (0700)
// when missing, and the key file when missing. The pin file itself is only
// created by the first Update; a missing one reads as an empty set.
//
// A key file that exists but does not hold a key is an error, not replaced:
// a new key would make every pinned env value look changed.
func OpenStore(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("open pin store: empty path")
	}
	s := newPinStore(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open pin store: %w", err)
	}
	key, err := s.loadOrCreateKey()
	if err != nil {
		return nil, fmt.Errorf("open pin store: %w", err)
	}
	s.key = key
	return s, nil
}

func newPinStore(path string) *Store {
	return &Store{path: path, keyPath: path + ".key", lockPath: path + ".lock"}
}

// LoadFile reads the pin file at path as Store.Load does, without
// creating the directory or the key: for commands that only look.
func LoadFile(path string) (*Set, error) {
	if path == "" {
		return nil, errors.New("load pins: empty path")
	}
	return newPinStore(path).Load()
}

// Path returns the pin file's path.
func (s *Store) Path() string { return s.path }

// KeyPath returns the key file's path (the pin file's path + ".key").
func (s *Store) KeyPath() string { return s.keyPath }

// Key returns the HMAC key for PinLaunch. It comes from the key file beside
// the pin file and is never written into it. The slice is a copy.
func (s *Store) Key() []byte { return bytes.Clone(s.key) }

// Load reads the pin file. A missing file is an empty set. A malformed one
// is an error naming the path (and line:col when the JSON decoder located
// the problem); it is never replaced by an empty set, since that would
// re-trust every server on first use.
func (s *Store) Load() (*Set, error) {
	unlock := s.lockShared()
	defer unlock()
	ps, _, st, err := s.read()
	if err != nil {
		return nil, err
	}
	s.setStamp(st)
	return ps, nil
}

// Update changes the pin file under an exclusive lock: it reads the file,
// calls fn, and writes the result atomically. An error from fn aborts
// without writing and is returned as is. A pin file that does not parse
// is an error and is left alone. When fn leaves the encoding unchanged,
// nothing is written, so that other processes' Changed stays false.
//
// fn must not call Update or Load on a store of the same file: the lock is
// not reentrant.
func (s *Store) Update(fn func(*Set) error) error {
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	ps, old, st, err := s.read()
	if err != nil {
		return err
	}
	if err := fn(ps); err != nil {
		return err
	}
	data, err := ps.MarshalIndent()
	if err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	if st.exists && bytes.Equal(data, old) {
		s.setStamp(st)
		return nil
	}
	if err := atomicfile.WriteFile(s.path, data, 0o600); err != nil {
		return err
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	s.setStamp(fileStamp{valid: true, exists: true, info: fi})
	return nil
}

// Changed reports whether the pin file may have changed since this store
// last loaded or wrote it: whether it appeared, disappeared, or is another
// file (replaced by a rename), or its size or modification time differ. It
// costs one stat, so that a proxy can recheck approvals on every call to a
// withheld tool and Load only when this says so. It is true before the
// first Load and when the file cannot be examined. A false positive costs
// a Load; a false negative needs a replacement with the same inode, size
// and modification time.
func (s *Store) Changed() bool {
	s.mu.Lock()
	st := s.stamp
	s.mu.Unlock()
	if !st.valid {
		return true
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) || st.exists
	}
	if !st.exists {
		return true
	}
	return !os.SameFile(st.info, fi) || fi.Size() != st.info.Size() || !fi.ModTime().Equal(st.info.ModTime())
}

func (s *Store) setStamp(st fileStamp) {
	s.mu.Lock()
	s.stamp = st
	s.mu.Unlock()
}

// read reads and parses the pin file, returning the set, the raw bytes and
// the stamp of what was read (from the open file, so that it matches the
// bytes even if a rename follows).
func (s *Store) read() (*Set, []byte, fileStamp, error) {
	data, fi, err := readCapped(s.path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return NewSet(), nil, fileStamp{valid: true}, nil
	}
	if err != nil {
		return nil, nil, fileStamp{}, fmt.Errorf("read pins: %w", err)
	}
	ps, err := ParseSet(data)
	if err != nil {
		return nil, nil, fileStamp{}, pinParseError(s.path, data, err)
	}
	return ps, data, fileStamp{valid: true, exists: true, info: fi}, nil
}

// pinParseError names the path, and the line and column when the decoder
// gave an offset.
func pinParseError(path string, data []byte, err error) error {
	off := int64(-1)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offset is after the offending byte
	case errors.As(err, &te):
		off = te.Offset - 1
	}
	if off >= 0 && off <= int64(len(data)) {
		p := jsonc.NewLineIndex(data).Pos(int(off))
		return fmt.Errorf("%s:%d:%d: %w", path, p.Line, p.Col, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// readCapped reads a regular file of at most limit bytes. A missing file is
// an error wrapping fs.ErrNotExist. A FIFO or device is refused before it is
// opened (opening a FIFO blocks until a writer comes).
func readCapped(path string, limit int64) ([]byte, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRegular(path, fi, limit); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, nil, err
	}
	if err := checkRegular(path, fi, limit); err != nil {
		return nil, nil, err
	}
	// The file may grow after Stat: never read past the limit.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("%s: file is over the %d MiB limit", path, limit>>20)
	}
	return data, fi, nil
}

func checkRegular(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s: file is %d bytes, over the %d MiB limit", path, fi.Size(), limit>>20)
	}
	return nil
}

// loadOrCreateKey returns the key in the key file, creating the file when
// it is missing. Creation happens under the store's exclusive lock, after
// checking again that no other process created it meanwhile, and by
// renaming a complete temporary file into place: every process ends up
// with the same key, and none ever reads a partial one.
func (s *Store) loadOrCreateKey() ([]byte, error) {
	key, err := s.readKey()
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	key, err = s.readKey()
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err // another process won the race
	}
	if key, err = NewKey(); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(s.keyPath, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("create pin key: %w", err)
	}
	return key, nil
}

// readKey reads the key file: 64 hex digits (32 bytes) and an optional
// newline. Hex keeps the file printable, so that a person can back it up.
func (s *Store) readKey() ([]byte, error) {
	data, _, err := readCapped(s.keyPath, 1<<10)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("read pin key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != pinKeySize {
		return nil, fmt.Errorf("read pin key: %s: not a %d-byte hex key (remove it to make a new one; every pinned env value then reads as changed)", s.keyPath, pinKeySize)
	}
	return key, nil
}

// lock takes the store's exclusive lock and returns its release, creating
// the lock file when missing.
func (s *Store) lock() (func(), error) {
	f, err := os.OpenFile(s.lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", s.lockPath, err)
	}
	if err := filelock.Lock(f, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", s.lockPath, err)
	}
	return func() {
		filelock.Unlock(f)
		f.Close() // closing releases the lock too, should unlocking fail
	}, nil
}

// lockShared takes a shared lock for a reader when it can. It opens an
// existing lock file only, so that looking at a pin file creates nothing. A
// reader that finds no lock file (no store ever wrote here), cannot open it
// (another user's) or cannot lock it reads without the lock: writes are
// atomic renames, so it still sees a whole file.
func (s *Store) lockShared() func() {
	f, err := os.Open(s.lockPath)
	if err != nil {
		return func() {}
	}
	if filelock.Lock(f, false) != nil {
		f.Close()
		return func() {}
	}
	return func() {
		filelock.Unlock(f)
		f.Close()
	}
}
