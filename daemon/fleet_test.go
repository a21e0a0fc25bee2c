package daemon

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/fleetpolicy/opaplugins"
	"github.com/mcpguard/mcpguard/internal/bundletest"
	"github.com/mcpguard/mcpguard/reports"
)

const orgSecret = "org-secret-for-daemon-tests"

// orgBundle is a bundle whose rule denies the server "forbidden".
func orgBundle(t *testing.T, revision, secret string) []byte {
	t.Helper()
	return bundletest.Build(t, bundletest.Spec{Revision: revision, Secret: secret, KeyID: "org",
		Modules: map[string]string{"/org.rego": `package mcpguard.custom.org

deny contains "the organisation forbids it" if input.server.name == "forbidden"
`}})
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
	srv := &bundletest.Server{}
	srv.Set([]byte("down"), 503)
	bundles := httptest.NewServer(srv)
	defer bundles.Close()
	sink := &bundletest.Collector{}
	logs := httptest.NewServer(sink)
	defer logs.Close()
	opts := Options{Home: home, GOOS: "linux", StateDir: state, OPAConfig: opaConfig(bundles.URL, logs.URL), OPAConfigPath: "opa.yaml", StartFleet: opaplugins.StartControl,
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
	srv.Set(orgBundle(t, "r1", orgSecret), 200)
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
	srv.Set(orgBundle(t, "r2-unsigned", ""), 200)
	waitEvents(t, c, seq, "policy-invalid", "")
	st = statusOf(t, c)
	if st.Policy.Bundles.Active[0].Revision != "r1" || st.Degraded[len(st.Degraded)-1].Kind != "bundle-failed" {
		t.Errorf("degraded, r1 kept: %+v %+v", st.Policy.Bundles, st.Degraded)
	}
	if serverByName(t, c, "forbidden").Decision.Allowed {
		t.Error("the last good bundle stays in force")
	}
	waitDaemon(t, "decision logs", func() bool { return strings.Count(sink.Raw(), `"mcpguard/server"`) >= 2 })
	stop()
	got := sink.Raw()
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
