package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestCellsJSONMatchesEncodingJSON holds the HTML data blocks' cell writer
// to encoding/json, byte for byte: every kind of cell the tables use, a
// value of another type, and random strings of markup characters,
// control characters, U+2028, U+2029 and bytes that are not UTF-8.
func TestCellsJSONMatchesEncodingJSON(t *testing.T) {
	type effect string
	pieces := []string{"a", "é", "<", ">", "&", `"`, `\`, "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\u2028", "\u2029",
		"\xff", "\xe2\x80", "\ufffd", "</script>", "<!--", "\U0001F600", " "}
	rng := rand.New(rand.NewPCG(5, 6))
	str := func() string {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	rows := [][]any{
		{},
		{nil, "", true, false, 0, -7, 1 << 40, []string(nil), []string{}, []any(nil), []any{}, effect("lose"), map[string]int{"b": 1, "a": 2}},
	}
	for range 2000 {
		row := []any{str(), rng.IntN(2) == 0, rng.IntN(1000), nil, []string{str(), str()}, []any{[]string{str(), str(), ""}, []string{str()}}}
		rng.Shuffle(len(row), func(i, j int) { row[i], row[j] = row[j], row[i] })
		rows = append(rows, row)
	}
	for _, row := range rows {
		got, err := appendCellsJSON(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("cells %#v:\n got %s\nwant %s", row, got, want)
		}
	}
}

// TestHTMLDataBlockMatchesEncodingJSON writes a data block of thousands of
// rows, which its chunks encode on every core, and holds it to the block
// encoding/json would write, row by row. (Run with -race: the chunks share
// nothing but the rows they read.)
func TestHTMLDataBlockMatchesEncodingJSON(t *testing.T) {
	row := func(i int) [2][]any {
		s := strings.Repeat("<&>\u2028\xff", i%3) + "row " + strconv.Itoa(i)
		return [2][]any{{s, nil, "host", "active", nil}, {i%2 == 0, i, []string{s, ""}, []any{[]string{"k", s}}, nil}}
	}
	d := htmlTableData{Kind: "servers", Fleet: true, N: 3000, Row: row, Fixes: map[string]string{"MCPG-P002": "fix <it>"}}
	var got bytes.Buffer
	w := bufio.NewWriter(&got)
	if err := d.write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fixes, _ := json.Marshal(d.Fixes)
	want := `<script type="application/json" id="rows-servers">{"fleet":true,"fixes":` + string(fixes) + `,"rows":[`
	for i := range d.N {
		if i > 0 {
			want += ","
		}
		b, err := json.Marshal(row(i))
		if err != nil {
			t.Fatal(err)
		}
		want += string(b)
	}
	want += "]}</script>\n"
	if got.String() != want {
		t.Fatalf("data block differs from encoding/json's rows (%d and %d bytes)", got.Len(), len(want))
	}
}
