package unicode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "tools", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func findingsByRule(fs []Finding, rule string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

func TestFixtureTagsSmuggling(t *testing.T) {
	var want struct {
		Visible  string `json:"visible"`
		Decoded  string `json:"decoded_hidden_ascii"`
		TagCount int    `json:"tag_count"`
	}
	if err := json.Unmarshal(readFixture(t, "tags-ascii-smuggling.expected.json"), &want); err != nil {
		t.Fatal(err)
	}
	doc := readFixture(t, "tags-ascii-smuggling.tools-list.json")
	fs, err := ScanJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if d, _ := f.Decoded(); f.Rule != RuleTags || d != want.Decoded || f.Count != want.TagCount {
		t.Errorf("got %s %q count %d, want %s %q count %d", f.Rule, d, f.Count, RuleTags, want.Decoded, want.TagCount)
	}
	if f.Pointer != "/result/tools/0/description" || f.Severity != SeverityError {
		t.Errorf("pointer %q severity %s", f.Pointer, f.Severity)
	}
	out, changed, err := SanitizeJSON(doc)
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	var v struct {
		Result struct {
			Tools []struct{ Description string }
		}
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if got := v.Result.Tools[0].Description; got != want.Visible {
		t.Errorf("sanitized description %q, want %q", got, want.Visible)
	}
}

func TestFixturePaulButler(t *testing.T) {
	var want struct {
		Carrier []string `json:"carrier_codepoints"`
		Decoded string   `json:"decoded_utf8"`
	}
	if err := json.Unmarshal(readFixture(t, "paulbutler-vs-emoji.expected.json"), &want); err != nil {
		t.Fatal(err)
	}
	fs, err := ScanJSON(readFixture(t, "paulbutler-vs-emoji.tools-list.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Rule != RuleVariationSelectors {
		t.Fatalf("findings: %+v", fs)
	}
	if d, _ := fs[0].Decoded(); d != want.Decoded {
		t.Errorf("decoded %q, want %q", d, want.Decoded)
	}
	if fs[0].Evidence["base"] != want.Carrier[0] || fs[0].CodePoints[0] != want.Carrier[1] || fs[0].CodePoints[1] != want.Carrier[2] {
		t.Errorf("base %v code points %v, want carrier %v", fs[0].Evidence["base"], fs[0].CodePoints, want.Carrier)
	}
}

func TestFixtureANSI(t *testing.T) {
	doc := readFixture(t, "tob-ansi-test-server.tools-list.json")
	fs, err := ScanJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 8 || len(findingsByRule(fs, RuleControl)) != 8 {
		t.Fatalf("want 8 U005 findings: %+v", fs)
	}
	var intents []string
	for _, f := range fs {
		intents = append(intents, f.Evidence["intent"].(string))
	}
	joined := strings.Join(intents, "|")
	for _, w := range []string{"SGR 31", "SGR 32", "SGR 33", "SGR 1 bold", "SGR 0 reset"} {
		if !strings.Contains(joined, w) {
			t.Errorf("no intent %q in %s", w, joined)
		}
	}
	out, _, err := SanitizeJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(`\u001b`)) || !bytes.Contains(out, []byte(`This text is red.`)) {
		t.Errorf("sanitized: %s", out)
	}
}

// TestFixturesWithoutUnicodeFindings: the poisoning and annotation fixtures
// are plain ASCII; their problems are for T001/A001, not for this package.
func TestFixturesWithoutUnicodeFindings(t *testing.T) {
	for _, name := range []string{
		"invariant-direct-poisoning.tools-list.json",
		"mcpshield-bad-server.tools-list.json",
		"annotations-tokensave-issue94.tools-list.json",
	} {
		doc := readFixture(t, name)
		fs, err := ScanJSON(doc)
		if err != nil || len(fs) != 0 {
			t.Errorf("%s: %v %+v", name, err, fs)
		}
		if !IsCleanJSON(doc) {
			t.Errorf("%s: not clean", name)
		}
	}
}

// TestCleanCorpus: legitimate text in many scripts produces no finding and
// is byte-identical after sanitizing, as a string and inside tools/list
// documents (raw UTF-8 and Python-style escapes).
func TestCleanCorpus(t *testing.T) {
	var corpus []struct{ Name, Text string }
	b, err := os.ReadFile("testdata/clean-corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus {
		// Stricter than "nothing at warning or error": legitimate text
		// gets no finding at all, not even a note.
		for _, f := range ScanString(c.Text) {
			t.Errorf("%s: %s %s %s: %s", c.Name, f.Severity, f.Rule, f.Kind, f.Message)
		}
		if got := Sanitize(c.Text); got != c.Text {
			t.Errorf("%s: Sanitize changed %+q to %+q", c.Name, c.Text, got)
		}
	}
	for _, name := range []string{"clean-multilingual.tools-list.json", "clean-multilingual-escaped.tools-list.json"} {
		doc := readFixture(t, name)
		fs, err := ScanJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			t.Errorf("%s: %s %s %s at %s: %s", name, f.Severity, f.Rule, f.Kind, f.Pointer, f.Message)
		}
		out, changed, err := SanitizeJSON(doc)
		if err != nil || changed || !bytes.Equal(out, doc) {
			t.Errorf("%s: SanitizeJSON changed %v err %v", name, changed, err)
		}
	}
	for _, name := range []string{benchClean, benchMixed} {
		if fs, err := ScanJSON(readBench(t, name)); err != nil || len(fs) != 0 {
			t.Errorf("%s: %v %d findings, first %+v", name, err, len(fs), fs[:min(1, len(fs))])
		}
	}
}
