package toolcheck

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// refMatchView and refSplitIdent are matchView and splitIdent as they were
// before their ASCII fast paths: the reference the differential tests hold
// the fast paths to.

func refMatchView(s string) string {
	a := mcpunicode.Analysis(s)
	ascii := true
	for i := 0; i < len(a); i++ {
		if a[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	var b strings.Builder
	b.Grow(len(a))
	space := false
	for _, r := range a {
		if unicode.IsSpace(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		if !ascii && r >= 0x80 && r < 0x2000 {
			if sk := mcpunicode.Skeleton(string(r)); len(sk) > 0 && len(sk) <= 3 && tlASCIIWord(sk) {
				b.WriteString(strings.ToLower(sk))
				continue
			}
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

func refSplitIdent(s string) []string {
	s = mcpunicode.Sanitize(s)
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, refWords(mcpunicode.Analysis(string(cur)))...)
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(prev):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			case unicode.IsDigit(r) != unicode.IsDigit(prev):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

func refWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// textAlphabet mixes ASCII of every class with the code points the views
// treat specially: exotic spaces, invisibles, confusables, fullwidth.
var textAlphabet = []string{"a", "B", "z", "Q", "0", "9", "_", "-", ".", " ", "  ", "\t", "\n", "\r", "\v", "\f", "\x00", "\x1b",
	"\x7f", "\u00a0", "\u0085", "\u2028", "\u3000", "\u200b", "\u00ad", "\u202e", "\ufeff", "\U000e0041", "\ufe0f",
	"é", "É", "ß", "і", "Ο", "ο", "ｅ", "Ａ", "𝗜", "ﬁ", "İ", "K", "\xff", "\xc3", "Rea", "dFile", "HTTP", "Server",
	"id_rsa", "v2", "ignore", "IGNORE", " previous ", "<", ">", "!", "?", "'"}

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(textAlphabet[rng.IntN(len(textAlphabet))])
	}
	return b.String()
}

func checkViews(t *testing.T, s string) {
	t.Helper()
	if got, want := matchView(s), refMatchView(s); got != want {
		t.Fatalf("matchView(%q) = %q, want %q", s, got, want)
	}
	words := refSplitIdent(s)
	if got := splitIdent(s); !reflect.DeepEqual(got, words) {
		t.Fatalf("splitIdent(%q) = %q, want %q", s, got, words)
	}
	if got, want := identView(s), strings.Join(words, " "); got != want {
		t.Fatalf("identView(%q) = %q, want %q", s, got, want)
	}
	if got, want := identKey(s), strings.Join(words, ""); got != want {
		t.Fatalf("identKey(%q) = %q, want %q", s, got, want)
	}
	if got, want := string(appendIdentKeyASCII(nil, s)), strings.Join(words, ""); tlPrintableASCII(s) && got != want {
		t.Fatalf("appendIdentKeyASCII(%q) = %q, want %q", s, got, want)
	}
	if got, want := fieldsAtLeast(s, 2), len(strings.Fields(s)) >= 2; got != want {
		t.Fatalf("fieldsAtLeast(%q, 2) = %v, want %v", s, got, want)
	}
}

func TestViewsMatchReference(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a ", "a  b", "a\tb", "A\r\nB ", "readFile", "HTTPServerURL", "getV2Items",
		"read-many.files", "ＲｅａｄＦｉｌｅ", "x\x00y", "snake_case_Name", "ABC", "aB", "Ab", "a1b2", "1a"} {
		checkViews(t, s)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := 0; i < n; i++ {
		checkViews(t, randomText(rng, rng.IntN(12)))
	}
}

func FuzzViews(f *testing.F) {
	for _, s := range []string{"readFile", "HTTPServerURL", " a  b\t", "ＲｅａｄＦｉｌｅ", "і\u200bgnore"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkViews(t, s) })
}

// TestPaddingPrecheck holds sizeRules' shortcut to what it skips: text
// without VT or FF that is not padded is not padded once its layout is
// undone (tlLayout and tlUnalign only ever shorten runs).
func TestPaddingPrecheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	parts := []string{"a", " ", "  ", "\t", "\n", "\r", "\r\n", "\u0085", "\u2028", "\u00a0", "\u3000", strings.Repeat(" ", 15), "\n\n", "\n  \n", "x\n  y", "\n\t\n", " \n \n \n"}
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		if !mcpunicode.MeasurePadding(s).Padded() && mcpunicode.MeasurePadding(tlLayout(tlUnalign(s))).Padded() {
			t.Fatalf("%q is not padded but is once dedented", s)
		}
		if unpadded(s) && mcpunicode.MeasurePadding(tlLayout(tlUnalign(s))).Padded() {
			t.Fatalf("unpadded(%q) but it is padded once dedented", s)
		}
	}
}

// refDirectiveTo is directiveTo as it was: every quoted or qualified form
// of the name built and searched for, sentence by sentence.
func refDirectiveTo(flowVerb *litRegexp, desc, name, phrase string) (string, bool) {
	var sentences []string
	start := 0
	for i := 0; i < len(desc); i++ {
		if (desc[i] == '.' || desc[i] == '!' || desc[i] == '?') && (i+1 == len(desc) || desc[i+1] == ' ') {
			sentences = append(sentences, strings.TrimSpace(desc[start:i+1]))
			start = i + 1
		}
	}
	if start < len(desc) {
		sentences = append(sentences, strings.TrimSpace(desc[start:]))
	}
	for _, s := range sentences {
		named := false
		for _, n := range []string{name, phrase} {
			for _, q := range []string{"'" + n + "'", `"` + n + `"`, "`" + n + "`", "as " + n, n + " field", n + " parameter", n + " param", n + " argument"} {
				if strings.Contains(s, q) {
					named = true
				}
			}
		}
		if named && flowVerb.re.MatchString(s) {
			return Clip(s, 80), true
		}
	}
	return "", false
}

func TestDirectiveToMatchesReference(t *testing.T) {
	fv := compiledToolMatchers().flowVerb
	rng := rand.New(rand.NewPCG(13, 14))
	parts := []string{"pass", "the", "notes", "side note", "'notes'", "\"notes\"", "`notes`", "as notes", "notes field", "notes parameter",
		"notes param", "notes argument", "as ", " field", "''", ".", ". ", "! ", "?", " ", "  ", "send", "use", "x", "'", "as", "fieldnotes"}
	for i := 0; i < 100000; i++ {
		var b strings.Builder
		for k := rng.IntN(10); k >= 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		desc := b.String()
		for _, n := range [][2]string{{"notes", "notes"}, {"side_note", "side note"}, {"", ""}, {"s", "s"}} {
			gm, gok := directiveTo(fv, desc, n[0], n[1])
			wm, wok := refDirectiveTo(fv, desc, n[0], n[1])
			if gm != wm || gok != wok {
				t.Fatalf("directiveTo(%q, %q) = %q %v, want %q %v", desc, n[0], gm, gok, wm, wok)
			}
		}
	}
}

// refBase64Runs is base64Runs as it was before it read windows from their
// end: every byte, left to right.
func refBase64Runs(s string, n int) []string {
	var out []string
	for i := 0; i < len(s) && len(out) < n; {
		if !isBase64Byte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isBase64Byte(s[j]) {
			j++
		}
		if j-i < 40 {
			i = j
			continue
		}
		k := j
		for k < len(s) && k-j < 2 && s[k] == '=' {
			k++
		}
		out = append(out, s[i:k])
		i = k
	}
	return out
}

func checkBase64Runs(t *testing.T, s string) {
	t.Helper()
	for _, n := range []int{1, 2, 8} {
		if got, want := base64Runs(s, n), refBase64Runs(s, n); !reflect.DeepEqual(got, want) {
			t.Fatalf("base64Runs(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
}

// TestBase64Runs: runs of every length around 40 at every offset, with and
// without padding, back to back, and every text of the real listings.
func TestBase64Runs(t *testing.T) {
	run := func(n int) string { return strings.Repeat("QUJD", n/4+1)[:n] }
	for _, n := range []int{0, 1, 38, 39, 40, 41, 79, 80, 81, 120} {
		for _, pre := range []string{"", " ", "x ", "a.b ", strings.Repeat("ab ", 15)} {
			for _, post := range []string{"", "=", "==", "===", "=A", "==" + run(40), " ", "." + run(41), run(3)} {
				checkBase64Runs(t, pre+run(n)+post)
				checkBase64Runs(t, pre+run(n)+post+" "+run(n)+post)
			}
		}
	}
	forStrings(t, realToolList(t, 256<<10), func(s string, _ bool) { checkBase64Runs(t, s) })
}

func FuzzBase64Runs(f *testing.F) {
	f.Add("see " + strings.Repeat("QUJD", 12) + "== and " + strings.Repeat("QUJD", 10) + "=Q")
	f.Fuzz(func(t *testing.T, s string) { checkBase64Runs(t, s) })
}

// refUnpadded is unpadded as it was before the whole-string searches.
func refUnpadded(s string) bool {
	run, longest, breaks := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			run++
			longest = max(longest, run)
			continue
		case c == '\n' || c == '\r':
			breaks++
		case c == '\v' || c == '\f':
			return false
		case c >= utf8.RuneSelf:
			return !strings.ContainsAny(s, "\v\f") && !mcpunicode.MeasurePadding(s).Padded()
		}
		run = 0
	}
	return longest < mcpunicode.PaddingSpaceRun && breaks <= mcpunicode.PaddingBlankLines
}

// TestUnpadded: runs of blanks and line breaks around the thresholds, at
// every offset, with VT, FF and non-ASCII before and after.
func TestUnpadded(t *testing.T) {
	var texts []string
	for n := 0; n <= 20; n++ {
		for _, blank := range []string{" ", "\t", " \t", "\n", "\r", "\r\n", "\n \n"} {
			r := strings.Repeat(blank, n)
			for _, pre := range []string{"", "a", "abc ", "\v", "é", strings.Repeat("x y ", 5)} {
				for _, post := range []string{"", "b", " z", "\f", "\u00a0\u00a0", "\u3000"} {
					texts = append(texts, pre+r+post, pre+r+post+r+pre)
				}
			}
		}
	}
	for _, s := range texts {
		if got, want := unpadded(s), refUnpadded(s); got != want {
			t.Fatalf("unpadded(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzUnpadded(f *testing.F) {
	f.Add("a" + strings.Repeat(" ", 16) + "b\n\n\n\n\n")
	f.Add("é\t\t\v")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := unpadded(s), refUnpadded(s); got != want {
			t.Fatalf("unpadded(%q) = %v, want %v", s, got, want)
		}
	})
}

// refUnreadLanguage is unreadLanguage as it was before its one pass:
// letters counted by script, then the function words of tlWords.
func refUnreadLanguage(s string) bool {
	latin, other := 0, 0
	for _, r := range s {
		switch {
		case r < 0x80:
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
				latin++
			}
		case unicode.IsLetter(r):
			if unicode.Is(unicode.Latin, r) {
				latin++
			} else {
				other++
			}
		}
	}
	if other > latin {
		return true
	}
	en, foreign := 0, 0
	for _, w := range tlWords(s) {
		switch {
		case englishFunction()[w]:
			en++
		case foreignFunction()[w]:
			foreign++
		}
	}
	return foreign >= 2 && foreign > en
}

var languageAlphabet = append([]string{"le ", "LA ", "Des", " et ", "für", "FÜR", "não", "NÃO", "the", "The ", " of", "dans",
	"qui", "ein", "\u0130", "\u212a", "日本語", "Привет", strings.Repeat("x", 40), "１２", "\u2160"}, textAlphabet...)

// TestUnreadLanguage holds unreadLanguage to the reference on function
// words in every case and script, words longer than its buffer, invalid
// UTF-8, and every string of the real listing.
func TestUnreadLanguage(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := unreadLanguage(s), refUnreadLanguage(s); got != want {
			t.Fatalf("unreadLanguage(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"", "Compile en une vue ce qui s'est passé", "Liste les fichiers dans le dossier et des sous-dossiers",
		"LISTE LES FICHIERS DANS LE DOSSIER", "Gibt die Liste für den Benutzer zurück und ist nicht leer", "列出所有文件", "Read the file"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(languageAlphabet[rng.IntN(len(languageAlphabet))])
		}
		check(b.String())
	}
	forStrings(t, realToolList(t, 256<<10), func(s string, _ bool) { check(s); check(matchView(s)) })
}

func FuzzUnreadLanguage(f *testing.F) {
	f.Add("Liste les fichiers dans le dossier")
	f.Add("NÃO é para os usuários \xff da")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := unreadLanguage(s), refUnreadLanguage(s); got != want {
			t.Fatalf("unreadLanguage(%q) = %v, want %v", s, got, want)
		}
	})
}

// TestASCIIFold holds asciiFold to the skeleton of every rune it covers,
// twice (the first call computes, the second reads the table).
func TestASCIIFold(t *testing.T) {
	for range 2 {
		for r := rune(0x80); r < 0x2000; r++ {
			want := ""
			if sk := mcpunicode.Skeleton(string(r)); len(sk) > 0 && len(sk) <= 3 && tlASCIIWord(sk) {
				want = strings.ToLower(sk)
			}
			if got := asciiFold(r); got != want {
				t.Fatalf("asciiFold(%U) = %q, want %q", r, got, want)
			}
		}
	}
	for r, want := range map[rune]string{'а': "a", 'ο': "o", 'і': "i", 'é': "", 'ß': ""} {
		if got := asciiFold(r); got != want {
			t.Errorf("asciiFold(%q) = %q, want %q", r, got, want)
		}
	}
}
