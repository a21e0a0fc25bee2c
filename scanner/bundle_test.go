package scanner_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

const bundleManifest = `{"manifest_version":"0.3","name":"hello","version":"1.0.0","author":{"name":"a"},
 "server":{"type":"node","entry_point":"server/index.js","mcp_config":{"command":"node","args":["${__dirname}/server/index.js"]}},
 "tools":[{"name":"hello","description":"Says hello."}]}`

type zipEntry struct {
	name string
	data string
	mode fs.FileMode
}

func makeZip(t testing.TB, entries []zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func scanBundleBytes(t testing.TB, data []byte) *scanner.Result {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.mcpb")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := scanner.Scan(context.Background(), scanner.Options{Paths: []string{p}, GOOS: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHostileBundles: an archive that would write outside the extension's
// folder, holds links or special files, repeats a name, is too large or
// is not a bundle at all is a clear error, and yields no server.
func TestHostileBundles(t *testing.T) {
	manifest := zipEntry{name: "manifest.json", data: bundleManifest}
	many := []zipEntry{manifest}
	for i := range scanner.MaxBundleEntries {
		many = append(many, zipEntry{name: "f/" + strings.Repeat("x", 3) + string(rune('a'+i%26)) + "/" + itoa(i)})
	}
	bomb := `{"name":"b","pad":"` + strings.Repeat(" ", scanner.MaxManifestBytes) + `"}`
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"traversal", makeZip(t, []zipEntry{manifest, {name: "../../.bashrc", data: "x"}}), "leaves the extension's folder"},
		{"traversal inside", makeZip(t, []zipEntry{manifest, {name: "server/../../x", data: "x"}}), "leaves the extension's folder"},
		{"absolute", makeZip(t, []zipEntry{manifest, {name: "/etc/cron.d/x", data: "x"}}), "an absolute path"},
		{"drive letter", makeZip(t, []zipEntry{manifest, {name: "C:/Windows/x", data: "x"}}), "a drive letter"},
		{"backslash", makeZip(t, []zipEntry{manifest, {name: `..\..\x`, data: "x"}}), "backslash"},
		{"symlink", makeZip(t, []zipEntry{manifest, {name: "server/index.js", data: "/etc/passwd", mode: fs.ModeSymlink | 0o777}}), "symbolic link"},
		{"named pipe", makeZip(t, []zipEntry{manifest, {name: "fifo", mode: fs.ModeNamedPipe | 0o644}}), "not a regular file"},
		{"nul in name", makeZip(t, []zipEntry{manifest, {name: "a\x00b", data: "x"}}), "not valid UTF-8"},
		{"duplicate manifest", makeZip(t, []zipEntry{manifest, {name: "manifest.json", data: "{}"}}), "appears twice"},
		{"duplicate by case", makeZip(t, []zipEntry{manifest, {name: "Server/a.js"}, {name: "server/A.js"}}), "appears twice"},
		{"no manifest", makeZip(t, []zipEntry{{name: "server/index.js", data: "x"}}), "no manifest.json"},
		{"nested manifest only", makeZip(t, []zipEntry{{name: "sub/manifest.json", data: bundleManifest}}), "no manifest.json"},
		{"zip bomb manifest", makeZip(t, []zipEntry{{name: "manifest.json", data: bomb}}), "over the 4 MiB limit"},
		{"too many entries", makeZip(t, many), "entries, over the limit"},
		{"not a zip", []byte("PK\x03\x04 not really"), "not a zip archive"},
		{"empty", nil, "not a zip archive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := scanBundleBytes(t, tc.data)
			if len(res.Servers) != 0 {
				t.Errorf("a hostile bundle yields servers: %v", res.Servers[0].Name)
			}
			if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "extension bundle refused") || !strings.Contains(res.Errors[0].Message, tc.want) {
				t.Errorf("errors = %+v, want one saying %q", res.Errors, tc.want)
			}
		})
	}
}

// TestBundleFromMCPBCLI scans a bundle packed by the real @anthropic-ai/mcpb
// CLI (2.1.2, `mcpb pack`): its server with the defaults Claude Desktop
// would use, the sensitive setting never given a value, and no error.
func TestBundleFromMCPBCLI(t *testing.T) {
	p, err := filepath.Abs(filepath.Join("testdata", "extensions", "weather-1.2.0.mcpb"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := scanner.Scan(context.Background(), scanner.Options{Paths: []string{p}, GOOS: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 || len(res.Servers) != 1 {
		t.Fatalf("errors %+v, %d servers", res.Errors, len(res.Servers))
	}
	s := res.Servers[0]
	if s.Name != "weather" || s.Scope != scanner.ScopeExtension || s.Client != scanner.ClientClaudeDesktop || s.Status != reports.StatusActive {
		t.Errorf("server %s %s %s %s", s.Name, s.Scope, s.Client, s.Status)
	}
	want := []string{"${__dirname}/server/index.js", "--dirs", "${HOME}/Desktop", "--units=metric", "--verbose=false"}
	if strings.Join(s.Args, " ") != strings.Join(want, " ") {
		t.Errorf("args = %q, want %q", s.Args, want)
	}
	if s.Env["WEATHER_API_KEY"] != "${user_config.api_key}" || s.Env["WEATHER_BASE_URL"] != "https://api.weather.acme.example" {
		t.Errorf("env = %v", s.Env)
	}
	if s.DeclaredTools == nil || !strings.HasSuffix(s.DeclaredTools.Path, "weather-1.2.0.mcpb!/manifest.json") {
		t.Errorf("declared tools = %+v", s.DeclaredTools)
	}
}

// TestSignedBundle: the signature block mcpb sign appends after the zip
// does not stop the archive from being read; it is reported as present,
// never as verified (mcpguard does not check it).
func TestSignedBundle(t *testing.T) {
	data := makeZip(t, []zipEntry{{name: "manifest.json", data: bundleManifest}})
	data = append(data, []byte("MCPB_SIG_V1\x04\x00\x00\x00sigsMCPB_SIG_END")...)
	res := scanBundleBytes(t, data)
	if len(res.Errors) != 0 || len(res.Servers) != 1 {
		t.Fatalf("errors %+v, %d servers", res.Errors, len(res.Servers))
	}
	b, _ := res.Servers[0].Details["bundle"].(map[string]any)
	if b["signature_block"] != true || b["signature_verified"] != false || b["signed"] != nil {
		t.Errorf("bundle details = %v, want a signature block present and not verified", b)
	}
}

// FuzzBundle feeds arbitrary bytes as a .mcpb named on the command line.
// The property: no panic; either servers with a status and an id, or
// errors that name the file.
func FuzzBundle(f *testing.F) {
	f.Add(makeZip(f, []zipEntry{{name: "manifest.json", data: bundleManifest}}))
	f.Add(makeZip(f, []zipEntry{{name: "manifest.json", data: `{"server":{"mcp_config":{"command":"x","args":["${user_config.a}"],"platform_overrides":{"linux":{"args":7}}}},"user_config":{"a":{"default":[1,true,null]}}}`}}))
	f.Add(makeZip(f, []zipEntry{{name: "manifest.json", data: "[]"}, {name: "../x"}}))
	if data, err := os.ReadFile(filepath.Join("testdata", "extensions", "weather-1.2.0.mcpb")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("MCPB_SIG_V1MCPB_SIG_END"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := scanBundleBytes(t, data)
		for _, s := range res.Servers {
			if s.Status == "" || s.ID == "" {
				t.Fatalf("server without status or id: %+v", s)
			}
		}
		for _, e := range res.Errors {
			if e.Path == "" || e.Message == "" {
				t.Fatalf("error without path or message: %+v", e)
			}
		}
		if len(res.Servers) == 0 && len(res.Errors) == 0 {
			t.Fatal("neither a server nor an error")
		}
	})
}

// TestExtensionPolicy: the organisation's extension policy (Claude
// Desktop's enterprise settings) blocks every extension when extensions are
// off, and every extension whose install record is not signed when
// signatures are required; the XML property list of macOS and the JSON
// file of the Linux builds are read alike, and a binary property list is
// an error that leaves the policy unknown.
func TestExtensionPolicy(t *testing.T) {
	plist := func(body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` + body + `</dict></plist>`
	}
	cases := []struct {
		name, file, data string
		want             map[string]string // extension id -> status reason
		errs             int
	}{
		{"off", "enterprise.json", `{"isDesktopExtensionEnabled": false}`,
			map[string]string{"local.mcpb.acme-corp.weather": "blocked EXTENSIONS_DISABLED", "ant.dir.gh.acme.files": "blocked EXTENSIONS_DISABLED"}, 0},
		{"off by the dxt name", "enterprise.json", `{"isDxtEnabled": false}`,
			map[string]string{"local.mcpb.acme-corp.weather": "blocked EXTENSIONS_DISABLED"}, 0},
		{"canonical key wins", "enterprise.json", `{"isDxtEnabled": false, "isDesktopExtensionEnabled": true}`,
			map[string]string{"local.mcpb.acme-corp.weather": "active ALLOWED"}, 0},
		{"signature required", "enterprise.json", `{"isDesktopExtensionSignatureRequired": true}`,
			map[string]string{"local.mcpb.acme-corp.weather": "blocked EXTENSION_UNSIGNED", "ant.dir.gh.acme.files": "disabled CLIENT_DISABLED"}, 0},
		{"plist", "com.anthropic.claudefordesktop.plist", plist(`<key>isDesktopExtensionEnabled</key><false/>`),
			map[string]string{"local.mcpb.acme-corp.weather": "blocked EXTENSIONS_DISABLED"}, 0},
		{"binary plist (plistlib)", "com.anthropic.claudefordesktop.plist", string(mustRead(t, filepath.Join("testdata", "extensions", "com.anthropic.claudefordesktop.plist"))),
			map[string]string{"local.mcpb.acme-corp.weather": "blocked EXTENSION_UNSIGNED", "ant.dir.gh.acme.files": "disabled CLIENT_DISABLED"}, 0},
		{"broken binary plist", "com.anthropic.claudefordesktop.plist", "bplist00\x01\x02",
			map[string]string{"local.mcpb.acme-corp.weather": "active ALLOWED"}, 1},
		{"none", "", "", map[string]string{"local.mcpb.acme-corp.weather": "active ALLOWED", "ant.dir.gh.acme.files": "disabled CLIENT_DISABLED"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := stageClient(t, "claude-desktop-extensions")
			opts := scanner.Options{Home: filepath.Join(root, "home"), GOOS: "linux", LookupEnv: emptyEnv,
				DesktopPolicyFile: filepath.Join(root, "no-policy.json")}
			if tc.file != "" {
				opts.DesktopPolicyFile = filepath.Join(root, tc.file)
				writeAbs(t, opts.DesktopPolicyFile, tc.data)
			}
			res, err := scanner.Scan(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			for id, want := range tc.want {
				found := false
				for _, s := range res.Servers {
					if s.Name == id && s.Scope == scanner.ScopeExtension {
						found = true
						if got := string(s.Status) + " " + strings.Join(s.Decision.Reasons, ","); got != want {
							t.Errorf("%s: %s, want %s", id, got, want)
						}
					}
				}
				if !found {
					t.Errorf("no extension %s", id)
				}
			}
			var policyErrs int
			for _, e := range res.Errors {
				if e.Path == opts.DesktopPolicyFile {
					policyErrs++
				}
			}
			if policyErrs != tc.errs {
				t.Errorf("%d errors about the policy file, want %d: %+v", policyErrs, tc.errs, res.Errors)
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestWhatIfExtensionsEqualScan: a what-if over a saved report predicts,
// extension by extension, what a scan with the proposal as its --policy
// reports (decision and intended change).
func TestWhatIfExtensionsEqualScan(t *testing.T) {
	for _, proposal := range []string{`{"isDesktopExtensionEnabled": false}`, `{"isDesktopExtensionSignatureRequired": true}`, `{"isDxtEnabled": true}`} {
		t.Run(proposal, func(t *testing.T) {
			root := stageClient(t, "claude-desktop-extensions")
			file := filepath.Join(root, "proposal.json")
			writeAbs(t, file, proposal)
			base := scanner.Options{Home: filepath.Join(root, "home"), GOOS: "linux", LookupEnv: emptyEnv, Policy: testEngine(t),
				DesktopPolicyFile: filepath.Join(root, "none.json")}
			saved, err := scanner.Scan(context.Background(), base)
			if err != nil {
				t.Fatal(err)
			}
			withPolicy := base
			withPolicy.PolicyFiles = []string{file}
			scanned, err := scanner.Scan(context.Background(), withPolicy)
			if err != nil {
				t.Fatal(err)
			}
			p, err := scanner.NewProposal(scanner.ProposalOptions{Policy: testEngine(t), PolicyFiles: []string{file}})
			if err != nil {
				t.Fatal(err)
			}
			rep := runner.BuildReport(saved, runner.Meta{}, nil)
			judged, err := p.Judge(context.Background(), "linux", rep.Servers)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]*scanner.Server{}
			for _, s := range scanned.Servers {
				byID[s.ID] = s
			}
			for i, s := range rep.Servers {
				if s.Scope != scanner.ScopeExtension {
					continue
				}
				want := byID[s.ID]
				change, _ := want.Details["intended_change"].(string)
				got := judged[i]
				if !got.Judged && s.Status != reports.StatusInvalid {
					t.Errorf("%s: not judged", s.Name)
					continue
				}
				if s.Status == reports.StatusInvalid {
					continue
				}
				if strings.Join(got.Decision.Reasons, ",") != strings.Join(want.Decision.Reasons, ",") || got.Change != change || got.Status != want.Status {
					t.Errorf("%s: what-if %s %v %q, scan %s %v %q", s.Name, got.Status, got.Decision.Reasons, got.Change, want.Status, want.Decision.Reasons, change)
				}
			}
		})
	}
}

// FuzzExtensionFiles feeds arbitrary bytes to an installed extension's
// files (which: 0 manifest.json, 1 its settings, 2
// extensions-installations.json, 3 the enterprise settings). The property:
// no panic, every server has a status and an id, every error names a path,
// and, while the manifest marks it sensitive, the planted value never
// reaches a server.
func FuzzExtensionFiles(f *testing.F) {
	seeds := []string{
		bundleManifest,
		`{"server":{"mcp_config":{"command":"${__dirname}${/}x","args":["${user_config.k}","${user_config.k}x"],"env":{"A":"${user_config.s}"},"platform_overrides":{"darwin":{"command":7,"args":null,"env":[]}}}},"user_config":{"k":{"multiple":true,"default":["${HOME}","${user_config.k}"]},"s":{"sensitive":true,"required":true}}}`,
		`{"isEnabled":true,"userConfig":{"api_key":"x","allowed_dirs":[1,[2],{"a":3}],"units":null}}`,
		`{"extensions":{"local.mcpb.acme-corp.weather":{"signatureInfo":{"status":7}}}}`,
		`{"isDesktopExtensionEnabled":"false","isDxtSignatureRequired":true}`,
		`{`, `[]`, ``, `null`,
	}
	for _, s := range seeds {
		for which := uint8(0); which < 4; which++ {
			f.Add([]byte(s), which)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		root := stageClient(t, "claude-desktop-extensions")
		dir := filepath.Join(root, "home", "Library", "Application Support", "Claude")
		id := "local.mcpb.acme-corp.weather"
		targets := []string{
			filepath.Join(dir, "Claude Extensions", id, "manifest.json"),
			filepath.Join(dir, "Claude Extensions Settings", id+".json"),
			filepath.Join(dir, "extensions-installations.json"),
			filepath.Join(root, "enterprise.json"),
		}
		writeAbs(t, targets[int(which)%len(targets)], string(data))
		res, err := scanner.Scan(context.Background(), scanner.Options{Home: filepath.Join(root, "home"), GOOS: "darwin", LookupEnv: emptyEnv,
			DesktopPolicyFile: targets[3]})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range res.Servers {
			if s.Status == "" || s.ID == "" {
				t.Fatalf("server without status or id: %+v", s)
			}
			all := s.Command + strings.Join(s.Args, " ")
			for _, v := range s.Env {
				all += v
			}
			// With the manifest replaced, api_key may no longer be marked
			// sensitive: then its value is an ordinary setting.
			if which%4 != 0 && strings.Contains(all, plantedSecret) {
				t.Fatalf("the sensitive value reached server %s", s.Name)
			}
		}
		for _, e := range res.Errors {
			if e.Path == "" || e.Message == "" {
				t.Fatalf("error without path or message: %+v", e)
			}
		}
	})
}

// TestWindowsSpecialEntryNames: names Windows unpacks as another file or a
// device are refused; ordinary look-alikes are not.
func TestWindowsSpecialEntryNames(t *testing.T) {
	for name, refused := range map[string]bool{
		"server/CON": true, "server/nul.js": true, "Com1.txt": true, "lpt9": true, "server/a.": true, "server/a ": true,
		"a:b": true, "server/console.js": false, "server/com10.js": false, "server/x.js": false, "server/a.b": false,
	} {
		data := makeZip(t, []zipEntry{{name: "manifest.json", data: bundleManifest}, {name: name, data: "x"}})
		res := scanBundleBytes(t, data)
		if got := len(res.Servers) == 0; got != refused {
			t.Errorf("%q: refused = %v, want %v (errors %+v)", name, got, refused, res.Errors)
		}
	}
}

// TestExtensionPolicyOnWindows: Claude Desktop's enterprise settings are in
// the registry on Windows, which no file holds: the policy is reported as
// unknown, and no extension is judged by it.
func TestExtensionPolicyOnWindows(t *testing.T) {
	root := stageClient(t, "claude-desktop-extensions")
	res, err := scanner.Scan(context.Background(), scanner.Options{Home: filepath.Join(root, "home"), GOOS: "windows", LookupEnv: emptyEnv})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range res.Servers {
		if s.Scope != scanner.ScopeExtension {
			continue
		}
		n++
		pol, _ := s.Details["extension_policy"].(map[string]any)
		if why, _ := pol["unknown"].(string); !strings.Contains(why, `HKLM\SOFTWARE\Policies\Claude`) {
			t.Errorf("%s: extension_policy = %v", s.Name, s.Details["extension_policy"])
		}
		if slices.Contains(s.Decision.Reasons, reports.ReasonExtensionsDisabled) || slices.Contains(s.Decision.Reasons, reports.ReasonExtensionUnsigned) {
			t.Errorf("%s judged by an unknown policy: %v", s.Name, s.Decision.Reasons)
		}
	}
	if n != 5 {
		t.Errorf("%d extensions, want the 5 of every layout", n)
	}
}
