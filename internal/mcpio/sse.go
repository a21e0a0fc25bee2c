package mcpio

import (
	"bytes"
	"errors"
	"io"
)

// SSELines splits a chunk that ends at a line feed (or the end of the
// stream) into lines, each with its terminator: CRLF, LF or a lone CR, the
// three line ends of the server-sent events format.
func SSELines(chunk []byte) [][]byte {
	var lines [][]byte
	for len(chunk) > 0 {
		i := bytes.IndexAny(chunk, "\r\n")
		if i < 0 {
			return append(lines, chunk)
		}
		end := i + 1
		if chunk[i] == '\r' && end < len(chunk) && chunk[end] == '\n' {
			end++
		}
		lines = append(lines, chunk[:end])
		chunk = chunk[end:]
	}
	return lines
}

// Event is one server-sent event: its type ("message" when the stream
// names none) and its data lines joined by line feeds.
type Event struct {
	Name string
	Data []byte
}

// EventReader reads server-sent events (text/event-stream) as the HTML
// standard defines them, for MCP's HTTP transports: comments and retry
// fields are skipped, an event without data is not dispatched.
type EventReader struct {
	fr      *FrameReader
	lines   [][]byte
	started bool
	max     int
}

// NewEventReader reads events from r; max > 0 limits the size of one
// event's data.
func NewEventReader(r io.Reader, max int) *EventReader {
	return &EventReader{fr: NewFrameReader(r, max), max: max}
}

// Next returns the next event. At the end of the stream it returns io.EOF
// (an event not ended by a blank line is not dispatched).
func (e *EventReader) Next() (Event, error) {
	var ev Event
	var data bytes.Buffer
	hasData := false
	for {
		for len(e.lines) > 0 {
			line := bytes.TrimRight(e.lines[0], "\r\n")
			e.lines = e.lines[1:]
			if len(line) == 0 {
				if !hasData {
					ev = Event{}
					continue
				}
				ev.Data = bytes.TrimSuffix(data.Bytes(), []byte("\n"))
				if ev.Name == "" {
					ev.Name = "message"
				}
				return ev, nil
			}
			if line[0] == ':' {
				continue
			}
			name, value, found := bytes.Cut(line, []byte(":"))
			if found {
				value = bytes.TrimPrefix(value, []byte(" "))
			}
			switch string(name) {
			case "data":
				if e.max > 0 && data.Len()+len(value) > e.max {
					return Event{}, ErrFrameTooLarge
				}
				data.Write(value)
				data.WriteByte('\n')
				hasData = true
			case "event":
				ev.Name = string(value)
			}
		}
		chunk, err := e.fr.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Event{}, io.EOF
			}
			return Event{}, err
		}
		if !e.started {
			e.started = true
			chunk = bytes.TrimPrefix(chunk, []byte("\xef\xbb\xbf"))
		}
		// The frame's memory is reused by the next read: keep copies.
		e.lines = SSELines(bytes.Clone(chunk))
	}
}
