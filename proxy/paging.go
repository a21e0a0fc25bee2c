package proxy

import (
	"bytes"
	lru "container/list"
	"crypto/sha256"
	"encoding/json"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// A paginated listing (tools/list, prompts/list, resources/templates/list,
// resources/list with a cursor) is checked page by page, and a later page
// is compared with the earlier pages of the same listing: it must not list
// a twin of an earlier page's tool, an identifier an earlier page
// withheld, or be trusted on first use when the first page was not. Over
// Streamable HTTP several client sessions share the proxy, so "the same
// listing" is kept per session:
//
//   - stdio: the connection (one client) is one session;
//   - Streamable HTTP with an Mcp-Session-Id: each session has the
//     listing of each method it last started (a request without a cursor);
//   - without a session (the stateless 2026-07-28 revision, or a server
//     that issues no session id): a listing is the chain of pages that
//     cursors link. A page continues the listing whose page handed out the
//     cursor it asks for; when one cursor was handed out by two listings
//     (a server that gives every client the same one), the page continues
//     both, and is compared with the pages of both.
//
// The state is bounded: at most maxListings listings and
// maxListingEntries names and identifiers over all of them; past either,
// the listing used least recently is forgotten. A later page of a
// forgotten (or never seen) listing is judged as a listing of its own
// (its names still compared with the pinned ones, and not trusted on
// first use). A listing is forgotten when its last page (no nextCursor)
// has been checked, and a session's listings when the session ends (its
// DELETE, a 404 for it from the server, the end of the stdio connection).

// Page says which listing a page of a list result belongs to.
type Page struct {
	// Session is the client session the request came in: its
	// Mcp-Session-Id over Streamable HTTP, "" for the one connection of
	// stdio.
	Session string
	// Stateless says the transport has no sessions (Streamable HTTP
	// without an Mcp-Session-Id): pages are linked by their cursors.
	Stateless bool
	// Paged says the request had a cursor: a later page. Cursor is its
	// key (cursorKey).
	Paged  bool
	Cursor string
}

// SessionInspector is an Inspector that keeps the pages of a listing per
// client session. The relay asks for it with a type assertion; without
// it, ToolsList and ItemsList are called with paged alone.
type SessionInspector interface {
	// ToolsListPage is ToolsList for a page of the listing p names.
	ToolsListPage(p Page, result []byte) ([]byte, error)
	// ItemsListPage is ItemsList for a page of the listing p names.
	ItemsListPage(p Page, method string, result []byte) ([]byte, error)
	// SessionEnded forgets the listings of a session that ended.
	SessionEnded(session string)
}

// Bounds of the paging state (see above).
const (
	maxListings       = 256
	maxListingEntries = 2 * maxPageNames
)

// listingState is what the earlier pages of one listing said.
type listingState struct {
	key string
	// names are the tool names of a tools listing's pages; trusting is
	// set while the first listing of a server without a pin is recorded
	// page by page.
	names    []string
	trusting bool
	// held are the identifiers (twinKey) the pages of an item listing
	// withheld so far.
	held map[string]Withheld
	elem *lru.Element
}

func (st *listingState) size() int { return len(st.names) + len(st.held) }

// listings are the open listings, the most recently used first.
type listings struct {
	byKey map[string]*listingState
	order lru.List
	total int // the entries (size) of every listing
}

// cursorKey keys a cursor as JSON.parse reads it: a string's decoded
// text, any other value's compact JSON; "" for none.
func cursorKey(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return stringCursorKey(s)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		raw = b.Bytes()
	}
	sum := sha256.Sum256(append([]byte{'j'}, raw...))
	return string(sum[:])
}

func stringCursorKey(s string) string {
	sum := sha256.Sum256(append([]byte{'s'}, s...))
	return string(sum[:])
}

// nextKey is the cursorKey of a list result's nextCursor (the member
// JSON.parse reads), "" when it has none.
func nextKey(result []byte, root *jsonc.Value) string {
	v := root.Get("nextCursor")
	switch {
	case v == nil || v.Kind == jsonc.Null:
		return ""
	case v.Kind == jsonc.String:
		return stringCursorKey(v.Str)
	case v.Pos.Offset >= 0 && v.Pos.Offset < v.End && v.End <= len(result):
		return cursorKey(result[v.Pos.Offset:v.End])
	}
	b, _ := json.Marshal(v.Interface())
	return cursorKey(b)
}

// sessionKey and chainKey key a listing of method in a session, and in
// no session by the cursor that continues it.
func sessionKey(method, session string) string { return method + "\x00s" + session }
func chainKey(method, cursor string) string    { return method + "\x00c" + cursor }

// begin returns the state of the listing a page of method belongs to: a
// new one for a first page, the earlier pages' for a later one. The
// caller holds g.mu.
func (g *Guard) begin(method string, p Page) *listingState {
	ls := &g.pages
	if ls.byKey == nil {
		ls.byKey = map[string]*listingState{}
	}
	key := sessionKey(method, p.Session)
	if p.Stateless {
		key = ""
		if p.Paged {
			key = chainKey(method, p.Cursor)
		}
	}
	if p.Paged && key != "" {
		if st := ls.byKey[key]; st != nil {
			ls.order.MoveToFront(st.elem)
			return st
		}
	}
	g.forget(key)
	st := &listingState{key: key}
	if key != "" {
		st.elem = ls.order.PushFront(st)
		ls.byKey[key] = st
	}
	return st
}

// end records that a page of the listing was checked: the listing is
// forgotten after its last page (next ""), and, without sessions, keyed
// by the cursor that continues it. The caller holds g.mu.
func (g *Guard) end(method string, p Page, st *listingState, next string) {
	ls := &g.pages
	if next == "" {
		g.forget(st.key)
		return
	}
	if p.Stateless {
		key := chainKey(method, next)
		if key != st.key {
			if st.key != "" {
				ls.order.Remove(st.elem)
				delete(ls.byKey, st.key)
				ls.total -= st.size()
			}
			if other := ls.byKey[key]; other != nil {
				// The cursor continues another listing too: one state
				// for both, compared with both.
				other.names = append(other.names, st.names...)
				other.trusting = other.trusting && st.trusting
				for k, w := range st.held {
					if other.held == nil {
						other.held = map[string]Withheld{}
					}
					if _, ok := other.held[k]; !ok {
						other.held[k] = w
					}
				}
				ls.total += st.size()
				ls.order.MoveToFront(other.elem)
				st = other
			} else {
				st.key = key
				st.elem = ls.order.PushFront(st)
				ls.byKey[key] = st
				ls.total += st.size()
			}
		}
	}
	g.evict(st)
}

// grew accounts n entries added to a listing's state.
func (g *Guard) grew(st *listingState, n int) {
	if st.key != "" && g.pages.byKey[st.key] == st {
		g.pages.total += n
	}
}

// evict forgets the least recently used listings, other than keep, while
// the state is over its bounds.
func (g *Guard) evict(keep *listingState) {
	ls := &g.pages
	for ls.order.Len() > maxListings || ls.total > maxListingEntries {
		e := ls.order.Back()
		if e == nil {
			return
		}
		st := e.Value.(*listingState)
		if st == keep {
			if ls.order.Len() == 1 {
				return
			}
			ls.order.MoveToFront(e)
			continue
		}
		g.forget(st.key)
	}
}

// forget drops the listing keyed key, if any.
func (g *Guard) forget(key string) {
	ls := &g.pages
	if st := ls.byKey[key]; st != nil {
		ls.order.Remove(st.elem)
		delete(ls.byKey, key)
		ls.total -= st.size()
	}
}

// listMethods are the methods whose results are paged listings.
var listMethods = [...]string{"tools/list", "prompts/list", "resources/templates/list", "resources/list"}

// SessionEnded implements SessionInspector.
func (g *Guard) SessionEnded(session string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range listMethods {
		g.forget(sessionKey(m, session))
	}
}
