package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkScanDemoCommand runs `mcpguard scan` on the demo machine in-process:
// everything the process does after start-up (compiling the policies, the
// scan, the report). bench/scan.sh measures the whole process.
func BenchmarkScanDemoCommand(b *testing.B) {
	root, _ := filepath.Abs("../..")
	demo := filepath.Join(root, "testdata", "demo")
	env := testEnv(root, "/nonexistent-home", nil)
	args := []string{"scan", "--format", "json", "--home", filepath.Join(demo, "home"), "--managed-dir", filepath.Join(demo, "managed"), "--project", filepath.Join(demo, "project")}
	for b.Loop() {
		code := runContext(context.Background(), args, streams{in: strings.NewReader(""), out: io.Discard, err: io.Discard}, env)
		if code == exitError {
			b.Fatal("exit 2")
		}
	}
}
