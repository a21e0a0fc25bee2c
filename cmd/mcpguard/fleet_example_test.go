package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/compile"

	"github.com/mcpguard/mcpguard/internal/bundletest"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
)

// TestFleetExample runs docs/fleet.md's worked example: examples/fleet/bundle
// built and signed as `opa build --bundle --capabilities <(mcpguard policy
// capabilities) --signing-key acme-2026.key --signing-alg RS256` does,
// served over HTTP, and examples/fleet/opa-config.yaml (with the test's URL
// and public key) judging examples/fleet/project.
func TestFleetExample(t *testing.T) {
	root := filepath.Join(repoRoot(t), "examples", "fleet")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	priv := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pubDER, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})

	var built bytes.Buffer
	c := compile.New().WithAsBundle(true).WithPaths(filepath.Join(root, "bundle")).WithCapabilities(policy.Capabilities()).
		WithBundleSigningConfig(bundle.NewSigningConfig(string(priv), "RS256", "")).WithBundleVerificationKeyID("acme-2026").
		WithOutput(&built)
	if err := c.Build(context.Background()); err != nil {
		t.Fatalf("opa build: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcpguard/bundle.tar.gz" || r.Header.Get("Authorization") != "Bearer from-the-environment" {
			http.NotFound(w, r)
			return
		}
		w.Write(built.Bytes())
	}))
	defer srv.Close()

	cfg, err := os.ReadFile(filepath.Join(root, "opa-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(cfg), "https://bundles.acme.example", srv.URL, 1)
	col := &bundletest.Collector{}
	logs := httptest.NewServer(col)
	defer logs.Close()
	s = strings.Replace(s, "https://decisions.acme.example", logs.URL, 1)
	indent := "      "
	keyBlock := regexp.MustCompile(`(?s)-----BEGIN PUBLIC KEY-----.*-----END PUBLIC KEY-----`)
	s = keyBlock.ReplaceAllString(s, strings.ReplaceAll(strings.TrimSpace(string(pub)), "\n", "\n"+indent))
	dir := t.TempDir()
	cfgPath := writeFile(t, dir, "opa.yaml", s)

	env := testEnv(dir, filepath.Join(dir, "home"), map[string]string{"MCPGUARD_BUNDLE_TOKEN": "from-the-environment"})
	rep, stderr, code := scanJSON(t, env, "--opa-config", cfgPath, "--fail-on", "never", filepath.Join(root, "project"))
	if rep == nil || code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	byName := map[string]reports.Server{}
	for _, sv := range rep.Servers {
		byName[sv.Name] = sv
	}
	rules := map[string][]string{}
	for _, f := range rep.Findings {
		for name, sv := range byName {
			if f.ServerID == sv.ID {
				rules[name] = append(rules[name], f.Rule)
			}
		}
	}
	has := func(name, rule string) bool {
		for _, r := range rules[name] {
			if r == rule {
				return true
			}
		}
		return false
	}
	if !has("tracker", "ORG-001") || has("docs", "ORG-001") {
		t.Errorf("ORG-001 on the remote server off ACME's hosts only: %v", rules)
	}
	if !has("git", "ORG-002") {
		t.Errorf("ORG-002 on the unwrapped local server: %v", rules)
	}
	if sh := byName["shell"]; sh.Decision.Allowed || !has("shell", "MCPG-P001") {
		t.Errorf("the bundle's lists deny shell: %+v %v", sh, rules["shell"])
	}
	if n := len(col.Events()); n != len(rep.Servers) {
		t.Errorf("one decision per server reached the collector, got %d", n)
	}
	found := false
	for _, src := range rep.Policy.Sources {
		found = found || src.Kind == reports.KindOPABundle && src.Revision == "2026.11.25-1"
	}
	if !found {
		t.Errorf("the bundle's revision in the report: %+v", rep.Policy.Sources)
	}
}
