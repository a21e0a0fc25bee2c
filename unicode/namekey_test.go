package unicode

import "testing"

func TestNameKeys(t *testing.T) {
	same := func(a, b string) bool {
		fa, sa := NameKeys(a)
		fb, sb := NameKeys(b)
		return fa == fb || sa == sb
	}
	cases := []struct {
		a, b string
		twin bool
	}{
		{"read_file", "read_file", true},
		{"read_file", "Read_File", true},
		{"read_file", "READ_FILE", true},
		{"read_file", "ｒｅａｄ_ｆｉｌｅ", true},            // fullwidth
		{"read_file", "𝗿𝗲𝗮𝗱_file", true},            // mathematical bold
		{"read_file", "re\u0430d_file", true},       // Cyrillic a
		{"read_file", "r\u0435ad_fil\u0435", true},  // Cyrillic e twice
		{"list_files", "Iist_files", true},          // capital I for l
		{"list_files", "1ist_files", true},          // digit one
		{"send_email", "send_emai\u04CF", true},     // Cyrillic palochka
		{"modem", "rnodern", true},                  // rn for m
		{"get_user", "get_us\u200Ber", true},        // zero-width space
		{"read_file", "read_file ", true},           // trailing space
		{"read_file", "\u3000read_file", true},      // ideographic space
		{"read_file", "read_file\u2028", true},      // line separator
		{"read_file", "read_f\u0131\u0307le", true}, // dotless i with a dot above
		{"read_file", "read_fi\u0307le", true},      // i with a second dot
		{"read_file", "read-file", false},           // another separator is another name
		{"read_file", "write_file", false},
		{"list_files", "iist_files", false},
		{"search", "search2", false},
		{"delete", "deletes", false},
	}
	for _, c := range cases {
		if got := same(c.a, c.b); got != c.twin {
			fa, sa := NameKeys(c.a)
			fb, sb := NameKeys(c.b)
			t.Errorf("%+q ~ %+q = %v, want %v (keys %+q %+q / %+q %+q)", c.a, c.b, got, c.twin, fa, sa, fb, sb)
		}
	}
	// The ASCII fast path agrees with the full computation.
	for _, s := range []string{"read_file", "get_2fa.code-v9", "abc", ""} {
		f, sh := NameKeys(s)
		if f != Analysis(Skeleton(Analysis(s))) || sh != Analysis(Skeleton(s)) {
			t.Errorf("fast path for %q: %q %q", s, f, sh)
		}
	}
}

func FuzzNameKeys(f *testing.F) {
	for _, s := range []string{"read_file", "Iist", "ｒｅａｄ", "re\u0430d", "m", "\u200B", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, b := NameKeys(s)
		if a2, b2 := NameKeys(s); a != a2 || b != b2 {
			t.Fatalf("NameKeys(%+q) is not deterministic", s)
		}
		if isPrintableASCII(s) && nameASCIIInert(s) && (a != Analysis(Skeleton(Analysis(s))) || b != Analysis(Skeleton(s))) {
			t.Fatalf("fast path for %q", s)
		}
	})
}
