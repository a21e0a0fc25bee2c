package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// TestFingerprint: ids are the first 8 bytes of the SHA-256 of the parts,
// each followed by a zero byte, in hex, as they have always been
// (baselines and fleet merges match them across versions), with or
// without a prefix, for short parts and for parts longer than any buffer.
func TestFingerprint(t *testing.T) {
	ref := func(parts ...string) string {
		h := sha256.New()
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		return hex.EncodeToString(h.Sum(nil)[:8])
	}
	for _, parts := range [][]string{
		nil, {""}, {"a"}, {"a", "b"}, {"ab"}, {"MCPG-C001", "~/.claude.json", "/mcpServers/x", "s-0123456789abcdef", "TOKEN"},
		{strings.Repeat("x", 1<<20), "y"}, {"é", "\x00", "\xff"},
		// At the end of the buffer parts are hashed from, and one byte past.
		{strings.Repeat("x", 255)}, {strings.Repeat("x", 256)}, {strings.Repeat("x", 200), strings.Repeat("y", 54)},
		{strings.Repeat("x", 200), strings.Repeat("y", 55)},
	} {
		want := ref(parts...)
		if got := Fingerprint(parts...); got != want {
			t.Errorf("%.40q: %s, want %s", parts, got, want)
		}
		if got := PrefixedFingerprint("f-", parts...); got != "f-"+want {
			t.Errorf("%.40q: %s, want f-%s", parts, got, want)
		}
		// A finding's id: its rule, location and server, then its
		// discriminators.
		loc := Location{Path: "~/.claude.json", Pointer: "/mcpServers/x"}
		all := append([]string{"MCPG-C001", loc.Path, loc.Pointer, "s-0123456789abcdef"}, parts...)
		if got, want := NewFinding("MCPG-C001", loc, "s-0123456789abcdef", "m", parts...).ID, "f-"+ref(all...); got != want {
			t.Errorf("finding %.40q: %s, want %s", parts, got, want)
		}
	}
}
