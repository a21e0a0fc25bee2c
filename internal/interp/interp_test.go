package interp

import (
	"reflect"
	"testing"
)

func env(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestExpandClaude covers docs/claude-code.md §3.1, one case per table row and rule.
func TestExpandClaude(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		env     map[string]string
		want    string
		missing []string
	}{
		{"set", "${TOOL}", map[string]string{"TOOL": "uvx"}, "uvx", nil},
		{"default when unset", "${TOOL:-npx}", nil, "npx", nil},
		{"set but empty beats default", "${TOOL:-npx}", map[string]string{"TOOL": ""}, "", nil},
		{"unset stays literal", "${TOOL}", nil, "${TOOL}", []string{"TOOL"}},
		{"bare $NAME never expands", "$TOOL", map[string]string{"TOOL": "uvx"}, "$TOOL", nil},
		{"digit-led name is not a reference", "${1X}", map[string]string{"1X": "no"}, "${1X}", nil},
		{"POSIX forms are not references", "${x%y}", map[string]string{"x": "no"}, "${x%y}", nil},
		{"default runs to the first brace", "${A:-x}y}", nil, "xy}", nil},
		{"default may hold :-", "${X:-a:-b}", nil, "a:-b", nil},
		{"single pass", "${A}", map[string]string{"A": "${B}", "B": "no"}, "${B}", nil},
		{"several and repeated", "${A}-${B}-${A}", map[string]string{"A": "1"}, "1-${B}-1", []string{"B"}},
		{"empty default", "${A:-}x", nil, "x", nil},
		{"unterminated", "${A", map[string]string{"A": "1"}, "${A", nil},
		{"embedded in url", "https://${HOST}/mcp", map[string]string{"HOST": "h.example"}, "https://h.example/mcp", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, missing := ExpandClaude(tc.in, env(tc.env))
			if got != tc.want || !reflect.DeepEqual(missing, tc.missing) {
				t.Errorf("ExpandClaude(%q) = %q, %v; want %q, %v", tc.in, got, missing, tc.want, tc.missing)
			}
		})
	}
}

func TestRefs(t *testing.T) {
	tests := []struct {
		d    Dialect
		in   string
		want []string // kind:name
	}{
		{VSCode, "${env:HOME}/${input:tok} ${workspaceFolder} ${unknown} ${config:x.y}", []string{"env:HOME", "input:tok", "predefined:workspaceFolder", "predefined:config:x.y"}},
		{Cursor, "${env:API_KEY} ${userHome}${/}x ${input:no}", []string{"env:API_KEY", "predefined:userHome", "predefined:/"}},
		{Windsurf, "${env:T} ${file:/etc/x}", []string{"env:T", "file:/etc/x"}},
		{Shell, "Bearer $GITHUB_PAT ${HOME} $1 $", []string{"env:GITHUB_PAT", "env:HOME"}},
		{Continue, "${{ secrets.OPENAI }} ${{inputs.x}}", []string{"secret:OPENAI", "input:x"}},
		{OpenCode, "{env:TOKEN} {file:~/.secret} {other}", []string{"env:TOKEN", "file:~/.secret"}},
		{Claude, "${A:-x} $B ${C}", []string{"env:A", "env:C"}},
		{None, "${A}", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, r := range Refs(tc.d, tc.in) {
			got = append(got, string(r.Kind)+":"+r.Name)
			if tc.in[r.Start:r.End] != r.Text {
				t.Errorf("%s: offsets %d..%d do not give %q", tc.d, r.Start, r.End, r.Text)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Refs(%s, %q) = %v, want %v", tc.d, tc.in, got, tc.want)
		}
	}
}

func FuzzRefs(f *testing.F) {
	f.Add("${A:-b} ${env:X} $Y ${{ secrets.Z }} {env:W}")
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range []Dialect{Claude, VSCode, Cursor, Windsurf, Shell, Continue, OpenCode} {
			for _, r := range Refs(d, s) {
				if r.Start < 0 || r.End > len(s) || r.Start >= r.End || s[r.Start:r.End] != r.Text {
					t.Fatalf("%s: bad ref %+v in %q", d, r, s)
				}
			}
		}
		out, _ := ExpandClaude(s, func(string) (string, bool) { return "", false })
		if len(Refs(Claude, s)) == 0 && out != s {
			t.Fatalf("no refs but expansion changed %q to %q", s, out)
		}
	})
}
