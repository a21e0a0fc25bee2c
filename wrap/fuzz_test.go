package wrap

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

// FuzzWrapRoundTrip rewrites arbitrary documents: wrap and unwrap never panic,
// a wrapped document parses, wrapping it again changes nothing, and unwrapping
// what was wrapped gives back the input byte for byte. Seeds are the
// configuration fixtures and testdata/fuzz/FuzzWrapRoundTrip.
func FuzzWrapRoundTrip(f *testing.F) {
	files, _ := filepath.Glob("testdata/configs/*")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, jsoncMode bool) {
		if len(data) > 1<<16 {
			return
		}
		root, _, err := jsonc.Parse(data, jsonc.Options{JSONC: jsoncMode})
		entries := []Entry{{Pointer: "/mcpServers/x"}, {Pointer: "/"}}
		if err == nil {
			entries = append(entries, serverEntries(root)...)
		}
		for _, mode := range []Mode{ModeWrap, ModeUnwrap} {
			// Never panics, whatever the entries.
			_, _, _, _ = Rewrite(data, mode, entries, RewriteOptions{JSONC: jsoncMode, Executable: testExe})
		}
		if err != nil || root.Kind != jsonc.Object {
			return
		}
		checkRoundTrip(t, "fuzz", data, jsoncMode)
		// Unwrapping arbitrary input either fails cleanly or yields a document
		// that parses.
		out, _, _, err := Rewrite(data, ModeUnwrap, serverEntries(root), RewriteOptions{JSONC: jsoncMode})
		if err == nil && !bytes.Equal(out, data) {
			if _, _, perr := jsonc.Parse(out, jsonc.Options{JSONC: jsoncMode}); perr != nil {
				t.Fatalf("unwrap produced an unparseable document: %v\n%s", perr, out)
			}
		}
	})
}
