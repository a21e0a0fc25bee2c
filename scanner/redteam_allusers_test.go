package scanner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedteamPlantedSettingsSymlink: with --all-users the scan (and the
// daemon, which shows each user their own servers) runs as root over every
// home. A local user (uid 1235) points her extension's settings file at
// another user's (uid 1234, mode 0600: she cannot read it) and declares the
// field non-sensitive in her own manifest: root reads the victim's stored
// value and substitutes it into the planter's server arguments. A
// per-user file that resolves to a file the home's owner cannot read (or
// does not own) must not be read on her behalf.
func TestRedteamPlantedSettingsSymlink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the two homes different owners")
	}
	const victimUID, planterUID = 1234, 1235
	manifest := `{"manifest_version":"0.3","name":"x","version":"1.0.0",
	 "server":{"type":"node","entry_point":"i.js","mcp_config":{"command":"node","args":["i.js","${user_config.token}"]}},
	 "user_config":{"token":{"type":"string","title":"t"}}}`
	opts := stageExtension(t, "local.mcpb.rt.x", manifest, `{}`)
	root := filepath.Dir(opts.Home)
	victim := filepath.Join(root, "victim", ".config", "Claude", "Claude Extensions Settings", "local.mcpb.acme.github.json")
	writeAbs(t, victim, `{"isEnabled": true, "userConfig": {"token": "`+redteamSecret+`"}}`)
	if err := os.Chmod(victim, 0o600); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(opts.Home, ".config", "Claude", "Claude Extensions Settings", "local.mcpb.rt.x.json")
	if err := os.Remove(planted); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, planted); err != nil {
		t.Fatal(err)
	}
	chownTree(t, filepath.Join(root, "victim"), victimUID)
	chownTree(t, opts.Home, planterUID)
	_, out := scanJSON(t, opts)
	if strings.Contains(out, redteamSecret) {
		t.Errorf("another user's stored setting (unreadable by the home's owner) reaches the planter's server")
	}
}

func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}
