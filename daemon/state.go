package daemon

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/internal/atomicfile"
	"github.com/mcpguard/mcpguard/internal/filelock"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// StateSchema identifies the daemon's state file.
const StateSchema = "mcpguard/daemon-state/v1"

// State file names inside the state directory.
const (
	stateFile = "state.json"
	keyFile   = "state.key"
	lockFile  = "daemon.lock"
)

// state is what the daemon persists after every change: the inventory it
// last reported and the last event number, so that a restart reports what
// changed while it was down and numbers events on.
type state struct {
	Schema string          `json:"schema"`
	Seq    int64           `json:"seq"`
	Report *reports.Report `json:"report"`
	// Secrets maps a server id to keyed hashes of the values a report does
	// not show (env and header values, raw args and URL), so that a changed
	// token or LD_PRELOAD path is a server-changed event without any value
	// being stored.
	Secrets map[string]map[string]string `json:"secrets,omitempty"`
	// Owners attributes what is not a server to users (--all-users).
	Owners *owners `json:"owners,omitempty"`
}

// ErrLocked reports a second daemon on one state directory.
var ErrLocked = errors.New("another mcpguard daemon is running on this state directory")

// stateDir is an opened, locked state directory.
type stateDir struct {
	path string
	lock *os.File
	key  []byte
}

// openStateDir makes sure dir is the daemon's own (ownedDir: created 0700
// when missing; refused when another user owns it or may write to it),
// takes its lock without waiting and loads or creates the key of the
// secret hashes.
func openStateDir(dir string) (*stateDir, error) {
	if err := ownedDir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	lf, err := openOwned(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	held, err := filelock.TryLock(lf)
	if err != nil {
		lf.Close()
		return nil, fmt.Errorf("state directory: lock %s: %w", lf.Name(), err)
	}
	if held {
		who := lockHolder(lf)
		lf.Close()
		return nil, fmt.Errorf("%s: %w%s", dir, ErrLocked, who)
	}
	_ = lf.Truncate(0)
	_, _ = lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	sd := &stateDir{path: dir, lock: lf}
	if sd.key, err = loadOrCreateKey(filepath.Join(dir, keyFile)); err != nil {
		sd.close()
		return nil, err
	}
	return sd, nil
}

// lockHolder names the process that holds a lock file, " (pid N)", from
// the number it wrote there; nothing when the file holds anything else.
func lockHolder(f *os.File) string {
	buf := make([]byte, 24)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return ""
	}
	return " (pid " + strconv.Itoa(pid) + ")"
}

func (sd *stateDir) close() {
	filelock.Unlock(sd.lock)
	sd.lock.Close()
}

func loadOrCreateKey(path string) ([]byte, error) {
	data, err := readOwned(path, 4096)
	if err == nil {
		key, derr := hex.DecodeString(strings.TrimSpace(string(data)))
		if derr == nil && len(key) == 32 {
			return key, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("state key: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("state key: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("state key: %w", err)
	}
	return key, nil
}

// maxSeq bounds event numbers: 2^53-1, the largest integer every JSON
// consumer reads exactly. At a thousand events a second the daemon would
// take 285,000 years to reach it: a larger number was not written by it.
const maxSeq = 1<<53 - 1

// maxStateBytes bounds the state file the daemon reads (a 10,000-server
// inventory is about 10 MB).
const maxStateBytes = 512 << 20

// load reads the persisted state. A missing file is a first start; a file
// that does not parse is moved aside (state.json.corrupt-<time>) and the
// daemon starts as if for the first time, saying so without quoting it. A
// state file that is not a regular file of the daemon's (a symlink, a
// FIFO), or whose event number is implausible, is refused: it was planted.
func (sd *stateDir) load(now time.Time) (st *state, note string, err error) {
	path := filepath.Join(sd.path, stateFile)
	data, err := readOwned(path, maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read state: %w", err)
	}
	st = &state{}
	if jerr := json.Unmarshal(data, st); jerr != nil || st.Schema != StateSchema || st.Report == nil {
		aside := path + ".corrupt-" + now.UTC().Format("20060102T150405Z")
		if rerr := os.Rename(path, aside); rerr != nil {
			return nil, "", fmt.Errorf("state %s is unreadable and cannot be moved aside: %w", path, rerr)
		}
		return nil, fmt.Sprintf("the state file was unreadable (%s) and was moved to %s; the inventory starts afresh", stateProblem(jerr), aside), nil
	}
	if st.Seq < 0 || st.Seq > maxSeq {
		return nil, "", &UnsafePathError{Path: path, Problem: fmt.Sprintf("holds the event number %d, which this daemon cannot have written (0 to %d)", st.Seq, int64(maxSeq)),
			Fix: "move it aside to start a fresh inventory"}
	}
	return st, "", nil
}

// stateProblem says why a state file is unusable without quoting it: a
// JSON error's own text names the character it met.
func stateProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return "not a " + StateSchema + " document"
	case errors.As(err, &syn):
		return fmt.Sprintf("not valid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("a member of the wrong type at byte %d", typ.Offset)
	}
	return "not valid JSON"
}

// save writes the state atomically.
func (sd *stateDir) save(st *state) error {
	st.Schema = StateSchema
	data, err := st.marshal()
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(sd.path, stateFile), data, 0o600); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	return nil
}

// marshal is st as JSON, what json.Marshal would write but for the
// report's layout: the report goes through its own writer (reports.WriteJSON,
// byte for byte what encoding/json writes), the few other members through
// encoding/json.
func (st *state) marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"schema":`)
	head, err := json.Marshal(st.Schema)
	if err != nil {
		return nil, err
	}
	b.Write(head)
	b.WriteString(`,"seq":`)
	b.WriteString(strconv.FormatInt(st.Seq, 10))
	b.WriteString(`,"report":`)
	if st.Report == nil {
		b.WriteString("null")
	} else if err := reports.WriteJSON(&b, st.Report); err != nil {
		return nil, err
	}
	if len(st.Secrets) > 0 {
		b.WriteString(`,"secrets":`)
		sec, err := json.Marshal(st.Secrets)
		if err != nil {
			return nil, err
		}
		b.Write(sec)
	}
	if st.Owners != nil {
		b.WriteString(`,"owners":`)
		own, err := json.Marshal(st.Owners)
		if err != nil {
			return nil, err
		}
		b.Write(own)
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

// secretHasher makes keyed hashes of what a report does not show, with
// one HMAC for a whole scan, reset between values, so that the key
// schedule (two SHA-256 blocks) and its allocations are paid once a scan
// rather than once a value. Not safe for concurrent use.
type secretHasher struct {
	h   hash.Hash
	sum []byte
}

func newSecretHasher(key []byte) *secretHasher {
	return &secretHasher{h: hmac.New(sha256.New, key)}
}

// server returns keyed hashes of what the report of s does not show: each
// env and header value, the raw arguments and URL. No value can be
// recovered from them without the key, which never leaves the state
// directory.
func (sh *secretHasher) server(s *scanner.Server) map[string]string {
	out := map[string]string{"args": sh.mac(append([]string{"args", s.Command}, s.Args...)...)}
	if s.URL != "" {
		out["url"] = sh.mac("url", s.URL)
	}
	for k, v := range s.Env {
		out["env:"+k] = sh.mac("env", k, v)
	}
	for k, v := range s.Headers {
		out["header:"+k] = sh.mac("header", k, v)
	}
	return out
}

// mac is the keyed hash of parts, each ended by a zero byte, in hex (its
// first 16 bytes).
func (sh *secretHasher) mac(parts ...string) string {
	sh.h.Reset()
	for _, p := range parts {
		io.WriteString(sh.h, p)
		sh.h.Write([]byte{0})
	}
	sh.sum = sh.h.Sum(sh.sum[:0])
	return hex.EncodeToString(sh.sum[:16])
}

// changedSecrets lists the keys whose hashes differ (added, removed or
// changed), sorted.
func changedSecrets(old, cur map[string]string) []string {
	var out []string
	for k, v := range cur {
		if old[k] != v {
			out = append(out, k)
		}
	}
	for k := range old {
		if _, ok := cur[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
