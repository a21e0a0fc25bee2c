package toolcheck

import (
	"fmt"
	"iter"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// Compare reports what only several servers' tool lists show
// together (MCPG-T002): the same or a look-alike tool name on two servers
// (a note: clients namespace tools by server; a warning for a confusable
// character), and a description that names another server's tool. Reports with the same Server name (or,
// without names, the same Path) are one server. Findings are located in
// the later report.
//
// Each pair of servers costs time linear in their tools and texts: names
// are matched through a map of skeletons (a name's key and skeleton are
// functions of it, so every duplicate and look-alike shares the skeleton),
// and references through one automaton per server over its tools'
// distinctive names (refIndex).
func Compare(lists []*Report) []reports.Finding {
	var out []reports.Finding
	seen := map[string]bool{}
	emit := func(fs ...reports.Finding) {
		for _, f := range fs {
			// Several files of one server repeat a finding: keep the first.
			k := fmt.Sprint(f.Location.Path, "\x00", f.Location.Pointer, "\x00", f.Evidence["kind"], "\x00", f.Evidence["other_server"], "\x00", f.Evidence["other_tool"])
			if !seen[k] {
				seen[k] = true
				out = append(out, f)
			}
		}
	}
	server := func(r *Report) string {
		if r.Server != "" {
			return r.Server
		}
		return "\x00" + r.Path
	}
	cmp := make([]*compareState, len(lists))
	state := func(i int) *compareState {
		if cmp[i] == nil {
			cmp[i] = newCompareState(lists[i])
		}
		return cmp[i]
	}
	for j, rj := range lists {
		for i := 0; i < j; i++ {
			ri := lists[i]
			if server(ri) == server(rj) {
				continue
			}
			sj, si := state(j), state(i)
			for tj := range rj.Tools {
				t := &rj.Tools[tj]
				if t.key != "" {
					for _, ti := range si.bySkeleton[t.skeleton] {
						o := &ri.Tools[ti]
						kind := "cross-server-confusable"
						switch {
						case t.Name == o.Name:
							kind = "cross-server-duplicate"
						case t.key == o.key:
							kind = "cross-server-lookalike"
						}
						loc := t.Location
						loc.Pointer = t.Pointer + "/name"
						if nv := t.Value.Get("name"); nv != nil {
							loc.Line, loc.Column = nv.Pos.Line, nv.Pos.Col
						}
						f := reports.NewFinding(ruleT002, loc, rj.serverID, fmt.Sprintf("tool name %s of server %s %s tool %s of server %s; a client that does not namespace tools by server decides which one runs",
							QuoteName(t.Name), tlServerLabel(rj), map[string]string{"cross-server-duplicate": "is also", "cross-server-lookalike": "looks like",
								"cross-server-confusable": "is confusable with"}[kind], QuoteName(o.Name), tlServerLabel(ri)), kind, ri.Path, o.Pointer)
						f.Evidence = map[string]any{"kind": kind, "tool": t.Name, "other_tool": o.Name, "other_server": ri.Server, "other_path": ri.Path}
						if kind != "cross-server-confusable" {
							// Clients namespace tools by server
							// (mcp__github__create_issue beside
							// mcp__gitlab__create_issue): a shared name or
							// spelling is context. A confusable character
							// is a look-alike by design and stays a warning.
							f.Severity = reports.SeverityNote
						}
						emit(f)
					}
				}
				// References to the other server's tools in t's texts, and
				// from the other server's tools to t's server.
				emit(tlReferences(sj, tj, si, sj.lowNames)...)
			}
			for ti := range ri.Tools {
				emit(tlReferences(si, ti, sj, si.lowNames)...)
			}
		}
	}
	sortToolFindings(out)
	return out
}

// compareState is what Compare reads of one report, built once.
type compareState struct {
	rep *Report
	// bySkeleton lists the tools of each skeleton, in order.
	bySkeleton map[string][]int
	// lowNames holds the lower-cased names of the tools; tails what
	// follows a server prefix in them (addNameTails).
	lowNames, tails map[string]bool
	refs            *refIndex
	// texts[i] are the texts of tool i a reference can be in (built on
	// first use).
	texts [][]refText
}

// refText is a string of a tool that can name another server's tool: its
// match view (as poisoning reads it) and location.
type refText struct {
	view string
	ptr  string
	pos  jsonPos
}

func newCompareState(r *Report) *compareState {
	c := &compareState{rep: r, bySkeleton: map[string][]int{}, lowNames: map[string]bool{}, tails: map[string]bool{}, texts: make([][]refText, len(r.Tools))}
	for i := range r.Tools {
		t := &r.Tools[i]
		c.bySkeleton[t.skeleton] = append(c.bySkeleton[t.skeleton], i)
		c.lowNames[strings.ToLower(t.Name)] = true
		addNameTails(c.tails, t.Name)
	}
	c.refs = newRefIndex(r)
	return c
}

// refTexts returns the texts of tool i that references are looked for in:
// not keys, not the name, with a non-empty match view.
func (c *compareState) refTexts(i int) []refText {
	if c.texts[i] == nil {
		var col textCollector
		out := []refText{}
		for _, tx := range col.collectTexts(&c.rep.Tools[i]) {
			if tx.key || tx.role == roleName {
				continue
			}
			if v := matchView(tx.text); v != "" {
				out = append(out, refText{view: v, ptr: col.pointer(&tx), pos: tx.pos})
			}
		}
		c.texts[i] = out
	}
	return c.texts[i]
}

// tlReferences finds texts of tool ti of server r naming a tool of server
// other that r does not have itself (own: r's lower-cased names): for each
// such tool of other, in order, the first text that names it.
func tlReferences(r *compareState, ti int, other *compareState, own map[string]bool) []reports.Finding {
	idx := other.refs
	if len(idx.names) == 0 {
		return nil
	}
	t := &r.rep.Tools[ti]
	// first[name] is the index in texts of the first text naming it.
	first := map[int]int{}
	texts := r.refTexts(ti)
	for k, tx := range texts {
		idx.find(tx.view, func(name int) {
			if _, ok := first[name]; !ok {
				first[name] = k
			}
		})
		if len(first) == len(idx.names) {
			break
		}
	}
	if len(first) == 0 {
		return nil
	}
	type hit struct{ tool, text int }
	var hits []hit
	var choices map[string]bool
	for name, k := range first {
		if own[idx.names[name]] {
			continue
		}
		// A value the tool itself offers for one of its inputs is its own
		// operation ("operation": {"enum": ["get", "get_report"]}; "prefer
		// this over 'get_report'"), and one of its inputs its own setting
		// ("ensure_connection(healthCheck=true)"), not another server's
		// tool of that name.
		if choices == nil {
			choices = ownChoices(t)
		}
		if choices[idx.names[name]] || inputValueIn(texts, idx.names[name], ownInputs(t)) || calledInOwnTool(texts, idx.names[name], r.lowNames) {
			continue
		}
		for _, o := range idx.tools[name] {
			hits = append(hits, hit{o, k})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.tool - b.tool })
	var out []reports.Finding
	for _, h := range hits {
		o := &other.rep.Tools[h.tool]
		tx := texts[h.text]
		loc := reports.Location{Path: r.rep.Path, Pointer: tx.ptr, Line: tx.pos.Line, Column: tx.pos.Col}
		f := reports.NewFinding(ruleT002, loc, r.rep.serverID, fmt.Sprintf("tool %s of server %s names tool %s of server %s: a cross-server reference (tool shadowing)",
			QuoteName(t.Name), tlServerLabel(r.rep), QuoteName(o.Name), tlServerLabel(other.rep)), "cross-server-reference", other.rep.Path, o.Name)
		f.Evidence = map[string]any{"kind": "cross-server-reference", "tool": t.Name, "other_tool": o.Name, "other_server": other.rep.Server, "other_path": other.rep.Path}
		// The server's own tool (or input) under another spelling ("use
		// execute_range_query instead" in a server with ExecuteRangeQuery)
		// may be what it means, as T001 reads its texts: ambiguous, like
		// an own prefixed tool's tail.
		if low := strings.ToLower(o.Name); !directsAbout(tx.view, low) || r.tails[low] || r.rep.ownName(identKey(low)) {
			// Naming another server's tool ("send it with send_email") is
			// context; telling the model what to do when it runs is
			// shadowing, unless the name is also the server's own
			// prefixed tool's (respira_find_element: "First use
			// find_element"), which it may mean.
			f.Severity = reports.SeverityNote
		}
		out = append(out, f)
	}
	return out
}

// directsAbout reports whether a clause of view that names name directs
// the model (always, also, whenever it is called, instead of it).
func directsAbout(view, name string) bool {
	p := intentRE()
	view = withoutCommands(withoutCode(view), name)
	for rest := view; rest != ""; {
		var c string
		c, rest = tlNextClause(rest)
		if !tlContainsWord(c, name) {
			continue
		}
		if directsIn(p, c) || p.instead.MatchString(c) && preferenceVerb(c) {
			return true
		}
	}
	return false
}

// commandLead are words that start a quoted phrase about a tool rather than
// a command line ("'the send_email tool'", "'call send_email'").
var commandLead = lazySet("the", "a", "an", "this", "that", "these", "its", "their", "your", "our", "my", "use", "using", "call", "calling", "run", "running", "invoke", "when", "whenever", "always", "never", "then", "and", "or", "to", "tool", "tools", "with", "via", "by")

// withoutCommands empties the quoted command lines (', " or `) of a view
// in which name is an argument, not the first word: in "instead of 'aws
// logs get-log-events'" get-log-events is a subcommand of the aws CLI,
// whatever another server calls its tool, and a direction about the
// command ("use this tool instead of ...") is none about that tool. Every
// word before the name must be a bare lower-case token and the first not a
// word of prose ("'the send_email tool'" names the tool).
func withoutCommands(view, name string) string {
	if !strings.ContainsAny(view, "'\"`") {
		return view
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(view); i++ {
		q := view[i]
		if q != '\'' && q != '"' && q != '`' || i > 0 && tlWordByte(view[i-1]) {
			continue
		}
		end := strings.IndexByte(view[i+1:], q)
		if end < 0 || end > 200 {
			continue
		}
		j := i + 1 + end
		if j+1 < len(view) && tlWordByte(view[j+1]) {
			continue
		}
		if commandArgument(view[i+1:j], name) {
			b.WriteString(view[last : i+1])
			last = j
		}
		i = j
	}
	if last == 0 {
		return view
	}
	b.WriteString(view[last:])
	return b.String()
}

// commandArgument reports whether name is a word of the command line c
// past its first, every word before it a bare token ("aws logs").
func commandArgument(c, name string) bool {
	words := strings.Split(c, " ")
	if len(words) < 2 || commandLead()[words[0]] {
		return false
	}
	for k, w := range words {
		if w == name {
			return k > 0
		}
		if w == "" {
			return false
		}
		for i := 0; i < len(w); i++ {
			if c := w[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				return false
			}
		}
	}
	return false
}

// withoutCode drops fenced code blocks (```…```) from a view: an example's
// JSON keys and commands direct nothing.
func withoutCode(view string) string {
	if !strings.Contains(view, "```") {
		return view
	}
	var b strings.Builder
	for i := 0; ; i++ {
		k := strings.Index(view, "```")
		if k < 0 {
			if i%2 == 0 {
				b.WriteString(view)
			}
			return b.String()
		}
		if i%2 == 0 {
			b.WriteString(view[:k])
			b.WriteString(". ")
		}
		view = view[k+3:]
	}
}

// ownChoices returns the lower-cased strings tool t's inputSchema offers as
// values (enum members and consts) or names as inputs (property names), at
// any depth.
func ownChoices(t *Tool) map[string]bool {
	out := map[string]bool{}
	var walk func(v *jsonc.Value, depth int)
	walk = func(v *jsonc.Value, depth int) {
		if v == nil || depth > 32 {
			return
		}
		switch v.Kind {
		case jsonc.Object:
			for _, m := range v.Members {
				switch {
				case m.Key == "enum" && m.Value.Kind == jsonc.Array:
					for _, e := range m.Value.Elems {
						if e.IsString() {
							out[strings.ToLower(e.Str)] = true
						}
					}
				case m.Key == "const" && m.Value.IsString():
					out[strings.ToLower(m.Value.Str)] = true
				case m.Key == "properties" && m.Value.Kind == jsonc.Object:
					// An input of its own ("ensure_connection(healthCheck=true)"),
					// and the values its description lists ("Operation to
					// perform: create-cluster, describe-cluster, ...").
					for _, p := range m.Value.Members {
						out[strings.ToLower(p.Key)] = true
						if d := p.Value.Get("description"); d.IsString() {
							listedValues(strings.ToLower(d.Str), out)
						}
					}
					walk(m.Value, depth+1)
				default:
					walk(m.Value, depth+1)
				}
			}
		case jsonc.Array:
			for _, e := range v.Elems {
				walk(e, depth+1)
			}
		}
	}
	walk(t.Value.Get("inputSchema"), 0)
	return out
}

// addNameTails adds to tails each tail of the lower-cased name past a
// separator that still has two words ("respira_find_element":
// "find_element"): a server that prefixes its tools' names may refer to
// them without the prefix ("First use find_element to locate the
// element"), so naming another server's find_element is ambiguous there.
func addNameTails(tails map[string]bool, name string) {
	low := strings.ToLower(name)
	for i := 0; i < len(low); i++ {
		if c := low[i]; c == '_' || c == '-' || c == '.' {
			if tail := low[i+1:]; strings.ContainsAny(tail, "_-.") {
				tails[tail] = true
			}
		}
	}
}

// listedValues adds to out the single-token items of the list that follows
// the first colon of an input's description, up to the end of its sentence
// ("operation to perform: create-database, delete-database, or
// update-database. choose ..."): the values the input takes.
func listedValues(d string, out map[string]bool) {
	c := strings.IndexByte(d, ':')
	if c < 0 {
		return
	}
	list := d[c+1:]
	if e := strings.IndexAny(list, "\n"); e >= 0 {
		list = list[:e]
	}
	if e := strings.Index(list, ". "); e >= 0 {
		list = list[:e]
	}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		item = strings.TrimPrefix(strings.TrimPrefix(item, "or "), "and ")
		item = strings.Trim(item, " '\"`*.")
		if item != "" && !strings.ContainsAny(item, " \t") {
			out[item] = true
		}
	}
}

// ownInputs returns the lower-cased names of tool t's top-level inputs.
func ownInputs(t *Tool) map[string]bool {
	out := map[string]bool{}
	if p := t.Value.Get("inputSchema").Get("properties"); p != nil && p.Kind == jsonc.Object {
		for _, m := range p.Members {
			out[strings.ToLower(m.Key)] = true
		}
	}
	return out
}

// inputValueIn reports whether every occurrence of name in the texts reads
// as a value of one of the tool's own inputs (inputs, lower-cased): the
// input's noun follows it, after names coordinated with it ("the
// get-database or list-databases operations" in a tool with an "operation"
// input), or it is an item of a list whose lead-in names the input ("for
// operations that might exceed the cap: list-objects-v2, describe-log-streams,
// list-roles, etc."). A name a text names any other way is not.
func inputValueIn(texts []refText, name string, inputs map[string]bool) bool {
	if len(inputs) == 0 {
		return false
	}
	seen := false
	for v, k := range wordAt(texts, name) {
		if !inputNounAfter(v[k+len(name):], inputs) && !inputListItem(v[:k], v[k+len(name):], inputs) {
			return false
		}
		seen = true
	}
	return seen
}

// wordAt yields each text's view and the offset in it of every
// occurrence of name that stands as a whole word.
func wordAt(texts []refText, name string) iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		for _, tx := range texts {
			v := tx.view
			for i := 0; i < len(v); {
				k := strings.Index(v[i:], name)
				if k < 0 {
					break
				}
				k += i
				i = k + 1
				if tlContainsWord(v[max(0, k-2):min(len(v), k+len(name)+2)], name) && !yield(v, k) {
					return
				}
			}
		}
	}
}

// calledInOwnTool reports whether every occurrence of name in the texts
// is a function call made inside one of the server's own tools (own, its
// lower-cased tool names): the name, its call's parentheses, then "in",
// "inside" or "within" and the tool ("Prefer this over
// capture_screenshot() in browser_exec", browser-use's code-running tool).
// The parentheses make it code, and the tool after it is where that code
// runs; a bare name ("capture_screenshot in browser_exec") may be a tool.
func calledInOwnTool(texts []refText, name string, own map[string]bool) bool {
	seen := false
	for v, k := range wordAt(texts, name) {
		rest, ok := strings.CutPrefix(v[k+len(name):], "(")
		if !ok {
			return false
		}
		j := strings.IndexByte(rest, ')')
		if j < 0 || j > 80 {
			return false
		}
		rest = rest[j+1:]
		cut := false
		for _, p := range []string{" in ", " inside ", " within "} {
			if rest, cut = strings.CutPrefix(rest, p); cut {
				break
			}
		}
		rest = strings.TrimPrefix(rest, "the ")
		if n := identToken(rest); !cut || n == 0 || !own[rest[:n]] {
			return false
		}
		if ordersCall(sentenceAround(v, k)) {
			return false
		}
		seen = true
	}
	return seen
}

// orderRE finds what makes a sentence an order about a call rather than
// a choice between the server's own tools: an obligation, or an address
// or a URL for the call to reach ("every send_email() in browser_exec
// should also copy keep@example.net").
var orderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:should|must|shall|always|also|needs? to|has to|have to|ought to)\b|@[a-z0-9-]+\.[a-z]|https?://`)
})

// ordersCall reports whether sentence s orders something of a call
// (orderRE): a call named inside the server's own tool that is told to
// copy, add or reach somewhere instructs the model about that call,
// whichever tool runs it, and stays a reference for Compare.
func ordersCall(s string) bool {
	return orderRE().MatchString(s)
}

// sentenceAround returns the sentence of v holding byte k: from just
// after the last ". ", "! " or "? " before k to the next one after it
// (an address's or a file name's dot, followed by no space, ends none).
func sentenceAround(v string, k int) string {
	start := 0
	for _, sep := range []string{". ", "! ", "? "} {
		if i := strings.LastIndex(v[:k], sep); i >= 0 && i+2 > start {
			start = i + 2
		}
	}
	end := len(v)
	for _, sep := range []string{". ", "! ", "? "} {
		if i := strings.Index(v[k:], sep); i >= 0 && k+i < end {
			end = k + i
		}
	}
	return v[start:end]
}

// inputNoun reports whether w is an input's name or its plural.
func inputNoun(w string, inputs map[string]bool) bool {
	return inputs[w] || len(w) > 1 && w[len(w)-1] == 's' && inputs[w[:len(w)-1]]
}

// identToken reports the length of the identifier s starts with (word
// bytes, '-', '.').
func identToken(s string) int {
	n := 0
	for n < len(s) && (tlWordByte(s[n]) || s[n] == '-' || s[n] == '.' && n+1 < len(s) && tlWordByte(s[n+1])) {
		n++
	}
	return n
}

// inputNounAfter reports whether the text after a name, past names
// coordinated with it, is an input's noun ("or list-databases operations").
func inputNounAfter(rest string, inputs map[string]bool) bool {
	for n := 0; n < 16; n++ {
		rest = strings.TrimLeft(rest, "'\"`*")
		var ok bool
		for _, sep := range []string{", or ", ", and ", ", ", " or ", " and "} {
			if strings.HasPrefix(rest, sep) {
				rest, ok = strings.TrimLeft(rest[len(sep):], "'\"`*"), true
				break
			}
		}
		if !ok {
			break
		}
		k := identToken(rest)
		if k == 0 {
			return false
		}
		rest = rest[k:]
	}
	if !strings.HasPrefix(rest, " ") {
		return false
	}
	return inputNoun(rest[1:1+identToken(rest[1:])], inputs)
}

// inputListItem reports whether a name is an item of a comma-separated
// list of single identifiers after a colon whose clause names an input
// ("for operations that might exceed the cap: list-objects-v2, …").
func inputListItem(before, after string, inputs map[string]bool) bool {
	c := strings.LastIndexByte(before, ':')
	if c < 0 {
		return false
	}
	for _, item := range strings.Split(before[c+1:], ",") {
		item = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(item), "or "), "and ")
		if item = strings.Trim(item, "'\"`*"); item != "" && identToken(item) != len(item) {
			return false
		}
	}
	if rest := strings.TrimLeft(after, "'\"`*"); rest != "" && rest[0] != ',' && rest[0] != '.' && rest[0] != ';' && !strings.HasPrefix(rest, " or ") && !strings.HasPrefix(rest, " and ") {
		return false
	}
	lead := before[:c]
	for _, sep := range []string{". ", "; ", "! ", "? "} {
		if e := strings.LastIndex(lead, sep); e >= 0 {
			lead = lead[e+len(sep):]
		}
	}
	for _, w := range strings.Fields(lead) {
		if inputNoun(strings.Trim(w, "'\"`*(),"), inputs) {
			return true
		}
	}
	return false
}
