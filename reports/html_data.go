package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/mcpguard/mcpguard/internal/jsonquote"
)

// htmlTableData is every row of one table for the script's pager: row i
// is [filter values, cells], cells in the order the script renders them,
// strings already made visible. Rows are built as they are written, never
// all at once.
type htmlTableData struct {
	Kind  string // a fixed identifier: the table's data-kind
	Fleet bool
	N     int
	// Row fills row with row i's filter values and cells, appending to
	// the lists it is given emptied (their space is reused from chunk to
	// chunk).
	Row func(i int, row *htmlRow)
	// Fixes are the rules' fixes, once each rather than once per finding.
	Fixes map[string]string
	// Dict are the cells (by index) that hold a string or null, never
	// another value: there, as in the filter values, a string that repeats
	// is sent once (htmlTableData.write).
	Dict []int
}

// htmlRow is a data row: its filter values, then its cells.
type htmlRow [2][]htmlCell

// htmlCell is one value of a data row, without boxing it in an interface
// (a large fleet's page has millions): null, a string, a number, a
// boolean, a list of strings, or JSON written beforehand. A shared string
// is an index into its part's strings.
type htmlCell struct {
	kind cellKind
	s    string // a string, or raw JSON
	n    int    // a number, a boolean (1 true), a shared string's index
	list []string
}

type cellKind uint8

const (
	cellNull cellKind = iota
	cellString
	cellInt
	cellBool
	cellStrings
	cellRaw
	cellShared
)

func cellStr(s string) htmlCell { return htmlCell{kind: cellString, s: s} }
func cellNum(n int) htmlCell    { return htmlCell{kind: cellInt, n: n} }

func cellFlag(b bool) htmlCell {
	if b {
		return htmlCell{kind: cellBool, n: 1}
	}
	return htmlCell{kind: cellBool}
}

// cellList is a list of strings; null when nil, as encoding/json writes it.
func cellList(l []string) htmlCell {
	if l == nil {
		return htmlCell{}
	}
	return htmlCell{kind: cellStrings, list: l}
}

// cellSameOrVisible is a cell that shows a filter value: null when the
// value shows as itself (the script then takes the filter's), its visible
// form otherwise.
func cellSameOrVisible(raw string) htmlCell {
	if v := visible(raw); v != raw {
		return cellStr(v)
	}
	return htmlCell{}
}

// pageable adds the data of a table of n rows, unless the markup holds
// it all; fixes, for the findings table, are the rules' fixes.
func (v *htmlView) pageable(kind string, n int, row func(i int, r *htmlRow), fixes map[string]string, dict ...int) {
	if n > htmlPageRows {
		v.Data = append(v.Data, htmlTableData{Kind: kind, Fleet: v.Fleet, N: n, Row: row, Fixes: fixes, Dict: dict})
	}
}

// write writes one table's rows as a JSON data block. encoding/json
// escapes <, > and & (and U+2028, U+2029), so no row can end the script
// element or open a comment in it; the block never runs (its type is not
// a script type) and the page's CSP allows no other script.
//
// The rows come in parts of the chunks that encodeChunks encodes on every
// core, each with the strings that repeat in its filter values and Dict
// cells listed once ("strings") and referred to there by index: a large
// fleet's page is mostly host names, clients, statuses and launch
// commands said again on every row, and the browser's time to load the
// page grows with its bytes. The page's script puts the strings back.
func (d htmlTableData) write(w io.Writer) error {
	fixes, err := json.Marshal(d.Fixes)
	if err != nil {
		return err
	}
	dict, err := json.Marshal(append([]int{}, d.Dict...)) // [], never null: the script reads it as a list
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "<script type=\"application/json\" id=\"rows-%s\">{\"fleet\":%t,\"fixes\":%s,\"dict\":%s,\"parts\":[", d.Kind, d.Fleet, fixes, dict)
	// A chunk's rows and the sharing's table are reused by the chunks
	// after it: the rows' lists keep their space.
	var pool sync.Pool
	// Parts of 256 rows, each with its own strings: smaller parts would
	// list the repeated strings more often, and the page grow.
	err = encodeChunks(d.N, 256, func(lo, hi int, b *bytes.Buffer) error {
		c, _ := pool.Get().(*htmlChunk)
		if c == nil {
			c = &htmlChunk{index: map[string]int{}}
		}
		defer pool.Put(c)
		if cap(c.rows) < hi-lo {
			c.rows = make([]htmlRow, hi-lo)
		}
		c.rows = c.rows[:hi-lo]
		for i := range c.rows {
			r := &c.rows[i]
			r[0], r[1] = r[0][:0], r[1][:0]
			d.Row(lo+i, r)
		}
		if err := d.shareStrings(c); err != nil {
			return err
		}
		// Append to the chunk buffer's free space (buffers are reused
		// from chunk to chunk), not to a slice grown anew for each chunk.
		buf := b.AvailableBuffer()
		if lo > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"strings":[`...)
		for k, s := range c.strs {
			if k > 0 {
				buf = append(buf, ',')
			}
			buf = jsonquote.Append(buf, s, true)
		}
		buf = append(buf, `],"rows":[`...)
		for i, row := range c.rows {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, '[')
			buf = appendCellsJSON(buf, row[0])
			buf = append(buf, ',')
			buf = appendCellsJSON(buf, row[1])
			buf = append(buf, ']')
		}
		buf = append(buf, "]}"...)
		b.Write(buf)
		return nil
	}, func(b []byte) error { _, err := w.Write(b); return err })
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "]}</script>\n")
	return err
}

// htmlChunk is a chunk's rows and what sharing their strings needs.
type htmlChunk struct {
	rows  []htmlRow
	slots []htmlSlot
	// index finds a string's entry; last is, per column of slots, the
	// string the row before had there and its entry.
	index   map[string]int
	entries []sharedString
	last    []htmlSlot
	strs    []string
}

// htmlSlot is a filter value or Dict cell that holds a string, in column
// col of the row's slots, and its string's entry.
type htmlSlot struct {
	cell       *htmlCell
	col, entry int
}

// sharedString counts a string's slots, and gives its index in the
// part's strings once it has one (-1 before).
type sharedString struct{ count, at int }

// shareStrings replaces, in the filter values and Dict cells of the
// chunk's rows, each string that occurs there more than once by its index
// in c.strs (in order of first occurrence).
func (d htmlTableData) shareStrings(c *htmlChunk) error {
	c.slots, c.entries, c.strs, c.last = c.slots[:0], c.entries[:0], c.strs[:0], c.last[:0]
	clear(c.index)
	for _, row := range c.rows {
		col := 0
		for k := range row[0] {
			if cell := &row[0][k]; cell.kind == cellString {
				c.slots = append(c.slots, htmlSlot{cell: cell, col: col})
			} else if cell.kind != cellNull {
				return fmt.Errorf("%s data: filter value %d holds %s, not a string", d.Kind, k, cell.kind)
			}
			col++
		}
		for _, k := range d.Dict {
			if k >= len(row[1]) {
				return fmt.Errorf("%s data: no cell %d to share strings in", d.Kind, k)
			}
			if cell := &row[1][k]; cell.kind == cellString {
				c.slots = append(c.slots, htmlSlot{cell: cell, col: col})
			} else if cell.kind != cellNull {
				return fmt.Errorf("%s data: cell %d holds %s, not a string", d.Kind, k, cell.kind)
			}
			col++
		}
	}
	// Count each string's slots. Consecutive rows mostly repeat a column
	// (the same host, user, client, status): a slot that holds what its
	// column held last takes that entry without hashing the string.
	for i := range c.slots {
		sl := &c.slots[i]
		for len(c.last) <= sl.col {
			c.last = append(c.last, htmlSlot{entry: -1})
		}
		if last := &c.last[sl.col]; last.entry >= 0 && last.cell.s == sl.cell.s {
			sl.entry = last.entry
		} else {
			e, ok := c.index[sl.cell.s]
			if !ok {
				e = len(c.entries)
				c.entries = append(c.entries, sharedString{at: -1})
				c.index[sl.cell.s] = e
			}
			sl.entry = e
			*last = *sl
		}
		c.entries[sl.entry].count++
	}
	for _, sl := range c.slots {
		e := &c.entries[sl.entry]
		if e.count == 1 {
			continue // said once: kept in place
		}
		if e.at < 0 {
			e.at = len(c.strs)
			c.strs = append(c.strs, sl.cell.s)
		}
		sl.cell.kind, sl.cell.n = cellShared, e.at
	}
	return nil
}

func (k cellKind) String() string {
	switch k {
	case cellNull:
		return "null"
	case cellString:
		return "string"
	case cellInt, cellShared:
		return "int"
	case cellBool:
		return "bool"
	case cellStrings:
		return "[]string"
	}
	return "raw JSON"
}

// appendCellsJSON appends a list of cells as encoding/json marshals the
// values they stand for (TestCellsJSONMatchesEncodingJSON).
func appendCellsJSON(b []byte, cells []htmlCell) []byte {
	b = append(b, '[')
	for i := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		c := &cells[i]
		switch c.kind {
		case cellNull:
			b = append(b, "null"...)
		case cellString:
			b = jsonquote.Append(b, c.s, true)
		case cellInt, cellShared:
			b = strconv.AppendInt(b, int64(c.n), 10)
		case cellBool:
			b = strconv.AppendBool(b, c.n != 0)
		case cellStrings:
			b = append(b, '[')
			for j, s := range c.list {
				if j > 0 {
					b = append(b, ',')
				}
				b = jsonquote.Append(b, s, true)
			}
			b = append(b, ']')
		case cellRaw:
			b = append(b, c.s...)
		}
	}
	return append(b, ']')
}
