package jsonquote

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// pieces are strings each escape rule applies to.
var pieces = []string{"a", "server", "/home/u", "é", "日本", "<", ">", "&", `"`, `\`, "\b", "\f", "\n", "\r", "\t", "\x00",
	"\x1f", "\x7f", "\u2028", "\u2029", "\xff", "\xe2\x80", "\ufffd", "</script>", "\U0001F600", " "}

// FuzzAppend: Append writes what encoding/json writes, with HTML escaping on and off.
func FuzzAppend(f *testing.F) {
	for _, p := range pieces {
		f.Add(p)
	}
	f.Add("plain ascii with spaces and /slashes/")
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			var b bytes.Buffer
			e := json.NewEncoder(&b)
			e.SetEscapeHTML(html)
			if err := e.Encode(s); err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(b.String(), "\n")
			if got := string(Append(nil, s, html)); got != want {
				t.Fatalf("html %v: %q quoted as %s, want %s", html, s, got, want)
			}
		}
	})
}

// TestJSONQuoteEveryByteEverywhere: every byte value at every place of a
// string two words and a bit long, so that the eight-bytes-at-a-time
// test is held to encoding/json in each lane and in the tail.
func TestJSONQuoteEveryByteEverywhere(t *testing.T) {
	for c := range 256 {
		for at := range 19 {
			s := []byte(strings.Repeat("a", 19))
			s[at] = byte(c)
			for _, html := range []bool{false, true} {
				var b bytes.Buffer
				e := json.NewEncoder(&b)
				e.SetEscapeHTML(html)
				if err := e.Encode(string(s)); err != nil {
					t.Fatal(err)
				}
				want := strings.TrimSuffix(b.String(), "\n")
				if got := string(Append([]byte("x"), string(s), html)); got != "x"+want {
					t.Fatalf("byte %#x at %d, html %v: got %s, want x%s", c, at, html, got, want)
				}
			}
		}
	}
}
