package scanner_test

import (
	"strings"
	"testing"
)

// TestRedteamBrokenSettingsNoSecret: an extension's settings file holds the
// values of its sensitive fields. When the file is malformed, the error
// mcpguard reports must not quote the value.
func TestRedteamBrokenSettingsNoSecret(t *testing.T) {
	manifest := `{"manifest_version":"0.3","name":"x","version":"1.0.0",
	 "server":{"type":"node","entry_point":"i.js","mcp_config":{"command":"node","args":["i.js"],"env":{"K":"${user_config.api_key}"}}},
	 "user_config":{"api_key":{"type":"string","title":"k","sensitive":true}}}`
	for name, settings := range map[string]string{
		"missing comma":     `{"isEnabled": true, "userConfig": {"api_key": "` + redteamSecret + `" "b": 1}}`,
		"unterminated":      `{"isEnabled": true, "userConfig": {"api_key": "` + redteamSecret,
		"bare value":        `{"isEnabled": true, "userConfig": {"api_key": ` + strings.ReplaceAll(redteamSecret, "-", "_") + `}}`,
		"control character": `{"isEnabled": true, "userConfig": {"api_key": "` + redteamSecret + "\x01" + `"}}`,
		"trailing data":     `{"isEnabled": true, "userConfig": {"api_key": "x"}} "` + redteamSecret + `"`,
	} {
		t.Run(name, func(t *testing.T) {
			_, out := scanJSON(t, stageExtension(t, "local.mcpb.rt.x", manifest, settings))
			if strings.Contains(out, redteamSecret) || strings.Contains(out, strings.ReplaceAll(redteamSecret, "-", "_")) {
				t.Errorf("a malformed settings file's secret reaches the scan result")
			}
		})
	}
}
