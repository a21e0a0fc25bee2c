package proxy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/mcpio"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// The 2026-07-28 revision of MCP is stateless: no initialize, a
// server/discover the Guard treats like initialize, per-request _meta, and
// results with a resultType. A request the server cannot finish without
// the client — a tool that needs a confirmation, a sampling call — is
// answered with resultType "input_required" and inputRequests, the
// elicitation, sampling and roots requests the client fulfils before it
// sends the request again with inputResponses. What those requests say
// reaches the user (an elicitation's message) or a model (sampling
// messages): in enforce mode the proxy removes hidden characters from
// them, as from tool descriptions. ttlMs and cacheScope pass as they are.

var inputRequiredMark = []byte(`"input_required"`)

// isInputRequired reports an input_required result that is only the
// server's question: an object whose resultType (the last one, as
// JSON.parse reads it) is "input_required" and whose other members are
// the question's (questionMembers). One that also carries the members of
// an answer ("content", "messages", "contents") is read as that answer by
// a client of an earlier revision, or one that reads the members it
// knows: it is inspected as a result.
func isInputRequired(result []byte) bool {
	if !bytes.Contains(result, inputRequiredMark) {
		return false // the fast path: every other result
	}
	keys, values, ok := mcpio.ObjectMembers(result)
	if !ok {
		return false
	}
	is := false
	for i, k := range keys {
		if !questionMembers[k] {
			return false
		}
		if k == "resultType" {
			is = string(values[i]) == `"input_required"`
		}
	}
	return is
}

// questionMembers are the members of an input_required result.
var questionMembers = map[string]bool{"resultType": true, "inputRequests": true, "requestState": true, "_meta": true, "ttlMs": true, "cacheScope": true}

func (r *relay) inputRequired(method string, result []byte) ([]byte, bool) {
	if !bytes.Contains(result, inputRequiredMark) {
		return nil, false // the fast path: every other result
	}
	keys, values, ok := mcpio.ObjectMembers(result)
	if !ok {
		return nil, false
	}
	var kind string
	var reqs []byte
	for i, k := range keys {
		switch k {
		case "resultType":
			kind = string(values[i])
		case "inputRequests":
			reqs = values[i]
		}
	}
	if kind != `"input_required"` || reqs == nil || mcpunicode.IsCleanJSON(reqs) {
		return nil, false
	}
	clean, changed, err := mcpunicode.SanitizeJSON(reqs)
	if err != nil || !changed {
		return nil, false
	}
	r.opts.Events.Emit(events.Event{Kind: "input-sanitized", Severity: "warning",
		Message: "the input requests of an input_required " + method + " result carry hidden characters" + r.action(", removed", " (monitor mode: forwarded)"),
		Details: map[string]any{"method": method}})
	if !r.opts.Enforce {
		return nil, false
	}
	out, err := replaceResult(result, reqs, clean)
	if err != nil {
		return nil, false
	}
	return out, true
}

func (r *relay) action(enforce, monitor string) string {
	if r.opts.Enforce {
		return enforce
	}
	return monitor
}

// headerMismatch says how the Mcp-Method and Mcp-Name headers of a POST
// (2026-07-28) disagree with its body, "" when they agree or are absent.
// The body is one request; a batch carries no such headers.
func headerMismatch(h http.Header, body []byte) string {
	method, name := h.Values("Mcp-Method"), h.Values("Mcp-Name")
	if len(method) == 0 && len(name) == 0 {
		return ""
	}
	if len(method) > 1 || len(name) > 1 {
		return "repeated Mcp-Method or Mcp-Name headers"
	}
	m, err := mcpio.ParseMessage(mcpio.TrimFrame(body))
	if err != nil || m.Batch != nil {
		return ""
	}
	if len(method) == 1 && method[0] != m.Method {
		return "the Mcp-Method header names another method than the body"
	}
	if len(name) == 1 && m.Method == "tools/call" {
		if n, _ := callName(m.Params); n != headerValue(name[0]) {
			return "the Mcp-Name header names another tool than the body"
		}
	}
	// SEP-2243: Mcp-Name is params.name of a prompts/get, params.uri of a
	// resources/read (and subscribe), which the proxy checks as it does a
	// tool's name; a value, a tool's name too, may be written
	// =?base64?...?=.
	if len(name) == 1 {
		member := ""
		switch m.Method {
		case "prompts/get":
			member = "name"
		case "resources/read", "resources/subscribe", "resources/unsubscribe":
			member = "uri"
		}
		if member != "" && headerValue(name[0]) != paramString(m.Params, member) {
			return "the Mcp-Name header names another " + map[string]string{"name": "prompt", "uri": "resource"}[member] + " than the body"
		}
	}
	return ""
}

// headerValue decodes an Mcp-Name value written as =?base64?B64?=
// (SEP-2243, for values that are not printable ASCII); other values are
// as they are.
func headerValue(v string) string {
	if b64, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if b64, ok = strings.CutSuffix(b64, "?="); ok {
			if d, err := base64.StdEncoding.DecodeString(b64); err == nil {
				return string(d)
			}
		}
	}
	return v
}

// paramString returns the string member of params as JSON.parse reads it
// (the last one when repeated), "" when absent or not a string.
func paramString(params []byte, member string) string {
	keys, values, ok := mcpio.ObjectMembers(params)
	if !ok {
		return ""
	}
	out := ""
	for i, k := range keys {
		if k == member {
			out = ""
			_ = json.Unmarshal(values[i], &out)
		}
	}
	return out
}
