package mcpio

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestEventReader(t *testing.T) {
	in := "\xef\xbb\xbf: comment\r\nevent: endpoint\r\ndata: /messages?s=1\r\n\r\n" +
		"id: 3\nretry: 10\ndata: {\"a\":\ndata: 1}\n\n" +
		"event: ignored-without-data\n\n" +
		"data:no-space\rdata: x\r\r" +
		"data: unterminated"
	er := NewEventReader(strings.NewReader(in), 0)
	want := []Event{{"endpoint", []byte("/messages?s=1")}, {"message", []byte("{\"a\":\n1}")}, {"message", []byte("no-space\nx")}}
	for i, w := range want {
		ev, err := er.Next()
		if err != nil || ev.Name != w.Name || string(ev.Data) != string(w.Data) {
			t.Fatalf("event %d: got %q %q %v, want %q %q", i, ev.Name, ev.Data, err, w.Name, w.Data)
		}
	}
	if _, err := er.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("an event not ended by a blank line is not dispatched: %v", err)
	}
	big := NewEventReader(strings.NewReader("data: "+strings.Repeat("x", 100)+"\ndata: "+strings.Repeat("y", 100)+"\n\n"), 150)
	if _, err := big.Next(); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("data over the limit: %v", err)
	}
}

// FuzzEventReader: any byte stream gives events or an error, never a panic,
// and no event's data exceeds the limit.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n", "event: endpoint\ndata: /m\n\n", ": c\r\n\r\n", "data\n\n", "data:\rdata:\r\r",
		"\xef\xbb\xbfdata: x\n\n", "event:\n\n", strings.Repeat("data: x\n", 50) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		er := NewEventReader(strings.NewReader(string(b)), 64)
		for range len(b) + 1 {
			ev, err := er.Next()
			if err != nil {
				return
			}
			if len(ev.Data) > 64 {
				t.Fatalf("event data of %d bytes passed a limit of 64", len(ev.Data))
			}
		}
		t.Fatal("more events than bytes")
	})
}
