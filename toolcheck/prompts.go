package toolcheck

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// Prompts, resource templates and resources (issue 44 part 3: judge every
// string the model reads). A prompts/list, resources/templates/list or
// resources/list result is read by the same per-string rules as a tool:
// the hidden-Unicode findings of the document, the hidden-instruction
// phrases and intent (T001, and T002 for instructions aimed at other
// tools), padding and oversized descriptions (T004). The rules that only
// make sense for tools (annotation contradictions, builtin shadowing,
// the IDE allowlist, the tool-name charset) are not run. Every finding
// names the item in its message and in its evidence (item_kind, item).

// ItemKind is what a listed item is.
type ItemKind string

// Item kinds, as finding evidence and events name them (item_kind).
const (
	KindTool             ItemKind = "tool"
	KindPrompt           ItemKind = "prompt"
	KindResourceTemplate ItemKind = "resource_template"
	KindResource         ItemKind = "resource"
)

// noun is how messages name an item of the kind.
func (k ItemKind) noun() string {
	switch k {
	case KindResourceTemplate:
		return "resource template"
	case "":
		return "tool"
	}
	return string(k)
}

// itemList describes one list a result holds.
type itemList struct {
	kind   ItemKind
	key    string // the member holding the array
	method string // the request it answers
	uri    string // the member naming the item's address
}

// itemLists are the lists other than tools, in the order a capture
// document is read.
func itemLists() [3]itemList {
	return [...]itemList{
		{KindPrompt, "prompts", "prompts/list", ""},
		{KindResourceTemplate, "resourceTemplates", "resources/templates/list", "uriTemplate"},
		{KindResource, "resources", "resources/list", "uri"},
	}
}

// ListMethod returns the kind of the list a request method returns, and
// false for a method that returns no prompts or resources list.
func ListMethod(method string) (ItemKind, bool) {
	for _, l := range itemLists() {
		if l.method == method {
			return l.kind, true
		}
	}
	return "", false
}

// ListKey returns the result member that holds a list of the kind
// ("prompts", "resourceTemplates", "resources", "tools").
func ListKey(kind ItemKind) string {
	for _, l := range itemLists() {
		if l.kind == kind {
			return l.key
		}
	}
	return "tools"
}

func listOf(kind ItemKind) itemList {
	for _, l := range itemLists() {
		if l.kind == kind {
			return l
		}
	}
	return itemList{}
}

// Item is one prompt, resource template or resource of a listing.
type Item struct {
	Kind ItemKind
	// Name is the item's name ("" when missing or not a string); URI its
	// uri or uriTemplate (resources, resource templates).
	Name string
	URI  string
	// Pointer is the RFC 6901 pointer of the item object in the document,
	// e.g. "/result/prompts/3"; Location its position.
	Pointer  string
	Location reports.Location
	Value    *jsonc.Value
}

// ItemList is one prompts, resourceTemplates or resources array of a
// document.
type ItemList struct {
	Kind ItemKind
	// Pointer is the JSON pointer of the array ("/prompts",
	// "/result/resourceTemplates"); Listed its length, elements that are
	// not objects included.
	Pointer string
	Items   []Item
	Listed  int

	arr *jsonc.Value
}

// Catalog is the analysis of one document holding any of a server's
// tools, prompts, resource templates and resources.
type Catalog struct {
	// Path and Server repeat the options.
	Path   string
	Server string
	// Tools is the analysis of the tools list, nil when the document has
	// none.
	Tools *Report
	// Lists are the other lists of the document.
	Lists []ItemList
	// Findings are every finding of the document, the tools' included,
	// sorted by position, then rule.
	Findings []reports.Finding
	// Root is the parsed document.
	Root *jsonc.Value

	sanitized        []byte
	sanitizedChanged bool
	sanitizedOK      bool
}

// SanitizedJSON returns what unicode.SanitizeJSON returns for the document
// when Options.Sanitize was set (AnalyzeList); ok is false otherwise.
func (c *Catalog) SanitizedJSON() (out []byte, changed, ok bool) {
	return c.sanitized, c.sanitizedChanged, c.sanitizedOK
}

// Counts returns how many items of the kind the document lists.
func (c *Catalog) Counts(kind ItemKind) int {
	if kind == KindTool {
		if c.Tools == nil {
			return 0
		}
		return len(c.Tools.Tools)
	}
	n := 0
	for _, l := range c.Lists {
		if l.Kind == kind {
			n += len(l.Items)
		}
	}
	return n
}

// ItemOf returns the item whose object holds ptr.
func (c *Catalog) ItemOf(ptr string) (*Item, bool) {
	for i := range c.Lists {
		l := &c.Lists[i]
		rest, ok := strings.CutPrefix(ptr, l.Pointer+"/")
		if !ok {
			continue
		}
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		for k := range l.Items {
			if it := &l.Items[k]; it.Pointer == l.Pointer+"/"+rest {
				return it, true
			}
		}
	}
	return nil, false
}

// catalogShapes says what documents AnalyzeCatalog accepts.
const catalogShapes = `want a JSON-RPC tools/list, prompts/list, resources/templates/list or resources/list response, an object with any of the "tools", "prompts", "resourceTemplates" and "resources" arrays, or an array of tools`

// AnalyzeCatalog analyses a document that holds any of a server's lists: a
// JSON-RPC response to tools/list, prompts/list, resources/templates/list
// or resources/list, an object with any of the arrays "tools", "prompts",
// "resourceTemplates" and "resources" (a capture of several listings), or
// a bare array of tools. The tools are analysed by Analyze; the other
// lists by the same per-string rules (see the top of this file).
//
// Errors are as Analyze's: a *reports.FileError naming path:line:col, or
// a shape error wrapping ErrNoToolsList (AsFileError reads both).
func AnalyzeCatalog(data []byte, opts Options) (*Catalog, error) {
	return AnalyzeCatalogWith(data, opts, nil)
}

// AnalyzeCatalogWith is AnalyzeCatalog for a server whose own names
// include own besides the document's tools' (its tools listed in another
// document): an instruction to use one of them is no cross-server one.
func AnalyzeCatalogWith(data []byte, opts Options, own *Names) (*Catalog, error) {
	cat := &Catalog{Path: opts.Path, Server: opts.Server}
	rep, err := Analyze(data, opts)
	var index *jsonc.LineIndex
	switch {
	case err == nil:
		cat.Tools, cat.Root, index = rep, rep.Root, rep.index
	case errors.Is(err, ErrNoToolsList):
		root, _, perr := jsonc.Parse(data, jsonc.Options{})
		if perr != nil {
			return nil, err // Analyze parsed it: not reached
		}
		cat.Root = root
		if root.Kind == jsonc.Object && root.Get("error") != nil && root.Get("result") == nil {
			return nil, err // a JSON-RPC error response: Analyze says so
		}
		if t := toolsMember(root); t != nil {
			return nil, err // a "tools" that is no array: Analyze says so
		}
	default:
		return nil, err
	}
	lists, lerr := findItemLists(cat.Root)
	if lerr != nil {
		return nil, &toolsShapeError{FileError: reports.FileError{Path: opts.Path, Line: lerr.pos.Line, Column: lerr.pos.Col, Message: lerr.msg}}
	}
	if len(lists) == 0 {
		if cat.Tools == nil {
			return nil, &toolsShapeError{FileError: reports.FileError{Path: opts.Path, Line: cat.Root.Pos.Line, Column: cat.Root.Pos.Col, Message: catalogShapes}}
		}
		cat.Findings = rep.Findings
		return cat, nil
	}
	if index == nil {
		index = jsonc.NewLineIndex(data)
	}
	ufs, _ := mcpunicode.ScanJSON(data) // a late error only stops the scan
	names := own.clone()
	if cat.Tools != nil {
		names.Add(cat.Tools)
		// The tools' analysis reported every hidden character of the
		// document; those inside the other lists are reported again
		// below, naming their item.
		for _, f := range rep.Findings {
			if !underLists(f.Location.Pointer, lists) {
				cat.Findings = append(cat.Findings, f)
			}
		}
	} else {
		cat.Findings = outsideLists(data, index, ufs, lists, opts)
	}
	cat.Findings = append(cat.Findings, analyzeItemLists(data, index, ufs, cat.Root, lists, opts, names)...)
	cat.Lists = lists
	sortToolFindings(cat.Findings)
	return cat, nil
}

// AnalyzeList analyses the result of one prompts/list,
// resources/templates/list or resources/list response: an object with the
// kind's array (ListKey), which the proxy forwards. With
// Options.Sanitize it also computes the output view (SanitizedJSON). own
// are the server's tools' names (from its tools/list), nil when unknown.
func AnalyzeList(data []byte, kind ItemKind, opts Options, own *Names) (*Catalog, error) {
	l := listOf(kind)
	if l.key == "" {
		return nil, fmt.Errorf("no list of kind %q", kind)
	}
	cat := &Catalog{Path: opts.Path, Server: opts.Server}
	var ufs []mcpunicode.Finding
	var index *jsonc.LineIndex
	var wg sync.WaitGroup
	wg.Go(func() {
		index = jsonc.NewLineIndex(data)
		if !opts.Sanitize {
			ufs, _ = mcpunicode.ScanJSON(data)
			return
		}
		var err error
		ufs, cat.sanitized, cat.sanitizedChanged, err = mcpunicode.Scanner{}.ScanSanitizeJSON(data)
		cat.sanitizedOK = err == nil
	})
	root, _, err := jsonc.Parse(data, jsonc.Options{})
	wg.Wait()
	if err != nil {
		var se *jsonc.SyntaxError
		if errors.As(err, &se) {
			return nil, &reports.FileError{Path: opts.Path, Line: se.Pos.Line, Column: se.Pos.Col, Message: "invalid JSON: " + se.Msg}
		}
		return nil, &reports.FileError{Path: opts.Path, Message: err.Error()}
	}
	cat.Root = root
	shape := func(p jsonc.Pos, msg string) error {
		return &toolsShapeError{FileError: reports.FileError{Path: opts.Path, Line: p.Line, Column: p.Col, Message: msg}}
	}
	if root.Kind != jsonc.Object {
		return nil, shape(root.Pos, fmt.Sprintf("the %s result is a JSON %s, not an object", l.method, root.Kind))
	}
	arr := root.Get(l.key)
	if arr == nil {
		return nil, shape(root.Pos, fmt.Sprintf("the %s result has no %q array", l.method, l.key))
	}
	if arr.Kind != jsonc.Array {
		return nil, shape(arr.Pos, fmt.Sprintf("%q is a JSON %s, not an array", l.key, arr.Kind))
	}
	lists := []ItemList{newItemList(l, arr, "/"+l.key)}
	cat.Findings = append(outsideLists(data, index, ufs, lists, opts), analyzeItemLists(data, index, ufs, root, lists, opts, own)...)
	cat.Lists = lists
	sortToolFindings(cat.Findings)
	return cat, nil
}

// toolsMember returns the "tools" member of a document or of its
// "result", nil when there is none.
func toolsMember(root *jsonc.Value) *jsonc.Value {
	if root.Kind != jsonc.Object {
		return nil
	}
	if t := root.Get("tools"); t != nil {
		return t
	}
	return root.Get("result").Get("tools")
}

type listError struct {
	pos jsonc.Pos
	msg string
}

// findItemLists returns the prompts, resourceTemplates and resources
// arrays of a document or of its JSON-RPC "result".
func findItemLists(root *jsonc.Value) ([]ItemList, *listError) {
	if root.Kind != jsonc.Object {
		return nil, nil
	}
	holder, base := root, ""
	if r := root.Get("result"); r != nil && root.Get("tools") == nil && !hasAnyList(root) {
		if r.Kind != jsonc.Object {
			return nil, &listError{r.Pos, fmt.Sprintf("the JSON-RPC result is a JSON %s, not an object", r.Kind)}
		}
		holder, base = r, "/result"
	}
	var out []ItemList
	for _, l := range itemLists() {
		arr := holder.Get(l.key)
		if arr == nil {
			continue
		}
		if arr.Kind != jsonc.Array {
			return nil, &listError{arr.Pos, fmt.Sprintf("%q is a JSON %s, not an array", l.key, arr.Kind)}
		}
		out = append(out, newItemList(l, arr, base+"/"+l.key))
	}
	return out, nil
}

func hasAnyList(v *jsonc.Value) bool {
	for _, l := range itemLists() {
		if v.Get(l.key) != nil {
			return true
		}
	}
	return false
}

func newItemList(l itemList, arr *jsonc.Value, ptr string) ItemList {
	out := ItemList{Kind: l.kind, Pointer: ptr, Listed: len(arr.Elems), arr: arr}
	for i, v := range arr.Elems {
		if v.Kind != jsonc.Object {
			continue
		}
		it := Item{Kind: l.kind, Pointer: ptr + "/" + strconv.Itoa(i), Value: v}
		if n := v.Get("name"); n.IsString() {
			it.Name = n.Str
		}
		if l.uri != "" {
			if u := v.Get(l.uri); u.IsString() {
				it.URI = u.Str
			}
		}
		out.Items = append(out.Items, it)
	}
	return out
}

// underLists reports whether ptr is inside an element of one of the
// lists (the findings analyzeItemLists reports).
func underLists(ptr string, lists []ItemList) bool {
	for _, l := range lists {
		if strings.HasPrefix(ptr, l.Pointer+"/") {
			return true
		}
	}
	return false
}

// outsideLists reports the hidden characters of a document without tools
// that lie outside its lists' items (a result's _meta, nextCursor).
func outsideLists(data []byte, index *jsonc.LineIndex, ufs []mcpunicode.Finding, lists []ItemList, opts Options) []reports.Finding {
	var rest []mcpunicode.Finding
	for _, u := range ufs {
		if !underLists(u.Pointer, lists) {
			rest = append(rest, u)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	// No tool holds them: toolIndex finds no list under this pointer.
	a := &toolAnalysis{rep: &Report{Path: opts.Path, Server: opts.Server, data: data, index: index, serverID: opts.ServerID, ListPointer: "\x00"}}
	a.unicodeFindings(rest)
	return a.findings
}

// Names are a server's own tool, parameter and enum names, which its
// prompts and resources may speak of: "call search_page first" steers
// between a server's own tools, "call send_email from the gmail server"
// does not. The zero value and nil are empty.
type Names struct{ keys map[string]bool }

// maxNames bounds a Names: a server listing without end must not grow it.
const maxNames = 1 << 16

// NamesOf returns the own names of tools reports.
func NamesOf(reps ...*Report) *Names {
	n := &Names{}
	for _, r := range reps {
		n.Add(r)
	}
	return n
}

// Add adds a tools report's own names (Report.ownName's).
func (n *Names) Add(rep *Report) {
	if rep == nil {
		return
	}
	rep.ownName("")
	if n.keys == nil {
		n.keys = make(map[string]bool, len(rep.ownKeys))
	}
	for k := range rep.ownKeys {
		if len(n.keys) >= maxNames {
			return
		}
		n.keys[k] = true
	}
}

// AddName adds one tool name (a pinned tool's, say).
func (n *Names) AddName(name string) {
	if n.keys == nil {
		n.keys = map[string]bool{}
	}
	if name != "" && len(n.keys) < maxNames {
		n.keys[identKey(name)] = true
	}
}

// Merge adds the names of o.
func (n *Names) Merge(o *Names) {
	if o == nil {
		return
	}
	if n.keys == nil {
		n.keys = make(map[string]bool, len(o.keys))
	}
	for k := range o.keys {
		if len(n.keys) >= maxNames {
			return
		}
		n.keys[k] = true
	}
}

// Len is how many names n holds.
func (n *Names) Len() int {
	if n == nil {
		return 0
	}
	return len(n.keys)
}

func (n *Names) clone() *Names {
	c := &Names{}
	c.Merge(n)
	return c
}

// DocumentNames returns the own names of the tools a document lists (any
// shape Analyze reads), without analysing them; nil when it holds no
// tools list or does not parse.
func DocumentNames(data []byte) *Names {
	root, _, err := jsonc.Parse(data, jsonc.Options{})
	if err != nil {
		return nil
	}
	list, _, err := toolsArray(root)
	if err != nil {
		return nil
	}
	rep := &Report{}
	for _, v := range list.Elems {
		if v.Kind != jsonc.Object {
			continue
		}
		t := Tool{Value: v}
		if nv := v.Get("name"); nv.IsString() {
			t.Name = nv.Str
		}
		rep.Tools = append(rep.Tools, t)
	}
	return NamesOf(rep)
}

// analyzeItemLists runs the per-string rules on every item of the lists.
// ufs are the hidden-Unicode findings of the whole document; own are
// names of the server's own (its tools') that an item may speak of.
func analyzeItemLists(data []byte, index *jsonc.LineIndex, ufs []mcpunicode.Finding, root *jsonc.Value, lists []ItemList, opts Options, own *Names) []reports.Finding {
	var out []reports.Finding
	m := compiledToolMatchers()
	for li := range lists {
		l := &lists[li]
		// The list is read as a tools report whose tools are the items:
		// every per-string rule reads a Tool's name, pointer and object.
		rep := &Report{Path: opts.Path, Server: opts.Server, data: data, index: index, serverID: opts.ServerID,
			Root: root, ListPointer: l.Pointer, Listed: l.Listed}
		keys := map[string]bool{}
		if own != nil {
			for k := range own.keys {
				keys[k] = true
			}
		}
		a := &toolAnalysis{rep: rep, m: m, phraseScratch: m.phrases.scratch(), intentScratch: m.intentLines.scratch()}
		a.elemTool = make([]int, l.Listed)
		for i := range a.elemTool {
			a.elemTool[i] = -1
		}
		for i := range l.Items {
			it := &l.Items[i]
			it.Location = a.loc(it.Value.Pos, it.Pointer)
			n, _ := strconv.Atoi(it.Pointer[len(l.Pointer)+1:])
			a.elemTool[n] = len(rep.Tools)
			rep.Tools = append(rep.Tools, Tool{Name: it.Name, Pointer: it.Pointer, Value: it.Value, Location: it.Location})
			if it.Name != "" {
				keys[identKey(it.Name)] = true
			}
			if args := it.Value.Get("arguments"); l.Kind == KindPrompt && args != nil {
				for _, arg := range args.Elems {
					if n := arg.Get("name"); n.IsString() {
						keys[identKey(n.Str)] = true
					}
				}
			}
		}
		rep.ownOnce.Do(func() { rep.ownKeys = keys })
		var mine []mcpunicode.Finding
		for _, u := range ufs {
			if strings.HasPrefix(u.Pointer, l.Pointer+"/") {
				mine = append(mine, u)
			}
		}
		for i, v := range l.arr.Elems {
			if v.Kind != jsonc.Object {
				ptr := l.Pointer + "/" + strconv.Itoa(i)
				a.add(ruleT005, v.Pos, ptr, fmt.Sprintf("%s[%d] is a JSON %s, not a %s object; clients reject or skip it", listOf(l.Kind).key, i, v.Kind, l.Kind.noun()),
					map[string]any{"kind": "not-an-object", "item_kind": string(l.Kind)}, "not-object")
			}
		}
		a.unicodeFindings(mine)
		for i := range rep.Tools {
			a.item(l.Kind, i)
		}
		if l.Kind == KindPrompt {
			a.duplicateItems(l, func(it *Item) string { return it.Name }, "name")
		} else {
			a.duplicateItems(l, func(it *Item) string { return it.URI }, listOf(l.Kind).uri)
		}
		for i := range a.findings {
			a.nameItem(&a.findings[i], l.Kind)
		}
		out = append(out, a.findings...)
	}
	return out
}

// item runs the per-string rules on the i-th item of the list being
// analysed, as tool runs the tools' rules on a tool.
func (a *toolAnalysis) item(kind ItemKind, i int) {
	t := &a.rep.Tools[i]
	t.key = identKey(t.Name)
	t.skeleton = mcpunicode.Skeleton(t.key)
	a.cur.reset()
	a.texts = a.collector.collectTexts(t)
	a.itemRoles(kind, t)
	a.itemNames(kind, t)
	a.poisoning(t, a.hidden[i])
	a.sizeRules(t)
}

// itemRoles gives the texts of a prompt's arguments the roles of a tool's
// parameters: an argument's name is read as an identifier split into
// words (a parameter name alone can ask for a secret), its description
// and title as a schema's.
func (a *toolAnalysis) itemRoles(kind ItemKind, t *Tool) {
	if kind == KindResourceTemplate {
		// A template's variables are the parameters the model fills in.
		ptr := t.Pointer + "/uriTemplate"
		for k, n := 0, len(a.texts); k < n; k++ {
			if tx := a.texts[k]; !tx.key && a.collector.pointerIs(&tx, ptr) {
				for _, v := range templateVars(tx.text, 64) {
					a.texts = append(a.texts, toolText{span: tx.span, text: v, role: roleParamName, pos: tx.pos, key: true})
				}
			}
		}
		return
	}
	if kind != KindPrompt {
		return
	}
	prefix := t.Pointer + "/arguments/"
	for k := range a.texts {
		tx := &a.texts[k]
		if tx.key {
			continue
		}
		rest, ok := strings.CutPrefix(a.collector.pointer(tx), prefix)
		if !ok {
			continue
		}
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			continue
		}
		switch rest[j+1:] {
		case "name":
			tx.role, tx.key = roleParamName, true
		case "description", "title":
			tx.role = roleSchemaText
		}
	}
}

// itemNames reports an item without the member that identifies it (a
// prompt's name, a resource's uri, a template's uriTemplate): clients
// reject or skip it.
func (a *toolAnalysis) itemNames(kind ItemKind, t *Tool) {
	member := "name"
	if u := listOf(kind).uri; u != "" {
		member = u
	}
	v := t.Value.Get(member)
	if v.IsString() && v.Str != "" {
		return
	}
	what := "no " + member
	pos, ptr := t.Value.Pos, t.Pointer
	switch {
	case v == nil:
	case v.IsString():
		what, pos, ptr = "an empty "+member, v.Pos, t.Pointer+"/"+member
	default:
		what, pos, ptr = fmt.Sprintf("a %s that is a JSON %s", member, v.Kind), v.Pos, t.Pointer+"/"+member
	}
	a.add(ruleT005, pos, ptr, fmt.Sprintf("tool %s has %s; clients reject or skip it", t.Pointer, what),
		map[string]any{"kind": "missing-name"}, "missing", member)
}

// duplicateItems reports two items of one list with the same identifying
// member (a prompt's name, a resource's uri): the client asks for one by
// it and gets whichever the server picks.
func (a *toolAnalysis) duplicateItems(l *ItemList, id func(*Item) string, member string) {
	first := make(map[string]int, len(l.Items))
	for j := range l.Items {
		it := &l.Items[j]
		k := id(it)
		if k == "" {
			continue
		}
		i, seen := first[k]
		if !seen {
			first[k] = j
			continue
		}
		v := it.Value.Get(member)
		a.add(ruleT002, v.Pos, it.Pointer+"/"+member, fmt.Sprintf("tool %s: its %s repeats that of %s %s of the same server; the client gets whichever the server picks",
			QuoteName(it.Name), member, l.Kind.noun(), l.Items[i].Pointer),
			map[string]any{"kind": "duplicate-in-server", "other_pointer": l.Items[i].Pointer}, "dup", l.Items[i].Pointer)
	}
}

// nameItem makes a finding of the analysis of a list name its item: the
// messages the tools' rules write say "tool", their evidence "tool".
func (a *toolAnalysis) nameItem(f *reports.Finding, kind ItemKind) {
	if rest, ok := strings.CutPrefix(f.Message, "tool "); ok {
		f.Message = kind.noun() + " " + rest
	}
	if f.Evidence == nil {
		f.Evidence = map[string]any{}
	}
	delete(f.Evidence, "tool")
	f.Evidence["item_kind"] = string(kind)
	if ti := a.toolIndex(f.Location.Pointer); ti >= 0 {
		f.Evidence["item"] = a.rep.Tools[ti].Name
	}
}

// templateVars returns the names of the first n variables of an RFC 6570
// URI template ("a://{owner}/{+path}{?q,page*}" → owner, path, q, page).
func templateVars(tmpl string, n int) []string {
	var out []string
	for len(out) < n {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			break
		}
		expr := strings.TrimLeft(tmpl[i+1:i+j], "+#./;?&=,!@|")
		tmpl = tmpl[i+j+1:]
		for v := range strings.SplitSeq(expr, ",") {
			if k := strings.IndexAny(v, ":*"); k >= 0 {
				v = v[:k]
			}
			if v != "" && len(out) < n {
				out = append(out, v)
			}
		}
	}
	return out
}
