package scanner

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/policy"
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

var builtinByKey, builtinBySkeleton = func() (map[string][]builtinRef, map[string][]builtinRef) {
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
}()

// validToolName is the MCP tool-name charset (spec 2025-11-25, SEP-986).
var validToolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// nameRules runs T005 and the builtin part of T002 on a tool's name.
func (a *toolAnalysis) nameRules(t *ToolInfo) {
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
	case !validToolName.MatchString(t.Name):
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
		a.add(ruleT005, pos, ptr, fmt.Sprintf("tool name %s has %s", tlName(t.Name), why), ev, "charset")
	case len(t.Name) > 64:
		f := a.add(ruleT005, pos, ptr, fmt.Sprintf("tool name %s is %d characters: Anthropic's API rejects tool names over 64", tlName(t.Name), len(t.Name)),
			map[string]any{"kind": "over-64", "tool": t.Name, "length": len(t.Name)}, "length")
		f.Severity = policy.SeverityNote
	}
	a.builtinShadow(t, pos, ptr)
}

// builtinShadow reports a name that reads as a client's builtin tool.
func (a *toolAnalysis) builtinShadow(t *ToolInfo, pos jsonPos, ptr string) {
	if t.key == "" {
		return
	}
	type hit struct {
		ref  builtinRef
		kind string
		sev  policy.Severity
	}
	var hits []hit
	seen := map[string]bool{}
	addHit := func(r builtinRef, kind string) {
		if seen[r.list.client+r.name] {
			return
		}
		seen[r.list.client+r.name] = true
		sev := policy.SeverityWarning
		if r.list.exactIsNote && kind != "confusable" && (kind == "exact" || r.list.historical) {
			sev = policy.SeverityNote
		}
		hits = append(hits, hit{r, kind, sev})
	}
	for _, r := range builtinByKey[t.key] {
		switch {
		case t.Name == r.name:
			addHit(r, "exact")
		case strings.EqualFold(t.Name, r.name):
			addHit(r, "case-insensitive")
		default:
			addHit(r, "separator-insensitive")
		}
	}
	for _, r := range builtinBySkeleton[t.skeleton] {
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
	msg := fmt.Sprintf("tool name %s shadows the built-in tool %s", tlName(t.Name), strings.Join(names, ", "))
	if best.sev == policy.SeverityNote {
		msg += "; the client keeps its own tool and namespaces or renames the MCP one"
	}
	f := a.add(ruleT002, pos, ptr, msg, map[string]any{"kind": "builtin", "tool": t.Name, "matches": matches}, "builtin")
	f.Severity = best.sev
	if best.kind == "confusable" && !tlIsASCII(t.Name) && !a.uniAt[ruleU006+"\x00"+ptr] {
		a.add(ruleU006, pos, ptr, fmt.Sprintf("tool name %s is confusable with the built-in tool %s", tlName(t.Name), best.ref.name),
			map[string]any{"kind": "confusable-name", "tool": t.Name, "skeleton": t.skeleton, "confusable_with": best.ref.name}, "builtin")
	}
}

func tlIsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// duplicateNames reports two tools of one server with the same name, or
// names that differ only in case, separators or confusable characters.
func (a *toolAnalysis) duplicateNames() {
	tools := a.rep.Tools
	for j := range tools {
		for i := 0; i < j; i++ {
			if tools[j].key == "" {
				continue
			}
			kind := ""
			switch {
			case tools[i].Name == tools[j].Name:
				kind = "duplicate"
			case tools[i].key == tools[j].key:
				kind = "lookalike"
			case tools[i].skeleton == tools[j].skeleton:
				kind = "confusable"
			default:
				continue
			}
			t := &tools[j]
			ptr := t.Pointer + "/name"
			pos := t.Value.Get("name").Pos
			a.add(ruleT002, pos, ptr, fmt.Sprintf("tool name %s %s tool %s of the same server; the client decides which one runs",
				tlName(t.Name), map[string]string{"duplicate": "repeats", "lookalike": "looks like", "confusable": "is confusable with"}[kind], tlName(tools[i].Name)),
				map[string]any{"kind": kind + "-in-server", "tool": t.Name, "other": tools[i].Name, "other_pointer": tools[i].Pointer}, "dup", tools[i].Pointer)
			if kind == "confusable" && !tlIsASCII(t.Name) && !a.uniAt[ruleU006+"\x00"+ptr] {
				a.add(ruleU006, pos, ptr, fmt.Sprintf("tool name %s is confusable with %s", tlName(t.Name), tlName(tools[i].Name)),
					map[string]any{"kind": "confusable-name", "tool": t.Name, "skeleton": t.skeleton, "confusable_with": tools[i].Name}, "dup", tools[i].Pointer)
			}
			break
		}
	}
}

// CompareTools reports what only several servers' tool lists show
// together (MCPG-T002): the same or a look-alike tool name on two servers
// (a client that offers both decides which one runs), and a description
// that names another server's tool. Reports with the same Server name (or,
// without names, the same Path) are one server. Findings are located in
// the later report.
func CompareTools(reports []*ToolReport) []policy.Finding {
	var out []policy.Finding
	seen := map[string]bool{}
	emit := func(fs ...policy.Finding) {
		for _, f := range fs {
			// Several files of one server repeat a finding: keep the first.
			k := fmt.Sprint(f.Location.Path, "\x00", f.Location.Pointer, "\x00", f.Evidence["kind"], "\x00", f.Evidence["other_server"], "\x00", f.Evidence["other_tool"])
			if !seen[k] {
				seen[k] = true
				out = append(out, f)
			}
		}
	}
	server := func(r *ToolReport) string {
		if r.Server != "" {
			return r.Server
		}
		return "\x00" + r.Path
	}
	for j, rj := range reports {
		for i := 0; i < j; i++ {
			ri := reports[i]
			if server(ri) == server(rj) {
				continue
			}
			own := map[string]bool{}
			for _, t := range rj.Tools {
				own[strings.ToLower(t.Name)] = true
			}
			ownI := map[string]bool{}
			for _, t := range ri.Tools {
				ownI[strings.ToLower(t.Name)] = true
			}
			for tj := range rj.Tools {
				t := &rj.Tools[tj]
				for ti := range ri.Tools {
					o := &ri.Tools[ti]
					if t.key == "" {
						break
					}
					kind := ""
					switch {
					case t.Name == o.Name:
						kind = "cross-server-duplicate"
					case t.key == o.key:
						kind = "cross-server-lookalike"
					case t.skeleton == o.skeleton:
						kind = "cross-server-confusable"
					default:
						continue
					}
					loc := t.Location
					loc.Pointer = t.Pointer + "/name"
					if nv := t.Value.Get("name"); nv != nil {
						loc.Line, loc.Column = nv.Pos.Line, nv.Pos.Col
					}
					f := policy.NewFinding(ruleT002, loc, rj.serverID, fmt.Sprintf("tool name %s of server %s %s tool %s of server %s; a client with both decides which one runs",
						tlName(t.Name), tlServerLabel(rj), map[string]string{"cross-server-duplicate": "is also", "cross-server-lookalike": "looks like",
							"cross-server-confusable": "is confusable with"}[kind], tlName(o.Name), tlServerLabel(ri)), kind, ri.Path, o.Pointer)
					f.Evidence = map[string]any{"kind": kind, "tool": t.Name, "other_tool": o.Name, "other_server": ri.Server, "other_path": ri.Path}
					emit(f)
				}
				// References to the other server's tools in t's texts, and
				// from the other server's tools to t's server.
				emit(tlReferences(rj, t, ri, own)...)
			}
			for ti := range ri.Tools {
				emit(tlReferences(ri, &ri.Tools[ti], rj, ownI)...)
			}
		}
	}
	sortToolFindings(out)
	return out
}

func tlServerLabel(r *ToolReport) string {
	if r.Server != "" {
		return tlName(r.Server)
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

// references finds texts of tool t (server r) naming a tool of server
// other that r does not have itself.
func tlReferences(r *ToolReport, t *ToolInfo, other *ToolReport, own map[string]bool) []policy.Finding {
	var out []policy.Finding
	for _, o := range other.Tools {
		low := strings.ToLower(o.Name)
		if !tlDistinctive(o.Name) || own[low] {
			continue
		}
		for _, tx := range t.texts {
			if tx.key || tx.role == roleName || tx.view == "" || !tlContainsWord(tx.view, low) {
				continue
			}
			loc := policy.Location{Path: r.Path, Pointer: tx.ptr, Line: tx.pos.Line, Column: tx.pos.Col}
			f := policy.NewFinding(ruleT002, loc, r.serverID, fmt.Sprintf("tool %s of server %s names tool %s of server %s: a cross-server reference (tool shadowing)",
				tlName(t.Name), tlServerLabel(r), tlName(o.Name), tlServerLabel(other)), "cross-server-reference", other.Path, o.Name)
			f.Evidence = map[string]any{"kind": "cross-server-reference", "tool": t.Name, "other_tool": o.Name, "other_server": other.Server, "other_path": other.Path}
			out = append(out, f)
			break
		}
	}
	return out
}

// sizeRules runs T004: descriptions over Claude Code's 2 KB cut and
// whitespace padding.
func (a *toolAnalysis) sizeRules(t *ToolInfo) {
	if d := t.Value.Get("description"); d.IsString() {
		if n := tlUTF16Len(d.Str); n > MaxToolDescription {
			a.overLong(t, d.Str, n)
		}
	}
	reported := 0
	for _, tx := range t.texts {
		if tx.key || reported >= 4 {
			continue
		}
		switch tx.role {
		case roleDescription, roleTitle, roleAnnTitle, roleSchemaText:
		default:
			continue
		}
		p := mcpunicode.MeasurePadding(tlDedent(tx.text))
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
		a.add(ruleT004, tx.pos, tx.ptr, fmt.Sprintf("tool %s: %s pushes the rest of the text out of view", tlName(t.Name), what), ev, "padding")
	}
}

// overLong reports a description beyond the cut, and which findings of
// the description only other clients show the model.
func (a *toolAnalysis) overLong(t *ToolInfo, desc string, n int) {
	ptr := t.Pointer + "/description"
	cut := tlUTF16Offset(desc, MaxToolDescription)
	var beyond []any
	for _, f := range a.findings {
		if f.Location.Pointer != ptr || f.Rule == ruleT001 || f.Rule == ruleT002 {
			continue
		}
		if off, ok := f.Evidence["string_offset"].(int); ok && off >= cut {
			beyond = append(beyond, map[string]any{"rule": f.Rule, "id": f.ID, "string_offset": off})
		}
	}
	before := map[string]bool{}
	for _, s := range matchPhrases(matchView(desc[:cut]), ptr, jsonPos{}, false) {
		before[s.family+"\x00"+s.match] = true
	}
	var phr []any
	for _, s := range matchPhrases(matchView(desc), ptr, jsonPos{}, false) {
		if s.weight >= 1 && !before[s.family+"\x00"+s.match] {
			phr = append(phr, map[string]any{"rule": ruleT001, "family": s.family, "match": s.match})
		}
	}
	beyond = append(beyond, phr...)
	msg := fmt.Sprintf("tool %s: description is %d characters; Claude Code cuts it at %d, other clients show the model all of it", tlName(t.Name), n, MaxToolDescription)
	if len(beyond) > 0 {
		msg += fmt.Sprintf("; %d findings lie beyond the cut, invisible in Claude Code and visible elsewhere", len(beyond))
	}
	ev := map[string]any{"kind": "over-2kb", "tool": t.Name, "length": n, "limit": MaxToolDescription, "cut_offset": cut}
	if len(beyond) > 0 {
		ev["beyond_cut"] = beyond
	}
	v := t.Value.Get("description")
	f := a.add(ruleT004, v.Pos, ptr, msg, ev, "length")
	if len(beyond) == 0 {
		// A long description with nothing beyond the cut only loses its
		// tail in Claude Code: worth knowing, not a warning.
		f.Severity = policy.SeverityNote
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
func tlDedent(s string) string {
	if !strings.Contains(s, "\n") {
		return strings.TrimRight(s, " \t")
	}
	lines := strings.Split(s, "\n")
	common := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || ind < common {
			common = ind
		}
	}
	for i, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
			lines[i] = ""
		case i > 0 && common > 0:
			lines[i] = strings.TrimRight(l[common:], " \t")
		default:
			lines[i] = strings.TrimRight(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}
