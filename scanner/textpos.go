package scanner

import (
	"sort"
	"unicode/utf8"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/policy"
)

// textIndex turns byte offsets of a document into report positions: 1-based
// lines and 1-based columns counted in code points, as jsonc does, so that
// TOML and YAML locations read like JSON ones (SARIF "unicodeCodePoints").
type textIndex struct {
	data       []byte
	lineStarts []int // byte offset of the first byte of each line
}

func newTextIndex(data []byte) *textIndex {
	ix := &textIndex{data: data, lineStarts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			ix.lineStarts = append(ix.lineStarts, i+1)
		}
	}
	return ix
}

// pos returns the position of the byte at offset (clamped to the document).
func (ix *textIndex) pos(offset int) jsonc.Pos {
	if offset < 0 {
		offset = 0
	}
	if offset > len(ix.data) {
		offset = len(ix.data)
	}
	line := sort.Search(len(ix.lineStarts), func(i int) bool { return ix.lineStarts[i] > offset }) - 1
	start := ix.lineStarts[line]
	return jsonc.Pos{Offset: offset, Line: line + 1, Col: utf8.RuneCount(ix.data[start:offset]) + 1}
}

// lineCol converts a 1-based line and 1-based byte column (as go-toml reports
// them) into a position with a code-point column.
func (ix *textIndex) lineCol(line, byteCol int) jsonc.Pos {
	if line < 1 {
		return jsonc.Pos{}
	}
	if line > len(ix.lineStarts) {
		return ix.pos(len(ix.data))
	}
	return ix.pos(ix.lineStarts[line-1] + max(byteCol, 1) - 1)
}

// checkUTF8 returns an error at the first invalid UTF-8 byte, as the JSON
// reader does: TOML and YAML documents must be UTF-8.
func checkUTF8(path string, data []byte) *policy.FileError {
	if utf8.Valid(data) {
		return nil
	}
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	p := newTextIndex(data).pos(off)
	return &policy.FileError{Path: path, Line: p.Line, Column: p.Col, Message: "invalid UTF-8"}
}
