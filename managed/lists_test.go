package managed

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// doc parses src as a settings document of kind.
func doc(t testing.TB, kind, src string) *Document {
	t.Helper()
	root, _, err := jsonc.Parse([]byte(src), jsonc.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	return &Document{Path: "/" + kind + ".json", Kind: kind, Root: root}
}

// entries renders entries compactly: name, [cmd], or <url>.
func entries(list []Entry) string {
	out := make([]string, len(list))
	for i, e := range list {
		switch e.Key {
		case EntryName:
			out[i] = e.Name
		case EntryCommand:
			out[i] = "[" + strings.Join(e.Command, " ") + "]"
		default:
			out[i] = "<" + e.URL + ">"
		}
	}
	return strings.Join(out, ",")
}

func TestParseList(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		src     string
		defined bool
		entries string
		issues  []string // "pointer effect" per issue
	}{
		{"absent allow", KeyAllowed, `{}`, false, "", nil},
		{"absent deny", KeyDenied, `{"allowedMcpServers": []}`, false, "", nil},
		{"empty allow", KeyAllowed, `{"allowedMcpServers": []}`, true, "", nil},
		{"empty deny", KeyDenied, `{"deniedMcpServers": []}`, true, "", nil},
		{"every entry kind", KeyAllowed, `{"allowedMcpServers": [{"serverName": "docs"}, {"serverCommand": ["npx", "-y", "pkg"]}, {"serverUrl": "https://*.acme.example/*"}]}`,
			true, "docs,[npx -y pkg],<https://*.acme.example/*>", nil},
		// §2.4 examples
		{"one invalid allow name dropped", KeyAllowed, `{"allowedMcpServers": [{"serverName":"docs"}, {"serverName":"b.c"}]}`,
			true, "docs", []string{"/allowedMcpServers/1 fail-closed"}},
		{"two keys in one entry", KeyAllowed, `{"allowedMcpServers": [{"serverName":"x","serverUrl":"https://x.example/*"}]}`,
			true, "", []string{"/allowedMcpServers/0 fail-closed"}},
		{"allow object, not array", KeyAllowed, `{"allowedMcpServers": {"serverName":"x"}}`,
			true, "", []string{"/allowedMcpServers fail-closed"}},
		{"deny object, not array", KeyDenied, `{"deniedMcpServers": {"serverName":"x"}}`,
			false, "", []string{"/deniedMcpServers fail-open"}},
		{"allow null", KeyAllowed, `{"allowedMcpServers": null}`, true, "", []string{"/allowedMcpServers fail-closed"}},
		{"deny string", KeyDenied, `{"deniedMcpServers": "evil"}`, false, "", []string{"/deniedMcpServers fail-open"}},
		// allow serverName must match ^[a-zA-Z0-9_-]+$
		{"allow name rules", KeyAllowed, `{"allowedMcpServers": [{"serverName":"*"}, {"serverName":"claude.ai Slack"}, {"serverName":""}, {"serverName":"my_tool-2"}, {"serverName":"é"}]}`,
			true, "my_tool-2", []string{"/allowedMcpServers/0 fail-closed", "/allowedMcpServers/1 fail-closed", "/allowedMcpServers/2 fail-closed", "/allowedMcpServers/4 fail-closed"}},
		// deny serverName: non-empty, no surrounding whitespace
		{"deny name rules", KeyDenied, `{"deniedMcpServers": [{"serverName":"x.y"}, {"serverName":"claude.ai Slack"}, {"serverName":" evil"}, {"serverName":"evil\t"}, {"serverName":""}, {"serverName":"plugin:acme:db"}]}`,
			true, "x.y,claude.ai Slack,plugin:acme:db", []string{"/deniedMcpServers/2 fail-open", "/deniedMcpServers/3 fail-open", "/deniedMcpServers/4 fail-open"}},
		{"command rules", KeyDenied, `{"deniedMcpServers": [{"serverCommand": []}, {"serverCommand": ["a", 1]}, {"serverCommand": "npx"}, {"serverCommand": [""]}]}`,
			true, "[]", []string{"/deniedMcpServers/0 fail-open", "/deniedMcpServers/1 fail-open", "/deniedMcpServers/2 fail-open"}},
		{"url rules", KeyAllowed, `{"allowedMcpServers": [{"serverUrl": 42}, {"serverUrl": ""}, {"serverUrl": "*"}, {"serverUrl": null}]}`,
			true, "<>,<*>", []string{"/allowedMcpServers/0 fail-closed", "/allowedMcpServers/3 fail-closed"}},
		{"name not a string", KeyAllowed, `{"allowedMcpServers": [{"serverName": 1}, {"serverName": ["docs"]}]}`,
			true, "", []string{"/allowedMcpServers/0 fail-closed", "/allowedMcpServers/1 fail-closed"}},
		{"entries not objects", KeyDenied, `{"deniedMcpServers": ["evil", ["evil"], null, 1]}`,
			true, "", []string{"/deniedMcpServers/0 fail-open", "/deniedMcpServers/1 fail-open", "/deniedMcpServers/2 fail-open", "/deniedMcpServers/3 fail-open"}},
		{"no known key", KeyAllowed, `{"allowedMcpServers": [{}, {"servername": "docs"}]}`,
			true, "", []string{"/allowedMcpServers/0 fail-closed", "/allowedMcpServers/1 fail-closed"}},
		{"other keys ignored", KeyAllowed, `{"allowedMcpServers": [{"serverName": "docs", "comment": "why", "serverNames": 1}]}`, true, "docs", nil},
		{"three keys", KeyDenied, `{"deniedMcpServers": [{"serverName": "a", "serverCommand": ["a"], "serverUrl": "a"}]}`,
			true, "", []string{"/deniedMcpServers/0 fail-open"}},
		{"duplicates kept", KeyDenied, `{"deniedMcpServers": [{"serverName": "a"}, {"serverName": "a"}]}`, true, "a,a", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := doc(t, KindManaged, tc.src)
			l := ParseList(d, tc.key)
			if l.Doc != d || l.Key != tc.key || l.Defined != tc.defined {
				t.Errorf("list %+v, want defined %v", l, tc.defined)
			}
			if got := entries(l.Entries); got != tc.entries {
				t.Errorf("entries %q, want %q", got, tc.entries)
			}
			var issues []string
			for _, is := range l.Issues {
				issues = append(issues, is.Loc.Pointer+" "+is.Effect)
				if is.Key != tc.key || is.Message == "" || is.Loc.Path != d.Path || is.Loc.Line == 0 {
					t.Errorf("issue %+v", is)
				}
			}
			if strings.Join(issues, "; ") != strings.Join(tc.issues, "; ") {
				t.Errorf("issues %q, want %q", issues, tc.issues)
			}
			for _, e := range l.Entries {
				if e.Doc != d || e.Loc.Path != d.Path || !strings.HasPrefix(e.Loc.Pointer, "/"+tc.key+"/") || e.Loc.Line == 0 {
					t.Errorf("entry %+v location %+v", e, e.Loc)
				}
			}
		})
	}
}

func TestParseListPositions(t *testing.T) {
	d := doc(t, KindManaged, "{\n  \"allowedMcpServers\": [\n    {\"serverName\": \"docs\"},\n    {\"serverName\": \"b.c\"}\n  ]\n}")
	l := ParseList(d, KeyAllowed)
	if len(l.Entries) != 1 || l.Entries[0].Loc.Line != 3 || l.Entries[0].Loc.Column != 5 || l.Entries[0].Loc.Pointer != "/allowedMcpServers/0" {
		t.Errorf("entry location %+v", l.Entries[0].Loc)
	}
	if len(l.Issues) != 1 || l.Issues[0].Loc.Line != 4 || l.Issues[0].Loc.Column != 5 {
		t.Errorf("issues %+v", l.Issues)
	}
	if want := `allowedMcpServers[1] is dropped: allow serverName "b.c" must match ^[a-zA-Z0-9_-]+$`; l.Issues[0].Message != want {
		t.Errorf("message %q, want %q", l.Issues[0].Message, want)
	}
}

func TestValidAllowName(t *testing.T) {
	for s, want := range map[string]bool{"docs": true, "A-b_9": true, "": false, "*": false, "b.c": false, "a b": false, "plugin:p:s": false, "é": false} {
		if got := ValidAllowName(s); got != want {
			t.Errorf("ValidAllowName(%q) = %v", s, got)
		}
	}
}

// lists renders the lists: "A=... D=... Aorg=... Dorg=..." with "-" for an undefined allowlist.
func lists(l *Lists) string {
	allow := func(defined bool, e []Entry) string {
		if !defined {
			if e != nil {
				return "BUG"
			}
			return "-"
		}
		if e == nil {
			return "BUG-nil"
		}
		return "[" + entries(e) + "]"
	}
	return fmt.Sprintf("A=%s D=[%s] Aorg=%s Dorg=[%s] only=%v", allow(l.AllowDefined, l.Allow), entries(l.Deny),
		allow(l.AllowOrgDefined, l.AllowOrg), entries(l.DenyOrg), l.ManagedOnly)
}

func TestBuildLists(t *testing.T) {
	type docs struct {
		managed              []string
		user, project, local string
	}
	tests := []struct {
		name string
		in   docs
		want string
	}{
		{"no sources", docs{}, "A=- D=[] Aorg=- Dorg=[] only=false"},
		{"no lists", docs{managed: []string{`{}`}, user: `{}`, project: `{}`, local: `{}`}, "A=- D=[] Aorg=- Dorg=[] only=false"},
		{"managed documents concatenated", docs{managed: []string{`{"allowedMcpServers": [{"serverName": "a"}]}`, `{"allowedMcpServers": [{"serverName": "b"}], "deniedMcpServers": [{"serverName": "x"}]}`}},
			"A=[a,b] D=[x] Aorg=[a,b] Dorg=[x] only=false"},
		{"every source in order", docs{
			managed: []string{`{"allowedMcpServers": [{"serverName": "m"}], "deniedMcpServers": [{"serverName": "dm"}]}`},
			user:    `{"allowedMcpServers": [{"serverName": "u"}], "deniedMcpServers": [{"serverName": "du"}]}`,
			project: `{"allowedMcpServers": [{"serverName": "p"}], "deniedMcpServers": [{"serverName": "dp"}]}`,
			local:   `{"allowedMcpServers": [{"serverName": "l"}], "deniedMcpServers": [{"serverName": "dl"}]}`},
			"A=[m,u,p,l] D=[dm,du,dp,dl] Aorg=[m,u] Dorg=[dm,du] only=false"},
		// §7.6: managed [] and a repository [x], no allowManagedMcpServersOnly: x is admitted
		{"repository widens managed []", docs{managed: []string{`{"allowedMcpServers": []}`}, project: `{"allowedMcpServers": [{"serverName": "x"}]}`},
			"A=[x] D=[] Aorg=[] Dorg=[] only=false"},
		// the same + allowManagedMcpServersOnly: EMPTY_ALLOWLIST
		{"managed only stops the widening", docs{managed: []string{`{"allowedMcpServers": [], "allowManagedMcpServersOnly": true}`}, project: `{"allowedMcpServers": [{"serverName": "x"}]}`},
			"A=[] D=[] Aorg=[] Dorg=[] only=true"},
		// allowManagedMcpServersOnly with no managed list: no allowlist at all
		{"managed only without a managed list", docs{managed: []string{`{"allowManagedMcpServersOnly": true}`}, user: `{"allowedMcpServers": []}`},
			"A=- D=[] Aorg=- Dorg=[] only=true"},
		{"managed only does not affect deny", docs{managed: []string{`{"allowManagedMcpServersOnly": true}`}, user: `{"deniedMcpServers": [{"serverName": "u"}]}`, project: `{"deniedMcpServers": [{"serverName": "p"}]}`},
			"A=- D=[u,p] Aorg=- Dorg=[u] only=true"},
		{"managed only in user settings is ignored", docs{user: `{"allowManagedMcpServersOnly": true, "allowedMcpServers": [{"serverName": "u"}]}`},
			"A=[u] D=[] Aorg=[u] Dorg=[] only=false"},
		// only the repository defines a list: A_org is undefined (§7.6)
		{"only a repository list", docs{project: `{"allowedMcpServers": [{"serverName": "zzz"}]}`}, "A=[zzz] D=[] Aorg=- Dorg=[] only=false"},
		{"every contribution invalid", docs{managed: []string{`{"allowedMcpServers": [{"serverName": "b.c"}]}`}, user: `{"allowedMcpServers": {"serverName": "x"}}`},
			"A=[] D=[] Aorg=[] Dorg=[] only=false"},
		{"non-array deny dropped", docs{managed: []string{`{"deniedMcpServers": {"serverName": "evil"}}`}}, "A=- D=[] Aorg=- Dorg=[] only=false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var managed []*Document
			for _, s := range tc.in.managed {
				managed = append(managed, doc(t, KindManaged, s))
			}
			opt := func(kind, src string) *Document {
				if src == "" {
					return nil
				}
				return doc(t, kind, src)
			}
			user, project, local := opt(KindUser, tc.in.user), opt(KindProject, tc.in.project), opt(KindLocal, tc.in.local)
			l := BuildLists(managed, user, project, local)
			if got := lists(l); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
			n := len(managed)
			for _, d := range []*Document{user, project, local} {
				if d != nil {
					n++
				}
			}
			if len(l.Parsed) != 2*n {
				t.Errorf("Parsed has %d lists for %d documents", len(l.Parsed), n)
			}
			if l.ManagedOnly != (l.ManagedOnlyDoc != nil && l.ManagedOnly) {
				t.Errorf("ManagedOnly %v with doc %v", l.ManagedOnly, l.ManagedOnlyDoc)
			}
		})
	}
}

func TestManagedOnly(t *testing.T) {
	tests := []struct {
		docs []string
		want bool
		doc  int // index of the deciding document, -1 for none
	}{
		{nil, false, -1},
		{[]string{`{}`}, false, -1},
		{[]string{`{"allowManagedMcpServersOnly": true}`}, true, 0},
		{[]string{`{"allowManagedMcpServersOnly": false}`}, false, 0},
		{[]string{`{"allowManagedMcpServersOnly": null}`}, false, 0},
		{[]string{`{"allowManagedMcpServersOnly": "yes"}`}, true, 0},
		{[]string{`{"allowManagedMcpServersOnly": "false"}`}, true, 0},
		{[]string{`{"allowManagedMcpServersOnly": 0}`}, true, 0},
		// the last document that sets it decides
		{[]string{`{"allowManagedMcpServersOnly": true}`, `{"allowManagedMcpServersOnly": false}`}, false, 1},
		{[]string{`{"allowManagedMcpServersOnly": false}`, `{"allowManagedMcpServersOnly": true}`}, true, 1},
		{[]string{`{"allowManagedMcpServersOnly": true}`, `{}`}, true, 0},
	}
	for i, tc := range tests {
		var docs []*Document
		for _, s := range tc.docs {
			docs = append(docs, doc(t, KindManagedDropIn, s))
		}
		on, d := ManagedOnly(docs)
		if on != tc.want || (tc.doc < 0) != (d == nil) || tc.doc >= 0 && d != docs[tc.doc] {
			t.Errorf("%d %v: ManagedOnly = %v, %v; want %v, doc %d", i, tc.docs, on, d, tc.want, tc.doc)
		}
	}
}

func TestStrictPluginOnlyMCP(t *testing.T) {
	tests := []struct {
		docs []string
		want bool
	}{
		{nil, false},
		{[]string{`{}`}, false},
		{[]string{`{"strictPluginOnlyCustomization": true}`}, true},
		{[]string{`{"strictPluginOnlyCustomization": false}`}, false},
		{[]string{`{"strictPluginOnlyCustomization": null}`}, false},
		{[]string{`{"strictPluginOnlyCustomization": ["mcp"]}`}, true},
		{[]string{`{"strictPluginOnlyCustomization": ["skills", "mcp"]}`}, true},
		{[]string{`{"strictPluginOnlyCustomization": ["MCP"]}`}, false},
		{[]string{`{"strictPluginOnlyCustomization": ["skills"]}`}, false},
		{[]string{`{"strictPluginOnlyCustomization": []}`}, false},
		{[]string{`{"strictPluginOnlyCustomization": "yes"}`}, true},
		{[]string{`{"strictPluginOnlyCustomization": "false"}`}, true},
		{[]string{`{"strictPluginOnlyCustomization": 0}`}, true},
		{[]string{`{"strictPluginOnlyCustomization": {}}`}, true},
		{[]string{`{"strictPluginOnlyCustomization": true}`, `{"strictPluginOnlyCustomization": false}`}, false},
		{[]string{`{"strictPluginOnlyCustomization": ["mcp"]}`, `{}`}, true},
	}
	for i, tc := range tests {
		var docs []*Document
		for _, s := range tc.docs {
			docs = append(docs, doc(t, KindManaged, s))
		}
		if on, _, _ := StrictPluginOnlyMCP(docs); on != tc.want {
			t.Errorf("%d %v: StrictPluginOnlyMCP = %v, want %v", i, tc.docs, on, tc.want)
		}
	}
}
