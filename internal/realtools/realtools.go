package realtools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// List returns a tools/list result ({"tools": [...]}) of at least size
// bytes made of the tools of every captured list in dir (files holding a
// JSON-RPC response), repeated as often as needed; copies are renamed
// (name_N) so that every name is unique, as on one large server.
func List(dir string, size int) ([]byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no captured tool lists in %s", dir)
	}
	var pool []map[string]any
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Result struct {
				Tools []map[string]any `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		pool = append(pool, doc.Result.Tools...)
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("no tools in the lists of %s", dir)
	}
	var tools []any
	seen, next := map[string]bool{}, map[string]int{}
	for n := 0; n < size; {
		for _, t := range pool {
			c := make(map[string]any, len(t))
			for k, v := range t {
				c[k] = v
			}
			// Two servers may have a tool of the same name (github and
			// gitlab do): number each name's copies apart.
			base := fmt.Sprint(t["name"])
			name := ""
			for name == "" || seen[name] {
				name = fmt.Sprintf("%s_%d", base, next[base])
				next[base]++
			}
			seen[name] = true
			c["name"] = name
			b, err := json.Marshal(c)
			if err != nil {
				return nil, err
			}
			n += len(b) + 1
			tools = append(tools, c)
		}
	}
	return json.Marshal(map[string]any{"tools": tools})
}
