package toolcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzAnalyzeTools: no input panics Analyze or Compare; every finding is located inside the document; the output is
// bounded by the input size.
func FuzzAnalyzeTools(f *testing.F) {
	for _, dir := range []string{filepath.Join("testdata", "tools"), filepath.Join("testdata", "tools", "real")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data, false)
			}
		}
	}
	f.Add([]byte(`[{"name":"executeCode"},{"name":"x\u200b","annotations":{"readOnlyHint":"yes"}}]`), true)
	f.Fuzz(func(t *testing.T, data []byte, ide bool) {
		rep, err := Analyze(data, Options{Path: "f.json", Server: "s", IDE: ide})
		if err != nil {
			if _, ok := AsFileError(err); !ok {
				t.Fatalf("unpositioned error %v", err)
			}
			return
		}
		lines := 1
		for _, c := range data {
			if c == '\n' {
				lines++
			}
		}
		if limit := 4*len(data) + 64; len(rep.Findings) > limit {
			t.Fatalf("%d findings from %d bytes", len(rep.Findings), len(data))
		}
		for _, x := range rep.Findings {
			if x.ID == "" || x.Rule == "" || x.Message == "" || x.Location.Line < 1 || x.Location.Line > lines || x.Location.Column < 1 {
				t.Fatalf("bad finding %+v", x)
			}
		}
		Compare([]*Report{rep, rep})
	})
}
