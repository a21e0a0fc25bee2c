package reports

import (
	"encoding/json"
	"math/rand/v2"
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
