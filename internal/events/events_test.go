package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func decode(t *testing.T, data []byte) []Event {
	t.Helper()
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func TestEmitRedactsAndFills(t *testing.T) {
	token := "ghp_" + strings.Repeat("a1B2", 9)
	var buf bytes.Buffer
	l := New(&buf, "proxy", nil)
	l.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)) }
	l.For("github").Emit(Event{Kind: "finding", Message: "description leaks " + token,
		Details: map[string]any{"argv": []string{"--token", "x", token}, "nested": map[string]any{"v": []any{token, 1}}}})
	l.Emit(Event{Kind: "proxy-exit", Server: "other", Message: "bye"})
	if strings.Contains(buf.String(), token) {
		t.Fatalf("a token reached the event log:\n%s", buf.String())
	}
	evs := decode(t, buf.Bytes())
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	e := evs[0]
	if e.Schema != Schema || e.Source != "proxy" || e.Server != "github" || e.Kind != "finding" || !e.Time.Equal(time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC)) || e.Time.Location() != time.UTC {
		t.Errorf("event %+v", e)
	}
	if !strings.Contains(e.Message, "description leaks ") || evs[1].Server != "other" {
		t.Errorf("events %+v", evs)
	}
}

func TestNilLogDiscards(t *testing.T) {
	var l *Log
	l.Emit(Event{Kind: "x"})
	l.For("s").Emit(Event{Kind: "x"})
	if l.Err() != nil || l.Close() != nil {
		t.Error("a nil log is not a no-op")
	}
}

// TestConcurrentWritersShareAFile: several processes' worth of writers
// append to one file; every line stays whole.
func TestConcurrentWritersShareAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log", "events.jsonl")
	const writers, each = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		l, err := Open(path, "proxy", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for v := range 2 { // two views of one log, as the proxy and its guard hold
			wg.Add(1)
			go func() {
				defer wg.Done()
				view := l.For("srv")
				for i := range each {
					view.Emit(Event{Kind: "finding", Message: strings.Repeat("x", 2000), Details: map[string]any{"w": w, "v": v, "i": i}})
				}
			}()
		}
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(decode(t, data)); got != writers*2*each {
		t.Errorf("%d events, want %d", got, writers*2*each)
	}
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteErrorIsKept(t *testing.T) {
	l := New(failingWriter{}, "proxy", nil)
	l.Emit(Event{Kind: "a"})
	l.Emit(Event{Kind: "b"})
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "write event log") {
		t.Errorf("Err() = %v", err)
	}
}

func TestUnencodableDetails(t *testing.T) {
	var buf bytes.Buffer
	New(&buf, "proxy", nil).Emit(Event{Kind: "k", Message: "m", Details: map[string]any{"bad": func() {}}})
	evs := decode(t, buf.Bytes())
	if len(evs) != 1 || evs[0].Kind != "k" || evs[0].Details["encoding_error"] == nil {
		t.Errorf("%+v", evs)
	}
}
