package scanner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/schematest"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

var update = flag.Bool("update", false, "rewrite golden files")

// testdataDir returns the absolute path of scanner/testdata.
func testdataDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// emptyEnv is the environment for deterministic scans.
func emptyEnv(string) (string, bool) { return "", false }

// envOf returns a lookup over a fixed map.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// scanReport runs a scan and renders its JSON report with machine-independent
// metadata and every absolute path under roots replaced by a placeholder.
func scanReport(t testing.TB, opts scanner.Options, roots map[string]string) []byte {
	t.Helper()
	if opts.LookupEnv == nil {
		opts.LookupEnv = emptyEnv
	}
	if opts.GOOS == "" {
		opts.GOOS = "linux"
	}
	res, err := scanner.Scan(context.Background(), opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	rep := runner.BuildReport(res, runner.Meta{
		Version:     "test",
		GeneratedAt: "2026-01-01T00:00:00Z",
		Host:        reports.Host{Hostname: "host", OS: "linux", User: "dev"},
	}, nil)
	var buf bytes.Buffer
	if err := reports.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// Longest roots first so that nested roots are replaced precisely.
	keys := make([]string, 0, len(roots))
	for k := range roots {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if len(keys[j]) > len(keys[i]) {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	for _, k := range keys {
		out = strings.ReplaceAll(out, k, roots[k])
	}
	return []byte(out)
}

// checkGolden compares got with testdata/golden/name, or rewrites it with
// -update. Every golden report is also validated against the report schema.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	v, err := schematest.New("report-v1", reports.SchemaJSON)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(got); err != nil {
		t.Errorf("golden %s: %v", name, err)
	}
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./scanner -update to accept):\n%s", name, diffLines(string(want), string(got)))
	}
}

// diffLines shows the first differing lines.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			if n++; n >= 8 {
				break
			}
		}
	}
	return b.String()
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

var (
	engineOnce sync.Once
	engine     *policy.Engine
	engineErr  error
)

// testEngine compiles the shipped policies once per test binary.
func testEngine(t testing.TB) *policy.Engine {
	t.Helper()
	engineOnce.Do(func() { engine, engineErr = policy.NewEngine(context.Background(), policy.EngineOptions{}) })
	if engineErr != nil {
		t.Fatal(engineErr)
	}
	return engine
}
