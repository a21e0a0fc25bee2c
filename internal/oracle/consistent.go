package oracle

import (
	"fmt"
	"slices"
	"strings"
)

// scopeTexts maps the `mcp get` "Scope:" text prefixes to mcpguard scopes
// (docs/claude-code.md §9.2).
var scopeTexts = []struct{ prefix, scope string }{
	{"User config", "user"},
	{"Local config", "local"},
	{"Project config", "project"},
	{"Enterprise config", "managed"},
	{"Managed settings", "managed"},
	{"Dynamic config", "dynamic"},
}

// ScopeOf returns the mcpguard scope of a `mcp get` Scope text, or "".
// Plugin servers (and the IDE server) have the Claude Code scope "dynamic"
// ("Dynamic config (from command line)"), which ScopeOf returns as is.
func ScopeOf(text string) string {
	for _, s := range scopeTexts {
		if strings.HasPrefix(text, s.prefix) {
			return s.scope
		}
	}
	return ""
}

// winnerStatuses are the statuses of a merged winner, the definition the CLI
// reports on; the others (shadowed, suppressed, invalid) never win.
var winnerStatuses = []string{"active", "pending-approval", "disabled", "rejected", "blocked"}

var blockReasons = []string{"MARKETPLACE_BLOCKED", "MARKETPLACE_NOT_ALLOWED", "DENIED_NAME", "DENIED_COMMAND", "DENIED_URL", "NOT_ALLOWLISTED", "EMPTY_ALLOWLIST"}

var suppressReasons = []string{"EXCLUSIVE_MANAGED", "PLUGIN_ONLY", "RESERVED_NAME", "DUPLICATE_ENDPOINT"}

// Consistent checks that the want lines of c agree with its oracle answers,
// using the mapping of docs/claude-code.md §9.5, and returns one message per
// disagreement.
func Consistent(c *Case) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	probs = append(probs, wantShape(c)...)
	a := c.Oracle
	if a == nil {
		return append(probs, "no oracle section")
	}
	for _, n := range c.ServerNames() {
		if _, ok := a.Gets[n]; !ok {
			bad("oracle: no `mcp get %s`", n)
		}
	}
	if a.ListExit != 0 {
		// The CLI refused to run (a broken managed settings document or
		// ~/.claude.json, §2.5). The want lines say what mcpguard reports.
		for n, g := range a.Gets {
			if g.Exit == 0 {
				bad("mcp list exited %d but `mcp get %s` exited 0", a.ListExit, n)
			}
		}
		return probs
	}

	listed := map[string]ListedServer{}
	for _, l := range a.Listed {
		if _, dup := listed[l.Name]; dup {
			bad("mcp list shows %q twice", l.Name)
		}
		listed[l.Name] = l
	}
	winners := map[string]Want{}
	var names []string
	byName := map[string][]Want{}
	for _, w := range c.Want {
		if byName[w.Name] == nil {
			names = append(names, w.Name)
		}
		byName[w.Name] = append(byName[w.Name], w)
	}
	for _, n := range names {
		defs := byName[n]
		var win []Want
		for _, w := range defs {
			if slices.Contains(winnerStatuses, w.Status) {
				win = append(win, w)
			}
		}
		if len(win) > 1 {
			bad("%s: %d definitions claim to be the winner", n, len(win))
			continue
		}
		l, isListed := listed[n]
		g, hasGet := a.Gets[n]
		if len(win) == 0 {
			if isListed {
				bad("%s: listed (%s) but no want line is a winner", n, l.Status)
			}
			if hasGet && g.Exit == 0 {
				bad("%s: mcp get found it (%s, %s) but no want line is a winner", n, g.Scope, g.Status)
			}
			continue
		}
		w := win[0]
		winners[n] = w
		switch w.Status {
		case "active", "pending-approval", "disabled":
			want := map[string]string{"active": ListedActive, "pending-approval": ListedPending, "disabled": ListedDisabled}[w.Status]
			if !isListed {
				bad("%s: want %s %s, but mcp list does not show it", n, w.Scope, w.Status)
			} else if l.Status != want {
				bad("%s: want %s, mcp list shows %s", n, w.Status, l.Status)
			}
		case "rejected", "blocked":
			if isListed {
				bad("%s: want %s, but mcp list shows it (%s)", n, w.Status, l.Status)
			}
		}
		if !hasGet {
			continue
		}
		if w.Status == "blocked" {
			if g.Exit != 1 {
				bad("%s: want blocked, but mcp get exited %d (%s)", n, g.Exit, g.Status)
			}
			continue
		}
		if g.Exit != 0 {
			bad("%s: want %s %s, but mcp get exited %d: %s", n, w.Scope, w.Status, g.Exit, g.Err)
			continue
		}
		if s := ScopeOf(g.Scope); s != w.Scope && (s != "dynamic" || (w.Scope != "plugin" && w.Scope != "ide")) {
			bad("%s: want scope %s, mcp get says %q", n, w.Scope, g.Scope)
		}
		switch w.Status {
		case "pending-approval":
			if g.Status != PendingText {
				bad("%s: want pending-approval, mcp get status %q", n, g.Status)
			}
		case "disabled":
			if g.Status != DisabledText {
				bad("%s: want disabled, mcp get status %q", n, g.Status)
			}
		case "rejected":
			if !strings.HasPrefix(g.Status, RejectedPrefix) {
				bad("%s: want rejected, mcp get status %q", n, g.Status)
			}
		case "active":
			if g.Status == PendingText || g.Status == DisabledText || strings.HasPrefix(g.Status, RejectedPrefix) {
				bad("%s: want active, mcp get status %q", n, g.Status)
			}
		}
	}
	for _, l := range a.Listed {
		if _, ok := winners[l.Name]; !ok {
			bad("%s: listed by mcp list but no want line is its winner", l.Name)
		}
	}
	for n, g := range a.Gets {
		if _, ok := winners[n]; !ok && g.Exit == 0 {
			bad("%s: mcp get found it (%s) but no want line is its winner", n, g.Scope)
		}
	}
	if c.Order != nil {
		var got []string
		for _, l := range a.Listed {
			got = append(got, l.Name)
		}
		if !slices.Equal(got, c.Order) {
			bad("order: want %q, mcp list shows %q", c.Order, got)
		}
	}
	diags := a.Diagnostics()
	for _, f := range c.Findings {
		if f.Name == "" {
			continue
		}
		if !slices.ContainsFunc(diags, func(l string) bool {
			return strings.Contains(l, "["+f.Name+"]") || strings.Contains(l, `"`+f.Name+`"`)
		}) {
			bad("finding %s %s %s: the diagnostics do not mention %q", f.Rule, f.Scope, f.Name, f.Name)
		}
	}
	return probs
}

// wantShape checks the want lines on their own: the reasons that go with
// each status.
func wantShape(c *Case) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	seen := map[[2]string]bool{}
	for _, w := range c.Want {
		k := [2]string{w.Scope, w.Name}
		if seen[k] && w.Scope != "project" && w.Scope != "plugin" && w.Scope != "managed" {
			bad("%s %s: two want lines for one definition", w.Scope, w.Name)
		}
		seen[k] = true
		switch w.Status {
		case "active", "pending-approval", "disabled", "rejected":
			if !slices.Equal(w.Reasons, []string{"ALLOWED"}) {
				bad("%s %s %s: reasons must be ALLOWED, have %v", w.Scope, w.Name, w.Status, w.Reasons)
			}
		case "blocked":
			if len(w.Reasons) == 0 {
				bad("%s %s blocked: no reason", w.Scope, w.Name)
			}
			last := -1
			for _, r := range w.Reasons {
				i := slices.Index(blockReasons, r)
				if i < 0 {
					bad("%s %s blocked: reason %s is not a policy reason", w.Scope, w.Name, r)
				}
				if i >= 0 && i <= last {
					bad("%s %s blocked: reasons repeated or out of order (name, command, URL)", w.Scope, w.Name)
				}
				last = i
			}
		case "suppressed":
			if len(w.Reasons) != 1 || !slices.Contains(suppressReasons, w.Reasons[0]) {
				bad("%s %s suppressed: want one of %v, have %v", w.Scope, w.Name, suppressReasons, w.Reasons)
			}
		}
	}
	return probs
}
