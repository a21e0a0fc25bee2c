package opaplugins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/internal/bundletest"
	"github.com/open-policy-agent/opa/v1/bundle"
)

const (
	testSecret  = "the-organisation-signing-secret"
	otherSecret = "somebody-elses-secret"
	testKeyID   = "org"
)

const testRego = `package mcpguard.custom.acme

deny contains msg if {
	input.server.name == "forbidden"
	msg := "acme forbids it"
}
`

// buildBundle writes a bundle as `opa build` does: one Rego module, a
// managed-settings document at data.mcpguard.managed_settings and other
// data; signed with secret unless it is "".
func buildBundle(t testing.TB, revision, rego string, secret string) []byte {
	t.Helper()
	return bundletest.Build(t, bundletest.Spec{
		Revision: revision, Roots: []string{"mcpguard/custom", "mcpguard/managed_settings", "acme"},
		Data: map[string]any{
			"mcpguard": map[string]any{"managed_settings": map[string]any{"deniedMcpServers": []any{map[string]any{"serverName": "evil"}}}},
			"acme":     map[string]any{"owner": "secops"},
		},
		Modules: map[string]string{"/policies/acme.rego": rego},
		Secret:  secret, KeyID: testKeyID,
	})
}

func testConfig(url, secret string, extra string) []byte {
	return []byte(fmt.Sprintf(`
services:
  org:
    url: %s
bundles:
  mcp:
    service: org
    resource: bundles/mcp.tar.gz
    polling: {min_delay_seconds: 1, max_delay_seconds: 1}
    signing: {keyid: %s}
keys:
  %s: {algorithm: HS256, key: %s}
labels: {team: platform}
%s`, url, testKeyID, testKeyID, secret, extra))
}

func startSource(t *testing.T, cfg []byte, stateDir string) *Source {
	t.Helper()
	s, err := Start(context.Background(), fleetpolicy.Options{Config: cfg, StateDir: stateDir, ID: "laptop-1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Stop(ctx)
	})
	return s
}

func waitActive(t *testing.T, s *Source) *fleetpolicy.Policy {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := s.WaitActive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitFor polls cond until it holds or 20 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSourceActivatesSignedBundles(t *testing.T) {
	srv := &bundletest.Server{}
	srv.Set(buildBundle(t, "r1", testRego, testSecret), 200)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	s := startSource(t, testConfig(hs.URL, testSecret, ""), t.TempDir())
	p := waitActive(t, s)
	if p.Revision() != "mcp@r1" || p.Modules["bundle:mcp/policies/acme.rego"] != testRego {
		t.Fatalf("policy %q, modules %v", p.Revision(), p.Modules)
	}
	if got := string(p.Settings["bundle:mcp/mcpguard/managed_settings"]); !strings.Contains(got, `"serverName":"evil"`) {
		t.Errorf("managed settings: %q", got)
	}
	if _, ok := p.Data["mcpguard"]; ok || p.Data["acme"] == nil {
		t.Errorf("data for rules: %v", p.Data)
	}

	// A new revision is picked up without a restart.
	srv.Set(buildBundle(t, "r2", strings.Replace(testRego, "forbidden", "also-forbidden", 1), testSecret), 200)
	waitFor(t, "revision r2", func() bool { return s.Policy().Revision() == "mcp@r2" })
	if st := s.State(); st.Degraded {
		t.Errorf("healthy state reported degraded: %+v", st)
	}

	// Refused bundles: the last good one stays in force, the state is degraded.
	for _, bad := range []struct {
		name   string
		body   []byte
		status int
	}{
		{"unsigned", buildBundle(t, "r3-unsigned", testRego, ""), 200},
		{"another key", buildBundle(t, "r3-other", testRego, otherSecret), 200},
		{"tampered", tamper(t, buildBundle(t, "r3-tampered", testRego, testSecret)), 200},
		{"server error", []byte("oops"), 500},
		{"garbage", []byte("this is not a tarball"), 200},
	} {
		srv.Set(bad.body, bad.status)
		waitFor(t, bad.name+" reported", func() bool { return s.State().Degraded })
		if got := s.Policy().Revision(); got != "mcp@r2" {
			t.Fatalf("%s: the last good bundle must stay in force, got %s", bad.name, got)
		}
		if st := s.State(); len(st.Errors) == 0 || len(st.Active) != 1 || st.Active[0].Revision != "r2" {
			t.Errorf("%s: state %+v", bad.name, st)
		}
		srv.Set(buildBundle(t, "r2", strings.Replace(testRego, "forbidden", "also-forbidden", 1), testSecret), 200)
		waitFor(t, "recovery after "+bad.name, func() bool { return !s.State().Degraded })
	}
}

// tamper changes the policy file inside a signed bundle, keeping its
// signature.
func tamper(t *testing.T, signed []byte) []byte {
	t.Helper()
	b, err := bundle.NewReader(bytes.NewReader(signed)).WithSkipBundleVerification(true).Read()
	if err != nil {
		t.Fatal(err)
	}
	b.Modules[0].Raw = []byte(strings.Replace(testRego, "forbidden", "allowed-now", 1))
	b.Modules[0].Parsed = nil
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSourceStartsOfflineFromThePersistedBundle(t *testing.T) {
	state := t.TempDir()
	srv := &bundletest.Server{}
	srv.Set(buildBundle(t, "persisted-1", testRego, testSecret), 200)
	hs := httptest.NewServer(srv)
	first, err := Start(context.Background(), fleetpolicy.Options{Config: testConfig(hs.URL, testSecret, ""), StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	waitActive(t, first)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	first.Stop(ctx)
	cancel()
	hs.Close() // the laptop boots without network

	s := startSource(t, testConfig(hs.URL, testSecret, ""), state)
	p := waitActive(t, s)
	if p.Revision() != "mcp@persisted-1" {
		t.Fatalf("the persisted bundle is enforced at once: %s", p.Revision())
	}
}

func TestSourceNeverActivatesAnUnsignedBundle(t *testing.T) {
	srv := &bundletest.Server{}
	srv.Set(buildBundle(t, "unsigned", testRego, ""), 200)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	s := startSource(t, testConfig(hs.URL, testSecret, ""), t.TempDir())
	waitFor(t, "the refusal", func() bool { return s.State().Degraded })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if p, err := s.WaitActive(ctx); p != nil || err == nil || !strings.Contains(err.Error(), "no bundle activated") {
		t.Fatalf("GHSA-g2pf-6v5v-qcc8: an unsigned bundle must never activate when signing is configured: %v %v", p, err)
	}
}

func TestSourceDecisionLogs(t *testing.T) {
	srv := &bundletest.Server{}
	srv.Set(buildBundle(t, "r1", testRego, testSecret), 200)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	col := &bundletest.Collector{}
	logSrv := httptest.NewServer(col)
	defer logSrv.Close()
	cfg := testConfig(hs.URL, testSecret, "decision_logs:\n  service: logs\n  reporting: {min_delay_seconds: 1, max_delay_seconds: 1}\n")
	cfg = bytes.Replace(cfg, []byte("services:\n"), []byte("services:\n  logs:\n    url: "+logSrv.URL+"\n"), 1)
	s, err := Start(context.Background(), fleetpolicy.Options{Config: cfg, StateDir: t.TempDir(), ID: "laptop-1"})
	if err != nil {
		t.Fatal(err)
	}
	p := waitActive(t, s)
	if !s.DecisionLogs() {
		t.Fatal("decision logs are configured")
	}
	err = s.Log(context.Background(), fleetpolicy.Decision{Path: "mcpguard/server", Bundles: p.Bundles,
		Input:  map[string]any{"server": map[string]any{"id": "s-0123456789abcdef", "name": "github", "args": []string{"--token", "REDACTED"}}},
		Result: map[string]any{"status": "blocked", "allowed": false}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	s.Stop(ctx) // flushes the buffer
	cancel()
	events := col.Events()
	if len(events) != 1 {
		t.Fatalf("want one decision, got %d", len(events))
	}
	ev := events[0]
	if ev["path"] != "mcpguard/server" || ev["labels"].(map[string]any)["team"] != "platform" || ev["labels"].(map[string]any)["id"] != "laptop-1" {
		t.Errorf("event: %v", ev)
	}
	if b := ev["bundles"].(map[string]any)["mcp"].(map[string]any); b["revision"] != "r1" {
		t.Errorf("bundle revision in the event: %v", ev["bundles"])
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	signed := write("signed.tar.gz", buildBundle(t, "v7", testRego, testSecret))
	v := fleetpolicy.Verification{Key: testSecret, KeyID: testKeyID, Algorithm: "HS256"}
	p, err := fleetpolicy.LoadFile(signed, v)
	if err != nil || p.Revision() != "signed@v7" || len(p.Modules) != 1 || len(p.Settings) != 1 {
		t.Fatalf("%v %+v", err, p)
	}
	if _, err := fleetpolicy.LoadFile(signed, fleetpolicy.Verification{}); err != nil {
		t.Errorf("without a key, a signed bundle reads as any other: %v", err)
	}
	for name, data := range map[string][]byte{
		"unsigned.tar.gz": buildBundle(t, "v7", testRego, ""),
		"other.tar.gz":    buildBundle(t, "v7", testRego, otherSecret),
		"tampered.tar.gz": tamper(t, buildBundle(t, "v7", testRego, testSecret)),
	} {
		if _, err := fleetpolicy.LoadFile(write(name, data), v); err == nil {
			t.Errorf("%s: refused with a verification key", name)
		}
	}
}

// TestSourceBundleUsesMcpguardBuiltins: a bundle whose rules call
// mcpguard's own functions activates (OPA's plugin compiles the modules
// before mcpguard's engine evaluates them).
func TestSourceBundleUsesMcpguardBuiltins(t *testing.T) {
	rego := `package mcpguard.custom.acme

warn contains "outside corp" if {
	input.server.transport != "stdio"
	not mcpguard.url_match("https://*.corp.example/*", input.server.url)
}
`
	srv := &bundletest.Server{}
	srv.Set(buildBundle(t, "b1", rego, testSecret), 200)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	s := startSource(t, testConfig(hs.URL, testSecret, ""), t.TempDir())
	if p := waitActive(t, s); p.Modules["bundle:mcp/policies/acme.rego"] != rego {
		t.Fatalf("modules: %v", p.Modules)
	}
}

func TestSubEnvVars(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got := string(subEnvVars([]byte("a: ${TOKEN}\nb: x${EMPTY}y\nc: ${UNSET}\nd: $TOKEN"), lookup))
	if want := "a: t0k\nb: xy\nc: ${UNSET}\nd: $TOKEN"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSourceStatus: OPA's status plugin reports the active bundle to the
// configured status service.
func TestSourceStatus(t *testing.T) {
	srv := &bundletest.Server{}
	srv.Set(buildBundle(t, "st-1", testRego, testSecret), 200)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	var mu sync.Mutex
	var got []string
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.URL.Path+" "+string(b))
		mu.Unlock()
	}))
	defer status.Close()
	cfg := bytes.Replace(testConfig(hs.URL, testSecret, "status: {service: status}\n"), []byte("services:\n"),
		[]byte("services:\n  status:\n    url: "+status.URL+"\n"), 1)
	s := startSource(t, cfg, t.TempDir())
	waitActive(t, s)
	waitFor(t, "a status report naming the bundle revision", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, g := range got {
			if strings.HasPrefix(g, "/status") && strings.Contains(g, `"active_revision":"st-1"`) {
				return true
			}
		}
		return false
	})
}

func TestPrepareConfig(t *testing.T) {
	for _, c := range []struct{ name, cfg, err string }{
		{"not YAML", "services: [", "OPA configuration"},
		{"empty", "", "OPA configuration: empty"},
		{"no bundles", "services: {org: {url: http://x}}", "no bundles configured"},
		{"discovery", "discovery: {resource: d}\nbundles: {b: {resource: x}}", "discovery is not supported"},
	} {
		if _, _, err := prepareConfig([]byte(c.cfg), "/state"); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.err)
		}
	}
	out, names, err := prepareConfig([]byte("bundles:\n  a: {resource: x}\n  b: {resource: y, persist: false}\n"), "/state")
	if err != nil || strings.Join(names, ",") != "a,b" {
		t.Fatal(names, err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	b := cfg["bundles"].(map[string]any)
	if cfg["persistence_directory"] != filepath.Join("/state", "opa") || b["a"].(map[string]any)["persist"] != true || b["b"].(map[string]any)["persist"] != false {
		t.Errorf("every bundle persisted under the state dir unless it says otherwise: %s", out)
	}
}
