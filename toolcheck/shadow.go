package toolcheck

import (
	"fmt"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/reports"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// Built-in tools of the clients (threats.md §3).
type builtinList struct {
	client string
	names  []string
	// exactIsNote: the client itself resolves an exact collision (Gemini CLI
	// registers a conflicting MCP tool as server__tool; Codex and Claude
	// Code namespace every MCP tool), so only a look-alike that escapes its
	// exact-match check reads as the builtin.
	exactIsNote bool
	historical  bool
}

var builtinLists = []builtinList{
	{client: "claude-code", names: strings.Fields(`Agent Artifact AskUserQuestion Bash CronCreate CronDelete CronList Edit EnterPlanMode
		EnterWorktree ExitPlanMode ExitWorktree Glob Grep ListMcpResourcesTool LSP NotebookEdit PowerShell Read ReadMcpResourceTool
		Skill TaskCreate TaskGet TaskList TaskOutput TaskStop TaskUpdate TodoWrite ToolSearch WebFetch WebSearch Write`)},
	{client: "claude-code", historical: true, exactIsNote: true, names: strings.Fields(`Task MultiEdit LS NotebookRead TodoRead BashOutput KillShell SlashCommand`)},
	{client: "gemini-cli", exactIsNote: true, names: strings.Fields(`glob write_todos write_file google_web_search web_fetch replace
		run_shell_command search_file_content grep_search read_many_files read_file list_directory save_memory activate_skill
		delegate_to_agent ask_user exit_plan_mode enter_plan_mode get_internal_docs`)},
	{client: "codex", exactIsNote: true, names: strings.Fields(`shell shell_command apply_patch update_plan view_image`)},
}

// builtinKeys indexes the builtins by comparison key and by skeleton.
type builtinRef struct {
	list *builtinList
	name string
}

// builtinIndex indexes the builtin names by comparison key and by
// skeleton, on first use: computing skeletons loads the confusables
// table, which a command that analyses no tool (a scan) should not pay for
// at start-up.
var builtinIndex = sync.OnceValues(func() (map[string][]builtinRef, map[string][]builtinRef) {
	byKey, bySk := map[string][]builtinRef{}, map[string][]builtinRef{}
	for i := range builtinLists {
		l := &builtinLists[i]
		for _, n := range l.names {
			k := identKey(n)
			byKey[k] = append(byKey[k], builtinRef{l, n})
			sk := mcpunicode.Skeleton(k)
			bySk[sk] = append(bySk[sk], builtinRef{l, n})
		}
	}
	return byKey, bySk
})

// validToolName reports whether name is in the MCP tool-name charset
// (spec 2025-11-25, SEP-986): ^[A-Za-z0-9_.-]{1,128}$. The class is ASCII,
// so code points are bytes.
func validToolName(name string) bool {
	if len(name) < 1 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c == '_' || c == '.' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// nameRules runs T005 and the builtin part of T002 on a tool's name.
func (a *toolAnalysis) nameRules(t *Tool) {
	nv := t.Value.Get("name")
	ptr := t.Pointer + "/name"
	pos := t.Value.Pos
	if nv != nil {
		pos = nv.Pos
	}
	switch {
	case nv == nil || !nv.IsString():
		what := "no name"
		if nv != nil {
			what = "a name that is a JSON " + nv.Kind.String()
		}
		if nv == nil {
			ptr = t.Pointer
		}
		a.add(ruleT005, pos, ptr, fmt.Sprintf("tool %s has %s; clients reject or skip it", t.Pointer, what),
			map[string]any{"kind": "missing-name"}, "missing")
		return
	case !validToolName(t.Name):
		var bad []string
		for _, r := range t.Name {
			if r >= utf8.RuneSelf || !(r == '_' || r == '.' || r == '-' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				bad = tlAppendUnique(bad, fmt.Sprintf("U+%04X", r))
			}
			if len(bad) == 16 {
				break
			}
		}
		n := utf8.RuneCountInString(t.Name)
		why := "characters outside [A-Za-z0-9_.-]"
		switch {
		case n == 0:
			why = "an empty name"
		case len(bad) == 0 && n > 128:
			why = fmt.Sprintf("%d characters (at most 128)", n)
		}
		ev := map[string]any{"kind": "invalid-name", "tool": t.Name, "length": n}
		if len(bad) > 0 {
			ev["code_points"] = bad
		}
		a.add(ruleT005, pos, ptr, fmt.Sprintf("tool name %s has %s", QuoteName(t.Name), why), ev, "charset")
	case len(t.Name) > 64:
		f := a.add(ruleT005, pos, ptr, fmt.Sprintf("tool name %s is %d characters: Anthropic's API rejects tool names over 64", QuoteName(t.Name), len(t.Name)),
			map[string]any{"kind": "over-64", "tool": t.Name, "length": len(t.Name)}, "length")
		f.Severity = reports.SeverityNote
	}
	a.builtinShadow(t, pos, ptr)
}

// builtinShadow reports a name that reads as a client's builtin tool.
func (a *toolAnalysis) builtinShadow(t *Tool, pos jsonPos, ptr string) {
	if t.key == "" {
		return
	}
	type hit struct {
		ref  builtinRef
		kind string
		sev  reports.Severity
	}
	var hits []hit
	seen := map[string]bool{}
	addHit := func(r builtinRef, kind string) {
		if seen[r.list.client+r.name] {
			return
		}
		seen[r.list.client+r.name] = true
		sev := reports.SeverityWarning
		if r.list.exactIsNote && kind != "confusable" && (kind == "exact" || r.list.historical) {
			sev = reports.SeverityNote
		}
		// Claude Code namespaces every MCP tool and names its own in
		// PascalCase: "cron_create" and "grep" follow MCP's naming
		// convention, and "webSearch" and "taskList" the camelCase of
		// JavaScript servers (the builtin's name, its first letter
		// lowered); they do not imitate CronCreate, Grep, WebSearch and
		// TaskList; "Grep" and a look-alike do.
		if r.list.client == "claude-code" && (kind == "separator-insensitive" && strings.ContainsAny(t.Name, "_-") ||
			kind == "case-insensitive" && (t.Name == strings.ToLower(t.Name) || camelOf(t.Name, r.name) && !namesBuiltin(t, r.name))) {
			sev = reports.SeverityNote
		}
		hits = append(hits, hit{r, kind, sev})
	}
	byKey, bySkeleton := builtinIndex()
	for _, r := range byKey[t.key] {
		switch {
		case t.Name == r.name:
			addHit(r, "exact")
		case strings.EqualFold(t.Name, r.name):
			addHit(r, "case-insensitive")
		default:
			addHit(r, "separator-insensitive")
		}
	}
	for _, r := range bySkeleton[t.skeleton] {
		addHit(r, "confusable")
	}
	if len(hits) == 0 {
		return
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].sev.Rank() > hits[j].sev.Rank() })
	var matches []any
	var names []string
	for _, h := range hits {
		matches = append(matches, map[string]any{"client": h.ref.list.client, "builtin": h.ref.name, "match": h.kind})
		names = append(names, fmt.Sprintf("%s's %s (%s)", h.ref.list.client, h.ref.name, h.kind))
	}
	best := hits[0]
	msg := fmt.Sprintf("tool name %s shadows the built-in tool %s", QuoteName(t.Name), strings.Join(names, ", "))
	if best.sev == reports.SeverityNote {
		msg += "; the client keeps its own tool and namespaces or renames the MCP one"
	}
	f := a.add(ruleT002, pos, ptr, msg, map[string]any{"kind": "builtin", "tool": t.Name, "matches": matches}, "builtin")
	f.Severity = best.sev
	if best.kind == "confusable" && !tlIsASCII(t.Name) && !a.uniAt[ruleU006+"\x00"+ptr] {
		a.add(ruleU006, pos, ptr, fmt.Sprintf("tool name %s is confusable with the built-in tool %s", QuoteName(t.Name), best.ref.name),
			map[string]any{"kind": "confusable-name", "tool": t.Name, "skeleton": t.skeleton, "confusable_with": best.ref.name}, "builtin")
	}
}

// namesBuiltin reports whether the tool's description or title names the
// builtin in its own spelling ("The built-in WebSearch tool of Claude
// Code, moved to this server" for webSearch): a tool that claims to be the
// builtin imitates it, whatever convention its name follows.
func namesBuiltin(t *Tool, builtin string) bool {
	for _, k := range []string{"description", "title"} {
		if v := t.Value.Get(k); v.IsString() && tlContainsWord(v.Str, builtin) {
			return true
		}
	}
	return false
}

// camelOf reports whether name is the PascalCase builtin's name with only
// its first letter lowered ("webSearch" of WebSearch): the camelCase
// spelling of the same words.
func camelOf(name, builtin string) bool {
	return len(name) > 1 && len(name) == len(builtin) && name[0] >= 'a' && name[0] <= 'z' && name[0]-'a'+'A' == builtin[0] && name[1:] == builtin[1:]
}

// tlIsASCII reports whether s has no byte of 0x80 or above, reading eight
// bytes at a time: sizeRules asks it of every description.
func tlIsASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// duplicateNames reports two tools of one server with the same name, or
// names that differ only in case, separators or confusable characters:
// each tool against the first earlier tool that is any of those. The key
// is a function of the name and the skeleton of the key, so the first
// earlier tool with the same skeleton is that tool.
func (a *toolAnalysis) duplicateNames() {
	tools := a.rep.Tools
	first := make(map[string]int, len(tools))
	// byName is the first tool of each exact name: a repeated name is
	// judged against its own earlier copy, not against a look-alike that
	// came first ("getWeather", then "get_weather" twice with two
	// definitions is a repeat with another definition, not a look-alike).
	byName := make(map[string]int, len(tools))
	for j := range tools {
		i, seen := first[tools[j].skeleton]
		if !seen {
			first[tools[j].skeleton] = j
		}
		if n, ok := byName[tools[j].Name]; ok {
			i = n
		} else {
			byName[tools[j].Name] = j
		}
		if !seen || tools[j].key == "" {
			continue
		}
		kind := "confusable"
		switch {
		case tools[i].Name == tools[j].Name:
			kind = "duplicate"
		case tools[i].key == tools[j].key:
			kind = "lookalike"
		}
		t := &tools[j]
		ptr := t.Pointer + "/name"
		pos := t.Value.Get("name").Pos
		f := a.add(ruleT002, pos, ptr, fmt.Sprintf("tool name %s %s tool %s of the same server; the client decides which one runs",
			QuoteName(t.Name), map[string]string{"duplicate": "repeats", "lookalike": "looks like", "confusable": "is confusable with"}[kind], QuoteName(tools[i].Name)),
			map[string]any{"kind": kind + "-in-server", "tool": t.Name, "other": tools[i].Name, "other_pointer": tools[i].Pointer}, "dup", tools[i].Pointer)
		if kind == "lookalike" || kind == "duplicate" && sameJSON(tools[i].Value, t.Value) {
			// Two spellings of one name in one server (getWeather beside
			// get_weather, a generated and a hand-written set of tools)
			// are both its own: the server gains nothing by having them
			// confused. A name repeated with the same definition is a
			// listing bug, not a choice: whichever copy the client keeps
			// is the same tool. A name repeated with another definition
			// (the client keeps one, maybe not the one reviewed) and a
			// confusable character (a look-alike by design) stay warnings.
			f.Severity = reports.SeverityNote
		}
		if kind == "confusable" && !tlIsASCII(t.Name) && !a.uniAt[ruleU006+"\x00"+ptr] {
			a.add(ruleU006, pos, ptr, fmt.Sprintf("tool name %s is confusable with %s", QuoteName(t.Name), QuoteName(tools[i].Name)),
				map[string]any{"kind": "confusable-name", "tool": t.Name, "skeleton": t.skeleton, "confusable_with": tools[i].Name}, "dup", tools[i].Pointer)
		}
	}
}

// sameJSON reports whether two parsed values are the same JSON, member
// order included (two copies of one definition are written alike).
func sameJSON(x, y *jsonc.Value) bool {
	if x == nil || y == nil {
		return x == y
	}
	if x.Kind != y.Kind || x.Str != y.Str || x.Bool != y.Bool || len(x.Elems) != len(y.Elems) || len(x.Members) != len(y.Members) {
		return false
	}
	for i := range x.Elems {
		if !sameJSON(x.Elems[i], y.Elems[i]) {
			return false
		}
	}
	for i := range x.Members {
		if x.Members[i].Key != y.Members[i].Key || !sameJSON(x.Members[i].Value, y.Members[i].Value) {
			return false
		}
	}
	return true
}

func tlServerLabel(r *Report) string {
	if r.Server != "" {
		return QuoteName(r.Server)
	}
	return r.Path
}

// distinctive names are specific enough to count as a reference when they
// appear in prose: six characters or more with a separator or a camel hump
// ("send_message", "listChats"), not "search" or "read".
func tlDistinctive(name string) bool {
	if len(name) < 6 {
		return false
	}
	if strings.ContainsAny(name, "_-.") {
		return true
	}
	for i := 1; i < len(name); i++ {
		if name[i-1] >= 'a' && name[i-1] <= 'z' && name[i] >= 'A' && name[i] <= 'Z' {
			return true
		}
	}
	return false
}

// sizeRules runs T004: descriptions over Claude Code's 2 KB cut and
// whitespace padding.
func (a *toolAnalysis) sizeRules(t *Tool) {
	if d := t.Value.Get("description"); d.IsString() && len(d.Str) > MaxDescription {
		// A string has at least as many bytes as UTF-16 units.
		if n := tlUTF16Len(d.Str); n > MaxDescription {
			a.overLong(t, d.Str, n)
		}
	}
	reported := 0
	for _, tx := range a.texts {
		if tx.key || reported >= 4 {
			continue
		}
		switch tx.role {
		case roleDescription, roleTitle, roleAnnTitle, roleSchemaText:
		default:
			continue
		}
		if unpadded(tx.text) {
			continue
		}
		laid := tlLayout(tlUnalign(tx.text))
		p := mcpunicode.MeasurePadding(laid)
		if !p.Padded() {
			continue
		}
		reported++
		ev := map[string]any{"kind": "padding", "tool": t.Name, "longest_space_run": p.LongestSpaceRun, "max_blank_lines": p.MaxBlankLines}
		if p.ExoticSpaces > 0 {
			ev["exotic_spaces"] = p.ExoticSpaces
		}
		what := fmt.Sprintf("a run of %d spaces", p.LongestSpaceRun)
		if p.MaxBlankLines >= mcpunicode.PaddingBlankLines {
			what = fmt.Sprintf("%d blank lines in a row", p.MaxBlankLines)
		}
		f := a.add(ruleT004, tx.pos, a.collector.pointer(&tx), fmt.Sprintf("tool %s: %s pushes the rest of the text out of view", QuoteName(t.Name), what), ev, "padding")
		if p.LongestSpaceRun < mcpunicode.PaddingSpaceRun && p.ExoticSpaces == 0 &&
			!strings.ContainsAny(tx.text, "\u0085\u2028\u2029") && !a.signalsAfter(laid[p.BlankLinesOffset:]) {
			// Blank lines between paragraphs that say nothing to the
			// model (no instruction phrase follows them) are sloppy
			// layout: they push text down, and what they push is plain.
			// A run of spaces inside a line has no layout reason and
			// stays a warning, and so do lines broken by NEL, LS or PS,
			// which no editor writes for a gap between paragraphs.
			f.Severity = reports.SeverityNote
		}
	}
}

// signalsAfter reports whether the text a run of blank lines pushes down
// holds an instruction phrase of any weight (the T001 phrase set).
func (a *toolAnalysis) signalsAfter(rest string) bool {
	return len(a.matchPhrases(matchView(rest), "", jsonPos{}, false)) > 0
}

// unpadded reports, for sizeRules, text that is not padded once its
// layout is undone (most text, checked cheaply). Undoing layout only
// removes or shortens runs of spaces and tabs and blanks lines of white
// space, which MeasurePadding counts as blank
// already (but for VT and FF), so text without VT and FF that is not
// padded stays so. ASCII text is not padded when it has no run of
// PaddingSpaceRun spaces and tabs and fewer line breaks than a run of
// PaddingBlankLines blank lines takes.
func unpadded(s string) bool {
	// Whole-string searches (the single-byte ones are vectorised) rather
	// than a switch on every byte: sizeRules asks this of every
	// description and schema text.
	if strings.IndexByte(s, '\v') >= 0 || strings.IndexByte(s, '\f') >= 0 {
		return false
	}
	if !tlIsASCII(s) {
		return !mcpunicode.MeasurePadding(s).Padded()
	}
	if strings.Count(s, "\n")+strings.Count(s, "\r") > mcpunicode.PaddingBlankLines {
		return false
	}
	return !blankRun(s, mcpunicode.PaddingSpaceRun)
}

// blankRun reports whether s has n spaces or tabs in a row. Each window of n
// is read from its end: the first other byte rules out every run starting
// up to it.
func blankRun(s string, n int) bool {
	for i := 0; i+n <= len(s); {
		j := i + n - 1
		for j >= i && (s[j] == ' ' || s[j] == '\t') {
			j--
		}
		if j < i {
			return true
		}
		i = j + 1
	}
	return false
}

// overLong reports a description beyond the cut, and which findings of
// the description only other clients show the model.
func (a *toolAnalysis) overLong(t *Tool, desc string, n int) {
	ptr := t.Pointer + "/description"
	cut := tlUTF16Offset(desc, MaxDescription)
	var beyond []any
	// Only the Unicode findings, added before any tool's rules, carry a
	// string offset; the tool's own rules so far (names, poisoning) add
	// none at its description but T001 and T002.
	for _, k := range a.uniByPtr[ptr] {
		f := &a.findings[k]
		if f.Location.Pointer != ptr || f.Rule == ruleT001 || f.Rule == ruleT002 {
			continue
		}
		if off, ok := f.Evidence["string_offset"].(int); ok && off >= cut {
			beyond = append(beyond, map[string]any{"rule": f.Rule, "id": f.ID, "string_offset": off})
		}
	}
	// The phrases of the whole description (the poisoning rules matched
	// them already) that the part Claude Code keeps does not hold; the
	// kept part is matched only when the whole has a phrase to compare.
	view := a.cur.view(desc)
	whole := a.cur.descSigs
	if !a.cur.haveDescSigs {
		whole = a.matchPhrases(view, ptr, jsonPos{}, false)
	}
	var phr []any
	// Only phrases that are a warning or an error themselves (the
	// description's T001 score reaches the threshold) are worth a warning
	// when they lie beyond the cut: a weak one ("after calling this
	// tool"), or a note's combination, is not. The score is the one T001
	// gives the description: in a long text, weak signals pages apart do
	// not add up (nearScore).
	placed := append([]toolSignal(nil), whole...)
	if len(view) > longText {
		placeSignals(placed, view, 1)
	}
	if score, _ := nearScore(placed); score >= poisonThreshold {
		before := map[string]bool{}
		for _, s := range a.matchPhrases(matchView(desc[:cut]), ptr, jsonPos{}, false) {
			before[s.family+"\x00"+s.match] = true
		}
		for _, s := range whole {
			if s.weight >= 1 && !before[s.family+"\x00"+s.match] {
				phr = append(phr, map[string]any{"rule": ruleT001, "family": s.family, "match": s.match})
			}
		}
	}
	beyond = append(beyond, phr...)
	msg := fmt.Sprintf("tool %s: description is %d characters; Claude Code cuts it at %d, other clients show the model all of it", QuoteName(t.Name), n, MaxDescription)
	if len(beyond) > 0 {
		msg += fmt.Sprintf("; %d findings lie beyond the cut, invisible in Claude Code and visible elsewhere", len(beyond))
	}
	ev := map[string]any{"kind": "over-2kb", "tool": t.Name, "length": n, "limit": MaxDescription, "cut_offset": cut}
	if len(beyond) > 0 {
		ev["beyond_cut"] = beyond
	}
	v := t.Value.Get("description")
	f := a.add(ruleT004, v.Pos, ptr, msg, ev, "length")
	if len(beyond) == 0 {
		// A long description with nothing beyond the cut only loses its
		// tail in Claude Code: worth knowing, not a warning.
		f.Severity = reports.SeverityNote
	}
}

// utf16Len is JavaScript's string length.
func tlUTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
		if utf16.RuneLen(r) < 0 {
			n++
		}
	}
	return n
}

// utf16Offset returns the byte offset of s where n UTF-16 units end.
func tlUTF16Offset(s string, n int) int {
	units := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if units+w > n {
			return i
		}
		units += w
	}
	return len(s)
}

// dedent removes the indentation common to the lines after the first (a
// docstring's) and blanks whitespace-only lines, so that indented prose is
// not taken for padding. Trailing whitespace hides nothing and is dropped.
// maxIndent is the deepest line indentation read as layout (a nested JSON
// or code example in a description) rather than padding: a line indented
// further starts out of view.
const maxIndent = 64

// maxAlignColumn is the last column at which aligned text counts as a
// table: further right, even aligned text starts out of view.
const maxAlignColumn = 120

// tlUnalign collapses the runs of spaces that align a column of a table
// ("- offset: 0      → All new lines" over "- offset: -20    → Last 20"):
// a run ending at the same column as a run on another line, or one column
// beside it, within maxAlignColumn, lays text out rather than hiding it.
// Columns are those of the text as written, indentation included: it runs
// before tlLayout, so that comments aligned across lines of different
// indentation (a code example's "{   // loop until dry" under "(...)   //
// barrier") still line up.
func tlUnalign(s string) string {
	if !strings.Contains(s, "\n") || !strings.Contains(s, "  ") {
		return s
	}
	lines := strings.Split(s, "\n")
	type run struct{ line, start, end, col int } // bytes [start,end) of lines[line]; col: the rune column after it
	var runs []run
	ends := map[int]int{}
	for li, l := range lines {
		col := 0
		for i := 0; i < len(l); {
			if l[i] == ' ' && i+1 < len(l) && l[i+1] == ' ' {
				j := i
				for j < len(l) && l[j] == ' ' {
					j++
				}
				col += j - i
				if j < len(l) && i > 0 && col <= maxAlignColumn {
					runs = append(runs, run{li, i, j, col})
					ends[col]++
				}
				i = j
				continue
			}
			_, size := utf8.DecodeRuneInString(l[i:])
			i += size
			col++
		}
	}
	// Collapse from the last run of each line backwards, so byte offsets of
	// earlier runs stay valid.
	for k := len(runs) - 1; k >= 0; k-- {
		r := runs[k]
		// A hand-aligned column is often one off on a row (a quote or an
		// arrow counted twice): a run that ends next to a column two runs
		// end at aligns that column too.
		if ends[r.col]+ends[r.col-1]+ends[r.col+1] >= 2 {
			l := lines[r.line]
			lines[r.line] = l[:r.start] + " " + l[r.end:]
		}
	}
	return strings.Join(lines, "\n")
}

// tlLayout undoes what lays text out rather than hiding it, for the
// padding check: each line's indentation up to maxIndent (a docstring, a
// nested JSON example) and trailing white space; a line of white space
// becomes empty. A line indented further keeps its indentation: it starts
// out of view.
func tlLayout(s string) string {
	if !strings.Contains(s, "\n") {
		return strings.TrimRight(s, " \t")
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t")
		if ind := len(l) - len(strings.TrimLeft(l, " \t")); ind <= maxIndent {
			l = l[ind:]
		}
		lines[i] = l
	}
	// A gutter mark that starts consecutive lines ("⋮        {" over "⋮
	// \"Subnets\": ["; "│", ">", "|") is a margin: the indentation after
	// it lays the example out as the indentation before it would.
	for i, l := range lines {
		g := gutter(l)
		if g == "" || !(i > 0 && gutter(lines[i-1]) == g || i+1 < len(lines) && gutter(lines[i+1]) == g) {
			continue
		}
		rest := l[len(g):]
		if ind := len(rest) - len(strings.TrimLeft(rest, " \t")); ind <= maxIndent {
			lines[i] = g + " " + rest[ind:]
		}
	}
	return strings.Join(lines, "\n")
}

// gutter returns the mark a line opens with, a punctuation or symbol
// character followed by a space or tab, or "".
func gutter(l string) string {
	r, n := utf8.DecodeRuneInString(l)
	if n == 0 || n >= len(l) || l[n] != ' ' && l[n] != '\t' || !unicode.IsPunct(r) && !unicode.IsSymbol(r) {
		return ""
	}
	return l[:n]
}
