package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/filelock"
	"github.com/mcpguard/mcpguard/internal/secrets"
)

// ringSize is how many events the daemon keeps in memory for
// GET /v1/events; older ones are read back from the event file.
const ringSize = 4096

// maxPendingBytes bounds the events kept in memory while the event file
// cannot be written (a full disk): about 8,000 typical events.
const maxPendingBytes = 4 << 20

// Retry delays of a failed event file write, doubling.
const (
	writeRetryFirst = 250 * time.Millisecond
	writeRetryMax   = 10 * time.Second
)

// ErrEventsLocked reports an event file another daemon writes.
var ErrEventsLocked = errors.New("another mcpguard daemon writes this event file")

// eventLog numbers the daemon's events, appends them to the event file
// and keeps the recent ones for the API.
//
// The file gets whole lines only, in order: a write that fails part way
// (ENOSPC, EIO) is cut back to the last whole line, and the events stay
// queued in memory, retried with backoff and at every later event, until
// they are written. Beyond maxPendingBytes the newest are not queued: their
// numbers are counted, and once the file takes writes again an
// events-dropped event says which are missing from it (the API still has
// them while they are among the last ringSize). The file is locked, so that
// two daemons cannot number into one file, and reopened when it was renamed
// or removed (logrotate's create); with O_APPEND a truncation
// (copytruncate) is followed as it is.
type eventLog struct {
	mu   sync.Mutex
	path string
	log  *slog.Logger
	det  *secrets.Detector
	now  func() time.Time
	seq  int64
	ring []events.Event
	// notify is closed and replaced on every emit: followers wait on it.
	notify chan struct{}

	f *os.File
	// good is the file's size after the last whole write: what a failed
	// write is cut back to.
	good int64
	// pending are encoded lines (with their newline) not yet in the file,
	// oldest first; pendingSeq the number of the first.
	pending      [][]byte
	pendingBytes int
	pendingSeq   int64
	maxPending   int
	// dropped counts events not queued for the file, numbered
	// droppedFirst to droppedLast.
	dropped, droppedFirst, droppedLast int64
	writeErr                           error
	retry                              *time.Timer
	backoff                            time.Duration
	closed                             bool
}

// newEventLog opens the event file (path, "" for none) and numbers on from
// seq or the file's last event, whichever is higher. It fails when the file
// is another daemon's, is not a regular file of the daemon's, or holds an
// event number no daemon can have written. Any other trouble with the file
// (a full disk, a missing directory) leaves the events in memory, retried.
func newEventLog(path string, seq int64, det *secrets.Detector, now func() time.Time, log *slog.Logger) (*eventLog, error) {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l := &eventLog{path: path, log: log, det: det, now: now, notify: make(chan struct{}), maxPending: maxPendingBytes}
	if path != "" {
		if err := ownedDir(filepath.Dir(path), 0o700); errors.Is(err, ErrUnsafePath) {
			return nil, fmt.Errorf("event file directory: %w", err)
		}
		last, err := lastSeqInFile(path)
		if err != nil {
			return nil, err
		}
		if last > seq {
			// Events written after the last saved state (a crash between
			// the two) keep their numbers: never number two events alike.
			seq = last
		}
		if err := l.open(); err != nil {
			if errors.Is(err, ErrEventsLocked) || errors.Is(err, ErrUnsafePath) {
				return nil, err
			}
			l.writeErr = err
		}
	}
	l.seq = seq
	return l, nil
}

// open opens and locks the event file, creating it (0600).
func (l *eventLog) open() error {
	if err := ownedDir(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("event file directory: %w", err)
	}
	f, err := openOwned(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("event file: %w", err)
	}
	held, err := filelock.TryLock(f)
	if err == nil && held {
		err = fmt.Errorf("event file %s: %w", l.path, ErrEventsLocked)
	}
	if err != nil {
		f.Close()
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("event file %s: %w", l.path, err)
	}
	l.f, l.good = f, fi.Size()
	return nil
}

func (l *eventLog) closeFile() {
	if l.f != nil {
		filelock.Unlock(l.f)
		l.f.Close()
		l.f = nil
	}
}

// emit prepares (redacts, timestamps) and numbers evs, writes them, and
// wakes followers.
func (l *eventLog) emit(evs ...events.Event) {
	if len(evs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range evs {
		l.add(e)
	}
	l.flush()
	l.wake()
}

// add numbers e, keeps it in the ring and queues it for the file.
func (l *eventLog) add(e events.Event) {
	e = events.Prepare(e, "daemon", l.det, l.now)
	l.seq++
	e.Seq = l.seq
	l.ring = append(l.ring, e)
	if over := len(l.ring) - ringSize; over > 0 {
		l.ring = append(l.ring[:0:0], l.ring[over:]...)
	}
	if l.path == "" {
		return
	}
	line := append(events.Marshal(e), '\n')
	if l.dropped == 0 && l.pendingBytes+len(line) > l.maxPending {
		l.flush() // a healthy file takes the queue now
	}
	if l.dropped > 0 || l.pendingBytes+len(line) > l.maxPending {
		// Once one is dropped, every later one is until the file takes
		// writes again: the missing numbers form one range.
		if l.dropped == 0 {
			l.droppedFirst = e.Seq
		}
		l.dropped++
		l.droppedLast = e.Seq
		return
	}
	if len(l.pending) == 0 {
		l.pendingSeq = e.Seq
	}
	l.pending = append(l.pending, line)
	l.pendingBytes += len(line)
}

func (l *eventLog) wake() {
	close(l.notify)
	l.notify = make(chan struct{})
}

// flush writes the queue, and then the events-dropped event the drops
// call for; on failure it arms a retry.
func (l *eventLog) flush() {
	if l.path == "" || l.closed || (len(l.pending) == 0 && l.dropped == 0) {
		return
	}
	if err := l.writePending(); err != nil {
		if l.writeErr == nil {
			l.log.Error("events cannot be written; they are kept in memory and retried", "file", l.path, "err", err)
		}
		l.writeErr = err
		l.armRetry()
		return
	}
	if l.dropped > 0 {
		first, last, n := l.droppedFirst, l.droppedLast, l.dropped
		l.dropped, l.droppedFirst, l.droppedLast = 0, 0, 0
		l.add(events.Event{Kind: "events-dropped", Severity: "error",
			Message: fmt.Sprintf("%d events (#%d to #%d) could not be written to this file (%v) and are missing from it; the API keeps the last %d events", n, first, last, l.writeErr, ringSize),
			Details: map[string]any{"first": first, "last": last, "count": n}})
		if err := l.writePending(); err != nil {
			l.writeErr = err
			l.armRetry()
			return
		}
	}
	if l.writeErr != nil {
		l.log.Info("the event file takes writes again; the queued events are written", "file", l.path)
	}
	l.writeErr, l.backoff = nil, 0
}

// writePending writes the queued lines with one write, after checking that
// the file is still the one at path.
func (l *eventLog) writePending() error {
	if len(l.pending) == 0 {
		return nil
	}
	if err := l.follow(); err != nil {
		return err
	}
	var buf []byte
	if len(l.pending) == 1 {
		buf = l.pending[0]
	} else {
		buf = bytes.Join(l.pending, nil)
	}
	n, err := l.f.Write(buf)
	if err != nil {
		if n > 0 {
			// Never leave part of a line: the next write would join it.
			if terr := l.f.Truncate(l.good); terr != nil {
				l.good = -1 // unknown: the next write checks the tail
			}
		}
		return fmt.Errorf("event file %s: %w", l.path, err)
	}
	l.good += int64(len(buf))
	l.pending, l.pendingBytes, l.pendingSeq = nil, 0, 0
	return nil
}

// follow makes l.f the file at path: reopened when the path names another
// file or none (renamed or removed: logrotate's create), its size learnt
// again when it changed behind the daemon's back (copytruncate, or a cut
// that failed), and a torn last line from before ended, so that the next
// line starts on a line of its own.
func (l *eventLog) follow() error {
	var fi os.FileInfo
	if l.f != nil {
		cur, serr := os.Lstat(l.path)
		var err error
		if fi, err = l.f.Stat(); serr != nil || err != nil || !os.SameFile(cur, fi) {
			l.closeFile()
		}
	}
	if l.f == nil {
		if err := l.open(); err != nil {
			return err
		}
		l.good = -1
		var err error
		if fi, err = l.f.Stat(); err != nil {
			return fmt.Errorf("event file %s: %w", l.path, err)
		}
	}
	if fi.Size() == l.good {
		return nil
	}
	l.good = fi.Size()
	if l.good == 0 {
		return nil
	}
	last := make([]byte, 1)
	rf, err := openOwned(l.path, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("event file: %w", err)
	}
	_, err = rf.ReadAt(last, l.good-1)
	rf.Close()
	if err != nil {
		return fmt.Errorf("event file %s: %w", l.path, err)
	}
	if last[0] != '\n' {
		if _, err := l.f.Write([]byte{'\n'}); err != nil {
			return fmt.Errorf("event file %s: %w", l.path, err)
		}
		l.good++
	}
	return nil
}

// armRetry schedules a flush with backoff, unless one is due.
func (l *eventLog) armRetry() {
	if l.closed || l.retry != nil {
		return
	}
	l.backoff = min(max(2*l.backoff, writeRetryFirst), writeRetryMax)
	l.retry = time.AfterFunc(l.backoff, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.retry = nil
		if l.closed {
			return
		}
		seq := l.seq
		l.flush()
		if l.seq != seq {
			l.wake() // an events-dropped event
		}
	})
}

// backlog says how many events are not in the file yet: queued and
// dropped ones.
func (l *eventLog) backlog() (queued int, dropped int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending), l.dropped
}

// state returns the last sequence number and the write error, if any.
func (l *eventLog) state() (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq, l.writeErr
}

// since returns the events numbered after n that are still in memory, the
// number of the oldest one in memory, and a channel closed at the next emit.
// Older events are in the file (streamFile).
func (l *eventLog) since(n int64) ([]events.Event, int64, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []events.Event
	oldest := l.seq + 1
	if len(l.ring) > 0 {
		oldest = l.ring[0].Seq
	}
	for _, e := range l.ring {
		if e.Seq > n {
			out = append(out, e)
		}
	}
	return out, oldest, l.notify
}

// close stops the retries after one last attempt to write the queue; what
// is still queued then is lost, and said so.
func (l *eventLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.retry != nil {
		l.retry.Stop()
		l.retry = nil
	}
	l.flush()
	l.closed = true
	if l.retry != nil {
		l.retry.Stop()
		l.retry = nil
	}
	if n := int64(len(l.pending)) + l.dropped; n > 0 {
		first := l.droppedFirst
		if len(l.pending) > 0 {
			first = l.pendingSeq
		}
		l.log.Error("events could not be written to the event file before the daemon stopped; they are lost from it",
			"file", l.path, "count", n, "first", first, "last", l.seq, "err", l.writeErr)
	}
	l.closeFile()
}

// streamFile calls fn with each daemon event of the file numbered in
// (after, before), as its line; it reads the file a line at a time.
func streamFile(path string, after, before int64, fn func(e *events.Event, line []byte) error) error {
	f, err := openOwned(path, os.O_RDONLY, 0)
	if err != nil {
		return nil // nothing to add: the events are in memory only
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e events.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Source != "daemon" {
			continue
		}
		if e.Seq >= before {
			break
		}
		if e.Seq > after {
			if err := fn(&e, sc.Bytes()); err != nil {
				return err
			}
		}
	}
	return nil
}

// lastSeqInFile returns the highest daemon event number in the last 256 KiB
// of the event file, 0 for none or no file. A number beyond maxSeq, or a
// file that is not the daemon's to open, is an error.
func lastSeqInFile(path string) (int64, error) {
	f, err := openOwned(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		if errors.Is(err, ErrUnsafePath) {
			return 0, fmt.Errorf("event file: %w", err)
		}
		return 0, nil // unreadable: the write will say why
	}
	defer f.Close()
	const tail = 256 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		if _, err := f.Seek(fi.Size()-tail, io.SeekStart); err != nil {
			return 0, nil
		}
	}
	data, _ := io.ReadAll(f)
	var last int64
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e struct {
			Source string `json:"source"`
			Seq    int64  `json:"seq"`
		}
		if json.Unmarshal(line, &e) != nil || e.Source != "daemon" {
			continue
		}
		if e.Seq < 0 || e.Seq > maxSeq {
			return 0, &UnsafePathError{Path: path, Problem: fmt.Sprintf("holds the event number %d, which this daemon cannot have written", e.Seq),
				Fix: "rotate it away to number events on from the state"}
		}
		last = max(last, e.Seq)
	}
	return last, nil
}
