package proxy

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/mcpguard/mcpguard/internal/mcpio"
)

// A response can only answer a request the proxy forwarded and has not seen
// answered, in the direction it belongs: the client's requests are answered
// by the server, the server's requests (sampling, elicitation, roots) by
// the client. Anything else is hostile: a client that drops what arrives
// before its request (as the SDKs do) would take a listing sent ahead of
// its tools/list for the answer, and no analysis would have seen it.

// route says under which keys a message's ids are recorded and matched.
// stdio has one route, the zero one; each Streamable HTTP POST has its own
// for the requests it carries, since their responses come back on that
// POST's own body.
type route struct {
	// calls prefixes the client's requests, and the server's responses
	// are matched under it.
	calls string
	// also prefixes the client's requests a second time: the HTTP
	// session's, under which a resumed GET stream may deliver them.
	also string
	// back prefixes the server's requests, and the client's responses are
	// matched under it.
	back string
	// recorded collects the client requests recorded through this route
	// (HTTP), so they can be released when the POST ends.
	recorded *[]*pendingRequest
	// session is the client session (paging.go): the Mcp-Session-Id of
	// an HTTP request, "" for stdio; stateless says an HTTP request had
	// none.
	session   string
	stateless bool
	// answer sends the proxy's own response to a server request of this
	// route back to the server (HTTP: a POST of the session); nil uses
	// the relay's toServer (stdio).
	answer func(frame []byte)
}

// pendingRequest is a request that was forwarded and awaits its response.
type pendingRequest struct {
	method string
	id     []byte // as the request had it
	// page is the listing a tools, prompts or resources list request
	// asks a page of (paging.go).
	page Page
	// keys are the table keys the request is recorded under.
	keys []string
	// call is set for tools/call: what the audit records (audit.go).
	call *callRecord
	// name is a prompts/get's prompt: its result is judged as that
	// prompt.
	name string
	// settled is set once the response has come.
	settled bool
}

// Limits of an id table: a peer that never answers, or a client that
// cancels every request, must not grow the proxy without bound.
const (
	maxOpen     = 1 << 16
	maxAnswered = 1 << 12
)

// idTable holds the requests forwarded in one direction. A key holds the
// open requests with that id in the order they were sent: a peer that
// reuses an id still open (JSON-RPC says it must not) gets one answer per
// request, matched in order, and no more.
type idTable struct {
	open map[string][]*pendingRequest
	// answered remembers the keys of recent responses, to tell a
	// duplicate from an id never requested (both are refused).
	answered map[string]struct{}
	ring     []string
	next     int
	count    int // open requests
}

func newIDTable() *idTable {
	return &idTable{open: map[string][]*pendingRequest{}, answered: map[string]struct{}{}}
}

// add records a request under every prefix, with each key a client matches
// its id by (mcpio.IDKeys).
func (t *idTable) add(prefixes []string, id []byte, req *pendingRequest) {
	if t.count >= maxOpen {
		for _, q := range t.open { // the table is full of requests nobody answers
			t.remove(q[0])
			break
		}
	}
	for _, k := range mcpio.IDKeys(id) {
		for _, p := range prefixes {
			key := idKey(p, k)
			delete(t.answered, key)
			t.open[key] = append(t.open[key], req)
			req.keys = append(req.keys, key)
		}
	}
	t.count++
}

// busy reports an open request that a response with this id would also
// answer, under any of the prefixes, and that asks for something else
// than req (another method, or another prompt): its answer would be
// judged as the other's.
func (t *idTable) busy(prefixes []string, id []byte, req *pendingRequest) bool {
	for _, k := range mcpio.IDKeys(id) {
		for _, p := range prefixes {
			for _, q := range t.open[idKey(p, k)] {
				if q.method != req.method || q.name != req.name {
					return true
				}
			}
		}
	}
	return false
}

// settle removes the oldest open request a response with this id answers.
// When there is none, duplicate says whether a response with the id was
// seen before.
func (t *idTable) settle(prefix string, id []byte) (req *pendingRequest, duplicate bool) {
	keys := mcpio.IDKeys(id)
	for _, k := range keys {
		key := idKey(prefix, k)
		if q := t.open[key]; len(q) > 0 {
			p := q[0]
			t.remove(p)
			p.settled = true
			for _, k := range p.keys {
				t.remember(k)
			}
			return p, false
		}
	}
	for _, k := range keys {
		if _, ok := t.answered[idKey(prefix, k)]; ok {
			return nil, true
		}
	}
	return nil, false
}

// maxIDKey bounds the size of an id as the tables hold it: the tables
// bound how many ids they hold, and a peer must not make each of them as
// large as a message (4096 answered ids of 256 MiB). A longer id is held
// as its SHA-256, which matches the same id as well.
const maxIDKey = 128

func idKey(prefix, k string) string {
	if len(k) > maxIDKey {
		sum := sha256.Sum256([]byte(k))
		k = "h:" + hex.EncodeToString(sum[:])
	}
	return prefix + "\x00" + k
}

// remove takes a request out of every queue it is in.
func (t *idTable) remove(p *pendingRequest) {
	removed := false
	for _, k := range p.keys {
		q := t.open[k]
		for i, e := range q {
			if e == p {
				q = append(q[:i:i], q[i+1:]...)
				removed = true
				break
			}
		}
		if len(q) == 0 {
			delete(t.open, k)
		} else {
			t.open[k] = q
		}
	}
	if removed {
		t.count--
	}
}

func (t *idTable) remember(key string) {
	if len(t.ring) < maxAnswered {
		t.ring = append(t.ring, key)
	} else {
		delete(t.answered, t.ring[t.next])
		t.ring[t.next] = key
		t.next = (t.next + 1) % maxAnswered
	}
	t.answered[key] = struct{}{}
}

// release forgets the keys of a request under one prefix (an HTTP POST
// that ended); the request stays open under its other keys.
func (t *idTable) release(p *pendingRequest, prefix string) {
	var gone, kept []string
	for _, k := range p.keys {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix && k[len(prefix)] == 0 {
			gone = append(gone, k)
		} else {
			kept = append(kept, k)
		}
	}
	if len(gone) == 0 {
		return
	}
	if p.settled {
		p.keys = kept
		return
	}
	if len(kept) == 0 {
		t.remove(p)
		p.keys = nil
		return
	}
	p.keys = gone
	t.remove(p)
	t.count++ // still open, under its other keys
	p.keys = kept
}

// Reasons a response is refused (the reason detail of message-refused).
const (
	reasonUnsolicited = "unsolicited"
	reasonDuplicate   = "duplicate"
)

// uncorrelated explains a response that answers no open request.
func uncorrelated(id []byte, duplicate bool, requester string) (reason, why string) {
	shown := string(id)
	if len(shown) > 64 {
		shown = shown[:64] + "..."
	}
	if duplicate {
		return reasonDuplicate, "a second response to id " + shown + ", which was already answered"
	}
	return reasonUnsolicited, "a response to id " + shown + ", which the " + requester + " has not requested (an id never used, or a response before its request)"
}
