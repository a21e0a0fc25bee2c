package mcpio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// FrameReader reads newline-delimited frames of any length. MCP over stdio is
// one JSON-RPC message per line; lines of tens of megabytes (a large
// tools/list) must pass, so there is no fixed cap — only the optional max.
type FrameReader struct {
	r   *bufio.Reader
	buf []byte
	max int // 0: unlimited
}

// ErrFrameTooLarge reports a line over the reader's limit.
var ErrFrameTooLarge = errors.New("mcpio: message larger than the limit")

// NewFrameReader reads frames from r; max > 0 limits their length.
func NewFrameReader(r io.Reader, max int) *FrameReader {
	return &FrameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next frame including its trailing newline (absent on a last
// line without one). The slice is valid until the next call. At the end of the
// input it returns io.EOF with no frame.
func (f *FrameReader) Next() ([]byte, error) {
	line, err := f.r.ReadSlice('\n')
	if f.over(line) {
		f.buf = append(f.buf[:0], line...)
		return nil, ErrFrameTooLarge
	}
	if err == nil {
		return line, nil
	}
	if err != bufio.ErrBufferFull {
		if len(line) > 0 && err == io.EOF {
			return line, nil
		}
		return nil, err
	}
	// A long line: accumulate.
	f.buf = append(f.buf[:0], line...)
	for {
		line, err = f.r.ReadSlice('\n')
		f.buf = append(f.buf, line...)
		if f.over(f.buf) {
			return nil, ErrFrameTooLarge
		}
		switch err {
		case nil:
			return f.buf, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(f.buf) > 0 {
				return f.buf, nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// over reports a frame longer than the limit, its line ending left out:
// a message of exactly max bytes passes, as it does over HTTP.
func (f *FrameReader) over(b []byte) bool {
	if f.max <= 0 {
		return false
	}
	n := len(b)
	if n > 0 && b[n-1] == '\n' {
		n--
		if n > 0 && b[n-1] == '\r' {
			n--
		}
	}
	return n > f.max
}

// prefixLen is how much of a frame over the limit Prefix keeps.
const prefixLen = 64 << 10

// Prefix returns, after Next reported ErrFrameTooLarge, the start of the
// frame that was too large (up to 64 KiB): where its id usually is. The
// reader cannot go on after that error.
func (f *FrameReader) Prefix() []byte {
	return f.buf[:min(len(f.buf), prefixLen)]
}

// TrimFrame removes the trailing newline (and a carriage return before it).
func TrimFrame(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
