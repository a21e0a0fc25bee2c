package managed

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// FuzzPolicyFile reads arbitrary bytes as a settings document (as --policy
// FILE.json and the managed directory are read) and runs every policy reader
// on it in every role: nothing may panic, and the lists must keep their
// invariants.
func FuzzPolicyFile(f *testing.F) {
	f.Add([]byte(`{"allowedMcpServers": [{"serverName": "docs"}, {"serverName": "b.c"}], "deniedMcpServers": {"serverName": "x"}}`))
	f.Add([]byte(`{"allowManagedMcpServersOnly": "yes", "strictPluginOnlyCustomization": ["mcp"], "allowedMcpServers": []}`))
	f.Add([]byte(`{"allowedMcpServers": [`))
	f.Add([]byte(``))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "policy.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		d, broken, exists, _ := LoadSettings(nil, path, KindPolicyFile)
		if !exists || (d == nil) == (broken == nil) {
			t.Fatalf("LoadSettings: doc %v, broken %v, exists %v", d, broken, exists)
		}
		if d == nil {
			return
		}
		if d.Root == nil || d.Root.Kind != jsonc.Object {
			t.Fatalf("document root %v is not an object", d.Root)
		}
		for _, key := range []string{KeyAllowed, KeyDenied} {
			l := ParseList(d, key)
			for _, e := range l.Entries {
				switch e.Key {
				case EntryName:
					if key == KeyAllowed && !ValidAllowName(e.Name) || e.Name == "" {
						t.Fatalf("invalid name entry kept: %+v", e)
					}
				case EntryCommand:
					if len(e.Command) == 0 {
						t.Fatalf("empty command entry kept")
					}
				case EntryURL:
				default:
					t.Fatalf("entry key %q", e.Key)
				}
			}
			for _, is := range l.Issues {
				if is.Effect != "fail-open" && is.Effect != "fail-closed" || is.Message == "" {
					t.Fatalf("issue %+v", is)
				}
			}
			if !l.Defined && len(l.Entries) > 0 {
				t.Fatalf("entries in an undefined list")
			}
		}
		for _, role := range [][4]*Document{{d, nil, nil, nil}, {nil, d, nil, nil}, {nil, nil, d, nil}, {nil, nil, nil, d}, {d, d, d, d}} {
			var managed []*Document
			if role[0] != nil {
				managed = []*Document{role[0], role[0]}
			}
			l := BuildLists(managed, role[1], role[2], role[3])
			if l.AllowDefined != (l.Allow != nil) || l.AllowOrgDefined != (l.AllowOrg != nil) {
				t.Fatalf("defined flags disagree with the lists: %+v", l)
			}
			if len(l.AllowOrg) > len(l.Allow) || len(l.DenyOrg) > len(l.Deny) || l.AllowOrgDefined && !l.AllowDefined {
				t.Fatalf("org lists exceed the lists: %+v", l)
			}
			if l.ManagedOnly && role[0] == nil {
				t.Fatalf("allowManagedMcpServersOnly honoured outside managed settings")
			}
		}
		ManagedOnly([]*Document{d})
		StrictPluginOnlyMCP([]*Document{d, d})
		LastBool([]*Document{d}, "enableAllProjectMcpServers")
		MergeNamed([]*Document{d, d}, "managedMcpServers")
		Env([]*Document{d})
		SchemaProblem(d)
		d.Strings("enabledMcpjsonServers")
	})
}
