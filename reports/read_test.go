package reports

import (
	"bytes"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"math/rand/v2"
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

// TestFastDecodeMatchesUnmarshal: reports whose every field is filled at
// random (by reflection, so that a field added to a report's types is
// filled too), written as scan writes them, decode by hand exactly as
// jsonv2.Unmarshal decodes them; and the hand-written decoder takes most
// of them, so that the comparison cannot pass by declining every time.
// Altered copies (a null, a fraction, an escaped name, a duplicate, a
// trailing value) are declined or decoded alike too.
func TestFastDecodeMatchesUnmarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 13))
	var d fastDecoder // one for all, as a ReportReader uses it
	taken := 0
	const n = 400
	for i := range n {
		var r Report
		fillRandom(rng, reflect.ValueOf(&r).Elem())
		for k := range r.Servers {
			if k%2 == 0 {
				r.Servers[k].Details, r.Servers[k].Introspection = nil, nil
			}
		}
		var b bytes.Buffer
		if err := indentEncoder(&b, "").Encode(&r); err != nil {
			t.Fatal(err)
		}
		data := b.Bytes()
		if checkFastDecode(t, &d, data) {
			taken++
		}
		for _, alter := range [][2]string{
			{`"name": "`, `"name": null, "x": "`},
			{`"line": `, `"line": 1.5, "y": `},
			{`"id": `, `"i\u0064": `},
			{`"id": `, `"id": "dup", "id": `},
			{`"column": `, `"column": -0, "z": `},
		} {
			checkFastDecode(t, &d, bytes.Replace(data, []byte(alter[0]), []byte(alter[1]), 1))
		}
		checkFastDecode(t, &d, append(data, "{}"...))
		checkFastDecode(t, &d, data[:i%len(data)])
	}
	if taken < n/2 {
		t.Fatalf("the hand-written decoder took %d of %d reports", taken, n)
	}
}

// TestFastDecodeStringsStayPut holds fastDecoder to the invariant of its
// unsafe.String: a string it returned is never written over. One decoder
// reads reports of growing and shrinking sizes (so that its blocks fill,
// are replaced and are sized anew) and every report is kept; at the end
// each must still equal what Unmarshal makes of its bytes. A block reused
// within a report or across reports, or written past a string's end,
// changes the strings of a report read earlier.
func TestFastDecodeStringsStayPut(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 4))
	var d fastDecoder
	type kept struct {
		data []byte
		r    Report
	}
	var all []kept
	for i := range 60 {
		var r Report
		r.Schema = Schema
		for k := range []int{3, 200, 1, 40, 0, 500}[i%6] {
			var s Server
			fillRandom(rng, reflect.ValueOf(&s).Elem())
			s.Details, s.Introspection = nil, nil
			s.ID = fmt.Sprintf("s-%d-%d", i, k)
			r.Servers = append(r.Servers, s)
			var f Finding
			fillRandom(rng, reflect.ValueOf(&f).Elem())
			f.Evidence = nil
			f.Message = strings.Repeat(fmt.Sprintf("finding %d of report %d. ", k, i), 1+k%9)
			r.Findings = append(r.Findings, f)
		}
		var b bytes.Buffer
		if err := indentEncoder(&b, "").Encode(&r); err != nil {
			t.Fatal(err)
		}
		var got Report
		if !d.decodeReport(b.Bytes(), &got) {
			t.Fatalf("report %d: the hand-written decoder declined it, so this test tests nothing", i)
		}
		all = append(all, kept{b.Bytes(), got})
	}
	for i, k := range all {
		var want Report
		if err := jsonv2.Unmarshal(k.data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(k.r, want) {
			t.Fatalf("report %d changed after later reports were decoded", i)
		}
	}
}
