package daemon

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
)

// BenchmarkEdit is the daemon's work for one edit of one file on a machine
// of ~200 servers in 30 files: the event, the rescan with cached reads,
// the diff, the events and the state. Profile it with -cpuprofile; the
// debounce is idle time, not CPU. bench/daemon.sh measures the binary.
func BenchmarkEdit(b *testing.B) {
	root := b.TempDir()
	home, managed, _, err := benchdata.WriteMachine(filepath.Join(root, "m"), 200)
	if err != nil {
		b.Fatal(err)
	}
	c, stop := runInProcess(b, Options{Home: home, ManagedDir: managed, GOOS: "linux"})
	defer stop()
	file := filepath.Join(home, ".cursor", "mcp.json")
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	version := regexp.MustCompile(`"acme-tool-(\d+)==0\.(\d+)\.0"`)
	if !version.Match(orig) {
		b.Fatalf("%s holds no uvx server to edit", file)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := c.Status(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		data := version.ReplaceAll(orig, []byte(fmt.Sprintf(`"acme-tool-$1==0.$2.%d"`, i+1)))
		if bytes.Equal(data, orig) {
			b.Fatal("no change")
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			b.Fatal(err)
		}
		waitEvents(b, c, st.EventSeq, "server-changed", "")
	}
	b.StopTimer()
	st, _ := c.Status(context.Background())
	b.ReportMetric(st.LastScan.DurationMS, "scan-ms")
}

// BenchmarkRelevant is the daemon's test of one unrelated event in a
// watched directory (a file created in a home or /tmp) against the plan of
// a ~200-server machine: paid for every event a busy directory sees.
func BenchmarkRelevant(b *testing.B) {
	root := b.TempDir()
	if _, _, _, err := benchdata.WriteMachine(filepath.Join(root, "m"), 200); err != nil {
		b.Fatal(err)
	}
	asked := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			asked[path] = false
			asked[filepath.Join(filepath.Dir(path), ".missing", "mcp.json")] = false
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	p := planWatches(asked, nil)
	noise := filepath.Join(root, "m", "home", "churn-123")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if p.relevant(noise) {
			b.Fatal("noise judged relevant")
		}
	}
	b.ReportMetric(float64(len(asked)), "paths")
}
