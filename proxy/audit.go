package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/mcpio"
	"github.com/mcpguard/mcpguard/internal/secrets"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// The call audit: one tool-called event per tools/call, whatever became of
// it — the tool, its arguments by name with their values redacted and cut
// short, the outcome, how long it took, how large the response was, and
// the revision of the tool's definition the call was made against. Never
// a secret, never a result.

// Bounds of what a tool-called event holds of the arguments.
const (
	maxAuditArgs  = 64
	maxAuditValue = 120 // bytes of a string value shown
	// maxJudgedValue bounds the string judged field by field: a redaction
	// can shorten what precedes the cut, so what is shown depends on the
	// whole string, and a longer one (a file's content) is shown by its
	// size only.
	maxJudgedValue = 64 << 10
)

// Outcomes of a call (the outcome detail).
const (
	outcomeOK         = "ok"             // a result
	outcomeToolError  = "tool-error"     // a result with isError: true
	outcomeError      = "error"          // a JSON-RPC error from the server
	outcomeRefused    = "refused"        // mcpguard answered in the server's place
	outcomeInput      = "input-required" // the server needs the client's input first (2026-07-28); the call is sent again
	outcomeUnanswered = "unanswered"     // the session ended first
)

// callRecord is what the proxy remembers of a forwarded tools/call.
type callRecord struct {
	tool  string
	args  map[string]any
	more  int // arguments left out (maxAuditArgs)
	start time.Time
}

// Revisioner is implemented by an Inspector that knows the revision of a
// tool's definition (the Guard: the SHA-256 it pins); the audit records it.
type Revisioner interface {
	Revision(tool string) string
}

// newCall records a tools/call's tool and arguments for the audit.
func (r *relay) newCall(tool string, params []byte) *callRecord {
	c := &callRecord{tool: tool, start: time.Now()}
	keys, values, ok := mcpio.ObjectMembers(params)
	if !ok {
		return c
	}
	for i, k := range keys {
		if k != "arguments" {
			continue
		}
		ak, av, ok := mcpio.ObjectMembers(values[i])
		if !ok {
			c.args = nil
			continue
		}
		c.args = make(map[string]any, min(len(ak), maxAuditArgs))
		for j, name := range ak {
			if len(c.args) == maxAuditArgs {
				c.more = len(ak) - j
				break
			}
			key := auditName(r.det, name)
			if _, dup := c.args[key]; dup {
				key += "#" + strconv.Itoa(j) // two names the same once clipped or redacted
			}
			c.args[key] = auditValue(r.det, name, av[j])
		}
	}
	return c
}

// auditValue is what the audit shows of one argument: a number, boolean
// or null as it is; a string cut to maxAuditValue bytes, or REDACTED when
// the secret detector calls it a secret under its name, with its fields
// judged as a command line's arguments (secrets.RedactFields), or by its
// size past maxJudgedValue; an object or array by its kind and
// size only (it may hold anything, under any name).
func auditValue(det *secrets.Detector, name string, raw []byte) any {
	if len(raw) == 0 {
		return nil
	}
	name = judgedName(name)
	if sensitiveName(name) && !bytes.Equal(raw, []byte("null")) {
		// Under a credential's name any value is one: a pass phrase with
		// spaces, a numeric PIN, a structure holding the parts of a key.
		return secrets.Redacted
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return fmt.Sprintf("<string of %d bytes>", len(raw))
		}
		if _, secret := det.Secret(name, s); secret {
			return secrets.Redacted
		}
		if len(s) > maxJudgedValue {
			return fmt.Sprintf("<string of %d bytes>", len(s))
		}
		return clipAudit(det.RedactFields(s))
	case '{':
		return fmt.Sprintf("<object of %d bytes>", len(raw))
	case '[':
		return fmt.Sprintf("<array of %d bytes>", len(raw))
	}
	if len(raw) > 40 {
		return fmt.Sprintf("<number of %d bytes>", len(raw))
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// judgedName is the name an argument's value is judged under: the name
// as a reader takes it, when it has characters other than ASCII (a
// Cyrillic "а" in "pаssword", a fullwidth "ＰＩＮ", a zero-width space),
// which the tool's schema chose and the model fills in as the name it
// reads.
func judgedName(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			folded, _ := mcpunicode.NameKeys(name)
			return folded
		}
	}
	return name
}

// auditName is what the audit shows of an argument's name: a tool with
// free-form keys (an env or headers map) may use a token as one, or one of
// any size. Tokens of known formats are hidden and the name is cut to
// maxAuditValue bytes.
func auditName(det *secrets.Detector, name string) string {
	name = det.RedactText(name)
	return clipAudit(name)
}

// clipAudit cuts s to maxAuditValue bytes at a rune boundary, saying how
// long it was.
func clipAudit(s string) string {
	if len(s) <= maxAuditValue {
		return s
	}
	cut := maxAuditValue
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// sensitiveWords are words of an argument name whose value is a secret
// though the secret detector's credential names (made for env keys and
// headers) do not have them: card and identity codes.
var sensitiveWords = map[string]bool{"pin": true, "cvv": true, "cvv2": true, "cvc": true, "cvc2": true,
	"otp": true, "totp": true, "ssn": true, "iban": true, "mfa": true}

// sensitiveName reports an argument name under which any value is
// redacted: a credential name (password, client_secret, api_key) or a
// name with a word of sensitiveWords (pin, pin_code, cardCvv).
func sensitiveName(name string) bool {
	if secrets.IsCredentialName(name) {
		return true
	}
	start := 0
	rs := []rune(name)
	for i := 0; i <= len(rs); i++ {
		end := i == len(rs) || !(unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) ||
			(i > start && unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1]))
		if !end {
			continue
		}
		if i > start && sensitiveWords[strings.ToLower(string(rs[start:i]))] {
			return true
		}
		start = i
		if i < len(rs) && !(unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) {
			start = i + 1
		}
	}
	return false
}

// called writes the tool-called event of a call. response is the
// server's response (nil when there is none); code is its JSON-RPC error
// code, rule what refused it when mcpguard did.
func (r *relay) called(c *callRecord, outcome string, response []byte, code int, rule, why string) {
	if c == nil {
		return
	}
	d := map[string]any{
		"outcome":        outcome,
		"duration_ms":    float64(time.Since(c.start).Microseconds()) / 1000,
		"response_bytes": len(response),
	}
	if c.args != nil {
		d["arguments"] = c.args
	}
	if c.more > 0 {
		d["arguments_omitted"] = c.more
	}
	if rv, ok := r.opts.Inspector.(Revisioner); ok {
		if sha := rv.Revision(c.tool); sha != "" {
			d["tool_sha256"] = sha
		}
	}
	tool := auditName(r.det, c.tool) // a server's name for it: any size
	msg := fmt.Sprintf("tools/call %q: %s", tool, outcome)
	switch outcome {
	case outcomeError:
		d["error_code"] = code
		d["refused_by"] = "server"
		msg += fmt.Sprintf(" (code %d)", code)
	case outcomeRefused:
		d["refused_by"] = "mcpguard"
		if code != 0 {
			d["error_code"] = code
		}
		msg += ": " + why
	}
	r.audit.Emit(events.Event{Kind: "tool-called", Tool: tool, Rule: rule, Message: msg, Details: d})
}

// answered audits the response to a call: a result (isError or not) or a
// JSON-RPC error.
func (r *relay) answered(c *callRecord, msg []byte, m *mcpio.Message) {
	if c == nil {
		return
	}
	if m.Result == nil {
		code := 0
		var e struct {
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(msg, &e) == nil {
			code = e.Error.Code
		}
		r.called(c, outcomeError, msg, code, "", "")
		return
	}
	// A result is the server's question only when the proxy read it as
	// one (isInputRequired): one that also carries an answer's members
	// was inspected, and is audited, as the answer.
	outcome := outcomeOK
	if isInputRequired(m.Result) {
		outcome = outcomeInput
	} else if keys, values, ok := mcpio.ObjectMembers(m.Result); ok {
		for i, k := range keys {
			if k == "isError" {
				outcome = outcomeOK // the last one, as JSON.parse reads it
				if string(values[i]) == "true" {
					outcome = outcomeToolError
				}
			}
		}
	}
	r.called(c, outcome, msg, 0, "", "")
}

// unanswered audits the calls still open when a session ends.
func (r *relay) unanswered() {
	r.mu.Lock()
	var open []*callRecord
	seen := map[*pendingRequest]bool{}
	for _, q := range r.calls.open {
		for _, p := range q {
			if p.call != nil && !seen[p] {
				seen[p] = true
				open = append(open, p.call)
			}
		}
	}
	r.mu.Unlock()
	for _, c := range open {
		r.called(c, outcomeUnanswered, nil, 0, "", "")
	}
}
