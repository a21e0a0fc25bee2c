package ignorefile

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	src := "\xef\xbb\xbf# accepted findings\n" +
		"\n" +
		"f-0123456789abcdef  # reviewed: the token is a public demo key\r\n" +
		"  f-fedcba9876543210 .mcp.json #   pinned upstream   \n" +
		"MCPG-C002 .cursor/*.json # we pin through the lock file\n" +
		"MCPG-C005\t# SSE until the vendor ships HTTP\n" +
		"acme.deny_shell tools/** # custom rule, vendored tools\n" +
		"MCPG-C003 dir#1/x.json #reason with # inside\n"
	f, err := Parse("proj/.mcpguardignore", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Line: 3, Column: 1, FindingID: "f-0123456789abcdef", Reason: "reviewed: the token is a public demo key"},
		{Line: 4, Column: 3, FindingID: "f-fedcba9876543210", Glob: ".mcp.json", Reason: "pinned upstream"},
		{Line: 5, Column: 1, Rule: "MCPG-C002", Glob: ".cursor/*.json", Reason: "we pin through the lock file"},
		{Line: 6, Column: 1, Rule: "MCPG-C005", Reason: "SSE until the vendor ships HTTP"},
		{Line: 7, Column: 1, Rule: "acme.deny_shell", Glob: "tools/**", Reason: "custom rule, vendored tools"},
		{Line: 8, Column: 1, Rule: "MCPG-C003", Glob: "dir#1/x.json", Reason: "reason with # inside"},
	}
	if len(f.Entries) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(f.Entries), len(want), f.Entries)
	}
	for i, w := range want {
		g := f.Entries[i]
		if g.Line != w.Line || g.Column != w.Column || g.FindingID != w.FindingID || g.Rule != w.Rule || g.Glob != w.Glob || g.Reason != w.Reason {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
	if abs, _ := filepath.Abs("proj"); f.Dir != abs {
		t.Errorf("Dir = %q, want %q", f.Dir, abs)
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		line string
		want string // path:line:col: message prefix
	}{
		{"f-0123456789abcdef", "x:1:19: missing reason"},
		{"f-0123456789abcdef   ", "x:1:19: missing reason"},
		{"f-0123456789abcdef .mcp.json", "x:1:29: missing reason"},
		{"f-0123456789abcdef #   ", "x:1:20: empty reason"},
		{"MCPG-C002#no space", "x:1:1: unknown rule \"MCPG-C002#no\""},
		{"f-0123456789ABCDEF # upper case", "x:1:1: malformed finding id"},
		{"f-123 # short", "x:1:1: malformed finding id"},
		{"  MCPG-C999 # typo", "x:1:3: unknown rule \"MCPG-C999\""},
		{"mcpg-c002 # lower case", "x:1:1: unknown rule"},
		{".mcp.json # path first", "x:1:1: \".mcp.json\" looks like a path"},
		{"MCPG-C002 a b # three", "x:1:13: unexpected \"b\""},
		{"MCPG-C002 [a # bad glob", "x:1:11: invalid path glob \"[a\""},
		{"MCPG-C002 a//b # empty segment", "x:1:11: invalid path glob"},
		{"MCPG-C002 // # root", "x:1:11: invalid path glob"},
		{"MCPG-C002 éé y # columns count code points", "x:1:14: unexpected \"y\""},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			_, err := Parse("x", []byte("# header\n"+tc.line+"\n"))
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != 1 {
				t.Fatalf("err = %v, want one error", err)
			}
			got := errs[0]
			got.Line-- // the header line
			if !strings.HasPrefix(got.Error(), tc.want) {
				t.Errorf("got %q, want prefix %q", got.Error(), tc.want)
			}
		})
	}
}

func TestParseReportsEveryError(t *testing.T) {
	_, err := Parse("x", []byte("f-1 # a\nok # fine\nMCPG-C002\n"))
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 2 || errs[0].Line != 1 || errs[1].Line != 3 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "x:1:1:") || !strings.Contains(err.Error(), "\nx:3:10:") {
		t.Errorf("Error() = %q", err.Error())
	}
}

func TestMatch(t *testing.T) {
	dir := filepath.FromSlash("/repo")
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	src := strings.Join([]string{
		"f-0000000000000001 # any file",
		"f-0000000000000002 .mcp.json # only .mcp.json files",
		"MCPG-C002 .cursor/mcp.json # anchored",
		"MCPG-C003 /top.json # leading slash anchors",
		"MCPG-C004 **/deep/*.json # any depth",
		"MCPG-C005 vendor/ # a directory",
		"MCPG-C006 # everywhere",
	}, "\n")
	f, err := Parse(filepath.Join(dir, DefaultName), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	tests := []struct {
		id, rule, path string
		want           []int
	}{
		{"f-0000000000000001", "MCPG-C001", p("a/b.json"), []int{0}},
		{"f-0000000000000001", "MCPG-C001", filepath.FromSlash("/elsewhere/x.json"), []int{0}},
		{"f-0000000000000002", "MCPG-C001", p("sub/.mcp.json"), []int{1}},
		{"f-0000000000000002", "MCPG-C001", p(".cursor/mcp.json"), nil},
		{"f-0000000000000009", "MCPG-C002", p(".cursor/mcp.json"), []int{2}},
		{"f-0000000000000009", "MCPG-C002", p("sub/.cursor/mcp.json"), nil},
		{"f-0000000000000009", "MCPG-C002", filepath.FromSlash("/other/.cursor/mcp.json"), nil},
		{"f-0000000000000009", "MCPG-C003", p("top.json"), []int{3}},
		{"f-0000000000000009", "MCPG-C003", p("sub/top.json"), nil},
		{"f-0000000000000009", "MCPG-C004", p("deep/x.json"), []int{4}},
		{"f-0000000000000009", "MCPG-C004", p("a/b/deep/x.json"), []int{4}},
		{"f-0000000000000009", "MCPG-C004", p("a/deep/b/x.json"), nil},
		{"f-0000000000000009", "MCPG-C005", p("vendor/a/b.json"), []int{5}},
		{"f-0000000000000009", "MCPG-C005", p("vendored/a.json"), nil},
		{"f-0000000000000009", "MCPG-C006", filepath.FromSlash("/anywhere/x.toml"), []int{6}},
		{"f-0000000000000009", "MCPG-C007", p("x.json"), nil},
	}
	for _, tc := range tests {
		got := f.Match(tc.id, tc.rule, tc.path)
		if !equalInts(got, tc.want) {
			t.Errorf("Match(%s, %s, %s) = %v, want %v", tc.id, tc.rule, tc.path, got, tc.want)
		}
	}
}

func TestMatchSegmentsManyGlobstars(t *testing.T) {
	pat := strings.Split(strings.Repeat("**/", 50)+"x", "/")
	segs := strings.Split(strings.Repeat("a/", 200)+"y", "/")
	if matchSegments(pat, segs) {
		t.Fatal("matched")
	}
	segs[len(segs)-1] = "x"
	if !matchSegments(pat, segs) {
		t.Fatal("did not match")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("f-0123456789abcdef .mcp.json # why\nMCPG-C002 **/x # why\n# c\n"))
	f.Add([]byte("MCPG-C002 [ # x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz/.mcpguardignore", data)
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error of type %T: %v", err, err)
			}
			for _, e := range errs {
				if e.Line < 1 || e.Column < 1 {
					t.Fatalf("bad position %d:%d", e.Line, e.Column)
				}
			}
			return
		}
		for _, e := range file.Entries {
			if e.Reason == "" || e.Target() == "" {
				t.Fatalf("entry without reason or target: %+v", e)
			}
			file.Match(e.FindingID, e.Rule, "/fuzz/a/b.json")
		}
	})
}
