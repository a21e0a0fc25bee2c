package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
)

func TestEventLogNumbersAndResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events", "events.jsonl")
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	l, err := newEventLog(path, 5, secrets.NewDetector(), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.emit(events.Event{Kind: "a", Message: "token ghp_0123456789abcdefghijklmnopqrstuvwxyz"}, events.Event{Kind: "b"})
	got := l.ring[len(l.ring)-2:]
	if got[0].Seq != 6 || got[1].Seq != 7 {
		t.Fatalf("seq %d, %d; want 6, 7", got[0].Seq, got[1].Seq)
	}
	if got[0].Message == "token ghp_0123456789abcdefghijklmnopqrstuvwxyz" {
		t.Error("secret not redacted")
	}
	evs, _, _ := l.since(6)
	if len(evs) != 1 || evs[0].Kind != "b" {
		t.Errorf("since(6) = %+v", evs)
	}
	l.close()
	// A restart whose state lags the file (a crash between the two) goes
	// on from the file's last number.
	l2, err := newEventLog(path, 5, secrets.NewDetector(), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if seq, _ := l2.state(); seq != 7 {
		t.Errorf("resumed at %d, want 7", seq)
	}
	// Events older than memory come back from the file.
	evs, oldest, _ := l2.since(5)
	if len(evs) != 0 || oldest != 8 {
		t.Errorf("since(5) after restart: %d in memory, the oldest %d; want none, 8", len(evs), oldest)
	}
	var seqs []int64
	if err := streamFile(path, 5, oldest, func(e *events.Event, _ []byte) error { seqs = append(seqs, e.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seqs, []int64{6, 7}) {
		t.Errorf("from the file: %v, want [6 7]", seqs)
	}
	l2.close()
}

func TestNotifyWakesFollowers(t *testing.T) {
	l, err := newEventLog("", 0, secrets.NewDetector(), time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, notify := l.since(0)
	l.emit(events.Event{Kind: "a"})
	select {
	case <-notify:
	case <-time.After(5 * time.Second):
		t.Fatal("a follower was not woken")
	}
}

// mountTmpfs mounts a tmpfs of size at dir (made when missing) for the
// test; root only.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
}

// fillUp writes a file in dir until its file system is full, to its last
// byte, and returns the file.
func fillUp(dir string) (string, error) {
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, n := range []int{4096, 1} {
		chunk := bytes.Repeat([]byte("x"), n)
		for {
			if _, err := f.Write(chunk); err != nil {
				break
			}
		}
	}
	return p, nil
}

// checkLines reads the event file: whole lines of events, numbered without
// a gap but for the ranges events-dropped events name.
func checkLines(t *testing.T, path string) []events.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("the file ends in a torn line: %q", data[max(0, len(data)-60):])
	}
	var out []events.Event
	var next int64
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var e events.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("a torn line %q: %v", line, err)
		}
		if e.Kind == "events-dropped" && next != 0 {
			// It comes right after the ones it accounts for.
			first, _ := e.Details["first"].(float64)
			last, _ := e.Details["last"].(float64)
			if int64(first) != next || int64(last) != e.Seq-1 {
				t.Errorf("events-dropped #%d names #%v-#%v, want #%d-#%d", e.Seq, first, last, next, e.Seq-1)
			}
			next = e.Seq
		}
		if next != 0 && e.Seq != next {
			t.Errorf("event #%d where #%d was due", e.Seq, next)
		}
		next = e.Seq + 1
		out = append(out, e)
	}
	return out
}

// TestEventLogFullDisk: a write that does not fit is cut back to the last
// whole line (the landed daemon left a torn line that the next event
// joined), the events wait in memory in order and are written, retried
// without a further event, once there is room; beyond the bound the newest
// are counted, and an events-dropped event names them, once.
func TestEventLogFullDisk(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "64k")
	path := filepath.Join(dir, "events.jsonl")
	l, err := newEventLog(path, 0, secrets.NewDetector(), time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	l.maxPending = 16 << 10
	l.emit(events.Event{Kind: "first", Message: "before the disk fills"})
	filler, err := fillUp(dir)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("m", 1500)
	for i := range 30 {
		l.emit(events.Event{Kind: "full", Message: fmt.Sprintf("%d %s", i, long)})
	}
	queued, dropped := l.backlog()
	if _, werr := l.state(); werr == nil || queued == 0 || dropped == 0 {
		t.Fatalf("on a full disk: error %v, %d queued, %d dropped", werr, queued, dropped)
	}
	checkLines(t, path) // whole lines only, even now
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if q, d := l.backlog(); q == 0 && d == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the backlog was not written once there was room")
		}
	}
	if _, werr := l.state(); werr != nil {
		t.Errorf("still an error: %v", werr)
	}
	evs := checkLines(t, path)
	last := evs[len(evs)-1]
	if last.Kind != "events-dropped" || last.Details["count"] != float64(dropped) {
		t.Fatalf("last event %s %v; want events-dropped of %d", last.Kind, last.Details, dropped)
	}
	first, lastDropped := last.Details["first"].(float64), last.Details["last"].(float64)
	if int64(first) != evs[len(evs)-2].Seq+1 || int64(lastDropped) != last.Seq-1 {
		t.Errorf("dropped #%v-#%v between #%d and #%d", first, lastDropped, evs[len(evs)-2].Seq, last.Seq)
	}
	// The ring has every event, dropped ones included.
	if mem, _, _ := l.since(0); len(mem) != 32 {
		t.Errorf("%d events in memory, want 32", len(mem))
	}
}

// TestEventLogFollowsRotation: renamed or removed, the file is made again
// at its path; truncated (copytruncate), written on from its new end; a
// torn last line left by someone is ended before the next event.
func TestEventLogFollowsRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	l, err := newEventLog(path, 0, secrets.NewDetector(), time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	l.emit(events.Event{Kind: "one"})
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	l.emit(events.Event{Kind: "two"})
	if evs := checkLines(t, path); len(evs) != 1 || evs[0].Kind != "two" {
		t.Errorf("after a rename: %+v", evs)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	l.emit(events.Event{Kind: "three"})
	if evs := checkLines(t, path); len(evs) != 1 || evs[0].Kind != "three" {
		t.Errorf("after a removal: %+v", evs)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	l.emit(events.Event{Kind: "four"})
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte{0}) {
		t.Error("a hole after copytruncate")
	}
	if evs := checkLines(t, path); len(evs) != 1 || evs[0].Kind != "four" {
		t.Errorf("after copytruncate: %+v", evs)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"schema":"mcpguard/event/v1","torn`)
	f.Close()
	l.emit(events.Event{Kind: "five"})
	data, _ = os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], `"kind":"five"`) {
		t.Errorf("after a torn line: %q", lines)
	}

	// A second log on the file is refused: one daemon numbers a file.
	if _, err := newEventLog(path, 0, secrets.NewDetector(), time.Now, nil); !errors.Is(err, ErrEventsLocked) {
		t.Errorf("a second log on one file: %v, want ErrEventsLocked", err)
	}
}
