package toolcheck

import (
	"fmt"
	"sort"

	"github.com/mcpguard/mcpguard/reports"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// Name twins (MCPG-T005 at error): a tool whose name reads as another
// tool's — the same after NFKC, case folding and UTS #39 confusable
// skeletons (mcpunicode.NameKeys) but spelled otherwise — of the same
// server or of another server the user pinned. A model, and the person
// approving its calls, cannot tell "read_file" from "reаd_file" (a
// Cyrillic а), "ｒｅａｄ_file" or "Read_File"; the client calls whichever
// it picks. The proxy withholds every twin (enforce mode).

// PinnedTools are the tool names of other servers, by server, that a
// listing's names must not imitate.
type PinnedTools map[string][]string

// nameKeyed is one name under both of its keys.
type nameKeyed struct {
	server, name    string
	folded, shaped  string
	tool            int // index in the listing; -1 for another's
	otherServerTool bool
}

func keyed(server, name string, tool int) nameKeyed {
	f, s := mcpunicode.NameKeys(name)
	return nameKeyed{server: server, name: name, folded: f, shaped: s, tool: tool, otherServerTool: tool < 0}
}

// NameTwins returns one MCPG-T005 finding, at error, per tool of the
// listing whose name reads as the name of another tool of the listing, of
// own (the same server's names seen elsewhere: earlier pages of a
// paginated listing, its pinned tools), or of pinned (the server's own
// entry there is skipped), naming the twin. Identical names are not
// twins: a repeated name is T002's, and two servers may both have a
// "search" (clients namespace them).
func NameTwins(rep *Report, pinned PinnedTools, own []string) []reports.Finding {
	var names []nameKeyed
	// The listed names' keys, made by the analysis; an own name that is
	// also listed (a listing that matches its pin) reuses them.
	listedAt := make(map[string]int, len(rep.Tools))
	for i, t := range rep.Tools {
		if t.Name == "" {
			continue
		}
		k := nameKeyed{server: rep.Server, name: t.Name, folded: t.folded, shaped: t.shaped, tool: i}
		if !t.named {
			k = keyed(rep.Server, t.Name, i)
		}
		if _, ok := listedAt[t.Name]; !ok {
			listedAt[t.Name] = len(names)
		}
		names = append(names, k)
	}
	if len(names) == 0 {
		return nil
	}
	listed := len(names)
	for _, n := range own {
		var k nameKeyed
		if j, ok := listedAt[n]; ok {
			k = nameKeyed{server: rep.Server, name: n, folded: names[j].folded, shaped: names[j].shaped, tool: -1}
		} else {
			k = keyed(rep.Server, n, -1)
		}
		k.otherServerTool = false
		names = append(names, k)
	}
	servers := make([]string, 0, len(pinned))
	for s := range pinned {
		if s != rep.Server {
			servers = append(servers, s)
		}
	}
	sort.Strings(servers)
	for _, s := range servers {
		for _, n := range pinned[s] {
			names = append(names, keyed(s, n, -1))
		}
	}
	byFolded, byShaped := map[string][]int{}, map[string][]int{}
	for i, n := range names {
		byFolded[n.folded] = append(byFolded[n.folded], i)
		byShaped[n.shaped] = append(byShaped[n.shaped], i)
	}
	var out []reports.Finding
	for i, n := range names[:listed] {
		twin := -1
		for _, group := range [2][]int{byFolded[n.folded], byShaped[n.shaped]} {
			for _, j := range group {
				if j != i && names[j].name != n.name && (twin < 0 || j < twin) {
					twin = j
				}
			}
		}
		if twin < 0 {
			continue
		}
		tw := names[twin]
		t := rep.Tools[n.tool]
		where, ev := "of the same server", map[string]any{"kind": "twin", "tool": n.name, "twin": tw.name}
		switch {
		case tw.otherServerTool:
			where = "of the server " + QuoteName(tw.server)
			ev["twin_server"] = tw.server
		case tw.tool < 0:
			where = "of the same server (an earlier page or its pin)"
		default:
			ev["twin_pointer"] = rep.Tools[tw.tool].Pointer
		}
		loc := t.Location
		if nv := t.Value.Get("name"); nv != nil {
			loc = reports.Location{Path: rep.Path, Pointer: t.Pointer + "/name", Line: nv.Pos.Line, Column: nv.Pos.Col}
		}
		f := reports.NewFinding(ruleT005, loc, rep.serverID,
			fmt.Sprintf("tool name %s reads as tool %s %s (case, compatibility forms or look-alike characters); a model cannot tell them apart",
				QuoteName(n.name), QuoteName(tw.name), where), "twin", tw.server, tw.name)
		f.Severity = reports.SeverityError
		f.Evidence = ev
		out = append(out, f)
	}
	return out
}
