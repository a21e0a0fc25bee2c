package daemon

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlanWatches: existing folders are watched themselves, missing ones
// through their nearest existing ancestor, symlinks also where they point.
func TestPlanWatches(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude.json"), "{}")
	real := filepath.Join(home, "dotfiles", "mcp.json")
	write(t, real, "{}")
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(home, ".gemini", "settings.json")); err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{
		filepath.Join(home, ".claude.json"):                    false,
		filepath.Join(home, ".cursor", "mcp.json"):             false, // ~/.cursor does not exist yet
		filepath.Join(home, ".gemini", "settings.json"):        false,
		filepath.Join(home, ".continue", "mcpServers"):         true,
		filepath.Join(home, ".gemini", "extensions", "x", "a"): false,
	}
	p := planWatches(asked, nil)
	for _, d := range []string{home, filepath.Join(home, ".gemini"), filepath.Join(home, "dotfiles")} {
		if !p.dirs[d] {
			t.Errorf("%s not watched; dirs %v", d, p.dirs)
		}
	}
	if p.dirs[filepath.Join(home, ".cursor")] {
		t.Error("a missing folder is watched")
	}
	relevant := []string{
		filepath.Join(home, ".cursor"), // creating the folder brings mcp.json closer
		filepath.Join(home, ".cursor", "mcp.json"),
		filepath.Join(home, ".claude.json"),
		real, // edited through its symlink
		filepath.Join(home, ".continue", "mcpServers", "new.yaml"), // a file in a listed folder
		filepath.Join(home, ".gemini"),                             // a folder above a watched file replaced
	}
	for _, r := range relevant {
		if !p.relevant(r) {
			t.Errorf("event on %s judged irrelevant", r)
		}
	}
	for _, r := range []string{filepath.Join(home, ".bash_history"), filepath.Join(home, "dotfiles", "other"), filepath.Join(home, ".gemini", "x.json")} {
		if p.relevant(r) {
			t.Errorf("event on %s judged relevant", r)
		}
	}
}
