package proxy

import (
	"bytes"
	"encoding/json"
)

// envelope is what the proxy needs from a JSON-RPC message without decoding
// its payload: the raw id, the method, and whether it carries a result or an
// error. Params and result stay raw slices into the frame.
type envelope struct {
	id       []byte // raw JSON of "id" (nil when absent)
	method   string
	params   []byte // raw JSON of "params"
	result   []byte // raw JSON of "result"
	hasError bool
}

// kind classifies a message.
func (e *envelope) isRequest() bool      { return e.method != "" && e.id != nil }
func (e *envelope) isNotification() bool { return e.method != "" && e.id == nil }

// idKey is the canonical form of an id for the pending-request table: the raw
// JSON with insignificant whitespace removed (ids are strings or numbers).
func idKey(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		return string(raw)
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String()
	}
	return string(bytes.TrimSpace(raw))
}

// parseEnvelope scans the top level of one JSON object. It returns ok == false
// for anything that is not an object (batches are handled by the caller) or is
// malformed; such frames are forwarded untouched.
func parseEnvelope(frame []byte) (env envelope, ok bool) {
	s := scanner{b: frame}
	s.space()
	if !s.consume('{') {
		return env, false
	}
	s.space()
	if s.consume('}') {
		return env, true
	}
	for {
		s.space()
		key, kok := s.stringValue()
		if !kok {
			return env, false
		}
		s.space()
		if !s.consume(':') {
			return env, false
		}
		s.space()
		start := s.i
		if !s.skipValue(0) {
			return env, false
		}
		raw := frame[start:s.i]
		switch string(key) {
		case "id":
			if !bytes.Equal(raw, []byte("null")) {
				env.id = raw
			}
		case "method":
			var m string
			if json.Unmarshal(raw, &m) == nil {
				env.method = m
			}
		case "params":
			env.params = raw
		case "result":
			env.result = raw
		case "error":
			env.hasError = true
		}
		s.space()
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			s.space()
			return env, s.i == len(s.b)
		}
		return env, false
	}
}

// isBatch reports whether a frame is a JSON array (a JSON-RPC batch).
func isBatch(frame []byte) bool {
	t := bytes.TrimLeft(frame, " \t\r\n")
	return len(t) > 0 && t[0] == '['
}

// scanner skips JSON values without building them.
type scanner struct {
	b []byte
	i int
}

const maxDepth = 10000

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// stringValue reads a string and returns its raw contents (escapes kept).
func (s *scanner) stringValue() ([]byte, bool) {
	if !s.consume('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			v := s.b[start:s.i]
			s.i++
			return v, true
		case '\\':
			s.i += 2
		default:
			s.i++
		}
	}
	return nil, false
}

// skipValue skips one JSON value; depth bounds nesting against hostile input.
func (s *scanner) skipValue(depth int) bool {
	if depth > maxDepth || s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.stringValue()
		return ok
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		s.space()
		if s.consume(closer) {
			return true
		}
		for {
			s.space()
			if c == '{' {
				if _, ok := s.stringValue(); !ok {
					return false
				}
				s.space()
				if !s.consume(':') {
					return false
				}
				s.space()
			}
			if !s.skipValue(depth + 1) {
				return false
			}
			s.space()
			if s.consume(',') {
				continue
			}
			return s.consume(closer)
		}
	default:
		// number, true, false, null: up to the next delimiter.
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}
