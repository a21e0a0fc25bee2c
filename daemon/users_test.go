package daemon

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

func TestParsePasswd(t *testing.T) {
	root := t.TempDir()
	homes := map[string]string{}
	for _, n := range []string{"root", "ana", "bob", "svc", "gone"} {
		homes[n] = filepath.Join(root, n)
		if n != "gone" {
			write(t, filepath.Join(homes[n], ".keep"), "")
		}
	}
	passwd := "# comment\n" +
		"root:x:0:0:root:" + homes["root"] + ":/bin/bash\n" +
		"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n" +
		"ana:x:1000:1000:Ana:" + homes["ana"] + ":/bin/zsh\n" +
		"bob:x:1001:1001::" + homes["bob"] + ":/bin/bash\n" +
		"svc:x:1002:1002::" + homes["svc"] + ":/usr/sbin/nologin\n" +
		"gone:x:1003:1003::" + homes["gone"] + ":/bin/bash\n" +
		"nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n" +
		"+nis\nbroken line\n"
	got := parsePasswdMin([]byte(passwd), 1000)
	want := []User{{"root", 0, homes["root"]}, {"ana", 1000, homes["ana"]}, {"bob", 1001, homes["bob"]}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("users %+v, want %+v", got, want)
	}
}

// TestMergeUsers: the same user-level file of two users gives two servers
// with distinct ids, each owned; a managed server appears once, unowned;
// a user sees their own and the machine-wide servers only.
func TestMergeUsers(t *testing.T) {
	mk := func(user, home string) userScan {
		src := filepath.Join(home, ".cursor", "mcp.json")
		srv := reports.Server{ID: "s-1111111111111111", Name: "gh", Client: "cursor", Scope: "user", Source: reports.Location{Path: src},
			Status: reports.StatusActive, FindingIDs: []string{"f-1111111111111111"}}
		mgd := reports.Server{ID: "s-2222222222222222", Name: "corp", Client: "claude-code", Scope: "managed",
			Source: reports.Location{Path: "/etc/claude-code/managed-mcp.json"}, Status: reports.StatusActive, FindingIDs: []string{}}
		f := reports.Finding{ID: "f-1111111111111111", Rule: "MCPG-C002", ServerID: srv.ID, Location: reports.Location{Path: src}}
		rep := &reports.Report{Servers: []reports.Server{srv, mgd}, Findings: []reports.Finding{f}}
		return userScan{user: User{Name: user, Home: home}, res: &runner.Result{Report: rep, Scan: &scanner.Result{}}}
	}
	inv := mergeUsers([]userScan{mk("ana", "/home/ana"), mk("bob", "/home/bob")}, []byte("k"), runner.Meta{}, "/etc/claude-code")
	rep := inv.report
	if len(rep.Servers) != 3 || len(rep.Findings) != 2 {
		t.Fatalf("%d servers, %d findings; want 3, 2", len(rep.Servers), len(rep.Findings))
	}
	owners := map[string]string{}
	for _, s := range rep.Servers {
		owners[s.ID] = s.User
		for _, fid := range s.FindingIDs {
			found := false
			for _, f := range rep.Findings {
				found = found || (f.ID == fid && f.ServerID == s.ID)
			}
			if !found {
				t.Errorf("server %s lists finding %s, which is not its", s.ID, fid)
			}
		}
	}
	if owners["s-2222222222222222"] != "" || len(owners) != 3 {
		t.Errorf("owners %v", owners)
	}
	ana := filterReport(rep, "ana", map[string]string{"ana": "/home/ana", "bob": "/home/bob"}, inv.owners)
	for _, s := range ana.Servers {
		if s.User != "ana" && s.User != "" {
			t.Errorf("ana sees %s's server", s.User)
		}
	}
	if len(ana.Servers) != 2 || len(ana.Findings) != 1 {
		t.Errorf("ana sees %d servers and %d findings; want 2, 1", len(ana.Servers), len(ana.Findings))
	}
}

func TestDefaultPaths(t *testing.T) {
	env := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	tests := []struct {
		goos   string
		system bool
		vars   map[string]string
		want   Paths
	}{
		{"linux", true, nil, Paths{"/var/lib/mcpguard", "/run/mcpguard/mcpguard.sock", "/var/lib/mcpguard/events.jsonl"}},
		{"linux", false, map[string]string{"XDG_STATE_HOME": "/s", "XDG_RUNTIME_DIR": "/run/user/1000"},
			Paths{"/s/mcpguard", "/run/user/1000/mcpguard.sock", "/s/mcpguard/events.jsonl"}},
		{"linux", false, nil, Paths{"/h/.local/state/mcpguard", "/h/.local/state/mcpguard/mcpguard.sock", "/h/.local/state/mcpguard/events.jsonl"}},
		{"darwin", true, nil, Paths{"/Library/Application Support/mcpguard", "/var/run/mcpguard/mcpguard.sock", "/Library/Application Support/mcpguard/events.jsonl"}},
		{"darwin", false, nil, Paths{"/h/Library/Application Support/mcpguard", "/h/Library/Application Support/mcpguard/mcpguard.sock", "/h/Library/Application Support/mcpguard/events.jsonl"}},
	}
	for _, tc := range tests {
		if got := DefaultPaths(tc.goos, tc.system, "/h", env(tc.vars)); got != tc.want {
			t.Errorf("%s system=%v: %+v, want %+v", tc.goos, tc.system, got, tc.want)
		}
	}
}
