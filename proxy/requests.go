package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/mcpio"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/toolcheck"
)

// Server-to-client requests (issue 44 part 3: judge every string the
// model reads). A sampling/createMessage request's system prompt and
// messages go straight into the client's model, an elicitation/create
// request's message and the descriptions of its requestedSchema are shown
// to the user, who answers what they ask: they are judged as a prompt of
// prompts/get is, by the same analysis (toolcheck.AnalyzeList as a
// prompt), with the server's own tools as its own. A system prompt is
// instructions by its nature, so only what the prompt analysis calls an
// error-level MCPG-T001 withholds a request: an instruction aimed at
// another server's tool, concealment from the user, private data sent to
// a sink, a demand for the conversation or for credentials. The text a
// model reads as one conversation is also judged joined, so that an
// instruction split across two messages is read as the model reads it.
// Requests of the 2026-07-28 revision, the inputRequests of an
// input_required result, are judged the same way.

// RequestInspector is an Inspector that also judges the server's requests
// whose text reaches the client's model or the user.
type RequestInspector interface {
	// ServerRequest judges the params of a sampling/createMessage or
	// elicitation/create request. withheld is set when the request must
	// not reach the client, err when it could not be analysed; the relay
	// acts on either in enforce mode only.
	ServerRequest(method string, params []byte) (withheld *Withheld, err error)
}

var _ RequestInspector = (*Guard)(nil)

// judgedRequests are the server requests whose text is judged.
var judgedRequests = map[string]bool{"sampling/createMessage": true, "elicitation/create": true}

// The analysed document holds the request's texts joined as a second
// prompt (requestDocument): its name is the method's with joinedSuffix,
// the texts its member joinedMember, at joinedPointer.
const (
	joinedSuffix  = " joined"
	joinedMember  = "text"
	joinedPointer = "/prompts/1/" + joinedMember
)

// ServerRequest implements RequestInspector.
func (g *Guard) ServerRequest(method string, params []byte) (*Withheld, error) {
	doc, offered, err := requestDocument(g.opts.Secrets, method, params)
	if err == nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		own := g.ownTools()
		if len(offered) > 0 {
			// The tools a sampling request offers the model are the
			// server's: it runs them (the model sees no others).
			o := &toolcheck.Names{}
			o.Merge(own)
			for _, n := range offered {
				o.AddName(n)
			}
			own = o
		}
		var cat *toolcheck.Catalog
		if cat, err = toolcheck.AnalyzeList(doc, toolcheck.KindPrompt, toolcheck.Options{Path: method, Server: g.opts.Name}, own); err == nil {
			return g.judgeRequest(method, cat), nil
		}
	}
	g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
		Message: fmt.Sprintf("the server's %s request not analysed: %v%s", method, err, g.action("; not forwarded, the server gets an error", " (monitor mode: forwarded)")),
		Details: map[string]any{"method": method}})
	g.opts.Logger.Error("server request not analysed", "server", g.opts.Name, "method", method, "err", err)
	return nil, err
}

// judgeRequest reports the findings of a server request (each once per
// method) and returns the verdict. A finding of the joined text counts
// only when no single text gave an error-level MCPG-T001: otherwise it
// repeats one. The caller holds g.mu.
func (g *Guard) judgeRequest(method string, cat *toolcheck.Catalog) *Withheld {
	var single, split *reports.Finding
	for i := range cat.Findings {
		f := &cat.Findings[i]
		if f.Rule != "MCPG-T001" || f.Severity != reports.SeverityError {
			continue
		}
		if f.Location.Pointer == joinedPointer {
			if split == nil {
				split = f
			}
		} else if _, ok := cutPrefixPointer(f.Location.Pointer, "/prompts/0"); ok && single == nil {
			single = f
		}
	}
	for i := range cat.Findings {
		f := &cat.Findings[i]
		if f.Rule == "MCPG-T005" {
			continue // the document's shape (a missing name): not the request's
		}
		ptr, ok := cutPrefixPointer(f.Location.Pointer, "/prompts/0")
		if !ok {
			// The joined texts (or the document's list itself): only a
			// verdict no single text gave is theirs to report.
			if f != split || single != nil {
				continue
			}
			ptr = "" // the request's params as a whole
		}
		msg := requestMessage(method, f.Message)
		key := f.ID + "\x00" + method + "\x00" + msg
		if g.promptFindings[key] {
			continue
		}
		if len(g.promptFindings) < maxReportedResults {
			g.promptFindings[key] = true
		}
		e := events.Event{Kind: "finding", Severity: string(f.Severity), Rule: f.Rule, FindingID: f.ID, Message: msg,
			Details: map[string]any{"pointer": ptr, "method": method}}
		if ptr == "" {
			e.Details["joined"] = true
		}
		if d, ok := f.Evidence["decoded"].(string); ok && d != "" {
			e.Details["decoded"] = d
		}
		g.emit(e)
	}
	verdict := single
	if verdict == nil {
		verdict = split
	}
	if verdict == nil {
		return nil
	}
	g.opts.Logger.Warn("server request withheld", "server", g.opts.Name, "method", method, "rule", verdict.Rule, "enforced", g.opts.Enforce)
	return &Withheld{Rule: verdict.Rule, Message: requestMessage(method, verdict.Message)}
}

// requestMessage names the request in a finding's message: the analysis
// calls it a prompt named by the method.
func requestMessage(method, msg string) string {
	if rest, ok := strings.CutPrefix(msg, "prompt "+toolcheck.QuoteName(method+joinedSuffix)); ok {
		return "the " + method + " request" + rest + " (its texts read together)"
	}
	return strings.Replace(msg, "prompt "+toolcheck.QuoteName(method), "the "+method+" request", 1)
}

// requestDocument makes of a server request's params the prompts/list
// document the analysis reads: {"prompts":[PARAMS]} named by the method,
// without the params' _meta (no model or user reads it) and without the
// base64 of images and audio. When a model or the user reads more than
// one text as one (a sampling request's system prompt and its messages'
// text; an elicitation's message and its schema's titles and
// descriptions), a second prompt holds them joined (joinedPointer).
// offered are the names of the tools a sampling request offers.
func requestDocument(det *secrets.Detector, method string, params []byte) (doc []byte, offered []string, err error) {
	if !judgedRequests[method] {
		return nil, nil, fmt.Errorf("%s is not a request the proxy judges", method)
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	v, err := decodeUnique(dec, 0)
	if err != nil {
		return nil, nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("the request's params are not an object")
	}
	delete(obj, "_meta")
	dropBinary(obj)
	// A finding quotes what it read, and its events go to the log: the
	// secrets a request carries (a token it asks the model to send) are
	// hidden before the analysis reads them, as the call audit hides
	// them. An instruction is as hidden with REDACTED for its token.
	redactStrings(det, obj, 0)
	var texts []string
	if method == "sampling/createMessage" {
		if s, ok := obj["systemPrompt"].(string); ok {
			texts = append(texts, s)
		}
		texts = memberTexts(obj["messages"], map[string]bool{"text": true}, texts, 0)
		tools, _ := obj["tools"].([]any)
		for _, t := range tools {
			if t, ok := t.(map[string]any); ok {
				if n, ok := t["name"].(string); ok && n != "" {
					offered = append(offered, n)
				}
			}
		}
	} else {
		if s, ok := obj["message"].(string); ok {
			texts = append(texts, s)
		}
		if s, ok := obj["url"].(string); ok {
			texts = append(texts, s) // a URL-mode elicitation's page, shown with its message
			if d := decodedURL(s); d != s {
				// The page shows its query decoded: an instruction
				// written there in %7E and + is read as the user sees it.
				texts = append(texts, redactString(det, d)) // a token escaped in it too
			}
		}
		// The form the user reads: its fields' titles and descriptions,
		// the choices it offers (enum, enumNames) and what it fills in.
		texts = memberTexts(obj["requestedSchema"], map[string]bool{"title": true, "description": true,
			"enum": true, "enumNames": true, "default": true}, texts, 0)
	}
	obj["name"] = method
	prompts := []any{obj}
	if len(texts) > 1 {
		prompts = append(prompts, map[string]any{"name": method + joinedSuffix, joinedMember: strings.Join(texts, "\n")})
	}
	doc, err = marshal(map[string]any{"prompts": prompts})
	return doc, offered, err
}

// decodedURL returns u with its percent escapes and the query's plus signs
// decoded, and its query's separators as spaces: "?step=Paste+the+contents
// +of+%7E%2F.aws" reads "step Paste the contents of ~/.aws". u itself when
// it holds nothing encoded or an escape is malformed.
func decodedURL(u string) string {
	if !strings.ContainsAny(u, "%+") {
		return u
	}
	base, query, hasQuery := strings.Cut(u, "?")
	d, err := url.PathUnescape(base)
	if err != nil {
		return u
	}
	if hasQuery {
		q, err := url.QueryUnescape(strings.NewReplacer("&", " ", "=", " ").Replace(query))
		if err != nil {
			return u
		}
		d += " " + q
	}
	return d
}

// maxJoinDepth bounds the depth memberTexts reads (decodeUnique bounded
// the document's).
const maxJoinDepth = 64

// memberTexts appends the strings of the members named in members at any
// depth of v (to maxJoinDepth), in document order for arrays (objects'
// members in their sorted order).
func memberTexts(v any, members map[string]bool, out []string, depth int) []string {
	if depth > maxJoinDepth {
		return out
	}
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			out = memberTexts(e, members, out, depth+1)
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if s, ok := v[k].(string); ok && members[k] {
				out = append(out, s)
				continue
			}
			if a, ok := v[k].([]any); ok && members[k] {
				// A list of choices: its strings are read in order.
				for _, e := range a {
					if s, ok := e.(string); ok {
						out = append(out, s)
					} else {
						out = memberTexts(e, members, out, depth+1)
					}
				}
				continue
			}
			out = memberTexts(v[k], members, out, depth+1)
		}
	}
	return out
}

// redactStrings hides the secrets of every string in v (to maxJoinDepth),
// member names included: RedactFields for a string it judges field by
// field, RedactText past maxJudgedValue; a token spelled in tag
// characters, which the analysis decodes and quotes, is hidden in tag
// characters.
func redactStrings(det *secrets.Detector, v any, depth int) any {
	if depth > maxJoinDepth {
		return v
	}
	switch v := v.(type) {
	case string:
		return redactString(det, v)
	case []any:
		for i, e := range v {
			v[i] = redactStrings(det, e, depth+1)
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			e := redactStrings(det, v[k], depth+1)
			if rk := redactString(det, k); rk != k {
				delete(v, k)
				if _, taken := v[rk]; taken {
					continue
				}
				k = rk
			}
			v[k] = e
		}
	}
	return v
}

// redactString is one string of redactStrings.
func redactString(det *secrets.Detector, s string) string {
	if len(s) > maxJudgedValue {
		s = det.RedactText(s)
	} else {
		s = det.RedactFields(s)
	}
	return redactTagRuns(det, s)
}

// Tag characters (U+E0020-U+E007E) spell ASCII a reader does not see.
const (
	tagFirst = 0xE0020
	tagLast  = 0xE007E
)

// redactTagRuns hides the secrets of each run of tag characters in s,
// read as the ASCII it spells, and spells REDACTED in their place.
func redactTagRuns(det *secrets.Detector, s string) string {
	if strings.IndexFunc(s, isTag) < 0 {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexFunc(s, isTag)
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexFunc(s, func(r rune) bool { return !isTag(r) })
		if j < 0 {
			j = len(s)
		}
		run := s[:j]
		s = s[j:]
		ascii := strings.Map(func(r rune) rune { return r - 0xE0000 }, run)
		if red := det.RedactFields(ascii); red != ascii {
			run = strings.Map(func(r rune) rune {
				if r >= 0x20 && r <= 0x7E {
					return r + 0xE0000
				}
				return -1
			}, red)
		}
		b.WriteString(run)
	}
	return b.String()
}

// isTag reports a tag character that spells printable ASCII.
func isTag(r rune) bool { return r >= tagFirst && r <= tagLast }

// sortedKeys returns an object's member names in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// judgeServerRequest judges a server's sampling/createMessage or
// elicitation/create request (RequestInspector). In enforce mode one with
// hidden instructions, or one that could not be analysed, is not
// forwarded: the server gets a JSON-RPC error for it (-32001, -32002) in
// the client's place, and drop is true. Monitor mode forwards it, with
// the same events.
func (r *relay) judgeServerRequest(rt route, m *mcpio.Message) (drop bool) {
	if !judgedRequests[m.Method] {
		return false
	}
	ri, ok := r.opts.Inspector.(RequestInspector)
	if !ok {
		return false
	}
	w, err := ri.ServerRequest(m.Method, m.Params)
	switch {
	case err != nil:
		if !r.opts.Enforce {
			return false
		}
		if m.ID != nil {
			r.answerServer(rt, errorResponse(m.ID, CodeNotAnalysed, "mcpguard: the "+m.Method+" request could not be analysed: "+err.Error(), nil))
		}
		return true
	case w == nil:
		return false
	}
	// A request without an id (a notification of the method) has no
	// one to answer.
	answered, action := "server", "; not forwarded, the server gets error -32001"
	if m.ID == nil {
		answered, action = "none", "; not forwarded (it has no id to answer)"
	}
	r.opts.Events.Emit(events.Event{Kind: "request-withheld", Rule: w.Rule, Severity: string(reports.SeverityError),
		Message: w.Message + r.action(action, " (monitor mode: forwarded)"),
		Details: map[string]any{"method": m.Method, "answered": answered}})
	if !r.opts.Enforce {
		return false
	}
	if m.ID != nil {
		r.answerServer(rt, errorResponse(m.ID, CodeWithheld, "mcpguard withheld this request: "+w.Message, map[string]any{"method": m.Method, "rule": w.Rule}))
	}
	return true
}

// maxPendingAnswers bounds the proxy's own answers to server requests
// being written at once: a server that floods withheld requests and
// reads none of the answers would otherwise hold one goroutine and its
// answer per request.
const maxPendingAnswers = 256

// answerServer sends the proxy's own response to a server request: over
// the route's POST (Streamable HTTP) or to the server's stdin (stdio). It
// does not wait: the server may be busy writing what the proxy reads.
// Past maxPendingAnswers unwritten answers the server reads none of, the
// answer is dropped (the server waits for it as for a client that does
// not answer), with a warning.
func (r *relay) answerServer(rt route, resp []byte) {
	send := r.toServer
	if rt.answer != nil {
		send = rt.answer
	}
	if send == nil {
		return
	}
	select {
	case r.answering <- struct{}{}:
	default:
		r.opts.Logger.Warn("server request not answered: the server reads none of the proxy's answers", "pending", maxPendingAnswers)
		return
	}
	go func() {
		defer func() { <-r.answering }()
		send(append(resp, '\n'))
	}()
}

// withheldInput judges the inputRequests of an input_required result
// (2026-07-28) to the client's request method, as the server's own
// requests are (RequestInspector), and returns the error response the
// client gets instead of the result in enforce mode: -32001 for a request
// with hidden instructions (a request-withheld event, monitor mode too),
// -32002 for one that could not be analysed, or for a result or entry
// that a decoder taking the first match reads otherwise than JSON.parse
// (resultType, inputRequests, an entry's method or params twice); nil
// when it may pass. A resultType is read decoded ("input\u005frequired"
// is input_required to every client).
func (r *relay) withheldInput(id []byte, method string, result []byte) *inputRefusal {
	ri, ok := r.opts.Inspector.(RequestInspector)
	if !ok || !bytes.Contains(result, inputRequiredMark) && !bytes.Contains(result, []byte(`\u`)) {
		return nil // the fast path: every other result
	}
	keys, values, ok := mcpio.ObjectMembers(result)
	if !ok {
		return nil
	}
	input := false
	var reqs [][]byte
	var kinds int
	for i, k := range keys {
		switch k {
		case "resultType":
			kinds++
			var s string
			if json.Unmarshal(values[i], &s) == nil && s == "input_required" {
				input = true // any of them: a first-match decoder reads the first
			}
		case "inputRequests":
			reqs = append(reqs, values[i])
		}
	}
	if !input || len(reqs) == 0 {
		return nil
	}
	notAnalysed := func(why string) *inputRefusal {
		why = "the input_required " + method + " result " + why
		r.opts.Events.Emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
			Message: why + r.action("; the client gets error -32002", " (monitor mode: forwarded)"), Details: map[string]any{"request": method}})
		return &inputRefusal{resp: errorResponse(id, CodeNotAnalysed, "mcpguard: "+why, nil), code: CodeNotAnalysed, why: why}
	}
	var refused *inputRefusal
	if kinds > 1 || len(reqs) > 1 {
		refused = notAnalysed("is ambiguous: resultType or inputRequests appears twice")
	}
	var entries [][]byte
	for _, reqs := range reqs {
		if _, vs, ok := mcpio.ObjectMembers(reqs); ok {
			entries = append(entries, vs...)
			continue
		}
		var arr []json.RawMessage
		if json.Unmarshal(reqs, &arr) != nil {
			continue
		}
		for _, e := range arr {
			entries = append(entries, e)
		}
	}
	for _, e := range entries {
		ks, vs, ok := mcpio.ObjectMembers(e)
		if !ok {
			continue
		}
		var methods []string
		var params [][]byte
		judged := false
		for i, k := range ks {
			switch k {
			case "method":
				var m string
				_ = json.Unmarshal(vs[i], &m)
				methods = append(methods, m)
				judged = judged || judgedRequests[m]
			case "params":
				params = append(params, vs[i])
			}
		}
		if !judged {
			continue
		}
		if len(methods) > 1 || len(params) > 1 {
			if refused == nil {
				refused = notAnalysed("is ambiguous: an input request's method or params appears twice")
			}
			continue
		}
		inner := methods[0]
		var p []byte
		if len(params) == 1 {
			p = params[0]
		}
		w, err := ri.ServerRequest(inner, p)
		switch {
		case err != nil:
			if refused == nil {
				why := "the " + inner + " request of the input_required result could not be analysed: " + err.Error()
				refused = &inputRefusal{resp: errorResponse(id, CodeNotAnalysed, "mcpguard: "+why, nil), code: CodeNotAnalysed, why: why}
			}
			continue
		case w == nil:
			continue
		}
		r.opts.Events.Emit(events.Event{Kind: "request-withheld", Rule: w.Rule, Severity: string(reports.SeverityError),
			Message: w.Message + r.action("; the client gets error -32001 instead of the "+method+" result", " (monitor mode: forwarded)"),
			Details: map[string]any{"method": inner, "answered": "client", "request": method}})
		if refused == nil || refused.code != CodeWithheld {
			refused = &inputRefusal{resp: errorResponse(id, CodeWithheld, "mcpguard withheld this request: "+w.Message, map[string]any{"method": inner, "rule": w.Rule}),
				code: CodeWithheld, rule: w.Rule, why: w.Message}
		}
	}
	if !r.opts.Enforce {
		return nil
	}
	return refused
}

// inputRefusal is the proxy's error response in the server's place, with what
// the call audit records of it.
type inputRefusal struct {
	resp      []byte
	code      int
	rule, why string
}
