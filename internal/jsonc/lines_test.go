package jsonc

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestLineIndexMatchesRuneCount: positions through checkpoints equal the
// plain rune count from the line start, on long lines of mixed, and
// invalid, UTF-8.
func TestLineIndexMatchesRuneCount(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := [][]byte{[]byte("a"), []byte("é"), []byte("€"), []byte("😀"), {0xff}, {0x80}, {0xe2, 0x82}, []byte("\n")}
	var data []byte
	for len(data) < 50000 {
		p := pieces[r.IntN(len(pieces))]
		if p[0] == '\n' && r.IntN(20) != 0 {
			continue // mostly long lines
		}
		data = append(data, p...)
	}
	ix := NewLineIndex(data)
	lineStart := 0
	for off := 0; off <= len(data); off++ {
		if off > 0 && data[off-1] == '\n' {
			lineStart = off
		}
		got := ix.Pos(off)
		if want := utf8.RuneCount(data[lineStart:off]) + 1; got.Col != want {
			t.Fatalf("offset %d: column %d, want %d", off, got.Col, want)
		}
	}
}
