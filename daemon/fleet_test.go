package daemon

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/mcpguard/mcpguard/reports"
)

const orgSecret = "org-secret-for-daemon-tests"

// orgBundle is a bundle whose rule denies the server "forbidden".
func orgBundle(t *testing.T, revision, secret string) []byte {
	t.Helper()
	b := bundle.Bundle{
		Manifest: bundle.Manifest{Revision: revision},
		Data:     map[string]any{},
		Modules: []bundle.ModuleFile{{URL: "/org.rego", Path: "/org.rego", Raw: []byte(`package mcpguard.custom.org

deny contains "the organisation forbids it" if input.server.name == "forbidden"
`)}},
	}
	if secret != "" {
		if err := b.GenerateSignature(bundle.NewSigningConfig(secret, "HS256", ""), "org", false); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := bundle.NewWriter(&buf).Write(b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type servedBundle struct {
	mu     sync.Mutex
	body   []byte
	status int
}

func (s *servedBundle) set(body []byte, status int) {
	s.mu.Lock()
	s.body, s.status = body, status
	s.mu.Unlock()
}

func (s *servedBundle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.WriteHeader(s.status)
	w.Write(s.body)
}

type decisionSink struct {
	mu   sync.Mutex
	body bytes.Buffer
}

func (d *decisionSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		w.WriteHeader(400)
		return
	}
	d.mu.Lock()
	_, _ = d.body.ReadFrom(zr)
	d.mu.Unlock()
}

func (d *decisionSink) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.body.String()
}

func opaConfig(bundleURL, logURL string) []byte {
	return []byte(fmt.Sprintf(`services:
  org: {url: %q}
  logs: {url: %q}
bundles:
  mcpguard:
    service: org
    resource: b.tar.gz
    polling: {min_delay_seconds: 1, max_delay_seconds: 1}
    signing: {keyid: org}
keys:
  org: {algorithm: HS256, key: %s}
decision_logs:
  service: logs
  reporting: {min_delay_seconds: 1, max_delay_seconds: 1}
`, bundleURL, logURL, orgSecret))
}

func statusOf(t *testing.T, c *Client) *Status {
	t.Helper()
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func waitDaemon(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func serverByName(t *testing.T, c *Client, name string) reports.Server {
	t.Helper()
	rep, err := c.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q", name)
	return reports.Server{}
}

func TestDaemonFleetPolicy(t *testing.T) {
	home, state := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"forbidden": {"command": "node", "args": ["f.js", "--token", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"]}, "fine": {"command": "node"}}}`)
	srv := &servedBundle{}
	srv.set([]byte("down"), 503)
	bundles := httptest.NewServer(srv)
	defer bundles.Close()
	sink := &decisionSink{}
	logs := httptest.NewServer(sink)
	defer logs.Close()
	opts := Options{Home: home, GOOS: "linux", StateDir: state, OPAConfig: opaConfig(bundles.URL, logs.URL), OPAConfigPath: "opa.yaml",
		Host: reports.Host{Hostname: "laptop-7"}}

	c, stop := runInProcess(t, opts)
	// Never a verified bundle: fail closed.
	if s := serverByName(t, c, "fine"); s.Status != reports.StatusUnverifiedPolicy || s.Decision.Allowed {
		t.Fatalf("without a verified bundle nothing is allowed: %+v", s)
	}
	st := statusOf(t, c)
	if len(st.Degraded) == 0 || st.Degraded[len(st.Degraded)-1].Kind != "no-bundle" {
		t.Errorf("status shows the missing bundle: %+v", st.Degraded)
	}

	// The bundle server comes up: the bundle is applied without restart.
	srv.set(orgBundle(t, "r1", orgSecret), 200)
	waitEvents(t, c, 0, "policy-changed", "")
	waitDaemon(t, "the bundle's verdicts", func() bool { return serverByName(t, c, "fine").Status == reports.StatusActive })
	forbidden := serverByName(t, c, "forbidden")
	if forbidden.Decision.Allowed {
		t.Errorf("the bundle's deny rule fires: %+v", forbidden)
	}
	if st := statusOf(t, c); st.Policy.Bundles == nil || len(st.Policy.Bundles.Active) != 1 || st.Policy.Bundles.Active[0].Revision != "r1" {
		t.Errorf("status names the bundle revision: %+v", st.Policy.Bundles)
	}

	// An unsigned bundle is refused; r1 stays in force.
	seq := statusOf(t, c).EventSeq
	srv.set(orgBundle(t, "r2-unsigned", ""), 200)
	waitEvents(t, c, seq, "policy-invalid", "")
	st = statusOf(t, c)
	if st.Policy.Bundles.Active[0].Revision != "r1" || st.Degraded[len(st.Degraded)-1].Kind != "bundle-failed" {
		t.Errorf("degraded, r1 kept: %+v %+v", st.Policy.Bundles, st.Degraded)
	}
	if serverByName(t, c, "forbidden").Decision.Allowed {
		t.Error("the last good bundle stays in force")
	}
	waitDaemon(t, "decision logs", func() bool { return strings.Count(sink.String(), `"mcpguard/server"`) >= 2 })
	stop()
	got := sink.String()
	if strings.Contains(got, "ghp_0123456789") {
		t.Error("a decision log holds the token the report redacts")
	}
	if !strings.Contains(got, `"revision":"r1"`) || !strings.Contains(got, `"id":"laptop-7"`) {
		t.Errorf("decisions carry the bundle revision and the host: %s", got)
	}

	// Offline start: the persisted r1 is enforced at once.
	bundles.Close()
	c, stop = runInProcess(t, opts)
	defer stop()
	if s := serverByName(t, c, "forbidden"); s.Status == reports.StatusUnverifiedPolicy || s.Decision.Allowed {
		t.Errorf("the persisted bundle judges at once: %+v", s)
	}
}
