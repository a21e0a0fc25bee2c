package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
)

func TestEventLogNumbersAndResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events", "events.jsonl")
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	l := newEventLog(path, 5, secrets.NewDetector(), now)
	got := l.emit(events.Event{Kind: "a", Message: "token ghp_0123456789abcdefghijklmnopqrstuvwxyz"}, events.Event{Kind: "b"})
	if got[0].Seq != 6 || got[1].Seq != 7 {
		t.Fatalf("seq %d, %d; want 6, 7", got[0].Seq, got[1].Seq)
	}
	if got[0].Message == "token ghp_0123456789abcdefghijklmnopqrstuvwxyz" {
		t.Error("secret not redacted")
	}
	evs, _ := l.since(6)
	if len(evs) != 1 || evs[0].Kind != "b" {
		t.Errorf("since(6) = %+v", evs)
	}
	l.close()
	// A restart whose state lags the file (a crash between the two) goes
	// on from the file's last number.
	l2 := newEventLog(path, 5, secrets.NewDetector(), now)
	if seq, _ := l2.state(); seq != 7 {
		t.Errorf("resumed at %d, want 7", seq)
	}
	// Events older than memory come back from the file.
	evs, _ = l2.since(5)
	if len(evs) != 2 || evs[0].Seq != 6 {
		t.Errorf("since(5) after restart = %+v", evs)
	}
}

// TestEventLogUnwritableFile: events stay in memory, the error is kept,
// and the file is used again once it can be.
func TestEventLogUnwritableFile(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "events")
	write(t, blocker, "a file where the directory should be")
	path := filepath.Join(blocker, "events.jsonl")
	l := newEventLog(path, 0, secrets.NewDetector(), time.Now)
	l.emit(events.Event{Kind: "a"})
	if _, err := l.state(); err == nil {
		t.Fatal("no error for an unwritable event file")
	}
	if evs, _ := l.since(0); len(evs) != 1 {
		t.Errorf("%d events in memory, want 1", len(evs))
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	l.emit(events.Event{Kind: "b"})
	if _, err := l.state(); err != nil {
		t.Errorf("error after the file became writable: %v", err)
	}
	data, _ := os.ReadFile(path)
	if len(data) == 0 {
		t.Error("event not written once the file was writable")
	}
	l.close()
}

func TestNotifyWakesFollowers(t *testing.T) {
	l := newEventLog("", 0, secrets.NewDetector(), time.Now)
	_, notify := l.since(0)
	l.emit(events.Event{Kind: "a"})
	select {
	case <-notify:
	case <-time.After(5 * time.Second):
		t.Fatal("a follower was not woken")
	}
}
