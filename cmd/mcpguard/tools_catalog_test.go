package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/schematest"
	"github.com/mcpguard/mcpguard/reports"
)

// TestToolsCatalog: `mcpguard tools` reads a capture of a server's tools,
// prompts, resource templates and resources; the findings name the prompt
// or template, the JSON report stays valid mcpguard/report/v1, and a
// document of the wrong shape is a path:line:col usage error.
func TestToolsCatalog(t *testing.T) {
	in := "testdata/tools-catalog.input.json"
	out, stderr, code := runToolsCLI(t, "", "tools", in)
	if code != exitFindings {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	golden(t, "tools-catalog.text", out)

	out, _, code = runToolsCLI(t, "", "tools", "--format", "json", in)
	if code != exitFindings {
		t.Fatalf("json: exit %d", code)
	}
	v, err := schematest.New("report-v1", reports.SchemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate([]byte(out)); err != nil {
		t.Error(err)
	}
	var rep reports.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Severity == reports.SeverityError && f.Rule == "MCPG-T001" {
			named[f.Evidence["item_kind"].(string)+" "+f.Evidence["item"].(string)] = true
		}
	}
	if !named["prompt polish_email"] || !named["resource_template search"] || len(named) != 2 {
		t.Errorf("T001 errors on %v, want prompt polish_email and resource_template search", named)
	}

	// A JSON-RPC prompts/list response on standard input.
	out, _, code = runToolsCLI(t, `{"jsonrpc":"2.0","id":1,"result":{"prompts":[{"name":"p","description":"Summarize the text."}]}}`, "tools", "-")
	if code != exitOK || !strings.Contains(out, "<stdin> (server stdin): 0 tools, 1 prompt, 0 findings") {
		t.Errorf("stdin: exit %d\n%s", code, out)
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"prompts\": {\"name\": \"p\"}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runToolsCLI(t, "", "tools", bad)
	if code != exitError || !strings.Contains(stderr, bad+`:2:14: "prompts" is a JSON object, not an array`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
