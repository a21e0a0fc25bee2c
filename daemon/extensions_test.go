package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRunWatchesExtensions: installing a Claude Desktop extension (its
// unpacked folder, then its settings), switching it off and removing it
// are each seen as they happen, with the extension in the report.
func TestRunWatchesExtensions(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "Library", "Application Support", "Claude")
	// Claude Desktop is installed, no extension yet.
	write(t, filepath.Join(data, "claude_desktop_config.json"), `{"mcpServers": {}}`)
	c, stop := runInProcess(t, Options{Home: home, GOOS: "darwin"})
	defer stop()
	waitEvents(t, c, 0, "daemon-start", "")
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	id := "local.mcpb.acme.weather"
	ext := filepath.Join(data, "Claude Extensions", id)
	write(t, filepath.Join(data, "Claude Extensions Settings", id+".json"), `{"isEnabled": true}`)
	write(t, filepath.Join(ext, "manifest.json"), `{"manifest_version": "0.3", "name": "weather", "version": "1.0.0",
  "server": {"type": "node", "entry_point": "server/index.js", "mcp_config": {"command": "node", "args": ["${__dirname}/server/index.js"]}}}`)
	waitEvents(t, c, st.EventSeq, "server-added", id)
	rep, err := c.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range rep.Servers {
		if s.Name == id && s.Scope == "extension" && s.Status == "active" && s.Args[0] == filepath.Join(ext, "server", "index.js") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the report has no active extension %s: %+v", id, rep.Servers)
	}

	st, _ = c.Status(context.Background())
	write(t, filepath.Join(data, "Claude Extensions Settings", id+".json"), `{"isEnabled": false}`)
	waitEvents(t, c, st.EventSeq, "status-changed", id)

	st, _ = c.Status(context.Background())
	if err := os.RemoveAll(ext); err != nil {
		t.Fatal(err)
	}
	waitEvents(t, c, st.EventSeq, "server-removed", id)
}
