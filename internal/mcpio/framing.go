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
		if f.max > 0 && len(f.buf) > f.max {
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

// TrimFrame removes the trailing newline (and a carriage return before it).
func TrimFrame(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
