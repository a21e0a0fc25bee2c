package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// checkFastDecode holds d.decodeReport to jsonv2.Unmarshal on data, and
// reports whether decodeReport took it.
func checkFastDecode(t *testing.T, d *fastDecoder, data []byte) bool {
	t.Helper()
	var fast, want Report
	if !d.decodeReport(data, &fast) {
		return false
	}
	if err := jsonv2.Unmarshal(data, &want); err != nil {
		t.Fatalf("decodeReport accepted what Unmarshal refuses (%v): %.200q", err, data)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("decodeReport decoded\n%#v\nUnmarshal\n%#v", fast, want)
	}
	// nil and empty lists are the same to DeepEqual inside a struct only
	// where both are one or the other; say it for the lists themselves.
	if (fast.Servers == nil) != (want.Servers == nil) || (fast.Findings == nil) != (want.Findings == nil) {
		t.Fatalf("lists nil: servers %v/%v, findings %v/%v", fast.Servers == nil, want.Servers == nil, fast.Findings == nil, want.Findings == nil)
	}
	return true
}

// FuzzReadReport feeds ReadReport what a fleet's collection may hold:
// reports, truncated or altered ones, foreign JSON, garbage. It must never
// panic; a report it accepts has the v1 schema and merges and renders in
// every fleet format; an error's position lies within the input; and the
// hand-written decoder accepts nothing Unmarshal refuses and decodes what
// it accepts as Unmarshal does.
func FuzzReadReport(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "hostile.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add([]byte(`{"schema": "mcpguard/report/v1", "servers": [{"id": 1}]}`))
	f.Add([]byte(`{"schema": "mcpguard/fleet/v2"}`))
	f.Add([]byte(`{"schema": 5}`))
	f.Add([]byte(`{"name": "not a report"}`))
	f.Add([]byte("\xef\xbb\xbf{\"schema\": \"mcpguard/report/v1\", \"generated_at\": \"not a time\"}"))
	f.Add([]byte(`[1, 2, 3]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastDecode(t, new(fastDecoder), data)
		r, ferr := ReadReport("r.json", data)
		if ferr != nil {
			if r != nil {
				t.Fatal("a report and an error")
			}
			if ferr.Line < 0 || ferr.Line > bytes.Count(data, []byte("\n"))+1 || ferr.Column < 0 {
				t.Fatalf("error position %d:%d outside the input", ferr.Line, ferr.Column)
			}
			return
		}
		if r.Schema != Schema {
			t.Fatalf("accepted schema %q", r.Schema)
		}
		m := NewMerger(MergeOptions{Tool: Tool{Name: "mcpguard", Version: "fuzz"}, Now: time.Unix(0, 0), MaxAge: time.Hour})
		m.Add("r.json", r)
		m.Add("again.json", r)
		fl := m.Fleet()
		fl.SetWhatIf(nil, make([]Judged, len(fl.Servers)), nil, nil)
		// The same fleet without aggregates, for the forms that do without.
		lm := NewMerger(MergeOptions{Tool: Tool{Name: "mcpguard", Version: "fuzz"}, Now: time.Unix(0, 0), MaxAge: time.Hour, NoAggregates: true})
		lm.Add("r.json", r)
		lm.Add("again.json", r)
		lean := lm.Fleet()
		lean.SetWhatIf(nil, make([]Judged, len(lean.Servers)), nil, nil)
		for _, format := range []Format{FormatJSON, FormatText, FormatMarkdown, FormatCSV, FormatCycloneDX, FormatHTML} {
			var b bytes.Buffer
			if err := RenderFleet(&b, format, fl, Options{CSVKind: CSVServers}); err != nil {
				t.Fatalf("render %s: %v", format, err)
			}
			if FleetNeedsAggregates(format) {
				continue
			}
			var lb bytes.Buffer
			if err := RenderFleet(&lb, format, lean, Options{CSVKind: CSVServers}); err != nil {
				t.Fatalf("render %s without aggregates: %v", format, err)
			}
			if !bytes.Equal(b.Bytes(), lb.Bytes()) {
				t.Fatalf("%s renders differently without aggregates", format)
			}
		}
	})
}
