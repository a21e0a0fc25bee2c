package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
)

// TestOPAHelper runs the builds users get: the default mcpguard, which
// does not link OPA's plugins, and mcpguard-opa beside it, which does.
// Given --opa-config, mcpguard becomes mcpguard-opa (same process, same
// arguments); without the helper it says how to build it; a helper that
// lacks the plugins does not start itself again.
func TestOPAHelper(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the helper replaces the process on Unix; Windows runs it as a child")
	}
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	bin := t.TempDir()
	build := func(out string, tags ...string) {
		t.Helper()
		args := append([]string{"build", "-o", filepath.Join(bin, out)}, tags...)
		if b, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", out, err, b)
		}
	}
	build("mcpguard")
	mcpguard := filepath.Join(bin, "mcpguard")
	if b, err := exec.Command("go", "version", "-m", mcpguard).Output(); err != nil || strings.Contains(string(b), "oras.land") {
		t.Fatalf("the default build links OPA's plugins (%v)", err)
	}

	dir := t.TempDir()
	writeFile(t, dir, "p/.mcp.json", fleetProject)
	writeFile(t, dir, "p/.cursor/mcp.json", fleetCursor)
	served := fleetBundle(t, "rev-h", fleetSecret)
	bundles := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(served) }))
	defer bundles.Close()
	cfg := writeFile(t, dir, "opa.yaml", fmt.Sprintf(`services:
  org: {url: %s}
bundles:
  mcpguard:
    service: org
    resource: b.tar.gz
    signing: {keyid: org}
keys:
  org: {algorithm: HS256, key: %s}
`, bundles.URL, fleetSecret))
	run := func(env []string, args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(mcpguard, args...)
		cmd.Env = append([]string{"HOME=" + filepath.Join(dir, "home"), "PATH=/usr/bin:/bin"}, env...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	scan := []string{"scan", "--format", "json", "--fail-on", "never", "--opa-config", cfg, filepath.Join(dir, "p")}

	// Without the helper: a usage error that says what to build.
	_, stderr, code := run(nil, scan...)
	if code != exitError || !strings.Contains(stderr, "mcpguard-opa") || !strings.Contains(stderr, "-tags opaplugins") {
		t.Errorf("no helper: exit %d, %s", code, stderr)
	}
	// Without --opa-config the default build works alone.
	if _, stderr, code := run(nil, "scan", "--format", "json", "--fail-on", "never", filepath.Join(dir, "p")); code != exitOK {
		t.Errorf("scan without --opa-config: exit %d, %s", code, stderr)
	}

	// A stand-in helper records how it was started: mcpguard is replaced
	// by it (same pid) with the same arguments.
	record := filepath.Join(dir, "record")
	writeFile(t, bin, "mcpguard-opa", "#!/bin/sh\necho \"$$ $MCPGUARD_OPA_HELPER $*\" > "+record+"\nexit 7\n")
	if err := os.Chmod(filepath.Join(bin, "mcpguard-opa"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mcpguard, scan...)
	cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Fatalf("the helper's exit status is the command's: %v", err)
	}
	got, _ := os.ReadFile(record)
	want := fmt.Sprintf("%d 1 %s\n", cmd.Process.Pid, strings.Join(scan, " "))
	if string(got) != want {
		t.Errorf("helper started as\n%q, want\n%q", got, want)
	}

	// A helper that is itself a default build does not start itself again.
	_, stderr, code = run([]string{"MCPGUARD_OPA_HELPER=1"}, scan...)
	if code != exitError || !strings.Contains(stderr, "does not link OPA's plugins") {
		t.Errorf("helper without plugins: exit %d, %s", code, stderr)
	}

	// The real helper: the scan is judged by the bundle.
	if err := os.Remove(filepath.Join(bin, "mcpguard-opa")); err != nil {
		t.Fatal(err)
	}
	build("mcpguard-opa", "-tags", "opaplugins")
	out, stderr, code := run(nil, scan...)
	var rep reports.Report
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("scan through mcpguard-opa: exit %d, %s", code, stderr)
	}
	checkFleetVerdicts(t, &rep, "rev-h")
}
