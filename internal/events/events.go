package events

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpguard/mcpguard/internal/secrets"
)

// Schema is the value of every event's "schema" member.
const Schema = "mcpguard/event/v1"

// Event is one line of the log. Members are documented in docs/events.md;
// new kinds and detail keys may be added within v1, existing ones never
// change meaning.
type Event struct {
	Schema string `json:"schema"`
	// Seq numbers the daemon's events, from 1, without gaps and across
	// restarts (GET /v1/events?since=N resumes after N); 0 and absent for
	// the proxy's.
	Seq  int64     `json:"seq,omitempty"`
	Time time.Time `json:"time"`
	// Source is the emitting component: "proxy" or "daemon".
	Source string `json:"source"`
	// Server names the MCP server the event is about (the proxy's --name).
	Server string `json:"server,omitempty"`
	// Kind says what happened (docs/events.md lists the kinds).
	Kind string `json:"kind"`
	// Severity is a finding's severity: "error", "warning" or "note".
	Severity string `json:"severity,omitempty"`
	// Rule is the rule id behind a finding or an enforcement action.
	Rule string `json:"rule,omitempty"`
	// Tool is the MCP tool concerned.
	Tool string `json:"tool,omitempty"`
	// FindingID is the stable id of the finding (as in reports).
	FindingID string `json:"finding_id,omitempty"`
	// ServerID is the stable id of the server (as in reports); Client,
	// Scope, Project and Path (its configuration file) locate it, and User
	// owns it when the daemon watches every user's home.
	ServerID string `json:"server_id,omitempty"`
	Client   string `json:"client,omitempty"`
	Scope    string `json:"scope,omitempty"`
	Project  string `json:"project,omitempty"`
	Path     string `json:"path,omitempty"`
	User     string `json:"user,omitempty"`
	// Message is for people.
	Message string `json:"message"`
	// Details are machine-readable facts of the kind.
	Details map[string]any `json:"details,omitempty"`
}

// Log writes events. It is safe for concurrent use. A nil *Log discards
// events, so callers need not check whether logging is on.
type Log struct {
	*sink
	// server fills the Server of events that name none (For).
	server string
}

// sink is the writer several Log views share.
type sink struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	source string
	det    *secrets.Detector
	now    func() time.Time
	err    error
}

// New returns a log writing to w. source fills each event's Source.
func New(w io.Writer, source string, det *secrets.Detector) *Log {
	if det == nil {
		det = secrets.NewDetector()
	}
	return &Log{sink: &sink{w: w, source: source, det: det, now: time.Now}}
}

// For returns a view of the log whose events are about server unless they
// name another. It shares the writer (and its lock) with l.
func (l *Log) For(server string) *Log {
	if l == nil {
		return nil
	}
	return &Log{sink: l.sink, server: server}
}

// Open appends to the file at path, creating it (0600: events describe a
// developer's tools and servers) and its directory when missing.
func Open(path, source string, det *secrets.Detector) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	l := New(f, source, det)
	l.closer = f
	return l, nil
}

// Emit fills the schema, time and source of e, redacts every string in it,
// and writes it as one line. A write error is kept (Err) and later events
// are still attempted: a full disk must not stop the proxy.
func (l *Log) Emit(e Event) {
	if l == nil {
		return
	}
	if e.Server == "" {
		e.Server = l.server
	}
	line := Marshal(Prepare(e, l.source, l.det, l.now))
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(line); err != nil && l.err == nil {
		l.err = fmt.Errorf("write event log: %w", err)
	}
}

// Err returns the first write error.
func (l *Log) Err() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close closes the file Open opened.
func (l *Log) Close() error {
	if l == nil || l.closer == nil {
		return nil
	}
	return l.closer.Close()
}

// Prepare fills the schema, time (from now, when unset) and source of e and
// redacts every string in it: what Emit writes, for writers of their own
// (the daemon numbers and keeps its events).
func Prepare(e Event, source string, det *secrets.Detector, now func() time.Time) Event {
	e.Schema, e.Source = Schema, source
	if e.Time.IsZero() {
		e.Time = now().UTC()
	}
	for _, s := range []*string{&e.Server, &e.Tool, &e.Message, &e.Project, &e.Path, &e.User} {
		*s = det.RedactText(*s)
	}
	if e.Details != nil {
		e.Details = redactMap(det, e.Details)
	}
	return e
}

// Marshal encodes a prepared event as one JSON line (without the newline).
func Marshal(e Event) []byte {
	line, err := json.Marshal(e)
	if err != nil {
		// Details hold only JSON values by contract; say so rather than drop
		// the event.
		e.Details = map[string]any{"encoding_error": err.Error()}
		line, _ = json.Marshal(e)
	}
	return line
}

func redactMap(det *secrets.Detector, m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = redact(det, v)
	}
	return out
}

// redact walks the JSON-shaped values events carry.
func redact(det *secrets.Detector, v any) any {
	switch x := v.(type) {
	case string:
		return det.RedactText(x)
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = det.RedactText(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redact(det, e)
		}
		return out
	case map[string]any:
		return redactMap(det, x)
	}
	return v
}
