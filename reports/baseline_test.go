package reports

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadBaseline(t *testing.T) {
	b, err := LoadBaseline(filepath.Join("testdata", "hostile.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != len(hostileReport().Findings) || !b.Contains("f-00000000000000f1") || b.Contains("f-ffffffffffffffff") {
		t.Errorf("baseline holds %d ids", b.Len())
	}
	s := b.Suppression()
	if s.Kind != SuppressedByBaseline || !strings.Contains(s.Justification, "hostile.json") {
		t.Errorf("suppression = %+v", s)
	}
}

func TestParseBaselineErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"syntax", "{\n  \"schema\": \"mcpguard/report/v1\",\n  \"findings\": [,]\n}", "b.json:3:16: baseline: invalid JSON: invalid character ','"},
		{"truncated", "{\"schema\": \"mcpguard/report/v1\", \"findings\": [", "b.json:1:47: baseline: invalid JSON: unexpected EOF"},
		{"empty", "", "b.json:1:1: baseline: invalid JSON"},
		{"array", "[1, 2]", "b.json:1:1: baseline: want a JSON object"},
		{"no schema", `{"findings": []}`, "b.json:1:1: baseline: not an mcpguard report: no \"schema\" field"},
		{"other schema", "{\"findings\": [],\n \"schema\": \"sarif\"}", "b.json:2:2: baseline: schema \"sarif\" is not \"mcpguard/report/v1\""},
		{"findings not a list", "{\"schema\": \"mcpguard/report/v1\", \"findings\": {}}", "b.json:1:47: baseline: findings: want []reports.baselineEntry, not a JSON object"},
		{"no findings", `{"schema": "mcpguard/report/v1"}`, "b.json:1:1: baseline: no \"findings\" list"},
		{"finding without id", "{\"schema\": \"mcpguard/report/v1\",\n\"findings\": [{\"rule\": \"x\"}]}", "b.json:2:1: baseline: findings[0] has no id"},
		{"trailing data", "{\"schema\": \"mcpguard/report/v1\", \"findings\": []}\n  {}", "b.json:2:3: baseline: invalid JSON: data after the report"},
		{"sarif log", `{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": []}`, "not an mcpguard report"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBaseline("b.json", []byte(tc.doc))
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want a *FileError", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want %q", err.Error(), tc.want)
			}
		})
	}
	if _, err := LoadBaseline(filepath.Join("testdata", "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json: read baseline: no such file") {
		t.Errorf("missing file: %v", err)
	}
}

// Len returns the number of finding ids in the baseline.
func (b *Baseline) Len() int { return len(b.ids) }
