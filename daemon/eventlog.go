package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
)

// ringSize is how many events the daemon keeps in memory for
// GET /v1/events; older ones are read back from the event file.
const ringSize = 4096

// eventLog numbers the daemon's events, appends them to the event file
// and keeps the recent ones for the API. A file that cannot be written
// does not stop anything: the events stay in memory, the status says the
// file is not writable, and every later event tries the file again.
type eventLog struct {
	mu       sync.Mutex
	path     string
	f        *os.File
	det      *secrets.Detector
	now      func() time.Time
	seq      int64
	ring     []events.Event
	writeErr error
	// notify is closed and replaced on every emit: followers wait on it.
	notify chan struct{}
}

func newEventLog(path string, seq int64, det *secrets.Detector, now func() time.Time) *eventLog {
	l := &eventLog{path: path, det: det, now: now, notify: make(chan struct{})}
	if last := lastSeqInFile(path); last > seq {
		// Events written after the last saved state (a crash between the
		// two) keep their numbers: never number two events alike.
		seq = last
	}
	l.seq = seq
	return l
}

// emit prepares (redacts, timestamps) and numbers evs, writes them, and
// wakes followers.
func (l *eventLog) emit(evs ...events.Event) []events.Event {
	if len(evs) == 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var buf bytes.Buffer
	out := make([]events.Event, len(evs))
	for i, e := range evs {
		e = events.Prepare(e, "daemon", l.det, l.now)
		l.seq++
		e.Seq = l.seq
		out[i] = e
		buf.Write(events.Marshal(e))
		buf.WriteByte('\n')
	}
	l.ring = append(l.ring, out...)
	if over := len(l.ring) - ringSize; over > 0 {
		l.ring = append(l.ring[:0:0], l.ring[over:]...)
	}
	l.write(buf.Bytes())
	close(l.notify)
	l.notify = make(chan struct{})
	return out
}

// write appends to the event file, reopening it after a failure.
func (l *eventLog) write(b []byte) {
	if l.path == "" {
		return
	}
	if l.f == nil {
		if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
			l.writeErr = fmt.Errorf("event file %s: %w", l.path, err)
			return
		}
		f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			l.writeErr = fmt.Errorf("event file: %w", err)
			return
		}
		l.f = f
	}
	if _, err := l.f.Write(b); err != nil {
		l.writeErr = fmt.Errorf("event file %s: %w", l.path, err)
		l.f.Close()
		l.f = nil
		return
	}
	l.writeErr = nil
}

// state returns the last sequence number and the write error, if any.
func (l *eventLog) state() (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq, l.writeErr
}

// since returns the events numbered after n that are still available,
// and a channel closed at the next emit. Events older than the ring are
// read back from the event file.
func (l *eventLog) since(n int64) ([]events.Event, <-chan struct{}) {
	l.mu.Lock()
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
	notify, path := l.notify, l.path
	l.mu.Unlock()
	if n+1 < oldest && path != "" {
		out = append(readFileRange(path, n, oldest), out...)
	}
	return out, notify
}

func (l *eventLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// readFileRange returns the daemon events of the file numbered in
// (after, before).
func readFileRange(path string, after, before int64) []events.Event {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []events.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e events.Event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Source != "daemon" {
			continue
		}
		if e.Seq > after && e.Seq < before {
			out = append(out, e)
		}
	}
	return out
}

// lastSeqInFile returns the highest daemon sequence number in the last
// 256 KiB of the event file, or 0.
func lastSeqInFile(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	const tail = 256 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		if _, err := f.Seek(fi.Size()-tail, io.SeekStart); err != nil {
			return 0
		}
	}
	data, _ := io.ReadAll(f)
	var max int64
	for _, line := range bytes.Split(data, []byte("\n")) {
		var e struct {
			Source string `json:"source"`
			Seq    int64  `json:"seq"`
		}
		if json.Unmarshal(line, &e) == nil && e.Source == "daemon" && e.Seq > max {
			max = e.Seq
		}
	}
	return max
}
