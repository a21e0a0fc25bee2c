package urlmatch

import (
	"strings"
	"testing"
	"time"
)

// TestIDNAIgnoredList checks isIDNAIgnored against golang.org/x/net/idna:
// exactly the listed code points vanish from a label.
func TestIDNAIgnoredList(t *testing.T) {
	if testing.Short() {
		t.Skip("probes every code point")
	}
	for r := rune(0x80); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		out, err := idnaProfile.ToASCII("a" + string(r) + "b")
		if ignored := err == nil && out == "ab"; ignored != isIDNAIgnored(r) {
			t.Errorf("U+%04X: x/net/idna ignores it: %v, isIDNAIgnored: %v", r, ignored, isIDNAIgnored(r))
		}
	}
}

// TestIDNALengthLimit follows WebKit: an IDNA result of 2048 characters
// parses, 2049 fails; ASCII hosts have no limit.
func TestIDNALengthLimit(t *testing.T) {
	label := "bücher" + strings.Repeat("a", 50) // xn--bcher...-kva: 63 characters
	host := func(n int) string {
		var labels []string
		for range n {
			labels = append(labels, label)
		}
		return strings.Join(labels, ".")
	}
	// 32 labels of 63 + 31 dots = 2047, then a label to reach the length.
	for _, tc := range []struct {
		extra string
		ok    bool
	}{{".", true}, {".a", false}, {"", true}} {
		u, err := Parse("https://" + host(32) + tc.extra + "/")
		if (err == nil) != tc.ok {
			t.Errorf("32 labels + %q: err %v, want ok=%v", tc.extra, err, tc.ok)
		} else if err == nil && len(u.Hostname) > maxIDNALength {
			t.Errorf("hostname of %d characters", len(u.Hostname))
		}
	}
	if _, err := Parse("https://" + strings.Repeat("a.", 5000) + "example/"); err != nil {
		t.Errorf("long ASCII host: %v", err)
	}
	// Ignored code points do not count.
	if _, err := Parse("https://bücher" + strings.Repeat("\u00ad", 5000) + ".example/"); err != nil {
		t.Errorf("soft hyphens: %v", err)
	}
}

// TestHostileHostIsFast checks that a huge single-label IDN host, which
// would make Punycode quadratic, is rejected quickly.
func TestHostileHostIsFast(t *testing.T) {
	var b strings.Builder
	for i := range 200000 {
		b.WriteRune(rune(0x4e00 + i%20000))
	}
	start := time.Now()
	if _, err := Parse("https://" + b.String() + "/"); err == nil {
		t.Error("a 200000-character IDN host parsed")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestEndsInANumber: the checker reads the last label in place as the
// URL Standard's splitting on dots does (a trailing dot's empty label
// ignored).
func TestEndsInANumber(t *testing.T) {
	ref := func(s string) bool {
		parts := strings.Split(s, ".")
		if parts[len(parts)-1] == "" {
			if len(parts) == 1 {
				return false
			}
			parts = parts[:len(parts)-1]
		}
		last := parts[len(parts)-1]
		if last != "" && strings.Trim(last, "0123456789") == "" {
			return true
		}
		_, ok := parseIPv4Number(last)
		return ok
	}
	for _, s := range []string{"", ".", "..", "a.", "a..", "1", "1.", "1..", "a.1", "a.1.", "0x", "a.0x1f", "a.0x1f.",
		"a.0xg", "example", "a.b.c", "..1", "1.2.3.4", "09", "a.09.", ".0x"} {
		if got, want := endsInANumber(s), ref(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
}
