package policy

import (
	"context"
	"testing"
)

// TestShippedRegoPolicies runs every shipped *_test.rego through the same
// runner as `mcpguard policy test`.
func TestShippedRegoPolicies(t *testing.T) {
	results, err := RunTests(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("no Rego tests found")
	}
	for _, r := range results {
		if !r.Pass && !r.Skip {
			t.Errorf("%s:%d: %s.%s failed %s\n%s", r.Location.Path, r.Location.Line, r.Package, r.Name, r.Err, r.Output)
		}
	}
	t.Logf("%d Rego tests", len(results))
}
