package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"

	"github.com/mcpguard/mcpguard/internal/schematest"
)

func TestLaunchedPackage(t *testing.T) {
	tests := []struct {
		command string
		args    []string
		purl    string // "" means no package
	}{
		{"npx", []string{"-y", "@modelcontextprotocol/server-github@2025.4.8"}, "pkg:npm/%40modelcontextprotocol/server-github@2025.4.8"},
		{"npx", []string{"-y", "@playwright/mcp@latest"}, "pkg:npm/%40playwright/mcp"},
		{"npx.cmd", []string{"--yes", "tavily-mcp@^0.1.2"}, "pkg:npm/tavily-mcp"},
		{"npx", []string{"--package=@acme/tools@1.0.0", "acme-mcp"}, "pkg:npm/%40acme/tools@1.0.0"},
		{"npx", []string{"-p", "left-pad@1.3.0", "-c", "left-pad"}, "pkg:npm/left-pad@1.3.0"},
		{"bunx", []string{"context7-mcp@1.0.6"}, "pkg:npm/context7-mcp@1.0.6"},
		{"uvx", []string{"mcp-server-git==0.6.2"}, "pkg:pypi/mcp-server-git@0.6.2"},
		{"uvx", []string{"--from", "awslabs.aws-documentation-mcp-server@1.1.2", "awslabs.aws-documentation-mcp-server"}, "pkg:pypi/awslabs.aws-documentation-mcp-server@1.1.2"},
		{"uvx", []string{"--python", "3.12", "Mcp_Server_Time"}, "pkg:pypi/mcp-server-time"},
		{"uvx", []string{"mcp-server-fetch[extra]>=1.0"}, "pkg:pypi/mcp-server-fetch"}, // a range: no version
		{"pipx", []string{"run", "--spec", "mcp-server-sqlite==2025.1.0", "mcp-server-sqlite"}, "pkg:pypi/mcp-server-sqlite@2025.1.0"},
		{"docker", []string{"run", "-i", "--rm", "-e", "GITHUB_TOKEN", "ghcr.io/github/github-mcp-server:v0.9.0"}, "pkg:docker/github/github-mcp-server@v0.9.0?repository_url=ghcr.io"},
		{"docker", []string{"run", "--rm", "mcp/postgres@sha256:0123abcd"}, "pkg:docker/mcp/postgres@sha256%3A0123abcd"},
		{"podman", []string{"run", "-v", "/data:/data", "--name", "x", "nginx:latest"}, "pkg:docker/nginx"},
		{"node", []string{"server.js"}, ""},
		{"npx", []string{"./local/server"}, ""},
		{"docker", []string{"ps"}, ""},
	}
	for _, tc := range tests {
		p, ok := launchedPackage(tc.command, tc.args)
		got := ""
		if ok {
			got = p.purl()
		}
		if got != tc.purl {
			t.Errorf("%s %q: purl %q, want %q", tc.command, tc.args, got, tc.purl)
		}
	}
}

// TestCycloneDXSchema validates the BOMs of a hostile report and of a
// fleet against the official CycloneDX 1.6 JSON schema.
func TestCycloneDXSchema(t *testing.T) {
	v, err := schematest.CycloneDX16()
	if err != nil {
		t.Fatal(err)
	}
	if v.Validate([]byte(`{"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [{"type": "application", "name": 1}]}`)) == nil {
		t.Fatal("the schema accepts a component whose name is a number: it does not validate")
	}
	r := hostileReport()
	one := render(t, FormatCycloneDX, r, Options{})
	if err := v.Validate(one); err != nil {
		t.Errorf("one machine's BOM: %v", err)
	}
	m := NewMerger(MergeOptions{Tool: r.Tool})
	m.Add("a.json", r)
	r2 := hostileReport()
	r2.Host.Hostname = "other"
	m.Add("b.json", r2)
	var buf bytes.Buffer
	if err := RenderFleet(&buf, FormatCycloneDX, m.Fleet(), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(buf.Bytes()); err != nil {
		t.Errorf("fleet BOM: %v", err)
	}
	var bom struct {
		Components []struct {
			BOMRef string `json:"bom-ref"`
		} `json:"components"`
		Services []struct {
			BOMRef    string   `json:"bom-ref"`
			Endpoints []string `json:"endpoints"`
		} `json:"services"`
	}
	if err := json.Unmarshal(buf.Bytes(), &bom); err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	for _, c := range bom.Components {
		refs[c.BOMRef] = true
	}
	for _, s := range bom.Services {
		refs[s.BOMRef] = true
		if len(s.Endpoints) != 1 || !strings.HasPrefix(s.Endpoints[0], "https://") {
			t.Errorf("service %s endpoints %v", s.BOMRef, s.Endpoints)
		}
	}
	if want := 2 * len(r.Servers); len(refs) != want {
		t.Errorf("%d distinct bom-refs for %d servers on two hosts", len(refs), want)
	}
	// The reference library reads both BOMs back: the same components,
	// services, package URLs and properties as written.
	for name, doc := range map[string][]byte{"one machine": one, "fleet": buf.Bytes()} {
		var lib cdx.BOM
		if err := cdx.NewBOMDecoder(bytes.NewReader(doc), cdx.BOMFileFormatJSON).Decode(&lib); err != nil {
			t.Fatalf("%s: cyclonedx-go cannot decode it: %v", name, err)
		}
		var ours cdxBOM
		if err := json.Unmarshal(doc, &ours); err != nil {
			t.Fatal(err)
		}
		if lib.SpecVersion != cdx.SpecVersion1_6 || lib.Metadata == nil || lib.Metadata.Tools == nil || lib.Metadata.Tools.Components == nil {
			t.Fatalf("%s: cyclonedx-go reads no 1.6 metadata and tools", name)
		}
		if lib.Components == nil || len(*lib.Components) != len(*ours.Components) || lib.Services == nil || len(*lib.Services) != len(*ours.Services) {
			t.Fatalf("%s: cyclonedx-go reads other components or services", name)
		}
		for i, c := range *lib.Components {
			o := (*ours.Components)[i]
			if c.BOMRef != o.BOMRef || string(c.Type) != o.Type || c.Name != o.Name || c.Version != o.Version || c.PackageURL != o.PackageURL ||
				c.Properties == nil || len(*c.Properties) != len(*o.Properties) {
				t.Errorf("%s: component %d reads as %+v, written %+v", name, i, c, o)
			}
		}
	}
}
