package policy

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplePolicies runs the organisation policies of docs/policies.md
// (examples/policies) and their tests, so that the documentation cannot rot:
// each example must compile in the engine and every one of its tests pass.
func TestExamplePolicies(t *testing.T) {
	dir := filepath.Join("..", "examples", "policies")
	e, err := NewEngine(context.Background(), EngineOptions{Paths: []string{dir}})
	if err != nil {
		t.Fatalf("the example policies do not compile: %v", err)
	}
	want := []string{"mcpguard.custom.approved", "mcpguard.custom.corp_remote", "mcpguard.custom.pinned_npx", "mcpguard.custom.tool_rules"}
	if strings.Join(e.Custom, " ") != strings.Join(want, " ") {
		t.Errorf("example packages %v, want %v", e.Custom, want)
	}
	results, err := RunTests(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	perPackage := map[string]int{}
	for _, r := range results {
		if !strings.HasPrefix(r.Package, CustomPrefix+".") {
			continue
		}
		perPackage[r.Package]++
		if !r.Pass {
			t.Errorf("%s:%d: %s.%s failed %s\n%s", r.Location.Path, r.Location.Line, r.Package, r.Name, r.Err, r.Output)
		}
	}
	for _, p := range want {
		if perPackage[p+"_test"] == 0 {
			t.Errorf("example %s has no tests", p)
		}
	}
}
