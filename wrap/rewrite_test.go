package wrap

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/jsonedit"
	"github.com/mcpguard/mcpguard/internal/wrapargv"
)

const testExe = "/opt/mcpguard/bin/mcpguard"

// serverEntries returns the pointers of every server entry of a client file:
// mcpServers, servers (VS Code), mcp.servers (VS Code settings) and the
// local-scope servers of ~/.claude.json.
func serverEntries(root *jsonc.Value) []Entry {
	var out []Entry
	add := func(base string, v *jsonc.Value) {
		if v == nil || v.Kind != jsonc.Object {
			return
		}
		for _, m := range v.Members {
			p := base + "/" + jsonc.PointerToken(m.Key)
			out = append(out, Entry{Pointer: p, Name: m.Key, ProxyName: "test/user/" + m.Key})
		}
	}
	add("/mcpServers", root.Get("mcpServers"))
	add("/servers", root.Get("servers"))
	add("/mcp/servers", root.Get("mcp").Get("servers"))
	if projects := root.Get("projects"); projects != nil && projects.Kind == jsonc.Object {
		for _, m := range projects.Members {
			add(jsonc.Pointer("projects", m.Key)+"/mcpServers", m.Value.Get("mcpServers"))
		}
	}
	return out
}

// checkRoundTrip wraps every entry of data, checks the result, unwraps it and
// requires the original bytes back; wrapping twice changes nothing.
func checkRoundTrip(t *testing.T, name string, data []byte, jsoncMode bool) {
	t.Helper()
	root, _, err := jsonc.Parse(data, jsonc.Options{JSONC: jsoncMode})
	if err != nil || root.Kind != jsonc.Object {
		return
	}
	entries := serverEntries(root)
	opts := RewriteOptions{JSONC: jsoncMode, Executable: testExe}
	wrapped, res, _, err := Rewrite(data, ModeWrap, entries, opts)
	if err != nil {
		t.Fatalf("%s: wrap: %v", name, err)
	}
	newRoot, _, err := jsonc.Parse(wrapped, jsonc.Options{JSONC: jsoncMode})
	if err != nil {
		t.Fatalf("%s: the wrapped file does not parse: %v\n%s", name, err, wrapped)
	}
	for _, r := range res {
		if r.Action != ActionWrapped {
			continue
		}
		m, err := resolve(newRoot, r.Pointer)
		if err != nil {
			t.Fatalf("%s: %s: %v", name, r.Pointer, err)
		}
		cmd := m.Get("command").Str
		args, _ := m.Get("args").StringSlice()
		w, ok := wrapargv.Split(cmd, args)
		if !ok || w.Command != testExe || w.Name() != r.ProxyName {
			t.Errorf("%s: %s is not wrapped: %q %q", name, r.Pointer, cmd, args)
		}
	}
	again, res2, _, err := Rewrite(wrapped, ModeWrap, entries, opts)
	if err != nil || !bytes.Equal(again, wrapped) {
		t.Errorf("%s: wrapping twice changes the file (err %v):\n%s", name, err, again)
	}
	for i, r := range res2 {
		if res[i].Action == ActionWrapped && r.Reason != ReasonAlreadyWrapped {
			t.Errorf("%s: second wrap of %s: %+v", name, r.Pointer, r)
		}
	}
	// Unwrap what this wrap changed (an entry that was wrapped before stays).
	var mine []Entry
	for _, r := range res {
		if r.Action == ActionWrapped {
			mine = append(mine, r.Entry)
		}
	}
	back, ures, _, err := Rewrite(wrapped, ModeUnwrap, mine, opts)
	if err != nil {
		t.Fatalf("%s: unwrap: %v", name, err)
	}
	if !bytes.Equal(back, data) {
		t.Errorf("%s: unwrap(wrap(x)) != x\n--- x\n%s\n--- wrapped\n%s\n--- unwrapped\n%s", name, data, wrapped, back)
	}
	for _, r := range ures {
		if r.Action != ActionUnwrapped {
			t.Errorf("%s: %s not unwrapped: %s", name, r.Pointer, r.Reason)
		}
	}
	// Unwrapping an unwrapped entry changes nothing.
	if again, _, _, err := Rewrite(back, ModeUnwrap, mine, opts); err != nil || !bytes.Equal(again, data) {
		t.Errorf("%s: unwrapping twice changes the file (err %v)", name, err)
	}
}

func resolve(root *jsonc.Value, pointer string) (*jsonc.Value, error) {
	m, err := jsonedit.Resolve(root, pointer)
	if err != nil {
		return nil, err
	}
	return m.Value, nil
}

// TestRoundTripFiles checks the round trip over every client file the
// repository holds: these fixtures, the scanner's and the demo's.
func TestRoundTripFiles(t *testing.T) {
	var files []string
	for _, glob := range []string{"testdata/configs/*", "../scanner/testdata/clients/*/*", "../scanner/testdata/clients/*/*/*",
		"../scanner/testdata/clients/*/*/*/*", "../testdata/demo/*/*", "../testdata/demo/*/.*"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(data), "command") {
			continue
		}
		n++
		for _, jsoncMode := range []bool{false, true} {
			checkRoundTrip(t, f, data, jsoncMode)
		}
	}
	if n < 10 {
		t.Fatalf("only %d files with servers", n)
	}
}

// TestRoundTripVariants rewrites the handwritten fixture in several line
// endings and indentations.
func TestRoundTripVariants(t *testing.T) {
	data, err := os.ReadFile("testdata/configs/handwritten.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	plain := regexp.MustCompile(`//[^\n]*`).ReplaceAllString(s, "")
	variants := map[string]string{
		"lf":       s,
		"crlf":     strings.ReplaceAll(s, "\n", "\r\n"),
		"spaces":   strings.ReplaceAll(s, "\t", "  "),
		"cr-only":  strings.ReplaceAll(plain, "\n", "\r"),
		"one-line": strings.ReplaceAll(plain, "\n", " "),
		"no-final": strings.TrimRight(s, "\n"),
	}
	for name, v := range variants {
		checkRoundTrip(t, name, []byte(v), true)
	}
}

func TestWrapLayout(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			"multi-line args",
			"{\n  \"mcpServers\": {\n    \"gh\": {\n      \"command\": \"npx\",\n      \"args\": [\n        \"-y\",\n        \"pkg\"\n      ]\n    }\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"gh\": {\n      \"command\": \"/opt/mcpguard/bin/mcpguard\",\n      \"args\": [\n        \"proxy\",\n        \"--name\",\n        \"test/user/gh\",\n        \"--\",\n        \"npx\",\n        \"-y\",\n        \"pkg\"\n      ]\n    }\n  }\n}\n",
		},
		{
			"one-line args",
			`{"mcpServers": {"gh": {"command": "npx", "args": ["-y", "pkg"]}}}`,
			`{"mcpServers": {"gh": {"command": "/opt/mcpguard/bin/mcpguard", "args": ["proxy", "--name", "test/user/gh", "--", "npx", "-y", "pkg"]}}}`,
		},
		{
			"compact args",
			`{"mcpServers":{"gh":{"command":"npx","args":["-y","pkg"]}}}`,
			`{"mcpServers":{"gh":{"command":"/opt/mcpguard/bin/mcpguard","args":["proxy","--name","test/user/gh","--","npx","-y","pkg"]}}}`,
		},
		{
			"no args, one line",
			`{"mcpServers": {"t": {"command": "uvx"}}}`,
			`{"mcpServers": {"t": {"command": "/opt/mcpguard/bin/mcpguard", "args": ["proxy", "--name", "test/user/t", "--wrapped-without-args", "--", "uvx"]}}}`,
		},
		{
			"no args, indented, env after",
			"{\n  \"mcpServers\": {\n    \"t\": {\n      \"command\": \"uvx\",\n      \"env\": {}\n    }\n  }\n}",
			"{\n  \"mcpServers\": {\n    \"t\": {\n      \"command\": \"/opt/mcpguard/bin/mcpguard\",\n      \"args\": [\n        \"proxy\",\n        \"--name\",\n        \"test/user/t\",\n        \"--wrapped-without-args\",\n        \"--\",\n        \"uvx\"\n      ],\n      \"env\": {}\n    }\n  }\n}",
		},
		{
			"empty args",
			`{"mcpServers": {"t": {"command": "node", "args": [ ]}}}`,
			`{"mcpServers": {"t": {"command": "/opt/mcpguard/bin/mcpguard", "args": ["proxy", "--name", "test/user/t", "--", "node" ]}}}`,
		},
		{
			"escapes kept verbatim",
			`{"mcpServers": {"t": {"command": "\u002fbin\u002fsrv", "args": ["caf\u00e9"]}}}`,
			`{"mcpServers": {"t": {"command": "/opt/mcpguard/bin/mcpguard", "args": ["proxy", "--name", "test/user/t", "--", "\u002fbin\u002fsrv", "caf\u00e9"]}}}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, res, _, err := Rewrite([]byte(tc.in), ModeWrap, []Entry{{Pointer: "/mcpServers/" + firstServer(t, tc.in), ProxyName: "test/user/" + firstServer(t, tc.in)}}, RewriteOptions{Executable: testExe})
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got\n%s\nwant\n%s\n(%+v)", out, tc.want, res)
			}
			checkRoundTrip(t, tc.name, []byte(tc.in), false)
		})
	}
}

func firstServer(t *testing.T, in string) string {
	t.Helper()
	root, _, err := jsonc.Parse([]byte(in), jsonc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return root.Get("mcpServers").Members[0].Key
}

func TestSkipReasons(t *testing.T) {
	data, err := os.ReadFile("testdata/configs/tabs-dups.json")
	if err != nil {
		t.Fatal(err)
	}
	hand, err := os.ReadFile("testdata/configs/handwritten.jsonc")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		data    []byte
		jsonc   bool
		pointer string
		action  string
		reason  string
	}{
		{data, false, "/mcpServers/tabs", ActionWrapped, ""},
		{data, false, "/mcpServers/dup", ActionWrapped, ""}, // the winning (last) definition
		{data, false, "/mcpServers/dupkeys", ActionSkipped, ReasonDuplicateKeys},
		{data, false, "/mcpServers/wrapped", ActionSkipped, ReasonAlreadyWrapped},
		{data, false, "/mcpServers/bad-args", ActionSkipped, ReasonBadArgs},
		{data, false, "/mcpServers/num-args", ActionSkipped, ReasonBadArgs},
		{data, false, "/mcpServers/nope", ActionSkipped, ReasonMissing},
		{hand, true, "/servers/remote", ActionSkipped, ReasonRemote},
		{hand, true, "/servers/env-only", ActionWrapped, ""},
		{[]byte(`{"servers": {"d": {"command": "node", "dev": {"watch": "src/**"}}}}`), true, "/servers/d", ActionSkipped, ReasonDevMode},
		{[]byte(`{"servers": {"d": {"command": "node", "sandboxEnabled": true}}}`), true, "/servers/d", ActionSkipped, ReasonSandbox},
		{[]byte(`{"mcpServers": {"d": {"type": "http", "command": "x", "url": "https://x"}}}`), false, "/mcpServers/d", ActionSkipped, ReasonRemote},
		{[]byte(`{"mcpServers": {"d": {"env": {}}}}`), false, "/mcpServers/d", ActionSkipped, ReasonNoCommand},
		{[]byte(`{"mcpServers": {"d": {"command": ""}}}`), false, "/mcpServers/d", ActionSkipped, ReasonBadCommand},
		{[]byte(`{"mcpServers": {"d": "npx"}}`), false, "/mcpServers/d", ActionSkipped, ReasonNotObject},
		{[]byte(`{"mcpServers": {"d": {"command": "mcpguard", "args": ["scan"]}}}`), false, "/mcpServers/d", ActionSkipped, ReasonMcpguard},
	}
	for _, tc := range tests {
		_, res, _, err := Rewrite(tc.data, ModeWrap, []Entry{{Pointer: tc.pointer, ProxyName: "n"}}, RewriteOptions{JSONC: tc.jsonc, Executable: testExe})
		if err != nil {
			t.Fatalf("%s: %v", tc.pointer, err)
		}
		if res[0].Action != tc.action || res[0].Reason != tc.reason {
			t.Errorf("%s: %s %q, want %s %q", tc.pointer, res[0].Action, res[0].Reason, tc.action, tc.reason)
		}
	}
}

func TestUnwrapEditedWrapper(t *testing.T) {
	// A user added a proxy flag and an argument after wrapping: unwrap still
	// restores a plain entry with the added argument.
	in := `{"mcpServers": {"t": {"command": "/x/mcpguard", "args": ["proxy", "--name", "n", "--mode", "monitor", "--wrapped-without-args", "--", "uvx", "added"]}}}`
	out, res, _, err := Rewrite([]byte(in), ModeUnwrap, []Entry{{Pointer: "/mcpServers/t"}}, RewriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mcpServers": {"t": {"command": "uvx", "args": ["added"]}}}`; string(out) != want || res[0].Action != ActionUnwrapped {
		t.Errorf("got %s (%+v)", out, res)
	}
	// A wrapper written by hand with "args" first and no args of its own.
	in = `{"mcpServers": {"t": {"args": ["proxy", "--wrapped-without-args", "--", "uvx"], "command": "C:\\bin\\MCPGUARD.EXE"}}}`
	out, _, _, err = Rewrite([]byte(in), ModeUnwrap, []Entry{{Pointer: "/mcpServers/t"}}, RewriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mcpServers": {"command": "uvx"}}`; !strings.Contains(string(out), `"command": "uvx"`) || strings.Contains(string(out), "args") {
		t.Errorf("got %s, want like %s", out, want)
	}
}

func TestRewriteErrors(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"mcpServers": {`, "{\"mcpServers\": {} // c\n}"} {
		_, _, _, err := Rewrite([]byte(in), ModeWrap, []Entry{{Pointer: "/mcpServers/x"}}, RewriteOptions{Executable: testExe})
		if err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestHostileNeverPanics(t *testing.T) {
	seeds := []string{
		`{"mcpServers":{"a":{"command":"x","args":["proxy","--"]}}}`,
		`{"mcpServers":{"a":{"command":"mcpguard","args":["proxy","--",""]}}}`,
		`{"mcpServers":{"a":{"command":"mcpguard","args":["proxy","--","--","x"]}}}`,
		`{"mcpServers":{"a":{"command":"mcpguard","args":["proxy","--name","--","--","x"]}}}`,
		`{"mcpServers":{"a":{"command":"mcpguard","args":["proxy","--","x"],"args":[]}}}`,
		`{"mcpServers":{"a":{"command":"x","args":[[]]}}}`,
		`{"mcpServers":{"a":{"command":"x","args":null}}}`,
		`{"mcpServers":{"":{"command":"x"}, "a/b~c": {"command": "y"}}}`,
		`{"mcpServers":[{"command":"x"}]}`,
	}
	for _, s := range seeds {
		for _, mode := range []Mode{ModeWrap, ModeUnwrap} {
			root, _, err := jsonc.Parse([]byte(s), jsonc.Options{JSONC: true})
			if err != nil {
				continue
			}
			entries := serverEntries(root)
			entries = append(entries, Entry{Pointer: "/mcpServers/0"}, Entry{Pointer: "/"}, Entry{Pointer: ""})
			if _, _, _, err := Rewrite([]byte(s), mode, entries, RewriteOptions{JSONC: true, Executable: testExe}); err != nil && !strings.Contains(err.Error(), "invalid JSON") {
				t.Errorf("%s %s: %v", mode, s, err)
			}
		}
		checkRoundTrip(t, s, []byte(s), true)
	}
}

func TestUnifiedDiff(t *testing.T) {
	before := "{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4,\n  \"e\": 5,\n  \"f\": 6,\n  \"g\": 7,\n  \"h\": 8,\n  \"i\": 9,\n  \"j\": 10\n}\n"
	after := strings.Replace(strings.Replace(before, `"b": 2`, `"b": 20`, 1), `"j": 10`, "\"j\": 10,\n  \"k\": 11", 1)
	want := "--- f\n+++ f\n@@ -1,6 +1,6 @@\n {\n   \"a\": 1,\n-  \"b\": 2,\n+  \"b\": 20,\n   \"c\": 3,\n   \"d\": 4,\n   \"e\": 5,\n@@ -8,5 +8,6 @@\n   \"g\": 7,\n   \"h\": 8,\n   \"i\": 9,\n-  \"j\": 10\n+  \"j\": 10,\n+  \"k\": 11\n }\n"
	if got := UnifiedDiff("f", "f", []byte(before), []byte(after)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := UnifiedDiff("f", "f", []byte("a"), []byte("a")); got != "" {
		t.Errorf("no change: %q", got)
	}
	if got := UnifiedDiff("f", "f", []byte("a\r\nb"), []byte("a\r\nc")); !strings.Contains(got, "-b\n\\ No newline at end of file\n+c\n") || strings.Contains(got, "\r") {
		t.Errorf("crlf: %q", got)
	}
	// Many far-apart changes in a large file stay cheap and correct.
	var big []string
	for i := range 20000 {
		big = append(big, "line "+strings.Repeat("x", i%7))
	}
	b2 := slices.Clone(big)
	for i := 0; i < len(b2); i += 997 {
		b2[i] = "changed"
	}
	got := UnifiedDiff("f", "f", []byte(strings.Join(big, "\n")), []byte(strings.Join(b2, "\n")))
	if strings.Count(got, "\n+changed") != 21 {
		t.Errorf("big diff: %d changes", strings.Count(got, "\n+changed"))
	}
}
