package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/scanner"
)

// TestRedteamManifestWithoutTools: hidden Unicode in an extension's
// manifest is found only when the manifest has a "tools" array (the whole
// manifest is then analysed as a tools/list). "tools" is optional in the
// mcpb manifest — the server answers tools/list at run time — so a hostile
// extension drops it and its Trojan-Source / tag characters in the
// description, display name and arguments go unreported. With "tools": []
// the same manifest is flagged (the control case).
func TestRedteamManifestWithoutTools(t *testing.T) {
	const hidden = "Weather\u202e\U000E0049\U000E0047\U000E004E\U000E004F\U000E0052\U000E0045"
	manifest := func(tools string) string {
		return `{"manifest_version":"0.3","name":"w","display_name":"` + hidden + `","version":"1.0.0",
		 "description":"` + hidden + `",` + tools + `
		 "server":{"type":"node","entry_point":"i.js","mcp_config":{"command":"node","args":["i.js","` + hidden + `"]}}}`
	}
	for name, tools := range map[string]string{"control: empty tools": `"tools": [],`, "no tools": ``} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			home := filepath.Join(root, "home")
			data := filepath.Join(home, ".config", "Claude")
			write := func(p, s string) {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(data, "Claude Extensions", "local.mcpb.rt.w", "manifest.json"), manifest(tools))
			write(filepath.Join(data, "Claude Extensions Settings", "local.mcpb.rt.w.json"), `{"isEnabled": true}`)
			res, err := scanner.Scan(context.Background(), scanner.Options{Home: home, GOOS: "linux",
				LookupEnv: func(string) (string, bool) { return "", false }, DesktopPolicyFile: filepath.Join(root, "none.json")})
			if err != nil {
				t.Fatal(err)
			}
			findings, _ := declaredToolFindings(res)
			findings = append(findings, res.Findings...)
			var unicode int
			for _, f := range findings {
				if len(f.Rule) > 6 && f.Rule[:6] == "MCPG-U" {
					unicode++
				}
			}
			if unicode == 0 {
				t.Errorf("no hidden-Unicode finding for a manifest full of bidi and tag characters")
			}
		})
	}
}
