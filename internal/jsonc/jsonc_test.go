package jsonc

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParsePositions(t *testing.T) {
	src := "{\n  \"mcpServers\": {\n    \"é\": {\"command\": \"x\"},\n    \"b\": 1\n  }\n}\n"
	v, warns, err := Parse([]byte(src), Options{})
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v %v", err, warns)
	}
	servers := v.Member("mcpServers")
	if servers.KeyPos != (Pos{Offset: 4, Line: 2, Col: 3}) {
		t.Errorf("mcpServers key at %+v", servers.KeyPos)
	}
	e := servers.Value.Member("é")
	if e.KeyPos.Line != 3 || e.KeyPos.Col != 5 {
		t.Errorf("é key at %+v", e.KeyPos)
	}
	// The value starts after the non-ASCII key: columns count code points.
	if got := e.Value.Pos; got.Line != 3 || got.Col != 10 {
		t.Errorf("é value at %+v, want 3:10", got)
	}
	if cmd := e.Value.Get("command"); cmd == nil || cmd.Str != "x" || cmd.Pos.Col != 22 {
		t.Errorf("command = %+v", cmd)
	}
}

func TestDuplicateKeysFollowJavaScript(t *testing.T) {
	v, _, err := Parse([]byte(`{"b":1,"a":2,"b":3}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Members) != 2 || v.Members[0].Key != "b" || v.Members[0].Value.Str != "3" {
		t.Fatalf("members = %+v", v.Members)
	}
	if dups := v.Members[0].Dups(); len(dups) != 1 || dups[0].Offset != 13 {
		t.Errorf("dups = %+v", dups)
	}
	// The same with more members than the lazy index threshold.
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 20; i++ {
		b.WriteString(`"k` + string(rune('a'+i)) + `":0,`)
	}
	b.WriteString(`"ka":"last"}`)
	v, _, err = Parse([]byte(b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Members) != 20 || v.Get("ka").Str != "last" || v.Members[0].Key != "ka" {
		t.Errorf("lazy index: %d members, ka=%q first=%q", len(v.Members), v.Get("ka").Str, v.Members[0].Key)
	}
}

func TestExactKeyMatch(t *testing.T) {
	v, _, err := Parse([]byte(`{"MCPSERVERS":{}}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Get("mcpServers") != nil {
		t.Error("keys must match case-sensitively")
	}
}

func TestJSONC(t *testing.T) {
	src := "// comment\n{\n  /* block\n comment */ \"a\": [1, 2,],\n  \"b\": {\"c\": true,}, // tail\n}\n"
	v, _, err := Parse([]byte(src), Options{JSONC: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Member("a").KeyPos; got.Line != 4 || got.Col != 13 {
		t.Errorf("a at %+v", got)
	}
	if _, _, err := Parse([]byte(src), Options{}); err == nil {
		t.Error("strict mode accepted comments")
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, src string
		opts      Options
		line, col int
		msg       string
	}{
		{"empty", "", Options{}, 1, 1, "empty"},
		{"trailing comma", "{\n  \"x\": {\"command\": \"echo\",}\n}", Options{}, 2, 27, "trailing comma"},
		{"missing colon", `{"a" 1}`, Options{}, 1, 6, "expected ':'"},
		{"unterminated string", "{\"a\": \"abc", Options{}, 1, 7, "unterminated string"},
		{"bad literal", "[tru]", Options{}, 1, 2, "invalid literal"},
		{"bad number", "[01]", Options{}, 1, 3, "expected ',' or ']'"},
		{"garbage after", "{} x", Options{}, 1, 4, "after the top-level value"},
		{"control char", "[\"a\tb\"]", Options{}, 1, 4, "control character"},
		{"bad escape", `["\x"]`, Options{}, 1, 3, "invalid escape"},
		{"unterminated comment", "/* x", Options{JSONC: true}, 1, 1, "unterminated block comment"},
		{"deep", strings.Repeat("[", 600), Options{}, 1, 513, "nesting deeper"},
		{"eof in object", "{\"a\":1", Options{}, 1, 7, "end of input in object starting at 1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse([]byte(tc.src), tc.opts)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SyntaxError", err)
			}
			if se.Pos.Line != tc.line || se.Pos.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", se.Pos.Line, se.Pos.Col, se.Msg, tc.line, tc.col, tc.msg)
			}
		})
	}
}

func TestInvalidUTF8IsAWarning(t *testing.T) {
	v, warns, err := Parse([]byte("{\"a\":\"x\xffy\"}"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Get("a").Str != "x\uFFFDy" {
		t.Errorf("a = %q", v.Get("a").Str)
	}
	if len(warns) != 1 || warns[0].Pos.Col != 8 {
		t.Errorf("warnings = %+v", warns)
	}
}

func TestEscapes(t *testing.T) {
	v, _, err := Parse([]byte(`["\u00e9\ud83d\ude00\ud800x\n\/"]`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Elems[0].Str; got != "é😀\uFFFDx\n/" {
		t.Errorf("got %q", got)
	}
}

func TestBOM(t *testing.T) {
	v, _, err := Parse([]byte("\xEF\xBB\xBF{\"a\":1}"), Options{})
	if err != nil || v.Member("a").KeyPos.Col != 2 {
		t.Fatalf("BOM: %v %+v", err, v)
	}
}

func TestPointer(t *testing.T) {
	if got := Pointer("mcpServers", "a/b~c"); got != "/mcpServers/a~1b~0c" {
		t.Errorf("got %q", got)
	}
}

func TestHugeSingleLineIsLinear(t *testing.T) {
	// 200k members on one line: quadratic column counting would take minutes.
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 200000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"é`)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(`":[1]`)
	}
	b.WriteString("}")
	v, _, err := Parse([]byte(b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Members) != 7 {
		t.Errorf("members = %d", len(v.Members))
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers":{"a":{"command":"x","args":["1"]}}}`,
		"{\"a\":[1,2,],}", "// c\n{}", `"\ud800"`, `[1e400, -0.5e-3, true, null]`, "\xEF\xBB\xBF[]",
		// A large object whose keys come back.
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k1":9,"k9":{"a":1,"a":2},"k0":[]}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, jsonc bool) {
		v, _, err := Parse(data, Options{JSONC: jsonc})
		if jsonc {
			return // no reference implementation; not panicking is the property
		}
		hasBOM := len(data) >= 3 && string(data[:3]) == "\xEF\xBB\xBF"
		valid := json.Valid(data)
		if hasBOM || strings.Count(string(data), "[")+strings.Count(string(data), "{") > DefaultMaxDepth {
			return
		}
		if valid != (err == nil) {
			t.Fatalf("json.Valid=%v but Parse err=%v for %q", valid, err, data)
		}
		if err != nil {
			return
		}
		var want any
		if json.Unmarshal(data, &want) != nil {
			return // e.g. numbers out of float64 range
		}
		if got := v.Interface(); !reflect.DeepEqual(got, want) {
			t.Fatalf("Interface() = %#v, want %#v", got, want)
		}
	})
}
