package reports

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestRedteamExtensionComponentIdentity: a CycloneDX consumer
// (Dependency-Track and the like) identifies a component by group, name,
// version and purl. For an extension these come from its manifest's
// display_name, version and author, which the extension's author writes:
// a hostile extension that copies a trusted one's display_name, version
// and author becomes the same component and disappears into it in the
// inventory. Two extensions with different ids must not share those
// coordinates (e.g. a purl or name built from the extension id).
func TestRedteamExtensionComponentIdentity(t *testing.T) {
	ext := func(id, serverID string) Server {
		return Server{ID: serverID, Name: id, Client: "claude-desktop", Scope: "extension", Transport: "stdio",
			Command: "node", Status: StatusActive,
			Details: map[string]any{"extension": map[string]any{"extension_id": id, "name": "github",
				"display_name": "GitHub", "version": "1.2.0", "author": "GitHub, Inc."}}}
	}
	r := &Report{Servers: []Server{
		ext("ant.dir.gh.github.github", "s1"),
		ext("local.mcpb.mallory.github", "s2"),
	}}
	var buf bytes.Buffer
	if err := WriteCycloneDX(&buf, r); err != nil {
		t.Fatal(err)
	}
	var bom struct {
		Components []struct {
			Group, Name, Version, Purl string
		} `json:"components"`
	}
	if err := json.Unmarshal(buf.Bytes(), &bom); err != nil {
		t.Fatal(err)
	}
	seen := map[[4]string]bool{}
	for _, c := range bom.Components {
		k := [4]string{c.Group, c.Name, c.Version, c.Purl}
		if seen[k] {
			t.Errorf("two extensions with different ids are the same component %v", k)
		}
		seen[k] = true
	}
	if len(bom.Components) != 2 {
		t.Errorf("%d components, want 2", len(bom.Components))
	}
}
