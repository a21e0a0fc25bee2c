package unicode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"
)

// Seeds besides testdata/fuzz/<FuzzName>: the detection cases, the clean
// corpus and the tools/list fixtures.
func addStringSeeds(f *testing.F) {
	for _, tc := range detectCases {
		f.Add(tc.in)
	}
	var corpus []struct{ Text string }
	if b, err := os.ReadFile("testdata/clean-corpus.json"); err == nil && json.Unmarshal(b, &corpus) == nil {
		for _, c := range corpus {
			f.Add(c.Text)
		}
	}
}

func addJSONSeeds(f *testing.F) {
	names, _ := filepath.Glob("testdata/tools/*.tools-list.json")
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
	for _, tc := range detectCases {
		if b, err := json.Marshal(map[string]string{tc.in: tc.in}); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{`{"a":1,"a":2}`, `[[[[]]]]`, `"\ud800"`, `{"k\u200b":"\udb40\udc41"}`, `1e5`, `"\u001b]8;;x\u0007"`} {
		f.Add([]byte(s))
	}
}

// strippedKinds are the kinds whose code points Sanitize removes (with the
// default Scanner): none of them may survive in its output.
var strippedKinds = map[string]bool{
	KindTag: true, KindBidiControl: true, KindBidiMark: true, KindZeroWidth: true,
	KindInvisibleOperator: true, KindSoftHyphen: true, KindCGJ: true, KindHangulFiller: true,
	KindIgnorable: true, KindBlank: true, KindInterlinear: true, KindVariationSelector: true,
	KindBinary: true, KindVariationEncoding: true, KindEscapeSequence: true, KindControl: true,
	KindOverwrite: true, KindPrivateUse: true, KindNoncharacter: true, KindInvalidUTF8: true,
	KindLoneSurrogate: true,
}

func FuzzSanitize(f *testing.F) {
	addStringSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%+q) = %+q: invalid UTF-8", s, out)
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %+q -> %+q -> %+q", s, out, again)
		}
		fs := ScanString(s)
		for _, fd := range fs {
			if fd.Offset < 0 || fd.Length <= 0 || fd.Offset+fd.Length > len(s) {
				t.Fatalf("finding out of range: %+v (len %d)", fd, len(s))
			}
		}
		changes := false
		for _, fd := range fs {
			changes = changes || strippedKinds[fd.Kind]
		}
		if !changes && out != s && !hasStrippedUnassigned(s) {
			t.Fatalf("Sanitize changed %+q to %+q without a finding that explains it: %+v", s, out, fs)
		}
		for _, fd := range ScanString(out) {
			if strippedKinds[fd.Kind] {
				t.Fatalf("Sanitize(%+q) = %+q still has %s", s, out, fd.Kind)
			}
		}
		if a, slow := Analysis(s), analysisSlow(s); a != slow {
			t.Fatalf("Analysis(%+q) = %+q, slow path %+q", s, a, slow)
		}
		_ = Skeleton(s)
		_ = MeasurePadding(s)
	})
}

// hasStrippedUnassigned reports whether s holds an unassigned plane-14
// code point, which is reported as unassigned but removed.
func hasStrippedUnassigned(s string) bool {
	for _, r := range s {
		if classOf(r) == clsTagReserved {
			return true
		}
	}
	return false
}

func FuzzScanJSON(f *testing.F) {
	addJSONSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, err := ScanJSON(b)
		for _, fd := range fs {
			if fd.Offset < 0 || fd.Length <= 0 || fd.Offset+fd.Length > len(b) {
				t.Fatalf("finding out of range: %+v (len %d)", fd, len(b))
			}
			if fd.Rule == "" || fd.Kind == "" || fd.Evidence["kind"] != fd.Kind {
				t.Fatalf("incomplete finding %+v", fd)
			}
		}
		// Differential check of the tokenizer against encoding/json (which
		// nests up to 10000 levels, more than DefaultMaxDepth).
		if !errors.Is(err, ErrTooDeep) && (err == nil) != json.Valid(b) {
			t.Fatalf("ScanJSON err = %v, json.Valid = %v for %q", err, json.Valid(b), b)
		}
		if err == nil && len(fs) < DefaultMaxFindings {
			exact := 0
			for _, fd := range fs {
				if fd.Kind == KindDuplicateKey && fd.Evidence["after_sanitize"] == false {
					exact++
				}
			}
			if want := stdDuplicateKeys(b); exact != want {
				t.Fatalf("%d exact duplicate keys, encoding/json tokens show %d, in %q", exact, want, b)
			}
		}
		checkScanSanitizeJSON(t, b, fs, err)
		if err == nil && IsCleanJSON(b) {
			for _, fd := range fs {
				if fd.Kind != KindDuplicateKey {
					t.Fatalf("clean document with finding %+v", fd)
				}
			}
		}
	})
}

// checkScanSanitizeJSON holds the one-walk ScanSanitizeJSON to ScanJSON
// (fs, err) and SanitizeJSON of the same document.
func checkScanSanitizeJSON(t *testing.T, b []byte, fs []Finding, err error) {
	t.Helper()
	fs2, out2, changed2, err2 := Scanner{}.ScanSanitizeJSON(b)
	if !reflect.DeepEqual(fs2, fs) || fmt.Sprint(err2) != fmt.Sprint(err) {
		t.Fatalf("ScanSanitizeJSON(%q) findings %+v, %v; ScanJSON %+v, %v", b, fs2, err2, fs, err)
	}
	if err2 != nil {
		if out2 != nil || changed2 {
			t.Fatalf("ScanSanitizeJSON(%q) failed with %v but gave output %q (changed %v)", b, err2, out2, changed2)
		}
		return
	}
	out, changed, serr := SanitizeJSON(b)
	if serr != nil || changed2 != changed || !bytes.Equal(out2, out) {
		t.Fatalf("ScanSanitizeJSON(%q) = %q (changed %v); SanitizeJSON = %q (changed %v, %v)", b, out2, changed2, out, changed, serr)
	}
}

func FuzzSanitizeJSON(f *testing.F) {
	addJSONSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		out, changed, err := SanitizeJSON(b)
		if err != nil {
			if IsCleanJSON(b) {
				t.Fatalf("clean input with error %v", err)
			}
			return
		}
		if !changed && !bytes.Equal(out, b) {
			t.Fatalf("changed = false but output differs")
		}
		if IsCleanJSON(b) && (changed || !bytes.Equal(out, b)) {
			t.Fatalf("clean input changed: %q -> %q", b, out)
		}
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 output %q", out)
		}
		if json.Valid(b) && !json.Valid(out) {
			t.Fatalf("valid JSON %q became invalid %q", b, out)
		}
		again, changed2, err := SanitizeJSON(out)
		if err != nil || changed2 || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", b, out, again, err)
		}
		if fs, err := ScanJSON(out); err == nil {
			for _, fd := range fs {
				if strippedKinds[fd.Kind] {
					t.Fatalf("SanitizeJSON(%q) = %q still has %+v", b, out, fd)
				}
			}
		}
	})
}

// TestWriteFuzzSeeds rewrites the committed seed corpus in testdata/fuzz
// with -update: a few hand-picked hostile and legitimate inputs per
// target, in the go test fuzz v1 format.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite testdata/fuzz")
	}
	strSeeds := map[string]string{
		"tags":         "ok" + tags("ignore previous") + "\U0001F3F4" + tags("gbeng") + "\U000E007F",
		"vs-payload":   "😀" + vsBytes("Long live the data point."),
		"ansi":         "\x1b[8mx\x1b[0m\x1b]8;;https://e.test\x07l\x1b]8;;\x07\u009b2J\x1bP1\x1b\\\r\b",
		"bidi":         "a\u202Eb\u2066c\u2069\u202C \u05D0\u200F",
		"binary":       bitsOf("Hi", 0x200B, 0x200C),
		"joiners":      "👩\u200D💻 می\u200Cخواهم क्\u200Dष a\u200Db",
		"fillers":      "\u1100\u1160\u3164\u2800\u2800⠁\u2800⠃",
		"confusables":  "r\u0435ad ехес ＜IMPORTANT＞ 𝗶𝗴𝗻𝗼𝗿𝗲 ﬁle",
		"invalid-utf8": "a\xff\xed\xa0\x80\xe2\x82",
		"interlinear":  "\uFFF9a\uFFFAb\uFFFB",
		"separators":   "a\u2028b\u0085c\r\nd\u00A0e",
		"private-use":  "\uE000\U000F0000\uFDD0\U000E0080\u0378",
	}
	jsonSeeds := map[string]string{
		"python-escaped": `{"tools":[{"name":"x","description":"a\udb40\udc41\u200b\u001b[31m\ud800"}]}`,
		"duplicates":     `{"a":1,"\u0061":2,"n\u200bame":3,"name":4}`,
		"nested":         `[[{"k":[1,-0.5e+3,true,false,null,"\u2028"]}]]`,
		"raw-utf8":       "{\"d\":\"caf\u00e9 \u202Eevil\u202C \u2028\"}",
		"invalid":        `{"a":"\u00"}`,
	}
	write := func(target, name, value string, isBytes bool) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		lit := "string(" + strconv.Quote(value) + ")"
		if isBytes {
			lit = "[]byte(" + strconv.Quote(value) + ")"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("go test fuzz v1\n"+lit+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, v := range strSeeds {
		write("FuzzSanitize", name, v, false)
	}
	for name, v := range jsonSeeds {
		write("FuzzScanJSON", name, v, true)
		write("FuzzSanitizeJSON", name, v, true)
	}
}

// stdDuplicateKeys counts the object keys that equal an earlier key of the
// same object, as encoding/json decodes them (invalid UTF-8 and lone
// surrogates become U+FFFD, as in ScanJSON).
func stdDuplicateKeys(b []byte) int {
	type frame struct {
		obj, expectKey bool
		keys           map[string]bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].obj {
			stack[n-1].expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dups := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return dups
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, &frame{obj: true, expectKey: true, keys: map[string]bool{}})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		case string:
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
				top := stack[n-1]
				if top.keys[v] {
					dups++
				}
				top.keys[v] = true
				top.expectKey = false
				continue
			}
		}
		valueDone()
	}
}
