package toolcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
)

// refCompareTools is Compare as it was: every tool against every tool
// of every other report, and every distinctive name against every text.
// It reads the texts' match views, which the analysis no longer keeps:
// refTexts rebuilds them as poisoning computed them.
func refCompareTools(lists []*Report) []reports.Finding {
	var out []reports.Finding
	seen := map[string]bool{}
	emit := func(fs ...reports.Finding) {
		for _, f := range fs {
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
	texts := map[*Tool][]refToolText{}
	textsOf := func(t *Tool) []refToolText {
		if tx, ok := texts[t]; ok {
			return tx
		}
		tx := refTexts(t)
		texts[t] = tx
		return tx
	}
	for j, rj := range lists {
		for i := 0; i < j; i++ {
			ri := lists[i]
			if server(ri) == server(rj) {
				continue
			}
			own, tails := map[string]bool{}, map[string]bool{}
			for _, t := range rj.Tools {
				own[strings.ToLower(t.Name)] = true
				addNameTails(tails, t.Name)
			}
			ownI, tailsI := map[string]bool{}, map[string]bool{}
			for _, t := range ri.Tools {
				ownI[strings.ToLower(t.Name)] = true
				addNameTails(tailsI, t.Name)
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
					f := reports.NewFinding(ruleT002, loc, rj.serverID, fmt.Sprintf("tool name %s of server %s %s tool %s of server %s; a client that does not namespace tools by server decides which one runs",
						QuoteName(t.Name), tlServerLabel(rj), map[string]string{"cross-server-duplicate": "is also", "cross-server-lookalike": "looks like",
							"cross-server-confusable": "is confusable with"}[kind], QuoteName(o.Name), tlServerLabel(ri)), kind, ri.Path, o.Pointer)
					f.Evidence = map[string]any{"kind": kind, "tool": t.Name, "other_tool": o.Name, "other_server": ri.Server, "other_path": ri.Path}
					if kind != "cross-server-confusable" {
						f.Severity = reports.SeverityNote
					}
					emit(f)
				}
				emit(refReferences(rj, t, textsOf(t), ri, own, tails)...)
			}
			for ti := range ri.Tools {
				t := &ri.Tools[ti]
				emit(refReferences(ri, t, textsOf(t), rj, ownI, tailsI)...)
			}
		}
	}
	sortToolFindings(out)
	return out
}

// refToolText is a text with its pointer as a string.
type refToolText struct {
	toolText
	ptr string
}

// refTexts returns a tool's texts with the views poisoning gave them.
func refTexts(t *Tool) []refToolText {
	var c textCollector
	var texts []refToolText
	for _, tx := range c.collectTexts(t) {
		texts = append(texts, refToolText{toolText: tx, ptr: c.pointer(&tx)})
	}
	for i := range texts {
		tx := &texts[i]
		if tx.key || tx.role == roleName {
			tx.view = strings.Join(refSplitIdent(tx.text), " ")
			continue
		}
		tx.view = refMatchView(tx.text)
	}
	return texts
}

func refReferences(r *Report, t *Tool, texts []refToolText, other *Report, own, tails map[string]bool) []reports.Finding {
	var out []reports.Finding
	choices := ownChoices(t)
	for _, o := range other.Tools {
		low := strings.ToLower(o.Name)
		if !tlDistinctive(o.Name) || own[low] || choices[low] {
			continue
		}
		var views []refText
		for _, tx := range texts {
			if !tx.key && tx.role != roleName && tx.view != "" {
				views = append(views, refText{view: tx.view})
			}
		}
		if inputValueIn(views, low, ownInputs(t)) {
			continue
		}
		for _, tx := range texts {
			if tx.key || tx.role == roleName || tx.view == "" || !refNamed(tx.view, low, other) {
				continue
			}
			loc := reports.Location{Path: r.Path, Pointer: tx.ptr, Line: tx.pos.Line, Column: tx.pos.Col}
			f := reports.NewFinding(ruleT002, loc, r.serverID, fmt.Sprintf("tool %s of server %s names tool %s of server %s: a cross-server reference (tool shadowing)",
				QuoteName(t.Name), tlServerLabel(r), QuoteName(o.Name), tlServerLabel(other)), "cross-server-reference", other.Path, o.Name)
			f.Evidence = map[string]any{"kind": "cross-server-reference", "tool": t.Name, "other_tool": o.Name, "other_server": other.Server, "other_path": other.Path}
			if !directsAbout(tx.view, low) || tails[low] || r.ownName(identKey(low)) {
				f.Severity = reports.SeverityNote
			}
			out = append(out, f)
			break
		}
	}
	return out
}

// refNamed is tlContainsWord but for an occurrence qualified by a word
// other than the server's own ("s3tables:listtables").
func refNamed(view, low string, other *Report) bool {
	label := other.Server
	if label == "" {
		label = other.Path
	}
	label = strings.ToLower(label)
	words := strings.FieldsFunc(label, func(r rune) bool { return r < 0x80 && !tlWordByte(byte(r)) })
	for i := 0; i < len(view); i++ {
		k := strings.Index(view[i:], low)
		if k < 0 {
			return false
		}
		k += i
		i = k
		// The bytes tlContainsWord reads around this occurrence.
		if !tlContainsWord(view[max(0, k-2):min(len(view), k+len(low)+2)], low) {
			continue
		}
		if k >= 2 && view[k-1] == ':' && tlWordByte(view[k-2]) && tlWordByte(low[0]) {
			q := k - 1
			for q > 0 && tlWordByte(view[q-1]) {
				q--
			}
			if qual := view[q : k-1]; qual != label && !slices.Contains(words, qual) {
				continue
			}
		}
		return true
	}
	return false
}
