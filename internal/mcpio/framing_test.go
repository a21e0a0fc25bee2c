package mcpio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFrameReaderLongLinesAndPartialReads(t *testing.T) {
	big := strings.Repeat("x", 3<<20) // longer than the 64 KiB buffer many times over
	input := "a\n" + big + "\n\r\nlast-without-newline"
	// OneByteReader and HalfReader simulate a peer that writes in pieces.
	for name, r := range map[string]io.Reader{
		"whole":    strings.NewReader(input),
		"one-byte": iotest.OneByteReader(strings.NewReader(input[:1<<16] + input[1<<16:])),
		"half":     iotest.HalfReader(strings.NewReader(input)),
	} {
		t.Run(name, func(t *testing.T) {
			if name == "one-byte" && testing.Short() {
				t.Skip("slow")
			}
			f := NewFrameReader(r, 0)
			var got []string
			for {
				b, err := f.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(b))
			}
			want := []string{"a\n", big + "\n", "\r\n", "last-without-newline"}
			if len(got) != len(want) {
				t.Fatalf("got %d frames, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("frame %d: %d bytes, want %d", i, len(got[i]), len(want[i]))
				}
			}
		})
	}
}

func TestFrameReaderLimit(t *testing.T) {
	f := NewFrameReader(strings.NewReader(strings.Repeat("y", 200<<10)+"\n"), 100<<10)
	if _, err := f.Next(); !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("err = %v", err)
	}
	// The limit is the message's: its line ending does not count, in a
	// frame that fits the read buffer or not.
	for _, n := range []int{100, 100 << 10} {
		for _, end := range []string{"\n", "\r\n", ""} {
			in := strings.Repeat("y", n) + end
			if end != "" {
				in += strings.Repeat("z", n+1) + end
			}
			f := NewFrameReader(strings.NewReader(in), n)
			if b, err := f.Next(); err != nil || len(b) != n+len(end) {
				t.Errorf("%d bytes + %q at a limit of %d: %d %v", n, end, n, len(b), err)
			}
			if end == "" {
				continue
			}
			if _, err := f.Next(); !errors.Is(err, ErrFrameTooLarge) {
				t.Errorf("%d+1 bytes + %q at a limit of %d: %v", n, end, n, err)
			}
		}
	}
}

func TestParseEnvelope(t *testing.T) {
	tests := []struct {
		in                         string
		ok                         bool
		id, method, params, result string
		hasErr                     bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, true, `1`, "tools/list", `{}`, "", false},
		{` {"id" : "a\"b" , "result" : {"tools":[{"name":"x"}]} } `, true, `"a\"b"`, "", "", `{"tools":[{"name":"x"}]}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, true, "", "notifications/tools/list_changed", "", "", false},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"x"}}`, true, "7", "", "", "", true},
		{`{"id":null,"method":"m"}`, true, "", "m", "", "", false},
		{`{"id":1,"result":{"a":1},"result":{"b":2}}`, true, "1", "", "", `{"b":2}`, false}, // last wins, as in JS and Go
		{`{"method":"\u0074ools/call","id":2,"params":{"name":"t"}}`, true, "2", "tools/call", `{"name":"t"}`, "", false},
		{`[{"id":1}]`, false, "", "", "", "", false},
		{`{"id":1,`, false, "", "", "", "", false},
		{`{"id":1} trailing`, false, "", "", "", "", false},
		{strings.Repeat("[", 20000), false, "", "", "", "", false},
		{`not json`, false, "", "", "", "", false},
	}
	for _, tc := range tests {
		env, ok := ParseEnvelope([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("%q: ok = %v", tc.in, ok)
			continue
		}
		if !ok {
			continue
		}
		if string(env.ID) != tc.id || env.Method != tc.method || string(env.Params) != tc.params || string(env.Result) != tc.result || env.HasError != tc.hasErr {
			t.Errorf("%q: got id=%s method=%q params=%s result=%s err=%v", tc.in, env.ID, env.Method, env.Params, env.Result, env.HasError)
		}
	}
}

func TestIDKey(t *testing.T) {
	for _, pair := range [][2]string{{`1`, `1.0`}, {`1`, ` 1 `}, {`"1"`, `"1"`}} {
		a, b := IDKey([]byte(pair[0])), IDKey([]byte(pair[1]))
		if pair[0] == `1` && pair[1] == `1.0` {
			// 1 and 1.0 are different JSON texts; clients echo ids verbatim.
			if a == b {
				t.Errorf("idKey(%s) == IDKey(%s)", pair[0], pair[1])
			}
			continue
		}
		if a != b {
			t.Errorf("idKey(%s) = %q, IDKey(%s) = %q", pair[0], a, pair[1], b)
		}
	}
	if IDKey([]byte(`1`)) == IDKey([]byte(`"1"`)) {
		t.Error("number and string ids must differ")
	}
}

func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"id":"x","result":{"tools":[]}}`, `[1,2]`, `{"a":[{"b":"\"}"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env, ok := ParseEnvelope(b)
		if !ok {
			return
		}
		// Every slice the scanner returns lies inside the frame.
		for _, part := range [][]byte{env.ID, env.Params, env.Result} {
			if part != nil && !bytes.Contains(b, part) {
				t.Fatalf("slice %q not in frame", part)
			}
		}
	})
}

// TestFrameReaderLimitAndPrefix: a frame over the limit is refused
// whether it fits the read buffer or not, and its start is kept for the
// caller to answer it.
func TestFrameReaderLimitAndPrefix(t *testing.T) {
	for _, size := range []int{100, 200 << 10} {
		msg := `{"jsonrpc":"2.0","id":42,"method":"x","params":"` + strings.Repeat("p", size) + `"}`
		f := NewFrameReader(strings.NewReader("ok\n"+msg+"\n"), 50)
		if b, err := f.Next(); err != nil || string(b) != "ok\n" {
			t.Fatalf("first frame: %q %v", b, err)
		}
		if _, err := f.Next(); !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("size %d: %v, want ErrFrameTooLarge", size, err)
		}
		if p := f.Prefix(); !bytes.HasPrefix([]byte(msg+"\n"), p) || len(p) < 50 || len(p) > 64<<10 {
			t.Errorf("size %d: prefix of %d bytes", size, len(p))
		}
	}
}

// TestFrameReaderLimitExcludesLineEnd: --max-message N admits a message of
// N bytes; its line end (LF or CRLF) is framing, not message.
func TestFrameReaderLimitExcludesLineEnd(t *testing.T) {
	for _, max := range []int{10, 100 << 10} {
		for _, end := range []string{"\n", "\r\n"} {
			msg := strings.Repeat("m", max)
			f := NewFrameReader(strings.NewReader(msg+end+strings.Repeat("o", max+1)+end), max)
			if b, err := f.Next(); err != nil || string(TrimFrame(b)) != msg {
				t.Errorf("max %d, end %q: a message of exactly the limit: %v", max, end, err)
				continue
			}
			if _, err := f.Next(); !errors.Is(err, ErrFrameTooLarge) {
				t.Errorf("max %d, end %q: a message one byte over: %v", max, end, err)
			}
		}
	}
}
