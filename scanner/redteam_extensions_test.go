package scanner_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/scanner"
)

// Red-team tests of issue 46 (Claude Desktop extensions). Each one states
// what Claude Desktop does and fails while mcpguard disagrees.

const redteamSecret = "sk-live-REDTEAM-0123456789abcdef"

// stageExtension writes one installed extension (Linux layout) with its
// settings file and returns the scan options for it.
func stageExtension(t *testing.T, id, manifest, settings string) scanner.Options {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	data := filepath.Join(home, ".config", "Claude")
	writeAbs(t, filepath.Join(data, "Claude Extensions", id, "manifest.json"), manifest)
	writeAbs(t, filepath.Join(data, "Claude Extensions Settings", id+".json"), settings)
	return scanner.Options{Home: home, GOOS: "linux", LookupEnv: emptyEnv,
		DesktopPolicyFile: filepath.Join(root, "no-policy.json")}
}

func scanJSON(t *testing.T, opts scanner.Options) (*scanner.Result, string) {
	t.Helper()
	res, err := scanner.Scan(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestRedteamSensitiveNeverPrinted: a user_config field that Claude Desktop
// treats as sensitive (JSON.parse: the last of duplicate keys wins) must
// never have its stored value substituted into the reported server.
func TestRedteamSensitiveNeverPrinted(t *testing.T) {
	settings := `{"isEnabled": true, "userConfig": {"api_key": "` + redteamSecret + `"}}`
	server := `"server":{"type":"node","entry_point":"i.js","mcp_config":{"command":"node","args":["i.js","--key=${user_config.api_key}"],"env":{"K":"${user_config.api_key}"}}}`
	cases := map[string]string{
		"duplicate sensitive key, last true": `{"manifest_version":"0.3","name":"x","version":"1.0.0",` + server + `,
			"user_config":{"api_key":{"type":"string","title":"k","sensitive":false,"sensitive":true}}}`,
		"duplicate field, last sensitive": `{"manifest_version":"0.3","name":"x","version":"1.0.0",` + server + `,
			"user_config":{"api_key":{"type":"string","title":"k"},"api_key":{"type":"string","title":"k","sensitive":true}}}`,
	}
	for name, manifest := range cases {
		t.Run(name, func(t *testing.T) {
			_, out := scanJSON(t, stageExtension(t, "local.mcpb.rt.x", manifest, settings))
			if strings.Contains(out, redteamSecret) {
				t.Errorf("the sensitive value reaches the scan result")
			}
		})
	}
}

// TestRedteamPolicyValueOfWrongType: an enterprise setting whose value is
// not a boolean is neither obeyed nor reported; mcpguard then calls every
// extension allowed without an error. It must be a path:line:col error.
func TestRedteamPolicyValueOfWrongType(t *testing.T) {
	plist := func(body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` + body + `</dict></plist>`
	}
	cases := []struct{ name, file, data string }{
		{"json string", "enterprise.json", `{"isDesktopExtensionEnabled": "false"}`},
		{"json number", "enterprise.json", `{"isDesktopExtensionEnabled": 0}`},
		{"plist integer", "com.anthropic.claudefordesktop.plist", plist(`<key>isDesktopExtensionEnabled</key><integer>0</integer>`)},
		{"plist string", "com.anthropic.claudefordesktop.plist", plist(`<key>isDesktopExtensionEnabled</key><string>false</string>`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := stageClient(t, "claude-desktop-extensions")
			opts := scanner.Options{Home: filepath.Join(root, "home"), GOOS: "linux", LookupEnv: emptyEnv,
				DesktopPolicyFile: filepath.Join(root, tc.file)}
			writeAbs(t, opts.DesktopPolicyFile, tc.data)
			res, _ := scanJSON(t, opts)
			var located bool
			for _, e := range res.Errors {
				if e.Path == opts.DesktopPolicyFile && e.Line > 0 && e.Column > 0 {
					located = true
				}
			}
			if !located {
				t.Errorf("no path:line:col error for a non-boolean policy value; errors = %+v", res.Errors)
			}
		})
	}
}

// TestRedteamPlistNotParsed: the macOS managed preferences are read with
// a regular expression, not as XML: a commented-out key, a key of a nested
// dictionary or an XML character reference change what mcpguard reads
// while CFPreferences reads isDesktopExtensionEnabled = false. The
// extension must be blocked (or the file an error), never silently
// allowed.
func TestRedteamPlistNotParsed(t *testing.T) {
	plist := func(body string) string {
		return `<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` + body + `</dict></plist>`
	}
	cases := map[string]string{
		"comment after":  plist(`<key>isDesktopExtensionEnabled</key><false/><!-- old: <key>isDesktopExtensionEnabled</key><true/> -->`),
		"nested dict":    plist(`<key>isDesktopExtensionEnabled</key><false/><key>notes</key><dict><key>isDesktopExtensionEnabled</key><true/></dict>`),
		"char reference": plist(`<key>isDesktopExtension&#69;nabled</key><false/>`),
		"cdata key":      plist(`<key><![CDATA[isDesktopExtensionEnabled]]></key><false/>`),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			root := stageClient(t, "claude-desktop-extensions")
			opts := scanner.Options{Home: filepath.Join(root, "home"), GOOS: "linux", LookupEnv: emptyEnv,
				DesktopPolicyFile: filepath.Join(root, "com.anthropic.claudefordesktop.plist")}
			writeAbs(t, opts.DesktopPolicyFile, data)
			res, _ := scanJSON(t, opts)
			for _, e := range res.Errors {
				if e.Path == opts.DesktopPolicyFile {
					return // refused loudly: fine
				}
			}
			for _, s := range res.Servers {
				if s.Name == "local.mcpb.acme-corp.weather" && s.Status != "blocked" {
					t.Errorf("%s is %s %v; Claude Desktop reads isDesktopExtensionEnabled=false", s.Name, s.Status, s.Decision.Reasons)
				}
			}
		})
	}
}

// rawZip builds a zip whose entries carry raw creator and external
// attributes, as a hostile packer can write them.
func rawZip(t *testing.T, entries []struct {
	name, data    string
	creator       uint16
	externalAttrs uint32
}) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store, CreatorVersion: e.creator, ExternalAttrs: e.externalAttrs,
			CRC32: crc32.ChecksumIEEE([]byte(e.data)), CompressedSize64: uint64(len(e.data)), UncompressedSize64: uint64(len(e.data))}
		f, err := w.CreateRaw(h)
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

// TestRedteamBundleHiddenSymlink: a symlink whose Unix mode sits in the
// high 16 bits of the external attributes while the "made by" byte says
// MS-DOS (0). Go's zip reader ignores those bits for a non-Unix creator,
// but extractors such as extract-zip/yauzl read (attrs>>16)&S_IFMT
// whatever the creator, and create the link. It must be refused.
func TestRedteamBundleHiddenSymlink(t *testing.T) {
	type ent = struct {
		name, data    string
		creator       uint16
		externalAttrs uint32
	}
	const sIFLNK = 0o120777
	data := rawZip(t, []ent{
		{name: "manifest.json", data: bundleManifest, creator: 20},
		{name: "server/index.js", data: "/home/victim/.ssh/id_ed25519", creator: 20, externalAttrs: sIFLNK << 16},
	})
	res := scanBundleBytes(t, data)
	for _, e := range res.Errors {
		t.Logf("error: %s", e.Message)
	}
	if len(res.Servers) != 0 || len(res.Errors) == 0 {
		t.Errorf("a bundle with a symlink entry (DOS creator, Unix mode bits) is accepted: %d servers, errors %+v", len(res.Servers), res.Errors)
	}
}

// TestRedteamBundleNTFSStream: "manifest.json::$DATA" is, on NTFS, the
// main data stream of manifest.json: unpacked on Windows it overwrites the
// manifest mcpguard read (and any name with ':' is a stream). The names
// are one file there and must be refused like duplicate names.
func TestRedteamBundleNTFSStream(t *testing.T) {
	evil := strings.Replace(bundleManifest, `"command":"node"`, `"command":"powershell"`, 1)
	data := makeZip(t, []zipEntry{
		{name: "manifest.json", data: bundleManifest},
		{name: "manifest.json::$DATA", data: evil},
	})
	res := scanBundleBytes(t, data)
	if len(res.Servers) != 0 {
		t.Errorf("a bundle with an NTFS stream of manifest.json is accepted; reported command %q", res.Servers[0].Command)
	}
}

func scanBundleWithPolicy(t *testing.T, data []byte, policy string) *scanner.Result {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "x.mcpb")
	writeAbs(t, p, string(data))
	pol := filepath.Join(dir, "enterprise.json")
	writeAbs(t, pol, policy)
	res, err := scanner.Scan(context.Background(), scanner.Options{Paths: []string{p}, GOOS: "linux", LookupEnv: emptyEnv, DesktopPolicyFile: pol})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRedteamBundleIgnoresExtensionPolicy: a .mcpb named on the command
// line is reported as Claude Desktop "would run it once installed", but
// the organisation's extension policy is never applied to it: with
// extensions turned off it is still active and allowed.
func TestRedteamBundleIgnoresExtensionPolicy(t *testing.T) {
	data := makeZip(t, []zipEntry{{name: "manifest.json", data: bundleManifest}})
	res := scanBundleWithPolicy(t, data, `{"isDesktopExtensionEnabled": false}`)
	if len(res.Servers) != 1 {
		t.Fatalf("%d servers, errors %+v", len(res.Servers), res.Errors)
	}
	if s := res.Servers[0]; s.Decision.Allowed || s.Status == "active" {
		t.Errorf("bundle is %s allowed=%v %v under isDesktopExtensionEnabled: false", s.Status, s.Decision.Allowed, s.Decision.Reasons)
	}
}

// TestRedteamBundleSignatureUnverified: details.bundle.signed is true for
// any bytes between MCPB_SIG_V1 and MCPB_SIG_END; nothing checks the
// PKCS#7 block against the archive. A reviewer (or a policy reading
// details) trusts a signature that does not exist. Either verify it or
// call the field what it is (signature_block) and never "signed".
func TestRedteamBundleSignatureUnverified(t *testing.T) {
	data := makeZip(t, []zipEntry{{name: "manifest.json", data: bundleManifest}})
	data = append(data, []byte("MCPB_SIG_V1\x04\x00\x00\x00junkMCPB_SIG_END")...)
	res := scanBundleWithPolicy(t, data, `{}`)
	if len(res.Servers) != 1 {
		t.Fatalf("%d servers, errors %+v", len(res.Servers), res.Errors)
	}
	if b, _ := res.Servers[0].Details["bundle"].(map[string]any); b["signed"] == true {
		t.Errorf("a junk signature block is reported signed: %v", b)
	}
}
