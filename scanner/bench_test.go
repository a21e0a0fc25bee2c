package scanner_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/scanner"
)

// BenchmarkScanDemo scans the bundled demo machine (README's first command).
func BenchmarkScanDemo(b *testing.B) {
	demo, _ := filepath.Abs("../testdata/demo")
	opts := scanner.Options{
		Home:       filepath.Join(demo, "home"),
		ManagedDir: filepath.Join(demo, "managed"),
		Project:    filepath.Join(demo, "project"),
		LookupEnv:  emptyEnv,
		GOOS:       "linux",
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := scanner.Scan(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanMachine200 scans a machine with 200 servers in 30 files
// (SPEC §7: <= 50 ms whole process): discovery alone, and with the
// shipped policies, which build every server's input and evaluate it (a
// scan's per-server work, warm, without the process around it).
func BenchmarkScanMachine200(b *testing.B) {
	b.Run("discovery", func(b *testing.B) { benchScanMachine200(b, nil) })
	b.Run("policy", func(b *testing.B) { benchScanMachine200(b, testEngine(b)) })
}

func benchScanMachine200(b *testing.B, engine *policy.Engine) {
	root := b.TempDir()
	home, managedDir, project, err := benchdata.WriteMachine(root, 200)
	if err != nil {
		b.Fatal(err)
	}
	opts := scanner.Options{Home: home, ManagedDir: managedDir, Project: project, LookupEnv: emptyEnv, GOOS: "linux"}
	if engine != nil {
		opts.Policy = engine
	}
	res, err := scanner.Scan(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	if n := len(res.Servers); n < 200 {
		b.Fatalf("machine has %d servers, want >= 200", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := scanner.Scan(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}
