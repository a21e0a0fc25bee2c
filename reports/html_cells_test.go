package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cellValue is the value a cell stands for, as encoding/json would be
// given it.
func cellValue(t *testing.T, c htmlCell) any {
	switch c.kind {
	case cellNull:
		return nil
	case cellString:
		return c.s
	case cellInt, cellShared:
		return c.n
	case cellBool:
		return c.n != 0
	case cellStrings:
		return c.list
	case cellRaw:
		return json.RawMessage(c.s)
	}
	t.Fatalf("cell kind %d", c.kind)
	return nil
}

func cellValues(t *testing.T, cells []htmlCell) []any {
	out := []any{}
	for _, c := range cells {
		out = append(out, cellValue(t, c))
	}
	return out
}

// TestCellsJSONMatchesEncodingJSON holds the HTML data blocks' cell writer
// to encoding/json, byte for byte: every kind of cell the tables use, and
// random strings of markup characters, control characters, U+2028, U+2029
// and bytes that are not UTF-8.
func TestCellsJSONMatchesEncodingJSON(t *testing.T) {
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
	rows := [][]htmlCell{
		{},
		{{}, cellStr(""), cellFlag(true), cellFlag(false), cellNum(0), cellNum(-7), cellNum(math.MaxInt), cellList(nil), cellList([]string{}),
			evidenceCell(nil), {kind: cellShared, n: 3}},
	}
	for range 2000 {
		row := []htmlCell{cellStr(str()), cellFlag(rng.IntN(2) == 0), cellNum(rng.IntN(1000)), {}, cellList([]string{str(), str()}),
			evidenceCell([]htmlEvidence{{Key: str(), Value: str(), Decoded: ""}, {Key: str(), Value: str(), Decoded: str()}})}
		rng.Shuffle(len(row), func(i, j int) { row[i], row[j] = row[j], row[i] })
		rows = append(rows, row)
	}
	for _, row := range rows {
		got := appendCellsJSON(nil, row)
		want, err := json.Marshal(cellValues(t, row))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("cells %#v:\n got %s\nwant %s", row, got, want)
		}
	}
	// Evidence is lists of [key, value, decoded], as encoding/json writes them.
	ev := []htmlEvidence{{Key: "k<", Value: "v\u2028", Decoded: ""}}
	want, _ := json.Marshal([][]string{{"k<", "v\u2028", ""}})
	if got := evidenceCell(ev).s; got != string(want) {
		t.Fatalf("evidence %s, want %s", got, want)
	}
}

// TestHTMLDataBlockMatchesEncodingJSON writes a data block of thousands of
// rows, which its chunks encode on every core, puts its shared strings
// back as the page's script does, and holds every row to what
// encoding/json makes of it. (Run with -race: the chunks share nothing but
// the rows they read.)
func TestHTMLDataBlockMatchesEncodingJSON(t *testing.T) {
	row := func(i int, r *htmlRow) {
		s := strings.Repeat("<&>\u2028\xff", i%3) + "row " + strconv.Itoa(i)
		shared := "host " + strconv.Itoa(i/7) // repeats in seven rows
		r[0] = append(r[0], cellStr(s), htmlCell{}, cellStr("host"), cellStr("active"), cellStr(shared))
		r[1] = append(r[1], cellFlag(i%2 == 0), cellNum(i), cellList([]string{s, ""}), evidenceCell([]htmlEvidence{{Key: "k", Value: s}}),
			htmlCell{}, cellStr(shared), cellStr("cell"), cellStr(s))
	}
	d := htmlTableData{Kind: "servers", Fleet: true, N: 3000, Row: row, Fixes: map[string]string{"MCPG-P002": "fix <it>"}, Dict: []int{4, 5, 6}}
	var got bytes.Buffer
	w := bufio.NewWriter(&got)
	if err := d.write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	const head, tail = `<script type="application/json" id="rows-servers">`, "</script>\n"
	block, okHead := strings.CutPrefix(got.String(), head)
	block, okTail := strings.CutSuffix(block, tail)
	if !okHead || !okTail {
		t.Fatalf("not one script element: %.100s", got.String())
	}
	if strings.ContainsAny(block, "<>&\u2028") {
		t.Fatal("the block holds a character that HTML or JavaScript could read as markup")
	}
	var data struct {
		Fleet bool
		Fixes map[string]string
		Dict  []int
		Parts []struct {
			Strings []string
			Rows    [][2][]any
		}
	}
	if err := json.Unmarshal([]byte(block), &data); err != nil {
		t.Fatal(err)
	}
	if !data.Fleet || !reflect.DeepEqual(data.Fixes, d.Fixes) || !slices.Equal(data.Dict, d.Dict) {
		t.Fatalf("block header: %v %v %v", data.Fleet, data.Fixes, data.Dict)
	}
	// The page script's expand: numbers in the filter values and the Dict
	// cells are indices into the part's strings.
	var rows [][2][]any
	shared := 0
	for _, p := range data.Parts {
		str := func(v any) any {
			if k, ok := v.(float64); ok {
				shared++
				return p.Strings[int(k)]
			}
			return v
		}
		for _, r := range p.Rows {
			for k := range r[0] {
				r[0][k] = str(r[0][k])
			}
			for _, k := range data.Dict {
				r[1][k] = str(r[1][k])
			}
			rows = append(rows, r)
		}
	}
	if len(rows) != d.N {
		t.Fatalf("%d rows, want %d", len(rows), d.N)
	}
	if want := (d.N + 255) / 256; len(data.Parts) != want {
		// Smaller parts list the repeated strings more often.
		t.Errorf("%d parts, want %d of 256 rows", len(data.Parts), want)
	}
	for i := range d.N {
		var r htmlRow
		row(i, &r)
		b, err := json.Marshal([2][]any{cellValues(t, r[0]), cellValues(t, r[1])})
		if err != nil {
			t.Fatal(err)
		}
		var want [2][]any
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rows[i], want) {
			t.Fatalf("row %d: %v, want %v", i, rows[i], want)
		}
	}
	// "host", "active", "cell" and each shared string are sent once per
	// part; a string that does not repeat there ("row 6") stays in its
	// rows.
	if shared < 4*d.N || strings.Count(block, `"cell"`) != len(data.Parts) || strings.Count(block, `"row 6"`) != 4 {
		t.Errorf("strings shared %d times; \"cell\" %d times in %d parts; \"row 6\" %d times", shared,
			strings.Count(block, `"cell"`), len(data.Parts), strings.Count(block, `"row 6"`))
	}
}

// TestHTMLDataBlockDictCells refuses a shared cell or filter value that
// holds other than a string (the page would read a number there as an
// index), and writes an empty list of shared cells as [].
func TestHTMLDataBlockDictCells(t *testing.T) {
	for _, tc := range []struct {
		row  htmlRow
		want string
	}{
		{htmlRow{{cellStr("a")}, {cellStr("x"), cellNum(5)}}, "cell 1 holds int"},
		{htmlRow{{cellStr("a"), cellNum(5)}, {cellStr("x"), cellStr("y")}}, "filter value 1 holds int"},
		{htmlRow{{cellStr("a")}, {cellStr("x"), cellList(nil)}}, ""}, // null: allowed
		{htmlRow{{cellStr("a")}, {cellStr("x"), cellList([]string{})}}, "cell 1 holds []string"},
		{htmlRow{{cellStr("a")}, {cellStr("x")}}, "no cell 1"},
	} {
		d := htmlTableData{Kind: "servers", N: 600, Row: func(_ int, r *htmlRow) {
			r[0], r[1] = append(r[0], tc.row[0]...), append(r[1], tc.row[1]...)
		}, Dict: []int{1}}
		if tc.want == "" {
			if err := d.write(bufio.NewWriter(io.Discard)); err != nil {
				t.Errorf("%v: %v", tc.row, err)
			}
			continue
		}
		if err := d.write(bufio.NewWriter(io.Discard)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q", tc.row, err, tc.want)
		}
	}
	// A table without shared cells still gives the script a list.
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	d := htmlTableData{Kind: "hosts", N: 600, Row: func(_ int, r *htmlRow) { r[0], r[1] = append(r[0], cellStr("a")), append(r[1], cellNum(1)) }}
	if err := d.write(w); err != nil || w.Flush() != nil || !strings.Contains(b.String(), `"dict":[],"parts":[`) {
		t.Errorf("no Dict: err %v, block %.120s", err, b.String())
	}
}

// TestServerIndex finds a finding's server by host and id, the last of
// an id winning, in a fleet grouped by host and in one that is not.
func TestServerIndex(t *testing.T) {
	sv := func(host, id string) FleetServer { return FleetServer{Server: &Server{ID: id}, Host: host} }
	servers := []FleetServer{sv("a", "1"), sv("b", "1"), sv("a", "2"), sv("a", "1"), sv("c", "3"), sv("c", "4")}
	x := newServerIndex(servers)
	for _, tc := range []struct {
		host, id string
		want     int
	}{{"a", "1", 3}, {"b", "1", 1}, {"a", "2", 2}, {"c", "4", 5}, {"c", "1", -1}, {"d", "1", -1}, {"", "", -1}} {
		got := x.find(tc.host, tc.id)
		if tc.want < 0 && got != nil || tc.want >= 0 && got != &servers[tc.want] {
			t.Errorf("find(%q, %q) = %v, want server %d", tc.host, tc.id, got, tc.want)
		}
	}
	if x := newServerIndex(nil); x.find("a", "1") != nil {
		t.Error("an empty fleet found a server")
	}
}

// TestAfterPage: what the data blocks write while the markup is being
// made is held and written after it; once the markup is done, writes
// pass through; the template's error is the page's.
func TestAfterPage(t *testing.T) {
	var out bytes.Buffer
	a := &afterPage{w: &out, done: make(chan error, 1)}
	a.markup.WriteString("<markup>")
	a.Write([]byte("held-1 "))
	a.Write([]byte("held-2 "))
	if out.Len() != 0 {
		t.Fatalf("written before the markup was done: %q", out.String())
	}
	a.done <- nil
	a.Write([]byte("through"))
	if err := a.finish(); err != nil || out.String() != "<markup>held-1 held-2 through" {
		t.Fatalf("%q, %v", out.String(), err)
	}

	out.Reset()
	a = &afterPage{w: &out, done: make(chan error, 1)}
	a.Write([]byte("held"))
	a.done <- errors.New("template failed")
	if err := a.finish(); err == nil || out.Len() != 0 {
		t.Fatalf("the template's error: %v, wrote %q", err, out.String())
	}

	a = &afterPage{w: &out, done: make(chan error, 1)}
	a.done <- errors.New("template failed")
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("a write after the template failed went through")
	}
}
