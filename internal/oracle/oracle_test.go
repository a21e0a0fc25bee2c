package oracle

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	update  = flag.Bool("update", false, "with MCPGUARD_ORACLE=1: rewrite the oracle sections of the corpus instead of comparing")
	missing = flag.Bool("missing", false, "with -update: record only the cases that have no oracle section")
)

const casesDir = "../../testdata/oracle/cases"

func corpus(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(casesDir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no cases in %s", casesDir)
	}
	return files
}

func caseName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".txtar")
}

func TestCorpusConsistent(t *testing.T) {
	for _, path := range corpus(t) {
		t.Run(caseName(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseCase(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Format(); !bytes.Equal(got, data) {
				t.Errorf("Format does not round-trip")
			}
			if c.Oracle != nil {
				if got := c.Oracle.Format(); !bytes.Equal(got, sectionData(c, SectionOracle)) {
					t.Errorf("oracle section is not in canonical form; re-record it")
				}
			}
			if len(bytes.TrimSpace(c.Comment)) == 0 {
				t.Errorf("no prose before the first section")
			}
			for _, p := range Consistent(c) {
				t.Error(p)
			}
		})
	}
}

func sectionData(c *Case, name string) []byte {
	for _, f := range c.Sections {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

// TestRecord re-runs the real CLI on every case (MCPGUARD_ORACLE=1). It
// fails when the answers differ from the recorded oracle section; with
// -update it rewrites the section instead.
func TestRecord(t *testing.T) {
	if os.Getenv("MCPGUARD_ORACLE") != "1" {
		t.Skip("set MCPGUARD_ORACLE=1 to run the real Claude Code CLI")
	}
	script := os.Getenv("MCPGUARD_ORACLE_SCRIPT")
	if script == "" {
		script = "../../../shared/tools/claude-code-oracle"
	}
	script, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("oracle script: %v", err)
	}
	for _, path := range corpus(t) {
		t.Run(caseName(path), func(t *testing.T) {
			t.Parallel()
			c, err := LoadCase(path)
			if err != nil {
				t.Fatal(err)
			}
			if *update && *missing && c.Oracle != nil {
				t.Skip("already recorded")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			a, err := Record(ctx, script, c)
			if err != nil {
				t.Fatal(err)
			}
			got := a.Format()
			if *update {
				c.SetOracle(a)
				if err := os.WriteFile(path, c.Format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if c.Oracle == nil {
				t.Fatalf("no oracle section; record it with -update")
			}
			if want := sectionData(c, SectionOracle); !bytes.Equal(got, want) {
				t.Errorf("the CLI's answers changed:\n--- recorded\n%s--- now\n%s", want, got)
			}
		})
	}
}
