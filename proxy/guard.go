package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/pins"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/toolcheck"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// GuardOptions configure a Guard.
type GuardOptions struct {
	// Name is the server's name: it keys the pins, names the server in
	// events, and "ide" implies IDE.
	Name string
	// IDE applies Claude Code's IDE tool allowlist (MCPG-I001).
	IDE bool
	// Enforce rewrites what reaches the client: hidden characters removed,
	// withheld tools and contradicted safety hints dropped. Off (monitor),
	// the Guard only reports.
	Enforce bool
	// Launch is how the server was started (stdio argv or upstream URL),
	// pinned with its tools; nil pins no launch surface.
	Launch *pins.Launch
	// Pins stores the pins; nil disables pinning (MCPG-T003).
	Pins *pins.Store
	// Tools is the compiled tools policy (IDE allowlist, custom tool_deny
	// and tool_warn rules); nil compiles the shipped one when an IDE server
	// needs it.
	Tools *policy.ToolsPolicy
	// Events receives every finding and enforcement action; nil discards.
	Events *events.Log
	// Logger reports withheld tools and pin changes to people (stderr).
	Logger *slog.Logger
	// Secrets redacts the launch surface; nil uses the default detector.
	Secrets *secrets.Detector
	// Decide, when set, receives every tool verdict that is new or changed
	// (the organisation's decision log): the tool's name and pin hash, and
	// what withholds it (nil: forwarded).
	Decide func(tool, sha256 string, withheld *Withheld)
}

// Guard is the proxy's Inspector: it runs mcpguard's tool analysis on every
// tools/list result, decides which tools the client may see and call, and
// keeps the pins. It is safe for concurrent use; analyses run one at a time.
type Guard struct {
	opts   GuardOptions
	launch *pins.LaunchPin

	mu sync.Mutex
	// decided is the verdict last reported to Decide, per tool.
	decided map[string]string
	// withheld holds the current verdict per tool name, updated by every
	// listing that names the tool.
	withheld map[string]Withheld
	// pinHeld are the tools withheld by MCPG-T003, with the SHA-256 of the
	// definition that awaits approval.
	pinHeld map[string]string
	// initialize is the pin hash of the initialize result.
	initialize string
	// reported are the finding ids already sent as events;
	// promptFindings those of prompts/get results, by prompt (bounded,
	// results.go).
	reported       map[string]bool
	promptFindings map[string]bool
	// last caches the previous listing: clients list often, and an
	// unchanged result needs no second analysis.
	// Only a first page is cached: a later one is judged with the
	// earlier pages of its listing. names and next are what the listing
	// state gets from it (paging.go).
	last struct {
		in, out []byte
		names   []string
		next    string
	}
	pinSet *pins.Set // the pins as last read
	// others caches pinnedTools for pinSet.
	others struct {
		set   *pins.Set
		tools toolcheck.PinnedTools
	}
	// earlyPins are the pins made beside the parse of the listing being
	// inspected (toolcheck.Options.Early), for checkPins.
	earlyPins *pins.EarlyPins
	// pages are the open paginated listings, per client session
	// (paging.go): a later page must not list a twin of an earlier page's
	// tool, nor an identifier an earlier page withheld.
	pages listings
	// items are the withheld prompts, resource templates and resources
	// (items.go); toolNames the names of the current listing's tools,
	// which the prompts and resources may speak of as the server's own.
	items     map[string]Withheld
	toolNames *toolcheck.Names
	// heldTemplates are the withheld resource templates, listed the
	// prompts and resources the last listing of their kind forwarded
	// (items.go).
	heldTemplates []heldTemplate
	listed        map[toolcheck.ItemKind]map[string]bool
	// heldURIs are the withheld resources by the uri a server's URL
	// parser reads (canonURI).
	heldURIs map[string]Withheld
	// overflow says, per kind, why requests for items the proxy did not
	// see listed clean are refused: the server withheld more of them
	// than it remembers.
	overflow map[toolcheck.ItemKind]Withheld
}

// maxPageNames bounds the names and identifiers one listing's pages
// keep: a server paging without end must not grow the proxy.
const maxPageNames = 1 << 16

// ownNames are the server's names a listing's names must not imitate: its
// earlier pages' and its pinned ones (a pinned "read_file" and a listed
// "reаd_file" are two tools to the person who approved the first).
func (g *Guard) ownNames(st *listingState) []string {
	own := st.names
	if g.pinSet != nil {
		if p := g.pinSet.Pins[g.opts.Name]; p != nil {
			own = append(own[:len(own):len(own)], approvedNames(p)...)
		}
	}
	return own
}

// NewGuard returns a Guard. The launch surface is pinned with the store's
// key, so a pin file never holds a secret.
func NewGuard(opts GuardOptions) *Guard {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Secrets == nil {
		opts.Secrets = secrets.NewDetector()
	}
	if opts.Name == "ide" {
		opts.IDE = true
	}
	opts.Events = opts.Events.For(opts.Name)
	g := &Guard{opts: opts, withheld: map[string]Withheld{}, pinHeld: map[string]string{}, reported: map[string]bool{}, promptFindings: map[string]bool{}, items: map[string]Withheld{},
		overflow: map[toolcheck.ItemKind]Withheld{},
		listed:   map[toolcheck.ItemKind]map[string]bool{}}
	if opts.Launch != nil {
		var key []byte
		if opts.Pins != nil {
			key = opts.Pins.Key()
		}
		lp := pins.PinLaunch(*opts.Launch, key, opts.Secrets)
		g.launch = &lp
	}
	return g
}

// Withheld implements Inspector. A tool withheld by its pin is released as
// soon as `mcpguard pins approve` has approved the definition that was
// withheld, without waiting for the next listing.
func (g *Guard) Withheld(tool string) (Withheld, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w, ok := g.withheld[tool]
	if !ok {
		return Withheld{}, false
	}
	if sha, held := g.pinHeld[tool]; held && w.Rule == ruleT003 && g.opts.Pins != nil && g.opts.Pins.Changed() {
		if ps, err := g.opts.Pins.Load(); err == nil {
			g.pinSet = ps
			if p := ps.Pins[g.opts.Name]; approvedSHA(p, tool) == sha && g.launchApproved(p) {
				delete(g.withheld, tool)
				delete(g.pinHeld, tool)
				g.last.in = nil // the cached listing still withholds it
				g.emit(events.Event{Kind: "tool-released", Tool: tool, Rule: ruleT003, Message: fmt.Sprintf("tool %q was approved; calls are forwarded again", tool)})
				return Withheld{}, false
			}
		}
	}
	return w, true
}

// Revision implements Revisioner: the SHA-256 of the tool's definition as
// pinned (approved), "" without pins or before the tool was pinned.
func (g *Guard) Revision(tool string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pinSet == nil {
		return ""
	}
	return approvedSHA(g.pinSet.Pins[g.opts.Name], tool)
}

// ListChanged implements Inspector: the next listing is analysed afresh.
// A later page of a listing begun before the announcement is still
// compared with its earlier pages: the client joins them into one list.
func (g *Guard) ListChanged() {
	g.mu.Lock()
	g.last.in = nil
	g.mu.Unlock()
}

// Initialize implements Inspector: it pins serverInfo and instructions and,
// in enforce mode, removes hidden characters from them (instructions go
// into the model's context like tool descriptions).
func (g *Guard) Initialize(result []byte) []byte {
	h, err := pins.PinInitialize(result)
	g.mu.Lock()
	if err == nil {
		g.initialize = h
	}
	g.mu.Unlock()
	if mcpunicode.IsCleanJSON(result) {
		return result
	}
	clean, changed, err := mcpunicode.SanitizeJSON(result)
	if err != nil || !changed {
		return result
	}
	g.emit(events.Event{Kind: "initialize-sanitized", Severity: string(reports.SeverityWarning),
		Message: "the initialize or server/discover result (server info, instructions) carries hidden characters" + g.action(", removed", "")})
	if !g.opts.Enforce {
		return result
	}
	return clean
}

// ToolsList implements Inspector: the pages of a listing are those of
// one session (a stdio connection).
func (g *Guard) ToolsList(result []byte, paged bool) ([]byte, error) {
	return g.ToolsListPage(Page{Paged: paged}, result)
}

var _ SessionInspector = (*Guard)(nil)

// ToolsListPage implements SessionInspector.
func (g *Guard) ToolsListPage(p Page, result []byte) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	pinsChanged := g.opts.Pins != nil && g.opts.Pins.Changed()
	if !p.Paged && g.last.in != nil && !pinsChanged && bytes.Equal(result, g.last.in) {
		// The listing it begins gets what its inspection would give it:
		// its names; not trusted, since the pin now exists.
		st := g.begin("tools/list", p)
		st.names = append(st.names, g.last.names...)
		g.grew(st, len(g.last.names))
		g.end("tools/list", p, st, g.last.next)
		return g.last.out, nil
	}
	st := g.begin("tools/list", p)
	out, next, err := g.inspect(result, p.Paged, st)
	if err != nil {
		return nil, err
	}
	g.end("tools/list", p, st, next)
	if !p.Paged {
		g.last.in, g.last.out, g.last.next = append([]byte(nil), result...), out, next
		g.last.names = append(g.last.names[:0], st.names...)
	}
	return out, nil
}

// toolVerdict is what the Guard does with one tool of a listing.
type toolVerdict struct {
	withhold *Withheld
	// dropHints are the annotations removed because the analysis
	// contradicts them.
	dropHints []string
}

// inspect analyses one listing and returns what to forward, or why it
// could not be analysed: the relay then fails closed, since the client may
// read tools out of it that were never checked.
//
// st is the state of the listing the page belongs to; next is the key of
// the result's nextCursor, "" when it is the last page.
func (g *Guard) inspect(result []byte, paged bool, st *listingState) (out []byte, next string, err error) {
	rep, next, listed, err := g.analyse(result)
	if err != nil {
		g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
			Message: fmt.Sprintf("tools/list result not analysed: %v%s", err, g.action("; the client gets an error instead", " (monitor mode: forwarded)"))})
		g.opts.Logger.Error("tools/list result not analysed", "server", g.opts.Name, "err", err)
		return nil, "", err
	}
	nextCursor := next != ""
	verdicts := make([]toolVerdict, len(rep.Tools))
	idx := newToolIndex(rep)
	findings := append([]reports.Finding(nil), rep.Findings...)
	// Names that read as another tool's, of this server or of another one
	// the user pinned (MCPG-T005 at error).
	if !paged {
		g.toolNames = nil // a new listing
	}
	if g.toolNames == nil {
		g.toolNames = &toolcheck.Names{}
	}
	g.toolNames.Add(rep)
	findings = append(findings, toolcheck.NameTwins(rep, g.pinnedTools(), g.ownNames(st))...)
	before := len(st.names)
	for _, t := range rep.Tools {
		if t.Name != "" && len(st.names) < maxPageNames {
			st.names = append(st.names, t.Name)
		}
	}
	g.grew(st, len(st.names)-before)
	for _, f := range findings {
		i := idx.of(f.Location.Pointer)
		if i < 0 {
			continue
		}
		v := &verdicts[i]
		if w, ok := withholds(f); ok && v.withhold == nil {
			v.withhold = &w
		}
		if h := contradictedHint(f); h != "" && !contains(v.dropHints, h) {
			v.dropHints = append(v.dropHints, h)
		}
	}
	for i, t := range rep.Tools {
		if t.Name != "" && mcpunicode.Sanitize(t.Name) != t.Name && verdicts[i].withhold == nil {
			// The client would see, and call, another name than the server's.
			verdicts[i].withhold = &Withheld{Rule: "MCPG-U001", Message: "the tool's name carries hidden characters"}
		}
	}
	findings = append(findings, g.checkPins(rep, verdicts, st, paged, nextCursor)...)
	g.report(rep, idx, findings)

	// Record the verdicts: every listed name is decided anew.
	for i, t := range rep.Tools {
		if g.opts.Decide != nil {
			g.decide(t.Name, toolSHA256(rep, i), verdicts[i].withhold)
		}
		if v := verdicts[i].withhold; v != nil {
			if old, was := g.withheld[t.Name]; !was || old != *v {
				g.emit(events.Event{Kind: "tool-withheld", Tool: t.Name, Rule: v.Rule, Severity: string(reports.SeverityError),
					Message: v.Message + g.action("; removed from tools/list and calls refused", " (monitor mode: forwarded)")})
				g.opts.Logger.Warn("tool withheld", "server", g.opts.Name, "tool", t.Name, "rule", v.Rule, "reason", v.Message, "enforced", g.opts.Enforce)
			}
			g.withheld[t.Name] = *v
			continue
		}
		delete(g.withheld, t.Name)
		delete(g.pinHeld, t.Name)
		for _, h := range verdicts[i].dropHints {
			g.emit(events.Event{Kind: "annotation-dropped", Tool: t.Name, Severity: string(reports.SeverityWarning),
				Message: fmt.Sprintf("%s contradicts what the tool does%s", h, g.action("; removed so clients do not auto-approve it", " (monitor mode: kept)")),
				Details: map[string]any{"annotation": h}})
		}
	}
	if !g.opts.Enforce {
		return result, next, nil
	}
	out, err = g.rewrite(rep, result, idx, verdicts, listed != len(rep.Tools))
	return out, next, err
}

// decide reports a tool verdict to GuardOptions.Decide when it differs
// from the one last reported for the tool.
func (g *Guard) decide(tool, sha string, w *Withheld) {
	if g.opts.Decide == nil {
		return
	}
	key := sha
	if w != nil {
		key += "\x00" + w.Rule + "\x00" + w.Message
	}
	if g.decided == nil {
		g.decided = map[string]string{}
	}
	if g.decided[tool] == key {
		return
	}
	g.decided[tool] = key
	g.opts.Decide(tool, sha, w)
}

// pinnedTools are the tool names other servers have in the pin file, for
// NameTwins: a server must not list a look-alike of another server's
// tool. Without pins there are none.
func (g *Guard) pinnedTools() toolcheck.PinnedTools {
	store := g.opts.Pins
	if store == nil {
		return nil
	}
	if g.pinSet == nil || store.Changed() {
		ps, err := store.Load()
		if err != nil {
			return nil // checkPins reports it, and withholds every tool
		}
		g.pinSet = ps
	}
	if g.others.set == g.pinSet {
		return g.others.tools
	}
	out := toolcheck.PinnedTools{}
	for server, p := range g.pinSet.Pins {
		if server != g.opts.Name && p != nil {
			out[server] = approvedNames(p)
		}
	}
	g.others.set, g.others.tools = g.pinSet, out
	return out
}

// toolSHA256 is the pin hash of the i-th tool of a listing.
func toolSHA256(rep *toolcheck.Report, i int) string {
	p, err := pins.PinTool(rep.Tools[i].Value, false)
	if err != nil {
		return ""
	}
	return p.SHA256
}

// SetTools replaces the tools policy (a new organisation bundle): the next
// listing is judged by it.
func (g *Guard) SetTools(tp *policy.ToolsPolicy) {
	g.mu.Lock()
	g.opts.Tools = tp
	g.last.in = nil
	g.decided = nil // log every verdict again under the new policy
	g.mu.Unlock()
}

// analyse runs the tool analysis on a result, which must be an object with
// a "tools" array: the shape clients read. next is the key of its
// nextCursor (cursorKey), listed the length of the array, objects or not.
func (g *Guard) analyse(result []byte) (rep *toolcheck.Report, next string, listed int, err error) {
	opts := toolcheck.Options{Path: "tools/list", Server: g.opts.Name, IDE: g.opts.IDE, Policy: g.opts.Tools, Sanitize: g.opts.Enforce}
	var early *pins.EarlyPins
	if g.opts.Pins != nil {
		// The tools are pinned from the moment the parse has them, on
		// the core the parse leaves idle; checkPins pins the rest.
		early = pins.NewEarlyPins(true)
		opts.Early = early.Pin
	}
	rep, err = toolcheck.Analyze(result, opts)
	if err != nil {
		return nil, "", 0, err
	}
	if rep.ListPointer != "/tools" {
		return nil, "", 0, errors.New(`the result is not an object with a "tools" array`)
	}
	if k := repeatedKey(rep.Root.Members, "tools", "nextCursor"); k != "" {
		// JSON.parse keeps the last, which the analysis read; a decoder
		// that takes the first match would list, or page on, the other.
		return nil, "", 0, fmt.Errorf("the result has the member %q twice", k)
	}
	for _, m := range rep.Root.Members {
		for _, k := range [...]string{"tools", "nextCursor"} {
			if m.Key != k && strings.EqualFold(m.Key, k) {
				// A client on Go's encoding/json (mark3labs/mcp-go, go-sdk
				// before 1.3.1) folds keys: it would list "Tools" or page
				// on "NEXTCURSOR", which the analysis did not read.
				return nil, "", 0, fmt.Errorf("the result has a member %q, which some clients read as %q", clip(m.Key), k)
			}
		}
	}
	g.earlyPins = early
	return rep, nextKey(result, rep.Root), rep.Listed, nil
}

// repeatedKey returns the first of keys that members hold more than
// once, "" if none.
func repeatedKey(members []jsonc.Member, keys ...string) string {
	for _, m := range members {
		if len(m.Dups()) > 0 && slices.Contains(keys, m.Key) {
			return m.Key
		}
	}
	return ""
}

// toolIndex maps the pointer of each tool object ("/tools/N") to its index
// in rep.Tools; N differs from the index when the array holds non-objects.
type toolIndex map[string]int

func newToolIndex(rep *toolcheck.Report) toolIndex {
	idx := make(toolIndex, len(rep.Tools))
	for i, t := range rep.Tools {
		idx[t.Pointer] = i
	}
	return idx
}

// of returns the index of the tool whose object holds the JSON pointer, or
// -1.
func (idx toolIndex) of(ptr string) int {
	rest, ok := strings.CutPrefix(ptr, "/tools/")
	if !ok {
		return -1
	}
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	if i, ok := idx["/tools/"+rest]; ok {
		return i
	}
	return -1
}

// withholds says whether a finding keeps its tool from the client: hidden
// instructions (error-level T001), the IDE allowlist (I001), and an
// organisation's tool_deny rule. Pins (T003) are decided in checkPins.
func withholds(f reports.Finding) (Withheld, bool) {
	switch {
	case f.Rule == "MCPG-T001" && f.Severity == reports.SeverityError,
		f.Rule == "MCPG-T005" && f.Severity == reports.SeverityError, // a twin's name
		f.Rule == "MCPG-I001":
		return Withheld{Rule: f.Rule, Message: f.Message}, true
	}
	if r, _ := reports.LookupRule(f.Rule); r.Category == reports.CategoryCustom && f.Severity == reports.SeverityError {
		return Withheld{Rule: f.Rule, Message: f.Message}, true
	}
	return Withheld{}, false
}

// contradictedHint returns the annotation a finding shows to be a false
// safety claim: a client that trusts it would auto-approve the tool or skip
// a confirmation. Without it, clients fall back to the MCP defaults, which
// are the cautious ones (readOnlyHint false, destructiveHint true,
// idempotentHint false, openWorldHint true). Only error-level
// contradictions change what the client sees (readOnlyHint on a tool that
// writes, destructiveHint false on one that deletes: the hints clients
// auto-approve by); the warnings about openWorldHint and idempotentHint
// rest on weaker evidence ("request" is not always a network request) and
// are only reported.
func contradictedHint(f reports.Finding) string {
	hint, _ := f.Evidence["hint"].(string)
	switch f.Rule {
	case "MCPG-A001", "MCPG-A002", "MCPG-A003", "MCPG-A004":
		if f.Severity != reports.SeverityError {
			return ""
		}
		return hint
	case "MCPG-A005":
		switch f.Evidence["kind"] {
		case "non-boolean-hint":
			return hint // "false" is true to JavaScript
		case "contradictory":
			return "readOnlyHint" // read-only and destructive: trust neither claim of safety
		}
	}
	return ""
}

const ruleT003 = "MCPG-T003"

// errNoWrite aborts a pin store update that has nothing to write.
var errNoWrite = errors.New("nothing to write")

// checkPins compares the listing with the pinned definitions, records a
// first listing (trust on first use) or the observed change, and withholds
// what changed until it is approved.
func (g *Guard) checkPins(rep *toolcheck.Report, verdicts []toolVerdict, st *listingState, paged, nextCursor bool) []reports.Finding {
	if g.opts.Pins == nil {
		return nil
	}
	store, name := g.opts.Pins, g.opts.Name
	cur := pins.NewPin(name, g.launch, g.initialize, pins.PinToolsWith(rep, true, g.earlyPins))
	g.earlyPins = nil
	partial := paged || nextCursor // removals show only in a complete listing
	if g.pinSet == nil || store.Changed() {
		ps, err := store.Load()
		if err != nil {
			g.pinFailure(err, rep, verdicts)
			return nil
		}
		g.pinSet = ps
	}
	decide := func(ps *pins.Set) (write bool, trusted bool, diff *pins.PinDiff) {
		if ps.Pins == nil {
			ps.Pins = map[string]*pins.Pin{}
		}
		if ps.Pending == nil {
			ps.Pending = map[string]*pins.Pin{}
		}
		old := ps.Pins[name]
		if old == nil || (st.trusting && paged) {
			if old != nil {
				cur = mergePins(old, cur)
			}
			ps.Pins[name] = cur
			delete(ps.Pending, name)
			return true, true, nil
		}
		diff = pins.DiffPins(old, cur)
		if partial {
			diff.Removed = nil
		}
		if diff.Empty() {
			if ps.Pending[name] != nil && !partial {
				delete(ps.Pending, name) // the server went back to what was approved
				return true, false, diff
			}
			return false, false, diff
		}
		observed := cur
		if partial {
			base := old
			if p := ps.Pending[name]; p != nil {
				base = p
			}
			observed = mergePins(base, cur)
		}
		if p := ps.Pending[name]; p != nil && p.SHA256 == observed.SHA256 {
			return false, false, diff
		}
		ps.Pending[name] = observed
		return true, false, diff
	}
	write, trusted, diff := decide(g.pinSet)
	if write {
		err := store.Update(func(ps *pins.Set) error {
			w, t, d := decide(ps)
			write, trusted, diff = w, t, d
			g.pinSet = ps
			if !w {
				return errNoWrite
			}
			return nil
		})
		if err != nil && !errors.Is(err, errNoWrite) {
			g.pinFailure(err, rep, verdicts)
			return nil
		}
	}
	if trusted {
		st.trusting = nextCursor
		if write {
			g.emit(events.Event{Kind: "pin-created", Message: fmt.Sprintf("pinned %d tools on first use", len(rep.Tools)),
				Details: map[string]any{"tools": len(rep.Tools), "pins": store.Path()}})
			g.opts.Logger.Info("tools pinned on first use", "server", name, "tools", len(rep.Tools), "pins", store.Path())
		}
		return nil
	}
	if diff.Empty() {
		return nil
	}
	hint := fmt.Sprintf("review it, then run: mcpguard pins approve %s", shellQuote(name))
	held := map[string]bool{}
	for _, n := range diff.UnapprovedTools() {
		held[n] = true
	}
	launchChanged := len(diff.Launch) > 0
	for i, t := range rep.Tools {
		if !launchChanged && !held[t.Name] {
			continue
		}
		msg := fmt.Sprintf("tool %q changed since it was pinned; %s", t.Name, hint)
		if launchChanged {
			msg = fmt.Sprintf("the server's launch surface changed since it was pinned (%s); %s", strings.Join(diff.Launch, ", "), hint)
		} else if !contains(approvedNames(g.pinSet.Pins[name]), t.Name) {
			msg = fmt.Sprintf("tool %q is new since the server was pinned; %s", t.Name, hint)
		}
		if verdicts[i].withhold == nil {
			verdicts[i].withhold = &Withheld{Rule: ruleT003, Message: msg}
			g.pinHeld[t.Name] = toolSHA(cur, t.Name)
		}
	}
	g.opts.Logger.Warn("tool definitions differ from the pins", "server", name, "changed", len(diff.Changed), "added", len(diff.Added),
		"removed", len(diff.Removed), "launch", diff.Launch, "approve", "mcpguard pins approve "+shellQuote(name))
	return diff.Findings(reports.Location{Path: "tools/list"}, rep.Location, "")
}

// pinFailure fails closed: a pin store that cannot be read or written means
// no tool can be checked against its pin, so in enforce mode every tool is
// withheld until it can.
func (g *Guard) pinFailure(err error, rep *toolcheck.Report, verdicts []toolVerdict) {
	g.emit(events.Event{Kind: "pin-error", Rule: ruleT003, Severity: string(reports.SeverityError),
		Message: fmt.Sprintf("pins unavailable: %v%s", err, g.action("; every tool is withheld", ""))})
	g.opts.Logger.Error("pins unavailable", "server", g.opts.Name, "err", err)
	for i := range rep.Tools {
		if verdicts[i].withhold == nil {
			verdicts[i].withhold = &Withheld{Rule: ruleT003, Message: fmt.Sprintf("the pin file cannot be used (%v)", err)}
		}
	}
}

// mergePins adds the tools of a page to a pin: pages of one listing pin
// together.
func mergePins(base, page *pins.Pin) *pins.Pin {
	byName := map[string]pins.ToolPin{}
	for _, t := range base.Tools {
		byName[t.Name] = t
	}
	for _, t := range page.Tools {
		byName[t.Name] = t
	}
	tools := make([]pins.ToolPin, 0, len(byName))
	for _, t := range byName {
		tools = append(tools, t)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return pins.NewPin(page.Server, page.Launch, page.Initialize, tools)
}

// launchApproved reports whether the pin approves the launch surface this
// proxy runs with (a tool withheld for a launch change is unchanged itself).
func (g *Guard) launchApproved(p *pins.Pin) bool {
	return g.launch == nil || p.Launch == nil || p.Launch.SHA256 == g.launch.SHA256
}

func approvedSHA(p *pins.Pin, tool string) string {
	if p == nil {
		return ""
	}
	for _, t := range p.Tools {
		if t.Name == tool {
			return t.SHA256
		}
	}
	return ""
}

func approvedNames(p *pins.Pin) []string {
	if p == nil {
		return nil
	}
	out := make([]string, len(p.Tools))
	for i, t := range p.Tools {
		out[i] = t.Name
	}
	return out
}

func toolSHA(p *pins.Pin, tool string) string { return approvedSHA(p, tool) }

// report sends each finding once per proxy run.
func (g *Guard) report(rep *toolcheck.Report, idx toolIndex, findings []reports.Finding) {
	for _, f := range findings {
		if g.reported[f.ID] {
			continue
		}
		g.reported[f.ID] = true
		e := events.Event{Kind: "finding", Severity: string(f.Severity), Rule: f.Rule, FindingID: f.ID, Message: f.Message,
			Details: map[string]any{"pointer": f.Location.Pointer}}
		if i := idx.of(f.Location.Pointer); i >= 0 {
			e.Tool = rep.Tools[i].Name
		}
		if d, ok := f.Evidence["decoded"].(string); ok && d != "" {
			e.Details["decoded"] = d
		}
		g.emit(e)
	}
}

// rewrite builds the result the client receives: hidden characters
// removed, withheld tools left out, contradicted hints dropped. Every other
// byte of the result is the server's when only Unicode was cleaned.
// nonObjects says the tools array holds elements that are not objects.
func (g *Guard) rewrite(rep *toolcheck.Report, result []byte, idx toolIndex, verdicts []toolVerdict, nonObjects bool) ([]byte, error) {
	out := result
	// The analysis computed the output view beside its parse; sanitizing
	// here again is for a walk it could not finish.
	clean, changed, ok := rep.SanitizedJSON()
	if !ok && !mcpunicode.IsCleanJSON(result) {
		var err error
		clean, changed, err = mcpunicode.SanitizeJSON(result)
		if err != nil {
			// The result parsed for the analysis; failing here is a bug.
			// Fail closed rather than forward hidden characters.
			return nil, fmt.Errorf("sanitize: %w", err)
		}
	}
	if changed {
		out = clean
		g.emit(events.Event{Kind: "tools-sanitized", Severity: string(reports.SeverityWarning),
			Message: "removed hidden characters and escape sequences from tools/list"})
	}
	edit := nonObjects
	for _, v := range verdicts {
		if v.withhold != nil || len(v.dropHints) > 0 {
			edit = true
			break
		}
	}
	if !edit {
		return out, nil
	}
	edited, err := editTools(out, idx, verdicts)
	if err != nil {
		// The result parsed for the analysis; failing here is a bug. Fail
		// closed rather than forward tools that should be withheld.
		g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
			Message: fmt.Sprintf("could not rewrite tools/list (%v); the client gets an error instead", err)})
		return nil, fmt.Errorf("rewrite: %w", err)
	}
	return edited, nil
}

// editTools removes withheld tools, elements that are not tool objects,
// and contradicted hints from a result. Only the members it changes are
// re-encoded.
func editTools(result []byte, idx toolIndex, verdicts []toolVerdict) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(result, &top); err != nil {
		return nil, err
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(top["tools"], &tools); err != nil {
		return nil, err
	}
	kept := make([]json.RawMessage, 0, len(tools))
	for n, raw := range tools {
		i, ok := idx["/tools/"+strconv.Itoa(n)]
		if !ok {
			continue // not a tool object: never analysed, never forwarded
		}
		v := verdicts[i]
		if v.withhold != nil {
			continue
		}
		if len(v.dropHints) > 0 {
			var err error
			if raw, err = dropHints(raw, v.dropHints); err != nil {
				return nil, err
			}
		}
		kept = append(kept, raw)
	}
	var err error
	if top["tools"], err = marshal(kept); err != nil {
		return nil, err
	}
	return marshal(top)
}

func dropHints(tool json.RawMessage, hints []string) (json.RawMessage, error) {
	var t map[string]json.RawMessage
	if err := json.Unmarshal(tool, &t); err != nil {
		return nil, err
	}
	var ann map[string]json.RawMessage
	if err := json.Unmarshal(t["annotations"], &ann); err != nil {
		return nil, err
	}
	for _, h := range hints {
		delete(ann, h)
	}
	var err error
	if t["annotations"], err = marshal(ann); err != nil {
		return nil, err
	}
	return marshal(t)
}

// marshal encodes without HTML escaping, as the server's JSON had it.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// emit sends an event about this server.
func (g *Guard) emit(e events.Event) { g.opts.Events.Emit(e) }

// action picks the wording for enforce or monitor mode.
func (g *Guard) action(enforce, monitor string) string {
	if g.opts.Enforce {
		return enforce
	}
	return monitor
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shellQuote quotes a server name for the command line a message suggests.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
