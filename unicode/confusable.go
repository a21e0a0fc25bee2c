package unicode

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// token is a word of the analyzed string for the U006 checks: a maximal
// run of letters, marks and digits (removed invisible code points inside
// it are looked through, so "rе\u200Bad" is one word).
type token struct {
	start, end  int
	latin       int // Latin letters that are not compatibility characters
	cyrGreek    int
	compat      int // code points whose NFKC is ASCII letters
	compatAlpha int // ... of which letters (L*), e.g. "ﬁ", "ｉ", "𝗶"
	fullwidth   int // ... of which fullwidth Latin letters U+FF21..FF5A
}

func (a *analyzer) tokenRune(i int) bool {
	if a.act[i] != keep || a.kind[i] != kNone {
		return false
	}
	r := a.cps[i].r
	if r < 0x80 {
		return r >= '0' && r <= '9' || (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	switch a.cls[i] {
	case clsCyrGreek, clsCompatLetter:
		return true
	case clsNone:
		return propsOf(r)&(propLetter|propModLetter|propMark|propDigit|propNumber) != 0
	}
	return false
}

// passConfusables reports U006: words that mix Latin with Cyrillic or
// Greek, Cyrillic/Greek words that only imitate Latin ones inside Latin
// text, and compatibility characters that NFKC turns into ASCII letters
// or syntax (threats.md §1 rows 14 and 15). It only reports; the output
// view never rewrites text.
func (a *analyzer) passConfusables() {
	n := len(a.cps)
	a.tokens = a.tokens[:0]
	// String-wide context, from cheap range checks: Latin words (for
	// whole-script confusables) and CJK text (where fullwidth Latin is normal).
	latinText, cjk := false, false
	for i := 0; i < n && !(latinText && cjk); i++ {
		r := a.cps[i].r
		if r < 0x80 {
			latinText = latinText || (r|0x20) >= 'a' && (r|0x20) <= 'z'
		} else {
			cjk = cjk || isCJKRune(r)
		}
	}
	// Only the words around candidate code points are examined.
	end := 0
	for _, fi := range a.flagged {
		i := int(fi)
		if i < end {
			continue
		}
		switch a.cls[i] {
		case clsCompatSyntax:
			// Fullwidth punctuation between CJK characters is how CJK
			// text is written ("（最多 100 条）", "＜告警＞"); next to ASCII
			// it imitates syntax ("＜IMPORTANT＞").
			if cjk && a.cjkNeighbours(i) {
				continue
			}
			if a.act[i] == keep && a.kind[i] == kNone {
				a.kind[i] = kCompat // "﹤", "＞", "／": grouped into findings later
			}
			continue
		case clsCyrGreek, clsCompatLetter:
		default:
			continue
		}
		if !a.tokenRune(i) {
			continue
		}
		start := i
		for k := i - 1; k >= 0 && (a.tokenRune(k) || a.act[k] == drop); k-- {
			if a.act[k] != drop {
				start = k
			}
		}
		t := a.countToken(start)
		end = t.end
		a.tokens = append(a.tokens, t)
	}

	genuine := !latinText // without Latin words nothing can imitate them
	var candidates []int
	for ti, t := range a.tokens {
		if t.latin > 0 && t.cyrGreek > 0 && t.latin+t.cyrGreek >= 3 {
			a.mixedScript(t)
		}
		compat, alpha := t.compat, t.compatAlpha
		if cjk {
			// Fullwidth Latin is ordinary in Chinese, Japanese and Korean text.
			compat -= t.fullwidth
			alpha -= t.fullwidth
		}
		if compat >= 3 || (alpha >= 1 && t.latin > 0) {
			a.compatWord(t, cjk)
		}
		if !genuine && t.cyrGreek > 0 && t.latin == 0 && t.compat == 0 {
			switch {
			case !a.looksLatin(t):
				genuine = true
			case t.cyrGreek >= 3:
				candidates = append(candidates, ti)
			}
		}
	}
	if !genuine && latinText {
		for _, ti := range candidates {
			a.wholeScript(a.tokens[ti])
		}
	}
}

// countToken measures the word that starts at code point start.
func (a *analyzer) countToken(start int) token {
	t := token{start: start}
	last := start
	for i := start; i < len(a.cps) && (a.tokenRune(i) || a.act[i] == drop); i++ {
		if a.act[i] == drop {
			continue
		}
		last = i
		r := a.cps[i].r
		switch {
		case r < 0x80:
			if r > '9' {
				t.latin++
			}
		case a.cls[i] == clsCyrGreek:
			t.cyrGreek++
		case a.cls[i] == clsCompatLetter:
			t.compat++
			if propsOf(r)&propLetter != 0 {
				t.compatAlpha++
			}
			if r >= 0xFF21 && r <= 0xFF5A {
				t.fullwidth++
			}
		case propsOf(r)&(propLetter|propModLetter) != 0 && scriptOf(r) == scLatin:
			t.latin++
		}
	}
	t.end = last + 1
	return t
}

// isCJKRune reports whether r belongs to the Han, Hiragana, Katakana,
// Hangul or Bopomofo blocks.
// cjkNeighbours reports whether the nearest visible code points on both
// sides of i are CJK, fullwidth forms, digits or the string's end.
func (a *analyzer) cjkNeighbours(i int) bool {
	ok := func(k int) bool {
		r := a.cps[k].r
		return isCJKRune(r) || r >= 0xFF01 && r <= 0xFF65 || r >= 0x3000 && r <= 0x303F || '0' <= r && r <= '9'
	}
	for _, step := range []int{-1, 1} {
		k := i + step
		for k >= 0 && k < len(a.cps) && (a.cps[k].r == ' ' || a.act[k] == drop) {
			k += step
		}
		if k >= 0 && k < len(a.cps) && !ok(k) {
			return false
		}
	}
	return true
}

func isCJKRune(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x11FF, r >= 0x2E80 && r <= 0x2FDF, r >= 0x3040 && r <= 0x31FF,
		r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF, r >= 0xA960 && r <= 0xA97F,
		r >= 0xAC00 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFAFF, r >= 0xFF66 && r <= 0xFFDC,
		r >= 0x20000 && r <= 0x3FFFF:
		return true
	}
	return false
}

// looksLatin reports whether every code point of token t has a TR39
// prototype (or is itself) made of ASCII letters and digits, so that the
// word can pass for an English one. It equals "the skeleton is ASCII"
// without computing the skeleton: precomposed letters keep a combining
// mark after NFD, so they never look ASCII either way.
func (a *analyzer) looksLatin(t token) bool {
	for i := t.start; i < t.end; i++ {
		if a.act[i] == drop {
			continue
		}
		r := a.cps[i].r
		if r < 0x80 {
			if !isASCIIAlnum(byte(r)) {
				return false
			}
			continue
		}
		p, ok := prototype(r)
		if !ok {
			return false
		}
		for k := 0; k < len(p); k++ {
			if !isASCIIAlnum(p[k]) {
				return false
			}
		}
	}
	return true
}

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || (c|0x20) >= 'a' && (c|0x20) <= 'z'
}

func (a *analyzer) mixedScript(t token) {
	e := a.newEvent(kMixedScript, t.start, t.end)
	// Blame the minority script: in "rеad" the Cyrillic "е".
	blameLatin := t.latin < t.cyrGreek
	scripts := map[string]bool{}
	for i := t.start; i < t.end; i++ {
		if a.act[i] == drop {
			continue
		}
		r := a.cps[i].r
		isLatin := r < 0x80 && r > '9' || (r >= 0x80 && a.cls[i] == clsNone && scriptOf(r) == scLatin && propsOf(r)&propLetter != 0)
		if a.cls[i] == clsCyrGreek {
			scripts[ScriptName(r)] = true
			if !blameLatin {
				a.claim(i, keep, kMixedScript, e.id)
			}
		} else if isLatin {
			scripts["Latin"] = true
			if blameLatin {
				a.claim(i, keep, kMixedScript, e.id)
			}
		}
	}
	if e.lite {
		return
	}
	word := a.text(t.start, t.end, true)
	e.evidence = map[string]any{
		"token":    escapeForDisplay(word),
		"scripts":  sortedKeys(scripts),
		"skeleton": escapeForDisplay(Skeleton(word)),
	}
	e.detail = quoteShort(word, 40)
}

func (a *analyzer) compatWord(t token, cjk bool) {
	e := a.newEvent(kCompat, t.start, t.end)
	for i := t.start; i < t.end; i++ {
		r := a.cps[i].r
		if a.cls[i] == clsCompatLetter && a.act[i] == keep && !(cjk && r >= 0xFF21 && r <= 0xFF5A) {
			a.claim(i, keep, kCompat, e.id)
		}
	}
	if e.lite {
		return
	}
	word := a.text(t.start, t.end, true)
	e.evidence = map[string]any{"token": escapeForDisplay(word), "nfkc": norm.NFKC.String(word)}
	e.detail = quoteShort(word, 40) + " reads as " + quoteShort(norm.NFKC.String(word), 40)
}

func (a *analyzer) wholeScript(t token) {
	e := a.newEvent(kWholeScript, t.start, t.end)
	scripts := map[string]bool{}
	for i := t.start; i < t.end; i++ {
		if a.cls[i] == clsCyrGreek && a.act[i] == keep {
			a.claim(i, keep, kWholeScript, e.id)
			scripts[ScriptName(a.cps[i].r)] = true
		}
	}
	if e.lite {
		return
	}
	word := a.text(t.start, t.end, true)
	sk := Skeleton(word)
	e.evidence = map[string]any{"token": escapeForDisplay(word), "scripts": sortedKeys(scripts), "skeleton": sk}
	e.detail = quoteShort(word, 40) + " looks like " + quoteShort(sk, 40)
}

func sortedKeys(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// isDefaultIgnorable reports whether r has Default_Ignorable_Code_Point
// (Unicode 17), derived from the hot-path class.
func isDefaultIgnorable(r rune) bool {
	switch classOf(r) {
	case clsTag, clsTagReserved, clsVS, clsVSSupp, clsFVS, clsBidiControl, clsBidiMark,
		clsZWSP, clsZWNJ, clsZWJ, clsWordJoiner, clsBOM, clsMVS, clsInvisibleOp,
		clsSoftHyphen, clsCGJ, clsHangulFiller, clsKhmerVowel, clsDeprecatedFormat, clsIgnorable:
		return true
	case clsFormatScript:
		return r >= 0x1BCA0 // the Duployan shorthand controls; not the Egyptian ones
	}
	return false
}

// Skeleton returns the UTS #39 skeleton of s: NFD, default-ignorable code
// points removed, every character replaced by its confusables.txt
// prototype, NFD again. Two strings are confusable when their skeletons
// are equal ("rеad_file" with a Cyrillic "е" and "read_file" both give
// "read_file"). Skeletons are for comparison only; never show or forward
// them.
func Skeleton(s string) string {
	s = norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if isDefaultIgnorable(r) {
			continue
		}
		if p, ok := prototype(r); ok {
			b.WriteString(p)
		} else {
			b.WriteRune(r)
		}
	}
	return norm.NFD.String(b.String())
}

// Confusable reports whether a and b have the same TR39 skeleton, that is,
// whether a reader may take one for the other. Identical strings are
// confusable too; compare them first if that matters.
func Confusable(a, b string) bool {
	return Skeleton(a) == Skeleton(b)
}
