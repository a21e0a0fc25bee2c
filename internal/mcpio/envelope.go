package mcpio

import (
	"bytes"
	"encoding/json"
)

// Envelope is what the proxy needs from a JSON-RPC message without decoding
// its payload: the raw id, the method, and whether it carries a result or an
// error. Params and result stay raw slices into the frame.
type Envelope struct {
	ID       []byte // raw JSON of "id" (nil when absent or null)
	Method   string
	Params   []byte // raw JSON of "params"
	Result   []byte // raw JSON of "result"
	HasError bool
}

// IsRequest reports a message that expects a response.
func (e *Envelope) IsRequest() bool { return e.Method != "" && e.ID != nil }

// IsNotification reports a message without an id.
func (e *Envelope) IsNotification() bool { return e.Method != "" && e.ID == nil }

// IDKey is the canonical form of an id for the pending-request table: the raw
// JSON with insignificant whitespace removed (ids are strings or numbers).
func IDKey(raw []byte) string {
	if len(raw) > 0 && raw[0] == '"' {
		return string(raw)
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String()
	}
	return string(bytes.TrimSpace(raw))
}

// ParseEnvelope reads the top level of one JSON object. It returns ok ==
// false for anything that is not an object (batches are handled by the
// caller) or is malformed; such frames are forwarded untouched.
//
// The peer decodes the message with a full JSON parser, so the proxy must
// see the same members it sees: a key spelled with escapes ("res\u0075lt")
// or anything the fast scanner does not take is decoded by encoding/json
// instead, and of repeated members the last one counts, as in JavaScript.
func ParseEnvelope(frame []byte) (Envelope, bool) {
	env, ok, escaped := scanEnvelope(frame)
	if ok && !escaped {
		return env, true
	}
	return decodeEnvelope(frame)
}

// decodeEnvelope is ParseEnvelope's slow path.
func decodeEnvelope(frame []byte) (env Envelope, ok bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(frame, &members) != nil || members == nil {
		return env, false
	}
	if raw, ok := members["id"]; ok && !bytes.Equal(raw, []byte("null")) {
		env.ID = raw
	}
	if raw, ok := members["method"]; ok {
		var m string
		if json.Unmarshal(raw, &m) == nil {
			env.Method = m
		}
	}
	env.Params = members["params"]
	env.Result = members["result"]
	_, env.HasError = members["error"]
	return env, true
}

// scanEnvelope is the allocation-free fast path of ParseEnvelope; escaped
// reports a key with a backslash escape, which it does not decode.
func scanEnvelope(frame []byte) (env Envelope, ok, escaped bool) {
	s := jsonScanner{b: frame}
	s.space()
	if !s.consume('{') {
		return env, false, escaped
	}
	s.space()
	if s.consume('}') {
		return env, true, escaped
	}
	for {
		s.space()
		key, kok := s.stringValue()
		if !kok {
			return env, false, escaped
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			escaped = true
		}
		s.space()
		if !s.consume(':') {
			return env, false, escaped
		}
		s.space()
		start := s.i
		if !s.skipValue(0) {
			return env, false, escaped
		}
		raw := frame[start:s.i]
		switch string(key) {
		case "id":
			if !bytes.Equal(raw, []byte("null")) {
				env.ID = raw
			}
		case "method":
			var m string
			if json.Unmarshal(raw, &m) == nil {
				env.Method = m
			}
		case "params":
			env.Params = raw
		case "result":
			env.Result = raw
		case "error":
			env.HasError = true
		}
		s.space()
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			s.space()
			return env, s.i == len(s.b), escaped
		}
		return env, false, escaped
	}
}

// IsBatch reports whether a frame is a JSON array (a JSON-RPC batch).
func IsBatch(frame []byte) bool {
	t := bytes.TrimLeft(frame, " \t\r\n")
	return len(t) > 0 && t[0] == '['
}

// jsonScanner skips JSON values without building them.
type jsonScanner struct {
	b []byte
	i int
}

const maxDepth = 10000

func (s *jsonScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// stringValue reads a string and returns its raw contents (escapes kept).
func (s *jsonScanner) stringValue() ([]byte, bool) {
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
func (s *jsonScanner) skipValue(depth int) bool {
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
