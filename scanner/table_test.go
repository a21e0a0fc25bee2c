package scanner

import (
	"path"
	"strings"
	"testing"
)

// TestLocationsTable checks the table's shape: every entry names a known
// client, scope and base, a clean relative slash path, and every client the
// scan supports appears.
func TestLocationsTable(t *testing.T) {
	bases := map[Base]bool{BaseHome: true, BaseClaudeConfig: true, BaseProject: true, BaseManaged: true, BaseRoot: true}
	scopes := map[string]bool{ScopeUser: true, ScopeProject: true, ScopeLocal: true, ScopeManaged: true, ScopePlugin: true, ScopeIDE: true, ScopeSystem: true, ScopeExtension: true}
	seen := map[string]bool{}
	clients := map[string]bool{}
	for _, l := range Locations() {
		key := string(l.Base) + ":" + l.Path + ":" + l.Client + ":" + strings.Join(l.OS, ",")
		if seen[key] {
			t.Errorf("duplicate location %s", key)
		}
		seen[key] = true
		clients[l.Client] = true
		if !bases[l.Base] || !scopes[l.Scope] || l.Client == "" {
			t.Errorf("bad location %+v", l)
		}
		if l.Path == "" || path.IsAbs(l.Path) || path.Clean(l.Path) != l.Path || strings.Contains(l.Path, `\`) {
			t.Errorf("location path %q is not a clean relative slash path", l.Path)
		}
		if _, err := path.Match(path.Base(l.Path), "x"); err != nil {
			t.Errorf("location path %q has a malformed glob", l.Path)
		}
		for _, goos := range l.OS {
			if goos != "darwin" && goos != "linux" && goos != "windows" {
				t.Errorf("location %s: unknown OS %q", l.Path, goos)
			}
		}
	}
	for _, c := range []string{ClientClaudeCode, ClientClaudeDesktop, ClientCursor, ClientVSCode, ClientWindsurf, ClientGemini,
		ClientAntigravity, ClientCodex, ClientZed, ClientCline, ClientRoo, ClientKilo, ClientContinue, ClientJunie, ClientKiro,
		ClientCopilotCLI, ClientOpenCode} {
		if !clients[c] {
			t.Errorf("client %s has no location in the table", c)
		}
	}
}

// TestLocationsAreWhatTheScanWalks: the exported table is built from the
// lists the scan walks, so a location added for scanning is in the table.
func TestLocationsAreWhatTheScanWalks(t *testing.T) {
	in := map[string]bool{}
	for _, l := range Locations() {
		in[string(l.Base)+":"+l.Path] = true
	}
	for _, l := range userLocations() {
		if !in["home:"+l.rel] {
			t.Errorf("user location %s missing from Locations()", l.rel)
		}
	}
	for _, l := range projectLocations() {
		if !in["project:"+l.rel] {
			t.Errorf("project location %s missing from Locations()", l.rel)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, l := range systemLocations(goos) {
			if !in["root:"+l.rel] {
				t.Errorf("%s system location %s missing from Locations()", goos, l.rel)
			}
		}
	}
}
