package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformanceDNSRebinding runs the MCP conformance suite's
// dns-rebinding-protection scenario (@modelcontextprotocol/conformance,
// locked in testdata/node) against the proxy's HTTP listener in front of
// the hostile server: a request with Host and Origin evil.example.com must
// get a 4xx, one with the listener's own Host and Origin must be served.
// The suite's CLI wants Node 22 (fs.globSync, for its results files only);
// testdata/node/conformance-node20.mjs lends it one on Node 20.
func TestConformanceDNSRebinding(t *testing.T) {
	h := newHarness(t)
	cli := filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("the conformance suite is locked in testdata/node: %v", err)
	}
	dir := t.TempDir()
	target := h.proxy(h.hostile(streamable, ""), guardFlags(dir, "conformance")...)
	cmd := exec.CommandContext(h.ctx, nodeBin, "--import", "./conformance-node20.mjs", cli,
		"server", "--url", target[1], "--scenario", "dns-rebinding-protection", "--verbose", "--output-dir", t.TempDir())
	cmd.Dir = nodeDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("conformance: %v\n%s\n%s", err, out, stderr.String())
	}
	// The verbose report is a JSON array of checks between its first "["
	// line and its "]" line.
	text := string(out)
	start, end := strings.Index(text, "\n[\n"), strings.Index(text, "\n]\n")
	if start < 0 || end < start {
		t.Fatalf("no checks in the conformance output:\n%s", out)
	}
	var checks []struct {
		ID           string         `json:"id"`
		Status       string         `json:"status"`
		ErrorMessage string         `json:"errorMessage"`
		Details      map[string]any `json:"details"`
	}
	if err := json.Unmarshal([]byte(text[start+1:end+2]), &checks); err != nil {
		t.Fatalf("conformance checks: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, c := range checks {
		seen[c.ID] = true
		if c.Status != "SUCCESS" {
			t.Errorf("conformance check %s: %s %s %v", c.ID, c.Status, c.ErrorMessage, c.Details)
		}
	}
	for _, id := range []string{"localhost-host-rebinding-rejected", "localhost-host-valid-accepted"} {
		if !seen[id] {
			t.Errorf("conformance check %s did not run:\n%s", id, out)
		}
	}
	wantEvent(t, readEvents(t, filepath.Join(dir, "events.jsonl"), "conformance"), "http-refused", "", "")
}
