package daemon

import (
	"time"

	"os"
	"path/filepath"
	"testing"

	"github.com/fsnotify/fsnotify"
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
		if p.dirs[d] == nil {
			t.Errorf("%s not watched; dirs %v", d, p.dirs)
		}
	}
	if p.dirs[filepath.Join(home, ".cursor")] != nil {
		t.Error("a missing folder is watched")
	}
	relevant := []string{
		filepath.Join(home, ".cursor"), // creating the folder brings mcp.json closer
		filepath.Join(home, ".cursor", "mcp.json"),
		filepath.Join(home, ".claude.json"),
		real, // edited through its symlink
		filepath.Join(home, ".continue", "mcpServers", "new.yaml"), // a file in a listed folder
		filepath.Join(home, ".gemini"),                             // a folder above a watched file replaced
		filepath.Join(home, "dotfiles"),                            // ... above a symlink's target
		filepath.Dir(home),                                         // ... two levels above
	}
	for _, r := range relevant {
		if !p.relevant(r) {
			t.Errorf("event on %s judged irrelevant", r)
		}
	}
	for _, r := range []string{filepath.Join(home, ".bash_history"), filepath.Join(home, "dotfiles", "other"), filepath.Join(home, ".gemini", "x.json"),
		filepath.Join(home, ".gem"), home + ".bak", filepath.Join(home, ".claude.json", "x")} {
		if p.relevant(r) {
			t.Errorf("event on %s judged relevant", r)
		}
	}
}

// TestWatchSetRecreatedDirectory: a watched directory removed and created
// again between two scans has the same path but no watch any more; the
// next apply must watch the new directory. (Seen under CI load: the scan
// after the removal ran before rmdir, the next one after mkdir.)
func TestWatchSetRecreatedDirectory(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".cursor")
	file := filepath.Join(dir, "mcp.json")
	write(t, file, "{}")
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	set := newWatchSet(w)
	set.apply(planWatches(map[string]bool{file: false}, nil))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	write(t, file, "{}")
	// As in the daemon: a scan may apply before the removal's events are
	// read; the loop then hands each event to observe, which makes the
	// next scan's apply watch the new directory.
	plan := planWatches(map[string]bool{file: false}, nil)
	set.apply(plan)
	drain(w, set)
	set.apply(plan)
	if set.current[dir] == nil {
		t.Fatal("the recreated directory is not watched")
	}
	write(t, file, `{"mcpServers": {}}`)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-w.Events:
			if filepath.Clean(ev.Name) == file {
				return
			}
		case err := <-w.Errors:
			t.Fatal(err)
		case <-deadline:
			t.Fatal("a write in the recreated directory was never seen")
		}
	}
}

func drain(w *fsnotify.Watcher, set *watchSet) {
	for {
		select {
		case ev := <-w.Events:
			set.observe(ev)
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}
