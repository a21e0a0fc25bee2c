package scanner_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/internal/benchdata"
	"github.com/mcpguard/mcpguard/internal/oracle"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// TestPlanEngineMatchesTopdown is the differential test of the shipped plan
// (internal/regoir) at the scanner's level: an engine that evaluates the
// shipped policies through the plan and one that evaluates them with OPA's
// topdown, compiled from their Rego sources (the reference), give
// byte-identical reports — every verdict, reason and finding — over the
// oracle corpus, the demo machine and generated machines.
func TestPlanEngineMatchesTopdown(t *testing.T) {
	ctx := context.Background()
	ref, err := policy.NewEngine(ctx, policy.EngineOptions{Topdown: true})
	if err != nil {
		t.Fatal(err)
	}
	planned := testEngine(t)
	compare := func(t *testing.T, opts scanner.Options) {
		t.Helper()
		if opts.LookupEnv == nil {
			opts.LookupEnv = emptyEnv
		}
		if opts.GOOS == "" {
			opts.GOOS = "linux"
		}
		var out [2][]byte
		for i, eng := range []*policy.Engine{ref, planned} {
			opts.Policy = eng
			res, err := scanner.Scan(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			rep := runner.BuildReport(res, runner.Meta{Version: "test", GeneratedAt: "2026-01-01T00:00:00Z"}, nil)
			var buf bytes.Buffer
			if err := reports.WriteJSON(&buf, rep); err != nil {
				t.Fatal(err)
			}
			out[i] = buf.Bytes()
		}
		for i := 1; i < len(out); i++ {
			if !bytes.Equal(out[0], out[i]) {
				t.Fatalf("reports of engine %d differ:\n%s", i, diffLines(string(out[0]), string(out[i])))
			}
		}
		if !bytes.Contains(out[0], []byte(`"status"`)) {
			t.Fatal("no server in the report: the comparison tested nothing")
		}
	}

	eachOracleCase(t, func(t *testing.T, c *oracle.Case) {
		opts := layoutCase(t, c)
		if len(c.Want) == 0 {
			t.Skip("no server in this case")
		}
		compare(t, opts)
	})
	t.Run("demo", func(t *testing.T) {
		demo := filepath.Join("..", "testdata", "demo")
		compare(t, scanner.Options{Home: filepath.Join(demo, "home"), ManagedDir: filepath.Join(demo, "managed"), Project: filepath.Join(demo, "project")})
	})
	for _, n := range []int{40, 400} {
		t.Run("generated", func(t *testing.T) {
			home, managed, project, err := benchdata.WriteMachine(t.TempDir(), n)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, scanner.Options{Home: home, ManagedDir: managed, Project: project})
		})
	}
}
