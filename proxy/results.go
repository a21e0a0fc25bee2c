package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/toolcheck"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// Results whose text goes into the model's context (issue 44: every
// string the model reads is judged after decoding hidden carriers). A
// prompts/get result is the prompt itself — its description and messages
// are what the model is told — so it gets the analysis of a prompt of
// prompts/list, and one with hidden instructions (an error-level
// MCPG-T001) never reaches the client in enforce mode. The results of
// tools/call and resources/read are data: they get no instruction
// verdict (a file or a web page may quote anything), but in enforce mode
// hidden characters and terminal escape sequences are removed from them,
// as from the lists. A clean result is forwarded as it is, after the fast
// clean check alone (unicode.IsCleanJSON).

var _ ResultInspector = (*Guard)(nil)

// Result implements ResultInspector.
func (g *Guard) Result(method, name string, result []byte) ([]byte, *Withheld, error) {
	var held *Withheld
	if method == "prompts/get" {
		var err error
		if held, err = g.promptGet(name, result); err != nil {
			return nil, nil, err
		}
		if held != nil && g.opts.Enforce {
			return nil, held, nil // nothing of it is forwarded
		}
	}
	// The text blobs first (blobs.go): their base64 is clean ASCII to
	// the fast check.
	clean, blobs, err := cleanTextBlobs(result)
	if err != nil {
		g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
			Message: fmt.Sprintf("%s result not analysed: %v%s", method, err, g.action("; the client gets an error instead", " (monitor mode: forwarded)")),
			Details: map[string]any{"method": method}})
		return nil, nil, err // fail closed: it may hide characters
	}
	if !blobs && mcpunicode.IsCleanJSON(result) {
		return result, held, nil
	}
	changed := blobs
	if !mcpunicode.IsCleanJSON(clean) {
		var sanitized bool
		clean, sanitized, err = mcpunicode.SanitizeJSON(clean)
		if err != nil {
			g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
				Message: fmt.Sprintf("%s result not analysed: %v%s", method, err, g.action("; the client gets an error instead", " (monitor mode: forwarded)"))})
			return nil, nil, fmt.Errorf("sanitize: %w", err) // fail closed: it may hide characters
		}
		changed = changed || sanitized
	}
	if !changed {
		return result, held, nil
	}
	e := events.Event{Kind: "result-sanitized", Severity: string(reports.SeverityWarning), Details: map[string]any{"method": method}}
	if blobs {
		e.Details["blob"] = true
	}
	label := clipAudit(name) // the client's name for it: any size
	switch method {
	case "tools/call":
		e.Tool = label
		e.Message = fmt.Sprintf("the result of tool %s carries hidden characters or escape sequences", toolcheck.QuoteName(label))
	case "prompts/get":
		e.Details["item_kind"], e.Details["item"] = string(toolcheck.KindPrompt), label
		e.Message = fmt.Sprintf("prompt %s carries hidden characters or escape sequences", toolcheck.QuoteName(label))
	default:
		// Never the uri: it may carry a token.
		e.Details["item_kind"] = string(toolcheck.KindResource)
		e.Message = "a resources/read result carries hidden characters or escape sequences"
	}
	e.Message += g.action("; removed", " (monitor mode: forwarded)")
	g.emit(e)
	if !g.opts.Enforce {
		return result, held, nil
	}
	return clean, held, nil
}

// maxReportedResults bounds the findings of prompts/get results reported
// once: past it they are reported every time.
const maxReportedResults = 1 << 12

// promptGet judges a prompts/get result as the prompt name of a listing:
// its description and the text of its messages (text content, embedded
// resources' text, resource links), with the server's own tools as its
// own. It returns why the prompt must be withheld, nil when it may pass.
func (g *Guard) promptGet(name string, result []byte) (*Withheld, error) {
	doc, err := promptDocument(g.opts.Secrets, name, result)
	if err == nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		var cat *toolcheck.Catalog
		if cat, err = toolcheck.AnalyzeList(doc, toolcheck.KindPrompt, toolcheck.Options{Path: "prompts/get", Server: g.opts.Name}, g.ownTools()); err == nil {
			return g.judgePrompt(name, cat), nil
		}
	}
	g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
		Message: fmt.Sprintf("prompts/get result not analysed: %v%s", err, g.action("; the client gets an error instead", " (monitor mode: forwarded)")),
		Details: map[string]any{"item_kind": string(toolcheck.KindPrompt), "item": clipAudit(name), "method": "prompts/get"}})
	g.opts.Logger.Error("prompts/get result not analysed", "server", g.opts.Name, "prompt", clipAudit(name), "err", err)
	return nil, err
}

// judgePrompt reports the findings of a prompts/get result (each once per
// prompt) and returns the verdict. The caller holds g.mu.
func (g *Guard) judgePrompt(name string, cat *toolcheck.Catalog) *Withheld {
	name = clipAudit(name) // the client's name for it: any size
	var held *Withheld
	for _, f := range cat.Findings {
		if f.Rule == "MCPG-T005" {
			continue // the listing's shape (a missing name): not the result's
		}
		// The pointer into the result: the document holds it at /prompts/0.
		ptr := f.Location.Pointer
		if rest, ok := cutPrefixPointer(ptr, "/prompts/0"); ok {
			ptr = rest
		}
		if f.Rule == "MCPG-T001" && f.Severity == reports.SeverityError && held == nil {
			held = &Withheld{Rule: f.Rule, Message: f.Message}
		}
		key := f.ID + "\x00" + name + "\x00" + f.Message
		if g.promptFindings[key] {
			continue
		}
		if len(g.promptFindings) < maxReportedResults {
			g.promptFindings[key] = true
		}
		e := events.Event{Kind: "finding", Severity: string(f.Severity), Rule: f.Rule, FindingID: f.ID, Message: f.Message,
			Details: map[string]any{"pointer": ptr, "item_kind": string(toolcheck.KindPrompt), "item": name, "method": "prompts/get"}}
		if d, ok := f.Evidence["decoded"].(string); ok && d != "" {
			e.Details["decoded"] = d
		}
		g.emit(e)
	}
	if held != nil {
		g.emit(events.Event{Kind: "item-withheld", Rule: held.Rule, Severity: string(reports.SeverityError),
			Message: held.Message + g.action("; the client gets an error instead of its messages", " (monitor mode: forwarded)"),
			Details: map[string]any{"item_kind": string(toolcheck.KindPrompt), "item": name, "method": "prompts/get"}})
		g.opts.Logger.Warn("prompt withheld", "server", g.opts.Name, "prompt", name, "rule", held.Rule, "enforced", g.opts.Enforce)
	}
	return held
}

// cutPrefixPointer cuts a JSON pointer's prefix that is a whole pointer
// of its own ("/prompts/0" of "/prompts/0/messages", not of "/prompts/01").
func cutPrefixPointer(ptr, prefix string) (string, bool) {
	if len(ptr) < len(prefix) || ptr[:len(prefix)] != prefix {
		return ptr, false
	}
	if rest := ptr[len(prefix):]; rest == "" || rest[0] == '/' {
		return rest, true
	}
	return ptr, false
}

// promptDocument makes of a prompts/get result the prompts/list document
// the analysis reads: {"prompts":[RESULT]} with the prompt's name. The
// base64 of images, audio and blobs (a string member "data" or "blob")
// is no text a model reads, and is left out; a blob with a text mimeType
// is read as its decoded text (blobs.go). Its secrets are hidden first
// (redactStrings): a finding quotes what it read into the log.
func promptDocument(det *secrets.Detector, name string, result []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	v, err := decodeUnique(dec, 0)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the prompts/get result is not an object")
	}
	dropBinary(obj)
	redactStrings(det, obj, 0)
	obj["name"] = name
	return marshal(map[string]any{"prompts": []any{obj}})
}

// maxDecodeDepth is encoding/json's own nesting limit.
const maxDecodeDepth = 10000

// errRepeatedMember refuses a prompts/get result with an object that holds
// a member twice: the analysis would read one of them (the last, as
// JSON.parse does) and the client gets the bytes of both, which a decoder
// that takes the first match (gjson, buger/jsonparser, simdjson's
// on-demand API) reads otherwise. No JSON encoder writes a member twice.
var errRepeatedMember = errors.New("an object of the result holds a member twice")

// decodeUnique decodes one JSON value as Decoder.Decode does (numbers as
// the decoder's setting has them) and fails on a repeated member (member
// names compared as decoded, "te\u0078t" is "text").
func decodeUnique(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= maxDecodeDepth {
		return nil, errors.New("the result is nested too deeply")
	}
	if d == '[' {
		arr := []any{}
		for dec.More() {
			e, err := decodeUnique(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, e)
		}
		_, err := dec.Token() // ]
		return arr, err
	}
	obj := map[string]any{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		if _, dup := obj[k]; dup {
			return nil, errRepeatedMember
		}
		if obj[k], err = decodeUnique(dec, depth+1); err != nil {
			return nil, err
		}
	}
	_, err = dec.Token() // }
	return obj, err
}

// dropBinary removes the string members "data" and "blob" at any depth,
// and decodes a blob with a text mimeType.
func dropBinary(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if s, isString := e.(string); isString && (k == "data" || k == "blob") {
				mt, _ := v["mimeType"].(string)
				if text, ok := blobText(s, mt); ok && k == "blob" {
					v[k] = text
					continue
				}
				delete(v, k)
				continue
			}
			dropBinary(e)
		}
	case []any:
		for _, e := range v {
			dropBinary(e)
		}
	}
}
