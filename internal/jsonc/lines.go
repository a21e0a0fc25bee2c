package jsonc

import (
	"sort"
	"unicode/utf8"
)

// LineIndex turns byte offsets of a document into positions: 1-based lines
// and 1-based columns counted in code points, as Parse reports them, so that
// TOML and YAML locations read like JSON ones (SARIF "unicodeCodePoints").
//
// It is safe for concurrent use: positions on one long line (a minified
// document, a hostile one) cost a bounded amount each, through rune counts
// kept at checkpoints every few hundred bytes.
type LineIndex struct {
	data       []byte
	lineStarts []int // byte offset of the first byte of each line
	// checkpoints are offsets of rune starts (bytes that are not UTF-8
	// continuation bytes, where decoding always starts a rune) about every
	// checkpointEvery bytes, with the runes before each.
	checkpoints []checkpoint
}

type checkpoint struct{ off, runes int }

const checkpointEvery = 256

// NewLineIndex indexes the line starts of data.
func NewLineIndex(data []byte) *LineIndex {
	ix := &LineIndex{data: data, lineStarts: []int{0}, checkpoints: []checkpoint{{0, 0}}}
	for i, c := range data {
		if c == '\n' {
			ix.lineStarts = append(ix.lineStarts, i+1)
		}
	}
	if len(data) > checkpointEvery {
		last := 0
		runes := 0
		for next := checkpointEvery; next < len(data); next += checkpointEvery {
			for next < len(data) && data[next]&0xC0 == 0x80 {
				next++
			}
			if next >= len(data) {
				break
			}
			runes += utf8.RuneCount(data[last:next])
			ix.checkpoints = append(ix.checkpoints, checkpoint{next, runes})
			last = next
		}
	}
	return ix
}

// runesBefore returns the number of runes in data[:offset], offset being a
// rune start.
func (ix *LineIndex) runesBefore(offset int) int {
	k := sort.Search(len(ix.checkpoints), func(i int) bool { return ix.checkpoints[i].off > offset }) - 1
	cp := ix.checkpoints[k]
	return cp.runes + utf8.RuneCount(ix.data[cp.off:offset])
}

// Pos returns the position of the byte at offset (clamped to the document).
func (ix *LineIndex) Pos(offset int) Pos {
	if offset < 0 {
		offset = 0
	}
	if offset > len(ix.data) {
		offset = len(ix.data)
	}
	line := sort.Search(len(ix.lineStarts), func(i int) bool { return ix.lineStarts[i] > offset }) - 1
	start := ix.lineStarts[line]
	var col int
	if offset-start <= checkpointEvery {
		col = utf8.RuneCount(ix.data[start:offset])
	} else {
		// A line start follows '\n', a rune start; so must offset be for the
		// difference to count what RuneCount would: move it back to one.
		at := offset
		for at > start && at < len(ix.data) && ix.data[at]&0xC0 == 0x80 {
			at--
		}
		col = ix.runesBefore(at) - ix.runesBefore(start) + utf8.RuneCount(ix.data[at:offset])
	}
	return Pos{Offset: offset, Line: line + 1, Col: col + 1}
}

// LineCol converts a 1-based line and 1-based byte column (as go-toml reports
// them) into a position with a code-point column.
func (ix *LineIndex) LineCol(line, byteCol int) Pos {
	if line < 1 {
		return Pos{}
	}
	if line > len(ix.lineStarts) {
		return ix.Pos(len(ix.data))
	}
	return ix.Pos(ix.lineStarts[line-1] + max(byteCol, 1) - 1)
}

// InvalidUTF8 returns the position of the first invalid UTF-8 byte of data,
// and false when data is valid UTF-8.
func InvalidUTF8(data []byte) (Pos, bool) {
	if utf8.Valid(data) {
		return Pos{}, false
	}
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	return NewLineIndex(data).Pos(off), true
}

// Lines returns the number of lines of the document.
func (ix *LineIndex) Lines() int { return len(ix.lineStarts) }

// End returns the position just past the last byte.
func (ix *LineIndex) End() Pos { return ix.Pos(len(ix.data)) }

// Size is what a value holds: the number of values (itself included) and
// the bytes of its strings and keys, and the longest string.
type Size struct {
	Values, StringBytes, LongestString int
}

// Measure walks v; it stops early, returning a size over the limits, once
// either total exceeds maxValues or maxBytes (0: no limit).
func Measure(v *Value, maxValues, maxBytes int) Size {
	var s Size
	// On the stack for a server entry's dozen values, so that measuring
	// an entry allocates nothing.
	var room [32]*Value
	stack := append(room[:0], v)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == nil {
			continue
		}
		s.Values++
		switch x.Kind {
		case String:
			s.StringBytes += len(x.Str)
			s.LongestString = max(s.LongestString, len(x.Str))
		case Array:
			stack = append(stack, x.Elems...)
		case Object:
			for i := range x.Members {
				s.StringBytes += len(x.Members[i].Key)
				stack = append(stack, x.Members[i].Value)
			}
		}
		if maxValues > 0 && s.Values > maxValues || maxBytes > 0 && s.StringBytes > maxBytes {
			return s
		}
	}
	return s
}
