package pins

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/toolcheck"
)

// FuzzPinTools: no tools/list the analysis accepts panics the pin functions;
// a pin never differs from itself and the canonical form is a fixed point.
func FuzzPinTools(f *testing.F) {
	for _, dir := range []string{"../toolcheck/testdata/tools", "../toolcheck/testdata/tools/real"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"default":1e400}}}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, err := CanonicalJSON(data); err == nil {
			if c2, err := CanonicalJSON(c); err != nil || string(c2) != string(c) {
				t.Fatalf("canonical form not stable: %s -> %s (%v)", c, c2, err)
			}
		}
		rep, err := toolcheck.Analyze(data, toolcheck.Options{Path: "f.json", Server: "s"})
		if err != nil {
			return
		}
		old := NewPin("s", nil, "", PinTools(rep, true))
		if d := DiffPins(old, old); !d.Empty() {
			t.Fatalf("a pin differs from itself: %+v", d)
		}
	})
}
