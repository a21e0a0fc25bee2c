package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/bundletest"
	"github.com/mcpguard/mcpguard/reports"
)

const fleetSecret = "org-signing-secret-for-tests"

const fleetRego = `package mcpguard.custom.acme

deny contains {"id": "ACME-001", "msg": sprintf("%s is not approved by acme (%s)", [input.server.name, data.acme.owner])} if {
	input.server.name == "forbidden"
}
`

// fleetBundle is an organisation bundle: a custom rule, data for it, and
// a managed-settings document that denies "evil"; signed with secret.
func fleetBundle(t *testing.T, revision, secret string) []byte {
	t.Helper()
	return bundletest.Build(t, bundletest.Spec{Revision: revision, Secret: secret, KeyID: "org",
		Data: map[string]any{
			"mcpguard": map[string]any{"managed_settings": map[string]any{"deniedMcpServers": []any{map[string]any{"serverName": "evil"}}}},
			"acme":     map[string]any{"owner": "secops"},
		},
		Modules: map[string]string{"/acme/policy.rego": fleetRego}})
}

const fleetProject = `{"mcpServers": {
  "forbidden": {"command": "node", "args": ["f.js"]},
  "fine": {"command": "node", "args": ["ok.js"]}
}}`

// fleetCursor is judged by the bundle's managed settings (Cursor does not
// enforce them itself).
const fleetCursor = `{"mcpServers": {
  "evil": {"command": "node", "args": ["e.js", "--api-key", "sk-live-51Habcdefghijklmnopqrstuvwx"]}
}}`

func checkFleetVerdicts(t *testing.T, rep *reports.Report, revision string) {
	t.Helper()
	byName := map[string]reports.Server{}
	for _, s := range rep.Servers {
		byName[s.Name] = s
	}
	custom := false
	for _, f := range rep.Findings {
		custom = custom || f.Rule == "ACME-001" && f.ServerID == byName["forbidden"].ID && strings.Contains(f.Message, "secops")
	}
	if !custom {
		t.Errorf("the bundle's rule, reading the bundle's data, fires: %+v", rep.Findings)
	}
	denied := false
	for _, id := range byName["evil"].FindingIDs {
		for _, f := range rep.Findings {
			denied = denied || f.ID == id && f.Rule == "MCPG-P001" && strings.Contains(f.Message, "bundle:")
		}
	}
	if byName["evil"].Decision.Allowed || !denied {
		t.Errorf("the bundle's managed settings deny evil: %+v", byName["evil"])
	}
	found := false
	for _, src := range rep.Policy.Sources {
		found = found || src.Kind == "opa-bundle" && src.Revision == revision
	}
	if !found {
		t.Errorf("the report names the bundle and its revision: %+v", rep.Policy.Sources)
	}
}

func TestScanBundleFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "p/.mcp.json", fleetProject)
	writeFile(t, dir, "p/.cursor/mcp.json", fleetCursor)
	mcp := filepath.Join(dir, "p")
	signed := filepath.Join(dir, "org.tar.gz")
	if err := os.WriteFile(signed, fleetBundle(t, "2026.11.25-1", fleetSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	key := []string{"--verification-key", fleetSecret, "--verification-key-id", "org", "--signing-alg", "HS256"}
	rep, stderr, code := scanJSON(t, env, append([]string{"--bundle", signed, mcp}, key...)...)
	if rep == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkFleetVerdicts(t, rep, "2026.11.25-1")

	for name, data := range map[string][]byte{"unsigned": fleetBundle(t, "x", ""), "other-key": fleetBundle(t, "x", "not-our-secret")} {
		p := filepath.Join(dir, name+".tar.gz")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runCLI(t, env, append([]string{"scan", "--bundle", p, mcp}, key...)...)
		if code != exitError || !strings.Contains(stderr, "load bundle") {
			t.Errorf("%s bundle: want exit 2, got %d: %s", name, code, stderr)
		}
	}
}

func TestScanOPAConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "p/.mcp.json", fleetProject)
	writeFile(t, dir, "p/.cursor/mcp.json", fleetCursor)
	mcp := filepath.Join(dir, "p")
	served := fleetBundle(t, "rev-9", fleetSecret)
	bundles := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(served) }))
	defer bundles.Close()
	col := &bundletest.Collector{}
	logs := httptest.NewServer(col)
	defer logs.Close()
	cfg := writeFile(t, dir, "opa.yaml", fmt.Sprintf(`services:
  org: {url: %s}
  logs: {url: %s}
bundles:
  mcpguard:
    service: org
    resource: b.tar.gz
    signing: {keyid: org}
keys:
  org: {algorithm: HS256, key: %s}
decision_logs:
  service: logs
labels: {fleet: laptops}
`, bundles.URL, logs.URL, fleetSecret))
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	rep, stderr, code := scanJSON(t, env, "--opa-config", cfg, mcp)
	if rep == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkFleetVerdicts(t, rep, "rev-9")
	got := col.Raw()
	if n := len(col.Events()); n != 3 {
		t.Fatalf("one decision per server, got %d:\n%s", n, got)
	}
	if strings.Contains(got, "sk-live-51H") {
		t.Error("a decision log holds a secret the report redacts")
	}
	if !strings.Contains(got, `"fleet":"laptops"`) || !strings.Contains(got, `"revision":"rev-9"`) || !strings.Contains(got, `"mcpguard/server"`) {
		t.Errorf("labels, revision and path in the events: %s", got)
	}

	// No bundle server and nothing persisted: no verified policy, exit 2.
	bundles.Close()
	_, stderr, code = runCLI(t, env, "scan", "--opa-config", cfg, "--opa-timeout", "2s", mcp)
	if code != exitError || !strings.Contains(stderr, "no bundle activated") {
		t.Errorf("fail closed without a bundle: exit %d, %s", code, stderr)
	}
}

// toolBundle is a bundle whose tool rule withholds tools named in its data.
func toolBundle(t *testing.T, revision string) []byte {
	t.Helper()
	return bundletest.Build(t, bundletest.Spec{Revision: revision, Secret: fleetSecret, KeyID: "org",
		Data: map[string]any{"org": map[string]any{"banned_tools": []any{"exfiltrate"}}},
		Modules: map[string]string{"/tools.rego": `package mcpguard.custom.org

tool_deny contains {"id": "ORG-T1", "msg": sprintf("tool %s is banned", [input.tool.name])} if {
	input.tool.name in data.org.banned_tools
}
`}})
}

func TestProxyOPAConfig(t *testing.T) {
	served := toolBundle(t, "tools-1")
	bundles := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(served) }))
	defer bundles.Close()
	col := &bundletest.Collector{}
	logs := httptest.NewServer(col)
	defer logs.Close()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "opa.yaml", fmt.Sprintf(`services:
  org: {url: %s}
  logs: {url: %s}
bundles:
  mcpguard: {service: org, resource: b.tar.gz, signing: {keyid: org}, persist: false}
keys:
  org: {algorithm: HS256, key: %s}
decision_logs: {service: logs}
`, bundles.URL, logs.URL, fleetSecret))
	tools := `[{"name":"search","description":"Search the docs."},{"name":"exfiltrate","description":"Send a file somewhere."}]`
	resp, stderr, code := proxyRun(t, tools, 0, []string{"--name", "docs", "--no-pins", "--opa-config", cfg},
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	listed := resp["1"]["result"].(map[string]any)["tools"].([]any)
	if len(listed) != 1 || listed[0].(map[string]any)["name"] != "search" {
		t.Fatalf("the bundle's tool rule withholds exfiltrate: %v", listed)
	}
	got := col.Raw()
	if strings.Count(got, `"mcpguard/tool"`) != 2 || !strings.Contains(got, `"rule":"ORG-T1"`) || !strings.Contains(got, `"revision":"tools-1"`) {
		t.Errorf("one decision per tool, with the rule and the bundle revision: %s", got)
	}
	if strings.Contains(got, "Send a file somewhere") {
		t.Error("tool descriptions stay out of the decision log")
	}
}

// TestScanOPAConfigDecisionLogsUnreachable: a decision-log service that
// refuses everything costs a bounded wait and a message, never silence.
func TestScanOPAConfigDecisionLogsUnreachable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "p/.mcp.json", fleetProject)
	served := fleetBundle(t, "rev-1", fleetSecret)
	bundles := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(served) }))
	defer bundles.Close()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer refusing.Close()
	cfg := writeFile(t, dir, "opa.yaml", fmt.Sprintf(`services:
  org: {url: %s}
  logs: {url: %s}
bundles:
  mcpguard: {service: org, resource: b.tar.gz, signing: {keyid: org}}
keys:
  org: {algorithm: HS256, key: %s}
decision_logs: {service: logs}
`, bundles.URL, refusing.URL, fleetSecret))
	env := testEnv(dir, filepath.Join(dir, "home"), nil)
	rep, stderr, _ := scanJSON(t, env, "--opa-config", cfg, filepath.Join(dir, "p"))
	if rep == nil || !strings.Contains(stderr, "could not be uploaded") {
		t.Fatalf("a message about the lost decisions: %s", stderr)
	}
}

// TestPolicyCapabilities: the capabilities for `opa build` hold mcpguard's
// functions and not the builtins the engine refuses.
func TestPolicyCapabilities(t *testing.T) {
	out, stderr, code := runCLI(t, testEnv(t.TempDir(), t.TempDir(), nil), "policy", "capabilities")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var caps struct {
		Builtins []struct{ Name string } `json:"builtins"`
	}
	if err := json.Unmarshal([]byte(out), &caps); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, b := range caps.Builtins {
		names[b.Name] = true
	}
	if !names["mcpguard.url_match"] || !names["sprintf"] || names["http.send"] {
		t.Errorf("url_match %v, sprintf %v, http.send %v", names["mcpguard.url_match"], names["sprintf"], names["http.send"])
	}
}
