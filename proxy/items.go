package proxy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/toolcheck"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// Prompts, resource templates and resources (issue 44 part 3). Their
// names, titles, descriptions, arguments and addresses reach the model as
// tool descriptions do, so their lists get the tools' analysis
// (toolcheck.AnalyzeList): in enforce mode hidden characters are removed,
// and an item with hidden instructions (an error-level MCPG-T001), or
// whose identifier carries hidden characters, is left out of the list;
// a prompts/get of a withheld prompt and a resources/read of a withheld
// resource are refused. The responses are matched to their requests as
// tools/list's are (correlate.go): a listing nobody asked for is never
// taken for one.

// itemKey keys a withheld item: its kind and identifier (a prompt's name,
// a resource's uri, a template's uriTemplate).
func itemKey(kind toolcheck.ItemKind, id string) string { return string(kind) + "\x00" + id }

// itemID returns what identifies an item to a client.
func itemID(it *toolcheck.Item) string {
	if it.Kind == toolcheck.KindPrompt {
		return it.Name
	}
	return it.URI
}

// itemLabel names an item in events and logs: its name, never its
// address (a resource's uri may carry a token), else its pointer.
func itemLabel(it *toolcheck.Item) string {
	if it.Name != "" {
		return it.Name
	}
	return it.Pointer
}

// ItemsList implements ItemInspector: the pages of a listing are those
// of one session (a stdio connection).
func (g *Guard) ItemsList(method string, result []byte, paged bool) ([]byte, error) {
	return g.ItemsListPage(Page{Paged: paged}, method, result)
}

// ItemsListPage implements SessionInspector.
func (g *Guard) ItemsListPage(p Page, method string, result []byte) ([]byte, error) {
	kind, ok := toolcheck.ListMethod(method)
	if !ok {
		return result, nil
	}
	paged := p.Paged
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.begin(method, p)
	cat, err := g.analyseItems(method, kind, result)
	if err != nil {
		g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
			Message: fmt.Sprintf("%s result not analysed: %v%s", method, err, g.action("; the client gets an error instead", " (monitor mode: forwarded)"))})
		g.opts.Logger.Error("list result not analysed", "server", g.opts.Name, "method", method, "err", err)
		return nil, err
	}
	list := &cat.Lists[0]
	byPtr := make(map[string]int, len(list.Items))
	for i := range list.Items {
		byPtr[list.Items[i].Pointer] = i
	}
	of := func(ptr string) int {
		rest, ok := strings.CutPrefix(ptr, list.Pointer+"/")
		if !ok {
			return -1
		}
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		if i, ok := byPtr[list.Pointer+"/"+rest]; ok {
			return i
		}
		return -1
	}
	withheld := make([]*Withheld, len(list.Items))
	for _, f := range cat.Findings {
		i := of(f.Location.Pointer)
		if i < 0 || withheld[i] != nil {
			continue
		}
		if w, ok := withholds(f); ok && f.Rule != "MCPG-T005" {
			withheld[i] = &w
		}
	}
	for i := range list.Items {
		it := &list.Items[i]
		if id := itemID(it); id != "" && mcpunicode.Sanitize(id) != id && withheld[i] == nil {
			// The client would see, and ask for, another item than the server's.
			withheld[i] = &Withheld{Rule: "MCPG-U001", Message: fmt.Sprintf("the %s's identifier carries hidden characters", nounOf(kind))}
		}
	}
	for i := range list.Items {
		if withheld[i] != nil {
			continue
		}
		for _, m := range list.Items[i].Value.Members {
			if id := idMember(kind); m.Key != id && strings.EqualFold(m.Key, id) {
				// A client on Go's encoding/json reads it as the
				// identifier: it would list, and ask for, another item.
				withheld[i] = &Withheld{Rule: "MCPG-T005", Message: fmt.Sprintf("the %s also has a member %q, which some clients read as its %s", nounOf(kind), clip(m.Key), id)}
				break
			}
		}
	}
	// Items that share an identifier with a withheld one are withheld
	// with it: a prompts/get of the name may get either from the server.
	// So are those of a later page that share one with an item an
	// earlier page of the same listing withheld. Resources' uris are
	// compared as a server's URL parser reads them.
	if st.held == nil {
		st.held = map[string]Withheld{}
	}
	pageHeld := st.held
	heldIDs := map[string]*Withheld{} // this page's
	for i := range list.Items {
		if w := withheld[i]; w != nil {
			if id := itemID(&list.Items[i]); id != "" && heldIDs[twinKey(kind, id)] == nil {
				heldIDs[twinKey(kind, id)] = w
			}
		}
	}
	for i := range list.Items {
		id := itemID(&list.Items[i])
		if id == "" || withheld[i] != nil {
			continue
		}
		k := twinKey(kind, id)
		w := heldIDs[k]
		if w == nil {
			if earlier, ok := pageHeld[k]; ok {
				w = &earlier
			}
		}
		if w != nil {
			withheld[i] = &Withheld{Rule: w.Rule, Message: fmt.Sprintf("another %s of the same %s is withheld: %s", nounOf(kind), idMember(kind), w.Message)}
		}
	}
	for k, w := range heldIDs {
		if _, ok := pageHeld[k]; ok {
			continue
		}
		if len(pageHeld) < maxPageNames {
			pageHeld[k] = *w
			g.grew(st, 1)
		} else {
			g.overflowed(kind)
		}
	}
	g.end(method, p, st, nextKey(result, cat.Root))
	g.reportItems(cat, of, list)
	if !paged {
		delete(g.overflow, kind)
	}
	decided := map[string]bool{} // keys withheld by this listing
	for i := range list.Items {
		it := &list.Items[i]
		k := itemKey(kind, itemID(it))
		if w := withheld[i]; w != nil {
			if decided[k] {
				continue // its twin decided the key
			}
			decided[k] = true
			if old, was := g.items[k]; !was || old != *w {
				g.emit(events.Event{Kind: "item-withheld", Rule: w.Rule, Severity: string(reports.SeverityError),
					Message: w.Message + g.action("; removed from "+method+" and requests for it refused", " (monitor mode: forwarded)"),
					Details: map[string]any{"item_kind": string(kind), "item": itemLabel(it)}})
				g.opts.Logger.Warn("item withheld", "server", g.opts.Name, "kind", string(kind), "item", itemLabel(it), "rule", w.Rule, "enforced", g.opts.Enforce)
			}
			if len(g.items) < maxPageNames || g.items[k] != (Withheld{}) {
				g.items[k] = *w
			} else {
				g.overflowed(kind)
			}
			continue
		}
		if !decided[k] {
			delete(g.items, k)
		}
	}
	g.rememberAddresses(kind, list, withheld, paged)
	if !g.opts.Enforce {
		return result, nil
	}
	out := result
	clean, changed, ok := cat.SanitizedJSON()
	if !ok && !mcpunicode.IsCleanJSON(result) {
		if clean, changed, err = mcpunicode.SanitizeJSON(result); err != nil {
			return nil, fmt.Errorf("sanitize: %w", err) // fail closed
		}
	}
	if changed {
		out = clean
		g.emit(events.Event{Kind: "items-sanitized", Severity: string(reports.SeverityWarning),
			Message: "removed hidden characters and escape sequences from " + method, Details: map[string]any{"item_kind": string(kind)}})
	}
	edit := list.Listed != len(list.Items)
	for _, w := range withheld {
		edit = edit || w != nil
	}
	if !edit {
		return out, nil
	}
	edited, err := editItems(out, toolcheck.ListKey(kind), byPtr, list.Pointer, withheld)
	if err != nil {
		g.emit(events.Event{Kind: "protocol-error", Severity: string(reports.SeverityError),
			Message: fmt.Sprintf("could not rewrite %s (%v); the client gets an error instead", method, err)})
		return nil, fmt.Errorf("rewrite: %w", err)
	}
	return edited, nil
}

// rememberAddresses keeps, for resources/read, the withheld templates of a
// templates listing and the ids of the prompts and resources a listing
// forwards: each listing replaces what the last one of its kind said, and
// a later page (paged) adds to what the earlier pages said.
func (g *Guard) rememberAddresses(kind toolcheck.ItemKind, list *toolcheck.ItemList, withheld []*Withheld, paged bool) {
	switch kind {
	case toolcheck.KindResourceTemplate:
		if !paged {
			g.heldTemplates = g.heldTemplates[:0]
			delete(g.overflow, kind)
		}
		for i := range list.Items {
			if withheld[i] == nil {
				continue
			}
			// A template past the bound, or one no regexp is made of, is
			// not remembered: every uri the resources did not list is
			// refused instead.
			if re := templateRegexp(list.Items[i].URI); re != nil && len(g.heldTemplates) < maxHeldTemplates {
				g.heldTemplates = append(g.heldTemplates, heldTemplate{re: re, w: *withheld[i]})
			} else {
				g.overflowed(kind)
			}
		}
	case toolcheck.KindResource, toolcheck.KindPrompt:
		if kind == toolcheck.KindResource {
			g.heldURIs = nil // made again at the next resources/read
		}
		if !paged || g.listed[kind] == nil {
			g.listed[kind] = map[string]bool{}
		}
		listed := g.listed[kind]
		for i := range list.Items {
			if id := itemID(&list.Items[i]); withheld[i] == nil && id != "" && len(listed) < maxPageNames {
				listed[id] = true
			}
		}
	}
}

// idMember names the member that identifies an item of the kind.
func idMember(kind toolcheck.ItemKind) string {
	switch kind {
	case toolcheck.KindResource:
		return "uri"
	case toolcheck.KindResourceTemplate:
		return "uriTemplate"
	}
	return "name"
}

func nounOf(kind toolcheck.ItemKind) string {
	if kind == toolcheck.KindResourceTemplate {
		return "resource template"
	}
	return string(kind)
}

// analyseItems runs the analysis on a list result, which must be an object
// with the kind's array, and no member a case-folding client reads as it.
func (g *Guard) analyseItems(method string, kind toolcheck.ItemKind, result []byte) (*toolcheck.Catalog, error) {
	cat, err := toolcheck.AnalyzeList(result, kind, toolcheck.Options{Path: method, Server: g.opts.Name, Sanitize: g.opts.Enforce}, g.ownTools())
	if err != nil {
		return nil, err
	}
	key := toolcheck.ListKey(kind)
	if k := repeatedKey(cat.Root.Members, key, "nextCursor"); k != "" {
		return nil, fmt.Errorf("the result has the member %q twice", k)
	}
	for _, m := range cat.Root.Members {
		for _, k := range [...]string{key, "nextCursor"} {
			if m.Key != k && strings.EqualFold(m.Key, k) {
				return nil, fmt.Errorf("the result has a member %q, which some clients read as %q", clip(m.Key), k)
			}
		}
	}
	return cat, nil
}

// ownTools are the names of the server's own tools, which its prompts and
// resources may steer to: the current tools/list's or, before the first
// one, the ones approved in the pin file; nil without either. The caller
// holds g.mu.
func (g *Guard) ownTools() *toolcheck.Names {
	own := g.toolNames
	if own == nil && g.opts.Pins != nil {
		// No tools/list yet: the tools the user approved are the server's.
		if g.pinSet == nil || g.opts.Pins.Changed() {
			if ps, err := g.opts.Pins.Load(); err == nil {
				g.pinSet = ps
			}
		}
		if g.pinSet != nil {
			own = &toolcheck.Names{}
			for _, n := range approvedNames(g.pinSet.Pins[g.opts.Name]) {
				own.AddName(n)
			}
		}
	}
	return own
}

// reportItems sends each finding of a list once per proxy run, naming its
// item.
func (g *Guard) reportItems(cat *toolcheck.Catalog, of func(string) int, list *toolcheck.ItemList) {
	for _, f := range cat.Findings {
		if g.reported[f.ID] {
			continue
		}
		g.reported[f.ID] = true
		e := events.Event{Kind: "finding", Severity: string(f.Severity), Rule: f.Rule, FindingID: f.ID, Message: f.Message,
			Details: map[string]any{"pointer": f.Location.Pointer, "item_kind": string(list.Kind)}}
		if i := of(f.Location.Pointer); i >= 0 {
			e.Details["item"] = itemLabel(&list.Items[i])
		}
		if d, ok := f.Evidence["decoded"].(string); ok && d != "" {
			e.Details["decoded"] = d
		}
		g.emit(e)
	}
}

// WithheldItem implements ItemInspector.
func (g *Guard) WithheldItem(method, id string) (Withheld, bool) {
	kind := toolcheck.KindPrompt
	if method != "prompts/get" {
		kind = toolcheck.KindResource // resources/read, subscribe, unsubscribe
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if w, ok := g.items[itemKey(kind, id)]; ok {
		return w, true
	}
	if kind == toolcheck.KindPrompt {
		if w, full := g.overflow[kind]; full && !g.listed[kind][id] {
			return w, true
		}
		return Withheld{}, false
	}
	// The uri as the server lists a resource it did not withhold is read
	// as listed. Any other spelling a server's URL parser reads as a
	// withheld resource's uri is refused, and so is a uri made from a
	// withheld template.
	if w, ok := g.items[itemKey(toolcheck.KindResourceTemplate, id)]; ok {
		// A completion/complete's ref/resource names a template by its
		// uriTemplate.
		return w, true
	}
	if g.listed[kind][id] {
		return Withheld{}, false
	}
	for _, k := range [...]toolcheck.ItemKind{toolcheck.KindResource, toolcheck.KindResourceTemplate} {
		if w, full := g.overflow[k]; full {
			return w, true
		}
	}
	if g.heldURIs == nil {
		g.indexHeldURIs()
	}
	canon := canonURI(id, false)
	if w, ok := g.heldURIs[canon]; ok {
		return w, true
	}
	withQuery := canonURI(id, true)
	for _, ht := range g.heldTemplates {
		if ht.re.MatchString(id) || ht.re.MatchString(withQuery) {
			return ht.w, true
		}
	}
	return Withheld{}, false
}

// overflowed records that a withheld item of the kind could not be
// remembered: the requests the proxy can no longer judge are refused.
func (g *Guard) overflowed(kind toolcheck.ItemKind) {
	g.overflow[kind] = Withheld{Rule: "MCPG-T001", Message: fmt.Sprintf("the server withholds more %ss than mcpguard keeps track of; requests for any it did not list clean are refused", nounOf(kind))}
}

// indexHeldURIs makes heldURIs of the withheld resources.
func (g *Guard) indexHeldURIs() {
	g.heldURIs = map[string]Withheld{}
	prefix := itemKey(toolcheck.KindResource, "")
	for k, w := range g.items {
		if uri, ok := strings.CutPrefix(k, prefix); ok && w != (Withheld{}) {
			g.heldURIs[canonURI(uri, false)] = w
		}
	}
}

// heldTemplate is a withheld resource template: the uris it makes.
type heldTemplate struct {
	re *regexp.Regexp
	w  Withheld
}

// maxHeldTemplates bounds the templates whose uris are refused, and
// maxTemplateLen the length of one (a regexp is made of each).
const (
	maxHeldTemplates = 256
	maxTemplateLen   = 2048
)

// templateRegexp returns the uris an RFC 6570 URI template expands to, as
// an anchored regular expression: its literal text, and for each
// expression what its operator can expand to ("{+path}" and "{#frag}" may
// hold slashes, "{x}" not, "{?q}" a query). nil for a template too long
// or malformed.
func templateRegexp(tmpl string) *regexp.Regexp {
	if len(tmpl) > maxTemplateLen {
		return nil
	}
	var b strings.Builder
	// Case-insensitive: a URL parser lowers the scheme and host, and a
	// path that differs only in case refuses more, never less.
	b.WriteString("(?i)^")
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(tmpl))
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return nil
		}
		b.WriteString(regexp.QuoteMeta(tmpl[:i]))
		expr := tmpl[i+1 : i+j]
		tmpl = tmpl[i+j+1:]
		op := byte(0)
		if expr != "" {
			op = expr[0]
		}
		switch op {
		case '+', '#':
			b.WriteString(".*")
		case '?', '&':
			b.WriteString(`(?:[?&][^#]*)?`)
		case '/':
			b.WriteString(`(?:/[^?#]*)?`)
		case '.', ';':
			b.WriteString(`(?:[.;][^/?#]*)?`)
		default:
			b.WriteString(`[^/?#]*`)
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil
	}
	return re
}

// editItems removes withheld items and elements that are not objects from
// a list result; only the list member is re-encoded.
func editItems(result []byte, key string, byPtr map[string]int, listPtr string, withheld []*Withheld) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(result, &top); err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(top[key], &items); err != nil {
		return nil, err
	}
	kept := make([]json.RawMessage, 0, len(items))
	for n, raw := range items {
		i, ok := byPtr[listPtr+"/"+strconv.Itoa(n)]
		if !ok || withheld[i] != nil {
			continue // not an object, or withheld: never forwarded
		}
		kept = append(kept, raw)
	}
	var err error
	if top[key], err = marshal(kept); err != nil {
		return nil, err
	}
	return marshal(top)
}
