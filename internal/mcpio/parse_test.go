package mcpio

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// trickyFrames are frames where parsers disagree; the corpus is shared
// with the fuzz seeds and the end-to-end test against a real client.
func trickyFrames() map[string]string {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	return map[string]string{
		"plain":             `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		"deep value":        `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"_meta":` + deep + `}}`,
		"duplicate result":  `{"jsonrpc":"2.0","id":1,"result":{"tools":[]},"result":{"tools":[{"name":"x"}]}}`,
		"escaped key":       `{"jsonrpc":"2.0","id":1,"res\u0075lt":{"tools":[]}}`,
		"lone surrogate":    `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","description":"\ud800x"}]}}`,
		"invalid utf-8":     "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\",\"description\":\"\xff\xfe\"}]}}",
		"bom":               "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
		"huge number id":    `{"jsonrpc":"2.0","id":1e400,"result":{}}`,
		"float id":          `{"jsonrpc":"2.0","id":1.0,"result":{"tools":[]}}`,
		"string id":         `{"jsonrpc":"2.0","id":"1","result":{"tools":[]}}`,
		"proto key":         `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"__proto__":{"x":1}}}`,
		"nul byte":          "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"x\x00y\"}}",
		"escaped nul":       `{"jsonrpc":"2.0","id":1,"result":{"a":"x\u0000y"}}`,
		"trailing garbage":  `{"jsonrpc":"2.0","id":1,"result":{}} x`,
		"trailing comma":    `{"jsonrpc":"2.0","id":1,"result":{},}`,
		"batch":             `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}]`,
		"not json":          `Starting server on stdio...`,
		"case variant":      `{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"tools/call"}`,
		"number forms":      `{"a":[0,-0,1.5e-3,-12E+4,0.0]}`,
		"leading zero":      `{"a":01}`,
		"unicode separator": "{\"a\":\"\u2028\u2029\"}",
	}
}

func TestParseMessageMatchesEncodingJSON(t *testing.T) {
	for name, frame := range trickyFrames() {
		t.Run(name, func(t *testing.T) {
			m, err := ParseMessage([]byte(frame))
			want := json.Valid([]byte(frame))
			if name == "deep value" {
				want = true // encoding/json gives up at 10,000 levels; JSON.parse does not
			}
			if (err == nil) != want {
				t.Fatalf("ParseMessage error %v, json.Valid %v", err, want)
			}
			if err != nil || m.Batch != nil || !strings.HasPrefix(strings.TrimSpace(frame), "{") || name == "deep value" {
				return
			}
			var members map[string]json.RawMessage
			if json.Unmarshal([]byte(frame), &members) != nil {
				t.Fatal("json.Unmarshal failed on a valid object")
			}
			if got, want := string(m.Result), string(members["result"]); got != want {
				t.Errorf("result %s, want %s (the last one, as JSON.parse)", got, want)
			}
		})
	}
}

func TestParseMessageEnvelope(t *testing.T) {
	m, err := ParseMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"},"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.ID) != "7" || m.Method != "tools/list" || string(m.Params) != `{"name":"x"}` || !m.IsRequest() {
		t.Errorf("%+v", m)
	}
	m, _ = ParseMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","paramſ":{}}`))
	if m.Ambiguous != "paramſ" {
		t.Errorf("ambiguous %q, want paramſ (Go folds ſ to s)", m.Ambiguous)
	}
	_, err = ParseMessage([]byte(`{"jsonrpc":"2.0","id":42,"result":{"tools":[` + strings.Repeat("{", 5)))
	pe, ok := err.(*ParseError)
	if !ok || string(pe.ID) != "42" {
		t.Errorf("error %v does not recover the id", err)
	}
}

func TestIDKeys(t *testing.T) {
	same := [][2]string{{`1`, `1.0`}, {`1`, `"1"`}, {`1`, `10E-1`}, {`1`, `" 1 "`}, {`1`, `"0x1"`}, {`0`, `-0`}, {`"a"`, `"\u0061"`}}
	for _, pair := range same {
		if !shareKey(IDKeys([]byte(pair[0])), IDKeys([]byte(pair[1]))) {
			t.Errorf("ids %s and %s do not match, JavaScript's Number() matches them", pair[0], pair[1])
		}
	}
	differ := [][2]string{{`1`, `2`}, {`"a"`, `"b"`}, {`1`, `"1x"`}, {`1`, `"0x1p0"`}}
	for _, pair := range differ {
		if shareKey(IDKeys([]byte(pair[0])), IDKeys([]byte(pair[1]))) {
			t.Errorf("ids %s and %s match", pair[0], pair[1])
		}
	}
}

func shareKey(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":"plain"}`, `{"a":"plain"}`},
		{`{"a":"\ud800x"}`, `{"a":"\ufffdx"}`},
		{`{"a":"\ud83d\ude00"}`, `{"a":"\ud83d\ude00"}`},
		{`{"a":"\udc00"}`, `{"a":"\ufffd"}`},
		{`{"a":"\\ud800"}`, `{"a":"\\ud800"}`},
		{"{\"a\":\"x\xffy\"}", "{\"a\":\"x\uFFFDy\"}"},
	}
	for _, tc := range tests {
		if got := string(Normalize([]byte(tc.in))); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestParseMessageMatchesJavaScript runs the corpus through node's
// JSON.parse: every frame it accepts, ParseMessage accepts, with the same
// result member. (ParseMessage may accept more: JSON.parse runs out of
// stack on deep values, which the proxy then refuses to analyse.)
func TestParseMessageMatchesJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	frames := trickyFrames()
	var names []string
	for name, frame := range frames {
		names = append(names, name)
		if err := os.WriteFile(filepath.Join(dir, strings.ReplaceAll(name, " ", "_")), []byte(frame), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `const fs = require("fs"); const out = {};
for (const f of fs.readdirSync(process.argv[1])) {
  const text = fs.readFileSync(process.argv[1] + "/" + f).toString("utf8");
  try { const v = JSON.parse(text); out[f] = {ok: true, result: v && v.result !== undefined ? JSON.stringify(v.result) : null}; }
  catch (e) { out[f] = {ok: false}; }
}
process.stdout.write(JSON.stringify(out));`
	out, err := exec.Command(node, "-e", script, dir).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var js map[string]struct {
		OK     bool    `json:"ok"`
		Result *string `json:"result"`
	}
	if err := json.Unmarshal(out, &js); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		got := js[strings.ReplaceAll(name, " ", "_")]
		m, err := ParseMessage([]byte(frames[name]))
		if got.OK && err != nil {
			t.Errorf("%s: JSON.parse accepts it, ParseMessage says %v", name, err)
			continue
		}
		if !got.OK && err == nil && name != "deep value" {
			t.Errorf("%s: JSON.parse rejects it, ParseMessage accepts it", name)
		}
		if err != nil || got.Result == nil {
			continue
		}
		// The result JavaScript reads, re-encoded, equals ours decoded and
		// re-encoded once normalized.
		var ours any
		if json.Unmarshal(Normalize(m.Result), &ours) != nil {
			continue // deeper than encoding/json goes
		}
		var theirs any
		_ = json.Unmarshal([]byte(*got.Result), &theirs)
		if !reflect.DeepEqual(ours, theirs) && !bytes.Contains([]byte(frames[name]), []byte(`\ud800`)) {
			t.Errorf("%s: result differs:\nours   %v\ntheirs %v", name, ours, theirs)
		}
	}
}

// FuzzParseMessage: ParseMessage accepts exactly what encoding/json
// accepts (below its depth limit), reads the last of repeated envelope
// members, and Normalize keeps valid JSON valid and decoded the same.
func FuzzParseMessage(f *testing.F) {
	for _, frame := range trickyFrames() {
		f.Add([]byte(frame))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMessage(data)
		valid := json.Valid(data)
		if (err == nil) != valid {
			if depth(data) < 9000 {
				t.Fatalf("ParseMessage error %v, json.Valid %v", err, valid)
			}
			return
		}
		if err != nil {
			return
		}
		norm := Normalize(data)
		if !json.Valid(norm) {
			t.Fatalf("Normalize made invalid JSON: %q", norm)
		}
		var a, b any
		if json.Unmarshal(data, &a) == nil {
			if json.Unmarshal(norm, &b) != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("Normalize changed the decoded value: %q -> %q", data, norm)
			}
		}
		if m2, err := ParseMessage(norm); err != nil || m2.InvalidUTF8 || m2.LoneSurrogate {
			t.Fatalf("after Normalize: %v %+v", err, m2)
		}
		if m.Batch == nil {
			var members map[string]json.RawMessage
			if json.Unmarshal(data, &members) == nil && members != nil && !bytes.Equal(m.Result, members["result"]) {
				t.Fatalf("result %s, want the last %s", m.Result, members["result"])
			}
		}
	})
}

func depth(data []byte) int {
	d, max := 0, 0
	for _, c := range data {
		switch c {
		case '[', '{':
			d++
			max = maxInt(max, d)
		case ']', '}':
			d--
		}
	}
	return max
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// TestParseMessageRepeated: a top-level "result" or "id" written twice
// (keys compared as decoded) is reported; a member repeated inside the
// result, or "error" twice, is not the envelope's concern.
func TestParseMessageRepeated(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{},"result":{}}`, "result"},
		{`{"jsonrpc":"2.0","id":1,"result":{},"res\u0075lt":{}}`, "result"},
		{`{"jsonrpc":"2.0","id":2,"id":1,"result":{}}`, "id"},
		{`{"jsonrpc":"2.0","id":2,"id":1,"result":{},"result":{}}`, "result"},
		{`{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}`, ""},
	} {
		m, err := ParseMessage([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if m.Repeated != tc.want {
			t.Errorf("%s: Repeated %q, want %q", tc.in, m.Repeated, tc.want)
		}
	}
}

// TestParseMessageRepeatedCall: a top-level "method" or "params" written
// twice (keys compared as decoded) is reported as RepeatedCall, the first
// repeated one; params repeated inside params are not.
func TestParseMessageRepeatedCall(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","method":"ping"}`, "method"},
		{`{"jsonrpc":"2.0","method":"a","params":{},"p\u0061rams":{}}`, "params"},
		{`{"jsonrpc":"2.0","method":"a","params":{"params":1,"params":2}}`, ""},
	} {
		m, err := ParseMessage([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if m.RepeatedCall != tc.want {
			t.Errorf("%s: RepeatedCall %q, want %q", tc.in, m.RepeatedCall, tc.want)
		}
	}
}
