package cfgfile

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGlobMatchesFilepathGlob(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		".gemini/extensions/a/gemini-extension.json",
		".gemini/extensions/b/gemini-extension.json",
		".gemini/extensions/c/other.json",
		".continue/mcpServers/x.yaml",
		".continue/mcpServers/.hidden.yaml",
		".continue/mcpServers/y.yml",
	} {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, pat := range []string{
		".gemini/extensions/*/gemini-extension.json",
		".continue/mcpServers/*.yaml",
		".continue/mcpServers/*.y?l",
		".continue/mcpServers/[xy].*",
		"*/mcpServers/*.yaml",
		".continue/missing/*.yaml",
		".continue/mcpServers/x.yaml",
		".continue/mcpServers/none.yaml",
		".continue/mcpServers/[",
	} {
		p := filepath.Join(root, filepath.FromSlash(pat))
		want, _ := filepath.Glob(p)
		got := Glob(OS{}, p)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Glob(%s) = %v, filepath.Glob = %v", pat, got, want)
		}
	}
}
