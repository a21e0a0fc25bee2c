package proxy

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// A resource's contents (a resources/read result, an embedded resource of
// a tools/call or prompts/get result) carry text as "text" or, base64
// encoded, as "blob". Clients decode the blob of a text mimeType (text/*,
// JSON, XML, ...) and hand the text to the model as they hand "text", so
// such a blob is decoded, cleaned like text and encoded again; a blob of
// another mimeType (an image, a PDF, an archive) is data and untouched,
// and so is a blob that does not decode. Decoding is as lenient as the
// clients' decoders (Node's Buffer.from, Python's b64decode): white space
// is skipped, the padding may be missing, the URL-safe alphabet is read.
// A text blob whose base64 is longer than maxTextBlob, or text blobs over
// maxTextBlobs in one result, are not decoded: the result cannot be
// checked, and enforce mode answers -32002.

// Bounds of the text blobs one result may hold.
const (
	maxTextBlob  = 8 << 20
	maxTextBlobs = 32 << 20
)

var (
	blobKey        = []byte(`blob`)
	escapedKeyChar = []byte(`\u006`) // "b", "l" or "o" written as an escape
)

// mayHoldBlob is the fast check: a result with no member "blob", written
// plainly or with escapes, holds no blob. It costs two scans of the
// result.
func mayHoldBlob(result []byte) bool {
	return bytes.Contains(result, blobKey) || bytes.Contains(result, escapedKeyChar)
}

// textMIME reports a mimeType whose content is text a client reads.
func textMIME(mt string) bool {
	t, _, err := mime.ParseMediaType(mt)
	if err != nil {
		t = strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	}
	typ, sub, ok := strings.Cut(t, "/")
	if !ok {
		return false
	}
	switch {
	case typ == "text":
		return true
	case sub == "json" || sub == "xml" || strings.HasSuffix(sub, "+json") || strings.HasSuffix(sub, "+xml"):
		return true
	case typ == "application":
		return slices.Contains(textApplicationTypes, sub)
	}
	return false
}

// textApplicationTypes are application/* types that are text.
var textApplicationTypes = []string{"javascript", "x-javascript", "ecmascript", "typescript", "x-typescript",
	"yaml", "x-yaml", "toml", "x-toml", "x-sh", "x-shellscript", "sql", "graphql", "x-ndjson", "ndjson", "jsonl",
	"x-httpd-php", "x-python", "x-ruby", "x-perl", "csv", "markdown", "x-markdown", "x-tex", "rtf", "x-www-form-urlencoded"}

// decodeBlob decodes base64 as leniently as clients do; ok is false for
// what none of them decodes.
func decodeBlob(s string) (out []byte, ok bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r', '\f':
			continue
		case '-':
			c = '+'
		case '_':
			c = '/'
		}
		b = append(b, c)
	}
	b = bytes.TrimRight(b, "=")
	out = make([]byte, base64.RawStdEncoding.DecodedLen(len(b)))
	n, err := base64.RawStdEncoding.Decode(out, b)
	if err != nil {
		return nil, false
	}
	return out[:n], true
}

// errTextBlobRepeated refuses a text blob a decoder may read otherwise.
var errTextBlobRepeated = errors.New("an object with a blob holds \"blob\" or \"mimeType\" twice")

// textBlob is one text blob of a result: its JSON string's bytes and the
// decoded text.
type textBlob struct {
	start, end int
	text       string
}

// textBlobs finds the text blobs of a result: every object, at any depth,
// with a string "blob" and a text mimeType.
func textBlobs(result []byte) ([]textBlob, error) {
	if !mayHoldBlob(result) {
		return nil, nil
	}
	root, _, err := jsonc.Parse(result, jsonc.Options{MaxDepth: mcpunicode.DefaultMaxDepth})
	if err != nil {
		return nil, fmt.Errorf("the result holds a blob and cannot be parsed: %w", err)
	}
	var out []textBlob
	total := 0
	var walk func(v *jsonc.Value) error
	walk = func(v *jsonc.Value) error {
		switch v.Kind {
		case jsonc.Array:
			for _, e := range v.Elems {
				if err := walk(e); err != nil {
					return err
				}
			}
		case jsonc.Object:
			var blob, mt *jsonc.Member
			for i := range v.Members {
				m := &v.Members[i]
				switch m.Key {
				case "blob":
					blob = m
				case "mimeType":
					mt = m
				}
				if err := walk(m.Value); err != nil {
					return err
				}
			}
			if blob == nil || mt == nil || !blob.Value.IsString() || !mt.Value.IsString() || !textMIME(mt.Value.Str) {
				return nil
			}
			if len(blob.Dups()) > 0 || len(mt.Dups()) > 0 {
				// A decoder that takes the first match reads the other.
				return errTextBlobRepeated
			}
			if len(blob.Value.Str) > maxTextBlob {
				return fmt.Errorf("a text blob is larger than the %d bytes the proxy decodes", maxTextBlob)
			}
			if total += len(blob.Value.Str); total > maxTextBlobs {
				return fmt.Errorf("the text blobs are larger than the %d bytes the proxy decodes", maxTextBlobs)
			}
			if d, ok := decodeBlob(blob.Value.Str); ok {
				out = append(out, textBlob{start: blob.Value.Pos.Offset, end: blob.Value.End, text: string(d)})
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return out, nil
}

// cleanTextBlobs returns the result with its text blobs cleaned of hidden
// characters and terminal escapes and encoded again; changed is false,
// and the result the same slice, when none had anything to remove.
func cleanTextBlobs(result []byte) (out []byte, changed bool, err error) {
	blobs, err := textBlobs(result)
	if err != nil || len(blobs) == 0 {
		return result, false, err
	}
	var b []byte
	last := 0
	for _, tb := range blobs {
		text := strings.ToValidUTF8(tb.text, "\uFFFD") // as a client decodes it
		clean := mcpunicode.Sanitize(text)
		if clean == text || tb.start < last || tb.end > len(result) {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(result))
		}
		b = append(b, result[last:tb.start]...)
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, []byte(clean))
		b = append(b, '"')
		last = tb.end
	}
	if b == nil {
		return result, false, nil
	}
	return append(b, result[last:]...), true, nil
}

// blobText returns the text of a blob with a text mimeType, for the
// analysis of a prompt; ok is false for any other blob.
func blobText(blob, mimeType string) (string, bool) {
	if !textMIME(mimeType) || len(blob) > maxTextBlob {
		return "", false
	}
	d, ok := decodeBlob(blob)
	if !ok {
		return "", false
	}
	return strings.ToValidUTF8(string(d), "\uFFFD"), true
}
