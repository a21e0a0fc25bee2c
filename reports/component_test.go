package reports_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
)

func extensionReport(host, user, dir string) *reports.Report {
	return &reports.Report{
		Schema: reports.Schema, GeneratedAt: "2026-12-01T00:00:00Z",
		Host: reports.Host{Hostname: host, OS: "darwin", User: user},
		Servers: []reports.Server{{
			ID: "s-" + host, Name: "local.mcpb.acme.weather", Client: "claude-desktop", Scope: "extension", Transport: "stdio",
			Command: "node", Args: []string{dir + "/server/index.js"}, Status: reports.StatusActive,
			Decision: reports.Decision{Allowed: true, Reasons: []string{"ALLOWED"}},
			Details:  map[string]any{"extension": map[string]any{"extension_id": "local.mcpb.acme.weather", "display_name": "Acme Weather", "version": "1.2.0", "author": "Acme Corp"}},
		}, {
			ID: "c-" + host, Name: "docs", Client: "cursor", Scope: "user", Transport: "stdio", Command: "uvx", Args: []string{"docs==1.0"},
			Status: reports.StatusActive, Decision: reports.Decision{Allowed: true, Reasons: []string{"ALLOWED"}},
		}},
	}
}

// TestExtensionComponent: an extension is a component of its own type in
// the servers CSV, the CycloneDX BOM and the fleet's distinct servers
// (one entry per extension id and version, wherever each user unpacked it).
func TestExtensionComponent(t *testing.T) {
	r := extensionReport("mac1", "ann", "/Users/ann/Library/Application Support/Claude/Claude Extensions/local.mcpb.acme.weather")
	var csv bytes.Buffer
	if err := reports.WriteServersCSV(&csv, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\r\n")
	if !strings.HasSuffix(lines[0], ",component,version") || !strings.HasSuffix(lines[1], ",claude-desktop-extension,1.2.0") || !strings.HasSuffix(lines[2], ",mcp-server,") {
		t.Errorf("servers CSV:\n%s", csv.String())
	}
	var bom bytes.Buffer
	if err := reports.WriteCycloneDX(&bom, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components []struct {
			Type, Name, Version, Group, Purl string
			Properties                       []struct{ Name, Value string }
		}
	}
	if err := json.Unmarshal(bom.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Components[0]
	// Identified by the extension id, not by the author-written display
	// name and author (kept as properties).
	if c.Name != "local.mcpb.acme.weather" || c.Version != "1.2.0" || c.Group != "" || c.Purl != "pkg:generic/local.mcpb.acme.weather@1.2.0" || c.Type != "application" {
		t.Errorf("component = %+v", c)
	}
	typed := false
	for _, p := range c.Properties {
		typed = typed || p.Name == "mcpguard:component-type" && p.Value == "claude-desktop-extension"
	}
	if !typed {
		t.Errorf("no component-type property: %+v", c.Properties)
	}

	m := reports.NewMerger(reports.MergeOptions{})
	m.Add("a.json", r)
	m.Add("b.json", extensionReport("mac2", "bob", "/Users/bob/Library/Application Support/Claude/Claude Extensions/local.mcpb.acme.weather"))
	f := m.Fleet()
	if f.Summary.Extensions != 2 {
		t.Errorf("summary.extensions = %d", f.Summary.Extensions)
	}
	var text bytes.Buffer
	if err := reports.RenderFleet(&text, reports.FormatText, f, reports.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "distinct, 2 Claude Desktop extensions;") || !strings.Contains(text.String(), "extension local.mcpb.acme.weather@1.2.0") {
		t.Errorf("fleet text:\n%s", text.String())
	}
	var ext []reports.DistinctEntry
	for _, d := range f.Distinct {
		if d.Component == reports.ComponentExtension {
			ext = append(ext, d)
		}
	}
	if len(ext) != 1 || ext[0].Key != "extension local.mcpb.acme.weather@1.2.0" || ext[0].Hosts != 2 || ext[0].Version != "1.2.0" {
		t.Errorf("distinct extensions = %+v", ext)
	}
}
