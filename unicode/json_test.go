package unicode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIsCleanJSON(t *testing.T) {
	for _, tc := range []struct {
		in    string
		clean bool
	}{
		{``, true},
		{`{}`, true},
		{`{"a":"b","n":[1,2.5e10,-0,true,null]}`, true},
		{`"\u003cscript\u003e \u0026 \u0020\u007e"`, true},
		{`"quote \" slash \\ \/ newline \n tab \t"`, true},
		{"{\n\t\"pretty\": \"json\"\r\n}", true},
		{`"\\u001b is text, not an escape"`, true},
		{`"\u001b[31m"`, false},
		{`"\u200b"`, false},
		{`"\ud83d\ude00"`, false},
		{`"\u007f"`, false},
		{`"\u0000"`, false},
		{`"\u00e9"`, false},
		{`"\r"`, false},
		{`"\b"`, false},
		{`"\f"`, false},
		{`"\u00"`, false},
		{`"\uzzzz"`, false},
		{`"\`, false},
		{`"\x"`, false},
		{"\"é\"", false},
		{"\"\x7f\"", false},
		{"\"\x1b[31m\"", false},
		{"\"\x00\"", false},
		{"\"\xff\"", false},
	} {
		if got := IsCleanJSON([]byte(tc.in)); got != tc.clean {
			t.Errorf("IsCleanJSON(%q) = %v, want %v", tc.in, got, tc.clean)
		}
	}
}

// TestIsCleanJSONPositions moves one dirty byte or escape through every
// position of buffers around the 8- and 32-byte block sizes.
func TestIsCleanJSONPositions(t *testing.T) {
	dirt := []string{"\x80", "\x1b", "\x7f", "\x00", `\u001b`, `\u200b`, `\r`, "é"}
	for n := 0; n < 80; n++ {
		base := strings.Repeat("a", n)
		if !IsCleanJSON([]byte(base)) {
			t.Fatalf("clean %d bytes reported dirty", n)
		}
		for pos := 0; pos <= n; pos++ {
			for _, d := range dirt {
				s := base[:pos] + d + base[pos:]
				if IsCleanJSON([]byte(s)) {
					t.Fatalf("IsCleanJSON(%q) = true", s)
				}
			}
			s := base[:pos] + "\n\t\r" + `\u0041\"\\` + base[pos:]
			if !IsCleanJSON([]byte(s)) {
				t.Fatalf("IsCleanJSON(%q) = false", s)
			}
		}
	}
}

func TestIsCleanJSONNoAllocs(t *testing.T) {
	b := readBench(t, benchClean)
	if allocs := testing.AllocsPerRun(10, func() { IsCleanJSON(b) }); allocs != 0 {
		t.Errorf("IsCleanJSON allocates %.0f times", allocs)
	}
	if !IsCleanJSON(b) {
		t.Error("clean benchmark document is not clean")
	}
	if IsCleanJSON(readBench(t, benchMixed)) || IsCleanJSON(readBench(t, benchHostile)) {
		t.Error("mixed/hostile benchmark documents are clean")
	}
}

func TestScanJSONPointers(t *testing.T) {
	doc := `{"tools":[{"name":"x","description":"a\u200bb"},` +
		`{"name":"y","inputSchema":{"properties":{"pa~th/x\u200b":{"type":"string","enum":["ok","r\u0435ad"]}}}}],` +
		"\"raw\":\"tab\u202Eevil\"}"
	fs, err := ScanJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		pointer string
		isKey   bool
		kind    string
		raw     string
	}
	wants := []want{
		{"/tools/0/description", false, KindZeroWidth, `\u200b`},
		{"/tools/1/inputSchema/properties/pa~0th~1x\u200b", true, KindZeroWidth, `\u200b`},
		{"/tools/1/inputSchema/properties/pa~0th~1x\u200b/enum/1", false, KindMixedScript, `\u0435`},
		{"/raw", false, KindBidiControl, "\u202E"},
	}
	if len(fs) != len(wants) {
		t.Fatalf("%d findings, want %d: %+v", len(fs), len(wants), fs)
	}
	for i, w := range wants {
		f := fs[i]
		if f.Pointer != w.pointer || f.IsKey != w.isKey || f.Kind != w.kind {
			t.Errorf("finding %d: %q key=%v %s, want %q key=%v %s", i, f.Pointer, f.IsKey, f.Kind, w.pointer, w.isKey, w.kind)
		}
		if got := doc[f.Offset : f.Offset+f.Length]; got != w.raw {
			t.Errorf("finding %d covers %q, want %q", i, got, w.raw)
		}
	}
	if fs[0].StringOffset != 1 {
		t.Errorf("string offset %d, want 1", fs[0].StringOffset)
	}
}

func TestScanJSONEscapedPayloads(t *testing.T) {
	// Python's json.dumps writes tags as surrogate-pair escapes.
	var esc strings.Builder
	for _, c := range "exfiltrate" {
		fmt.Fprintf(&esc, `\udb40\udc%02x`, c)
	}
	doc := `{"d":"fine` + esc.String() + `", "lone":"a\ud800b", "low":"\udc00", "ansi":"\u001b[8mx\u001b[0m", "nel":"a\u0085b"}`
	fs, err := ScanJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Finding{}
	for _, f := range fs {
		got[f.Pointer+" "+f.Kind] = f
	}
	if f, ok := got["/d "+KindTag]; !ok || f.Evidence["decoded"] != "exfiltrate" || f.Length != 120 {
		t.Errorf("tags: %+v", f)
	}
	for _, k := range []string{"/lone " + KindLoneSurrogate, "/low " + KindLoneSurrogate, "/ansi " + KindEscapeSequence, "/nel " + KindLineSeparator} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing %s in %v", k, slices.Collect(mapsKeys(got)))
		}
	}
}

func mapsKeys(m map[string]Finding) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestScanJSONDuplicateKeys(t *testing.T) {
	many := func(dup string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range 40 {
			fmt.Fprintf(&b, `"k%d":%d,`, i, i)
		}
		b.WriteString(dup + `:0}`)
		return b.String()
	}
	for _, tc := range []struct {
		doc           string
		dups          int
		afterSanitize bool
		pointer       string
	}{
		{`{"a":1,"a":2}`, 1, false, "/a"},
		{`{"a":1,"\u0061":2}`, 1, false, "/a"},
		{`{"name":"x","na\u200bme":"y"}`, 1, true, "/name\u200b"[:0] + "/na\u200bme"},
		{`{"a":{"b":1},"c":{"b":1}}`, 0, false, ""},
		{`[{"a":1},{"a":2}]`, 0, false, ""},
		{`{"x":[{"a":1,"a":1}]}`, 1, false, "/x/0/a"},
		{many(`"k7"`), 1, false, "/k7"},
		{many(`"k\u0037"`), 1, false, "/k7"},
		{many(`"z"`), 0, false, ""},
		{`{"\ud800":1,"\udc00":2}`, 1, false, "/\uFFFD"},
	} {
		fs, err := ScanJSON([]byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		var dups []Finding
		for _, f := range fs {
			if f.Kind == KindDuplicateKey {
				dups = append(dups, f)
			}
		}
		if len(dups) != tc.dups {
			t.Errorf("%s: %d duplicates, want %d: %+v", tc.doc, len(dups), tc.dups, fs)
			continue
		}
		if tc.dups == 0 {
			continue
		}
		f := dups[0]
		if f.Rule != RuleHiddenInstructions || !f.IsKey || f.Pointer != tc.pointer || f.Evidence["after_sanitize"] != tc.afterSanitize {
			t.Errorf("%s: %+v", tc.doc, f)
		}
		if tc.doc[f.Offset] != '"' || tc.doc[f.Offset+f.Length-1] != '"' {
			t.Errorf("%s: offset %d length %d do not cover the key", tc.doc, f.Offset, f.Length)
		}
	}
}

func TestJSONSyntaxErrors(t *testing.T) {
	for _, doc := range []string{
		``, ` `, `{`, `}`, `[1,]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{a:1}`, `"abc`, `"a\"`, `"\u12"`, `"\q"`,
		"\"a\x01b\"", `01`, `1.`, `1e`, `-`, `tru`, `nul`, `[1 2]`, `{"a":1 "b":2}`, `{} {}`, `[`, `["\u001b`,
		`{"a":1]`, `[1}`, `"\ud800\u"`,
	} {
		_, err := ScanJSON([]byte(doc))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ScanJSON(%q): err = %v, want *SyntaxError", doc, err)
			continue
		}
		if se.Offset < 0 || se.Offset > len(doc) {
			t.Errorf("ScanJSON(%q): offset %d", doc, se.Offset)
		}
		if json.Valid([]byte(doc)) {
			t.Errorf("%q is valid for encoding/json", doc)
		}
		if out, _, err := SanitizeJSON([]byte(doc)); err == nil && !IsCleanJSON([]byte(doc)) {
			t.Errorf("SanitizeJSON(%q) = %q, no error", doc, out)
		}
	}
}

func TestJSONDepth(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, f := range []func([]byte) error{
		func(b []byte) error { _, err := ScanJSON(b); return err },
		func(b []byte) error { _, _, err := SanitizeJSON(append(b, "\"\u200b\""...)); return err },
	} {
		if err := f([]byte(deep)); !errors.Is(err, ErrTooDeep) {
			t.Errorf("err = %v, want ErrTooDeep", err)
		}
	}
	ok := strings.Repeat(`{"a":[`, 400) + `"\u200b"` + strings.Repeat("]}", 400)
	fs, err := ScanJSON([]byte(ok))
	if err != nil || len(fs) != 1 || !strings.HasPrefix(fs[0].Pointer, "/a/0/a/0/") {
		t.Errorf("depth 800: %v %+v", err, fs)
	}
	if _, err := (Scanner{MaxDepth: 10}).ScanJSON([]byte(ok)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("MaxDepth 10: %v", err)
	}
}

func TestScanJSONMaxFindings(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 50 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"a\u200bb"`)
	}
	b.WriteString("]")
	fs, err := Scanner{MaxFindings: 10}.ScanJSON([]byte(b.String()))
	if err != nil || len(fs) != 10 || fs[9].Evidence["omitted_findings"] != 40 {
		t.Fatalf("%v %d findings, omitted %v", err, len(fs), fs[len(fs)-1].Evidence["omitted_findings"])
	}
}

func TestSanitizeJSON(t *testing.T) {
	in := "{\n  \"b\" : 1.50E+10,\"a\":[ -0, \"caf\\u00e9\", \"keep\\u003c\\n\" ],\n" +
		"\t\"tags\":\"x\\udb40\\udc41y\", \"ansi\":\"\\u001b[31mred\\u001b[0m\",\"raw\":\"a\u200bb\u2028c\",\n" +
		"\"k\\u200by\":\"\\ud800\",\"bad\":\"\xff\",\"esc-ls\":\"\\u2028\",\"flag\":\"\U0001F3F4" + tags("gbeng") + "\U000E007F\"}"
	want := "{\n  \"b\" : 1.50E+10,\"a\":[ -0, \"caf\\u00e9\", \"keep\\u003c\\n\" ],\n" +
		"\t\"tags\":\"xy\", \"ansi\":\"red\",\"raw\":\"ab\\u2028c\",\n" +
		"\"ky\":\"\\ufffd\",\"bad\":\"\uFFFD\",\"esc-ls\":\"\\u2028\",\"flag\":\"\U0001F3F4" + tags("gbeng") + "\U000E007F\"}"
	out, changed, err := SanitizeJSON([]byte(in))
	if err != nil || !changed {
		t.Fatalf("changed %v err %v", changed, err)
	}
	if string(out) != want {
		t.Errorf("SanitizeJSON:\n got %q\nwant %q", out, want)
	}
	again, changed, err := SanitizeJSON(out)
	if err != nil || changed || !bytes.Equal(again, out) {
		t.Errorf("not idempotent: changed %v err %v\n%q", changed, err, again)
	}
	if !json.Valid(out) {
		t.Error("output is not valid JSON")
	}
	checkSanitizedValues(t, []byte(in), out)
}

func TestSanitizeJSONClean(t *testing.T) {
	for _, name := range []string{benchClean, benchMixed} {
		in := readBench(t, name)
		out, changed, err := SanitizeJSON(in)
		if err != nil || changed || &out[0] != &in[0] {
			t.Errorf("%s: changed %v err %v, same slice %v", name, changed, err, &out[0] == &in[0])
		}
	}
	in := readBench(t, benchHostile)
	out, changed, err := SanitizeJSON(in)
	if err != nil || !changed {
		t.Fatalf("hostile: changed %v err %v", changed, err)
	}
	checkSanitizedValues(t, in, out)
	if fs, _ := ScanJSON(out); len(strippable(fs)) != 0 {
		t.Errorf("sanitized output still has %+v", strippable(fs))
	}
}

// strippable returns the findings whose code points the output view removes.
func strippable(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		switch f.Kind {
		case KindLineSeparator, KindUnassigned, KindMixedScript, KindWholeScript, KindCompatibility, KindDuplicateKey:
		default:
			out = append(out, f)
		}
	}
	return out
}

// checkSanitizedValues checks that out decodes to in's values with every
// string and key mapped through Sanitize: SanitizeJSON changes nothing else.
func checkSanitizedValues(t *testing.T, in, out []byte) {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	if want := mapStrings(a); !reflect.DeepEqual(want, b) {
		t.Errorf("sanitized values differ:\n got %#v\nwant %#v", b, want)
	}
}

func mapStrings(v any) any {
	switch v := v.(type) {
	case string:
		return Sanitize(v)
	case []any:
		for i := range v {
			v[i] = mapStrings(v[i])
		}
		return v
	case map[string]any:
		m := map[string]any{}
		for k, x := range v {
			m[Sanitize(k)] = mapStrings(x)
		}
		return m
	}
	return v
}

func TestSanitizeJSONOutputASCII(t *testing.T) {
	// An all-ASCII (Python-escaped) document stays all ASCII.
	in := readBench(t, benchHostile)
	out, _, err := SanitizeJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range out {
		if c >= 0x80 {
			t.Fatalf("non-ASCII byte at %d", i)
		}
	}
	if !utf8.Valid(out) {
		t.Fatal("invalid UTF-8")
	}
}

func TestScanJSONRawDEL(t *testing.T) {
	fs, err := ScanJSON([]byte("{\"a\":\"x\x7fy\"}"))
	if err != nil || len(fs) != 1 || fs[0].Kind != KindControl {
		t.Fatalf("%v %+v", err, fs)
	}
	out, changed, err := SanitizeJSON([]byte("{\"a\":\"x\x7fy\"}"))
	if err != nil || !changed || string(out) != `{"a":"xy"}` {
		t.Fatalf("%q %v %v", out, changed, err)
	}
}

// jsonQuote writes s as a JSON string with only the mandatory escapes, so
// invalid UTF-8 passes through raw; with ascii every non-ASCII code point
// becomes a \u escape (Python's json.dumps default).
func jsonQuote(s string, ascii bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteByte(s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		case ascii && r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		case ascii && r >= 0x80:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// scanIdentifier scans s as a name (an object key, a tool name): no
// directional mark is typography there.
func scanIdentifier(s string) []Finding {
	a := Scanner{}.analyzer(true)
	a.loadString(s)
	a.identifier = true
	if !a.run() {
		return nil
	}
	return a.findings(nil, "", true)
}

// TestJSONMatchesStrings: every detection case gives the same finding
// kinds as a JSON value (raw and escaped) as it does as a string, and as a
// key as it does as a name; SanitizeJSON decodes to Sanitize's output.
func TestJSONMatchesStrings(t *testing.T) {
	for _, tc := range detectCases {
		want := kindsOf(ScanString(tc.in))
		wantKey := kindsOf(scanIdentifier(tc.in))
		for _, ascii := range []bool{false, true} {
			q := jsonQuote(tc.in, ascii)
			doc := `{"v":` + q + `,` + q + `:0}`
			fs, err := ScanJSON([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var vals, keys []Finding
			for _, f := range fs {
				if f.IsKey {
					keys = append(keys, f)
				} else {
					vals = append(vals, f)
				}
			}
			if got := kindsOf(vals); !slices.Equal(got, want) {
				t.Errorf("%s (ascii %v): value kinds %v, string kinds %v", tc.name, ascii, got, want)
			}
			if got := kindsOf(keys); !slices.Equal(got, wantKey) {
				t.Errorf("%s (ascii %v): key kinds %v, name kinds %v", tc.name, ascii, got, wantKey)
			}
			out, _, err := SanitizeJSON([]byte(doc))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var v map[string]any
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("%s: %v in %q", tc.name, err, out)
			}
			if s := Sanitize(tc.in); v["v"] != strings.ToValidUTF8(s, "\uFFFD") && utf8.ValidString(tc.in) {
				t.Errorf("%s (ascii %v): SanitizeJSON value %+q, Sanitize %+q", tc.name, ascii, v["v"], s)
			}
		}
	}
}

func TestDuplicateKeyPrefersExact(t *testing.T) {
	fs, err := ScanJSON([]byte(`{"a":1,"a\u200b":2,"a":3}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, f := range fs {
		if f.Kind == KindDuplicateKey {
			got = append(got, f.Evidence["after_sanitize"], f.Evidence["first_offset"])
		}
	}
	// "a\u200b" duplicates "a" once sanitized; the last "a" duplicates the
	// first exactly.
	if want := []any{true, 1, false, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("duplicates %v, want %v", got, want)
	}
}

// TestRTLMarksInIdentifiers: in a tools/list result, a directional mark in
// an Arabic description is typography and stays byte-identical; the same
// mark in a tool name or an enum value is reported and removed.
func TestRTLMarksInIdentifiers(t *testing.T) {
	desc := "يبحث في Google Drive\u200F عن الملفات."
	doc, err := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "بحث\u200F", "description": desc,
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"mode": map[string]any{"type": "string", "enum": []any{"سريع\u200F"}, "description": desc}}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := ScanJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Pointer+" "+f.Kind)
	}
	want := []string{"/tools/0/inputSchema/properties/mode/enum/0 " + KindBidiMark, "/tools/0/name " + KindBidiMark}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	out, _, err := SanitizeJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out, []byte(desc)); n != 2 {
		t.Errorf("the descriptions changed (%d of 2 byte-identical):\n%s", n, out)
	}
}

// TestScanSanitizeJSON: the proxy's one walk gives what the two walks give,
// on documents with and without hidden characters, with duplicate keys,
// malformed and nested too deep.
func TestScanSanitizeJSON(t *testing.T) {
	for _, doc := range []string{
		`{"tools":[{"name":"a","description":"plain"}]}`,
		`{"tools":[{"name":"a\u200b","description":"x` + "\u202e" + `y \u001b[8mhidden\u001b[0m"}]}`,
		`{"a":1,"a":2,"b\u200b":3,"b":4}`,
		`{"tools":[{"description":"` + "\xff" + `\ud800"}]}`,
		`{"tools":[{"description":"` + "\u200b" + `"`,
		strings.Repeat("[", DefaultMaxDepth+1) + strings.Repeat("]", DefaultMaxDepth+1),
		"",
	} {
		fs, err := ScanJSON([]byte(doc))
		checkScanSanitizeJSON(t, []byte(doc), fs, err)
	}
	_, out, changed, err := Scanner{}.ScanSanitizeJSON([]byte(`{"d":"a` + "\u200b" + `b"}`))
	if err != nil || !changed || string(out) != `{"d":"ab"}` {
		t.Fatalf("got %q, %v, %v", out, changed, err)
	}
}
