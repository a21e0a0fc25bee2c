package reports

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestReportReaderReuse reads reports of different sizes, and lists that
// are absent, null or empty, one after the other with one ReportReader:
// each must decode exactly as a fresh ReadReport does, and stay so when
// the reader goes on to decode the next report into the space it keeps.
func TestReportReaderReuse(t *testing.T) {
	hostile, err := os.ReadFile(filepath.Join("testdata", "hostile.json"))
	if err != nil {
		t.Fatal(err)
	}
	inputs := [][]byte{
		hostile,
		[]byte(`{"schema": "mcpguard/report/v1", "servers": [{"id": "s-1", "name": "one"}], "findings": []}`),
		[]byte(`{"schema": "mcpguard/report/v1"}`),
		[]byte(`{"schema": "mcpguard/report/v1", "servers": null, "findings": null}`),
		[]byte(`{"schema": "mcpguard/report/v1", "servers": [], "findings": [{"id": "f-1", "rule": "MCPG-C002"}]}`),
		[]byte(`{"schema": "mcpguard/report/v1", "servers": [{"id": 5}]}`), // an error half way through the list
		hostile,
		[]byte(`{"schema": "mcpguard/report/v1", "servers": [{"id": "s-2", "args": ["a"]}, {"id": "s-3"}]}`),
	}
	var rr ReportReader
	var got []*Report
	for i, in := range inputs {
		want, wantErr := ReadReport("r.json", in)
		r, ferr := rr.Read("r.json", in)
		if !reflect.DeepEqual(ferr, wantErr) {
			t.Fatalf("input %d: error %v, want %v", i, ferr, wantErr)
		}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("input %d: the reused reader decoded\n%+v\nwant\n%+v", i, r, want)
		}
		if r != nil && (r.Servers == nil) != (want.Servers == nil) {
			t.Fatalf("input %d: servers nil %v, want %v", i, r.Servers == nil, want.Servers == nil)
		}
		got = append(got, r)
	}
	// What was read first is untouched by everything read after it.
	for i, in := range inputs {
		want, _ := ReadReport("r.json", in)
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("input %d changed when later reports were read", i)
		}
	}
}
