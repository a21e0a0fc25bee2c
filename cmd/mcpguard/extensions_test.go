package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanBundle: `mcpguard scan FILE.mcpb` reports the extension a bundle
// packed by the real mcpb CLI declares and the findings about its tools
// (exit 1 at the default --fail-on error); a hostile archive is an error
// that names the file and why (exit 2), never a server.
func TestScanBundle(t *testing.T) {
	bundle := filepath.Join(repoRoot(t), "scanner", "testdata", "extensions", "weather-1.2.0.mcpb")
	dir := t.TempDir()
	env := testEnv(dir, "/nonexistent-home", nil)
	out, errOut, code := runCLI(t, env, "scan", "--format", "text", bundle)
	if code != 1 || !strings.Contains(out, "claude-desktop  extension  weather") || !strings.Contains(out, "MCPG-T001") {
		t.Errorf("exit %d, stderr %q, out:\n%s", code, errOut, out)
	}

	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range []string{"manifest.json", "../../../home/dev/.bashrc"} {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(`{"name":"x","server":{"mcp_config":{"command":"x"}}}`))
	}
	w.Close()
	hostile := filepath.Join(dir, "evil.mcpb")
	if err := os.WriteFile(hostile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, env, "scan", "--format", "text", hostile)
	if code != 2 || !strings.Contains(out+errOut, "extension bundle refused") || !strings.Contains(out+errOut, "leaves the extension's folder") || strings.Contains(out, "extension  x") {
		t.Errorf("hostile bundle: exit %d, stderr %q, out:\n%s", code, errOut, out)
	}
}
