package proxy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/mcpio"
)

// Requests that name a prompt or a resource (issue 44, the proxy's
// holes): prompts/get by name; resources/read, resources/subscribe and
// resources/unsubscribe by uri; completion/complete by its ref, a
// ref/prompt's name or a ref/resource's uri (a resource's, or a
// template's uriTemplate). A request for a withheld item is refused as a
// tools/call of a withheld tool is: the server must not serve, complete
// or watch what the client was never shown.

// itemRef is what a request names.
type itemRef struct {
	// lookup is the method WithheldItem decides by: "prompts/get" for a
	// prompt, "resources/read" for a resource or template.
	lookup string
	// kind is the item's kind as events name it: "prompt" or "resource".
	kind string
	// member is the params member that holds id, for messages.
	member string
	id     string
	// variant is a member a case-folding server reads instead ("NAME"
	// beside "name", "Ref" beside "ref"), "" when there is none.
	variant string
}

// member returns the value of an object's member name as JSON.parse
// reads it (the last one; nil when there is none) and the last member that
// a case-folding decoder (Go's encoding/json) takes for it instead.
func member(keys []string, values [][]byte, name string) (raw []byte, variant string) {
	for i, k := range keys {
		switch {
		case k == name:
			raw = values[i]
		case strings.EqualFold(k, name):
			variant = k
		}
	}
	return raw, variant
}

// stringMember is member's value as a string ("" when it is no string).
func stringMember(keys []string, values [][]byte, name string) (value, variant string) {
	raw, variant := member(keys, values, name)
	if raw != nil {
		_ = json.Unmarshal(raw, &value)
	}
	return value, variant
}

// refOf returns the item a request names; ok is false for a request that
// names none (a completion of something else, params that are no
// object).
func refOf(method string, params []byte) (ref itemRef, ok bool) {
	keys, values, ok := mcpio.ObjectMembers(params)
	if !ok {
		return itemRef{}, false
	}
	switch method {
	case "prompts/get":
		ref = itemRef{lookup: "prompts/get", kind: "prompt", member: "name"}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		ref = itemRef{lookup: "resources/read", kind: "resource", member: "uri"}
	case "completion/complete":
		var raw []byte
		raw, ref.variant = member(keys, values, "ref")
		rk, rv, isObj := mcpio.ObjectMembers(raw)
		if !isObj {
			if ref.variant != "" {
				return itemRef{kind: "prompt", member: "ref", variant: ref.variant}, true
			}
			return itemRef{}, false
		}
		typ, typVariant := stringMember(rk, rv, "type")
		switch typ {
		case "ref/prompt":
			ref.lookup, ref.kind, ref.member = "prompts/get", "prompt", "name"
		case "ref/resource":
			ref.lookup, ref.kind, ref.member = "resources/read", "resource", "uri"
		default:
			if ref.variant == "" && typVariant == "" {
				return itemRef{}, false // not a prompt's or resource's completion
			}
			ref.kind, ref.member = "prompt", "ref"
		}
		if ref.variant == "" {
			ref.variant = typVariant
		}
		id, variant := stringMember(rk, rv, ref.member)
		ref.id = id
		if ref.variant == "" {
			ref.variant = variant
		}
		return ref, true
	default:
		return itemRef{}, false
	}
	ref.id, ref.variant = stringMember(keys, values, ref.member)
	return ref, true
}

// denyItem refuses a request for a withheld prompt, resource or template
// (prompts/get, resources/read, resources/subscribe,
// resources/unsubscribe, completion/complete), and, in enforce mode, one
// whose params a case-folding server reads otherwise than the proxy.
func (r *relay) denyItem(env *mcpio.Envelope) (resp []byte, code int, rule, why string) {
	ii, ok := r.opts.Inspector.(ItemInspector)
	if !ok {
		return nil, 0, "", ""
	}
	ref, ok := refOf(env.Method, env.Params)
	if !ok {
		return nil, 0, "", ""
	}
	if ref.variant != "" {
		// encoding/json's struct decoding (mark3labs/mcp-go, go-sdk)
		// takes the last member whose name folds to the field's: the
		// server would get another item than the one checked.
		if !r.opts.Enforce {
			r.opts.Events.Emit(events.Event{Kind: "call-allowed-monitor", Severity: "warning",
				Message: fmt.Sprintf("monitor mode: forwarded a %s whose params also hold %q, which some servers read as %s", env.Method, ref.variant, ref.member),
				Details: map[string]any{"item_kind": ref.kind, "method": env.Method}})
			return nil, 0, "", ""
		}
		why := fmt.Sprintf("ambiguous %s: the params also hold %q", env.Method, ref.variant)
		r.opts.Events.Emit(events.Event{Kind: "call-refused", Message: why, Details: map[string]any{"item_kind": ref.kind, "method": env.Method}})
		return errorResponse(env.ID, CodeNotAnalysed, fmt.Sprintf("mcpguard: %s, which some servers read as %s", why, ref.member), nil), CodeNotAnalysed, "", why
	}
	w, withheld := ii.WithheldItem(ref.lookup, ref.id)
	if !withheld {
		return nil, 0, "", ""
	}
	if !r.opts.Enforce {
		r.opts.Events.Emit(events.Event{Kind: "call-allowed-monitor", Rule: w.Rule,
			Message: fmt.Sprintf("monitor mode: forwarded a %s of a %s that enforce mode withholds: %s", env.Method, ref.kind, w.Message),
			Details: map[string]any{"item_kind": ref.kind, "method": env.Method}})
		return nil, 0, "", ""
	}
	r.opts.Events.Emit(events.Event{Kind: "call-refused", Rule: w.Rule, Message: w.Message, Details: map[string]any{"item_kind": ref.kind, "method": env.Method}})
	return errorResponse(env.ID, CodeWithheld, fmt.Sprintf("mcpguard withheld this %s: %s", ref.kind, w.Message),
		map[string]any{"item_kind": ref.kind, "rule": w.Rule}), CodeWithheld, w.Rule, w.Message
}

// resourceUpdated handles the server's notifications/resources/updated:
// one about a withheld resource (its uri, or one a withheld template
// makes) is dropped in enforce mode, with a notification-withheld event
// (the client would read, or tell the model about, what it was never
// shown; its resources/read would be refused). A uri spelled with a
// member a case-folding client reads ("URI") is judged too. ok is true
// when the message is replaced (dropped).
func (r *relay) resourceUpdated(m *mcpio.Message) (out []byte, ok bool) {
	ii, isItems := r.opts.Inspector.(ItemInspector)
	if !isItems {
		return nil, false
	}
	keys, values, isObj := mcpio.ObjectMembers(m.Params)
	if !isObj {
		return nil, false
	}
	for i, k := range keys {
		if !strings.EqualFold(k, "uri") {
			continue
		}
		var uri string
		if json.Unmarshal(values[i], &uri) != nil {
			continue
		}
		w, held := ii.WithheldItem("resources/read", uri)
		if !held {
			continue
		}
		r.opts.Events.Emit(events.Event{Kind: "notification-withheld", Rule: w.Rule, Severity: "warning",
			Message: "the server sent notifications/resources/updated for a withheld resource: " + w.Message + r.action("; dropped", " (monitor mode: forwarded)"),
			Details: map[string]any{"item_kind": "resource", "method": m.Method}})
		if !r.opts.Enforce {
			return nil, false
		}
		return nil, true
	}
	return nil, false
}
