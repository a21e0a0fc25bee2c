package benchdata

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

func TestRealListing(t *testing.T) {
	const dir = "../../toolcheck/testdata/tools/real/dev"
	data, err := RealListing(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 1<<20 {
		t.Errorf("%d bytes, want at least %d", len(data), 1<<20)
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
		if strings.HasSuffix(tool.Name, "_0") {
			t.Errorf("name %q looks renamed", tool.Name)
		}
		seen[tool.Name] = true
	}
	// The first tool is the first captured list's, as captured.
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var first struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &first); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, first.Result.Tools[0]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, append([]byte(`{"tools":[`), want.Bytes()...)) {
		t.Errorf("the listing does not start with %s's first tool as captured", files[0])
	}
	if _, err := RealListing(dir, 1<<30); err == nil {
		t.Error("a size beyond the captured lists gave a list")
	}
	if _, err := RealListing(t.TempDir(), 1); err == nil {
		t.Error("an empty directory gave a list")
	}
}
