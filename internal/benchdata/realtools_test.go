package benchdata

import (
	"encoding/json"
	"testing"
)

func TestRealToolList(t *testing.T) {
	data, err := RealToolList("../../toolcheck/testdata/tools/real", 256<<10)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 256<<10 {
		t.Errorf("%d bytes, want at least %d", len(data), 256<<10)
	}
	var doc struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tool := range doc.Tools {
		if seen[tool.Name] {
			t.Fatalf("name %q repeats", tool.Name)
		}
		seen[tool.Name] = true
	}
	if _, err := RealToolList(t.TempDir(), 1); err == nil {
		t.Error("an empty directory gave a list")
	}
}
