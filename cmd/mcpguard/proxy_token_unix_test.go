//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyListenTokenMode: a token file other users can read keeps
// nobody out on a shared machine; the proxy refuses it, as ssh refuses
// such key files.
func TestProxyListenTokenMode(t *testing.T) {
	env := testEnv(t.TempDir(), t.TempDir(), nil)
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		p := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(p, []byte("s3cr3t-token\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runCLI(t, env, "proxy", "--upstream", "http://127.0.0.1:1/mcp", "--listen-token", p)
		if code != exitError || !strings.Contains(stderr, "readable by others") || strings.Contains(stderr, "s3cr3t") {
			t.Errorf("mode %04o: exit %d, stderr %q", mode, code, stderr)
		}
	}
}
