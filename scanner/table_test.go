package scanner

import (
	"path"
	"strings"
	"testing"
)

// TestLocationsTable checks the lists the scan walks: every entry names a
// client and a handler, a clean relative slash path with well-formed globs,
// no place twice, and every client the scan supports appears.
func TestLocationsTable(t *testing.T) {
	clients := map[string]bool{ClientClaudeCode: true} // Claude Code's files are read by its resolution, not these lists
	check := func(kind string, locs []location) {
		seen := map[string]bool{}
		for _, l := range locs {
			key := l.rel + ":" + l.client
			if seen[key] {
				t.Errorf("%s: duplicate location %s", kind, key)
			}
			seen[key] = true
			clients[l.client] = true
			if l.client == "" || l.handler == nil {
				t.Errorf("%s: bad location %+v", kind, l)
			}
			if l.rel == "" || path.IsAbs(l.rel) || path.Clean(l.rel) != l.rel || strings.Contains(l.rel, `\`) {
				t.Errorf("%s: location path %q is not a clean relative slash path", kind, l.rel)
			}
			for _, elem := range strings.Split(l.rel, "/") {
				if _, err := path.Match(elem, "x"); err != nil {
					t.Errorf("%s: location path %q has a malformed glob", kind, l.rel)
				}
			}
		}
	}
	check("user", userLocations())
	check("project", projectLocations())
	for _, goos := range []string{"darwin", "linux", "windows"} {
		check(goos, systemLocations(goos))
	}
	for _, c := range []string{ClientClaudeCode, ClientClaudeDesktop, ClientCursor, ClientVSCode, ClientWindsurf, ClientGemini,
		ClientAntigravity, ClientCodex, ClientZed, ClientCline, ClientRoo, ClientKilo, ClientContinue, ClientJunie, ClientKiro,
		ClientCopilotCLI, ClientOpenCode} {
		if !clients[c] {
			t.Errorf("client %s has no location in the lists", c)
		}
	}
}
