package unicode

import (
	"strings"
	"sync"
	stdunicode "unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Scanner holds the options of a scan. The zero value is ready to use and
// suits tool metadata (names, descriptions, schemas, server instructions).
// A Scanner is a plain value: it is safe for concurrent use.
type Scanner struct {
	// MaxDepth caps the nesting of JSON documents; 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxFindings caps the findings of one ScanJSON call; 0 means
	// DefaultMaxFindings. Further findings are counted in the
	// "omitted_findings" evidence of the last one.
	MaxFindings int
}

func (sc Scanner) analyzer(report bool) *analyzer {
	return &analyzer{report: report}
}

// ScanString reports the hidden-Unicode findings of s with the default
// Scanner. Offsets are byte offsets in s.
func ScanString(s string) []Finding { return Scanner{}.ScanString(s) }

// Sanitize returns the output view of s with the default Scanner.
func Sanitize(s string) string { return Scanner{}.Sanitize(s) }

// ScanString reports the hidden-Unicode findings of s. Offsets are byte
// offsets in s; Pointer is empty.
func (sc Scanner) ScanString(s string) []Finding {
	if cleanString(s) {
		return nil
	}
	if len(s) >= maxAnalyzed {
		var fs []Finding
		splitLarge(s, maxAnalyzed, func(piece string, base int) {
			for _, f := range sc.ScanString(piece) {
				f.Offset += base
				f.StringOffset += base
				fs = append(fs, f)
			}
		})
		return fs
	}
	a := sc.analyzer(true)
	a.loadString(s)
	if !a.run() {
		return nil
	}
	return a.findings(nil, "", false)
}

// Sanitize returns the output view of s: the hostile code points and
// whole escape sequences removed, invalid UTF-8 replaced by U+FFFD, and
// nothing else changed. It never normalizes (NFKC is lossy), keeps
// legitimate joiners, marks and selectors, and keeps LS/PS/NEL (their
// danger is line-based framing, which SanitizeJSON handles by escaping
// them). It returns s itself when nothing changes, and
// Sanitize(Sanitize(s)) == Sanitize(s).
func (sc Scanner) Sanitize(s string) string {
	if cleanString(s) {
		return s
	}
	if len(s) >= maxAnalyzed {
		var b strings.Builder
		splitLarge(s, maxAnalyzed, func(piece string, _ int) { b.WriteString(sc.Sanitize(piece)) })
		return b.String()
	}
	a := sc.analyzer(false)
	a.loadString(s)
	if !a.run() {
		return s
	}
	if !a.changed() {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, c := range a.cps {
		switch a.act[i] {
		case keep:
			b.WriteString(s[c.off : int(c.off)+int(c.size)])
		case replace:
			b.WriteRune(utf8.RuneError)
		}
	}
	return b.String()
}

// splitLarge calls f with consecutive pieces of s shorter than limit, cut
// after a line break when there is one in the last quarter of a piece, else
// at a code point boundary. Context does not cross the cuts; with limit =
// maxAnalyzed only strings of hundreds of megabytes are affected.
func splitLarge(s string, limit int, f func(piece string, base int)) {
	for base := 0; base < len(s); {
		end := len(s)
		if end-base >= limit {
			end = base + limit - 1
			window := (limit - 1) / 4
			if k := strings.LastIndexByte(s[end-window:end], '\n'); k >= 0 {
				end = end - window + k + 1
			} else {
				for end > base+1 && !utf8.RuneStart(s[end]) {
					end--
				}
			}
		}
		f(s[base:end], base)
		base = end
	}
}

// changed reports whether the last run removes or replaces anything.
func (a *analyzer) changed() bool {
	for _, act := range a.act {
		if act != keep {
			return true
		}
	}
	return false
}

// loadString decodes s (shorter than maxAnalyzed) into a.cps.
func (a *analyzer) loadString(s string) {
	a.identifier = false
	if n := utf8.RuneCountInString(s); cap(a.cps) < n {
		// Exact sizing: no regrowth for large inputs, no waste for small ones.
		a.cps = make([]cp, 0, n)
	}
	a.cps = a.cps[:0]
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			a.cps = append(a.cps, cp{r: rune(c), size: 1, off: int32(i), doff: int32(i)})
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = invalidByte(s[i])
		}
		a.cps = append(a.cps, cp{r: r, size: int32(size), off: int32(i), doff: int32(i)})
		i += size
	}
}

// cleanString is the fast path for strings: printable ASCII, TAB and LF,
// and non-ASCII code points whose class is clsNone.
func cleanString(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c >= 0x20 && c != 0x7F) || c == '\t' || c == '\n' {
				i++
				continue
			}
			return false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || classOf(r) != clsNone {
			return false
		}
		i += size
	}
	return true
}

// Analysis returns the analysis view of s, for matching heuristics only
// (never forward or display it): hostile code points and escape sequences
// removed as in Sanitize, every remaining default-ignorable code point
// removed too (legitimate joiners and selectors carry no meaning for a
// matcher), exotic spaces mapped to U+0020 and line separators to LF,
// then NFKC, case folding and NFKC again (NFKC_Casefold-like). So
// "＜IMPORTANT＞", "ig\u00ADnore" and "𝗶𝗴𝗻𝗼𝗿𝗲" read as "<important>",
// "ignore" and "ignore". Homoglyphs are not folded; compare Skeletons for
// those.
func Analysis(s string) string {
	if isPrintableASCII(s) {
		return strings.ToLower(s)
	}
	if t, ok := analysisInert(s); ok {
		return t
	}
	if len(s) < maxAnalyzed && cleanString(s) {
		return analysisPieces(s)
	}
	return analysisSlow(s)
}

// analysisPieces is Analysis of a clean string (cleanString: no code
// point the analyzer flags, so its stage keeps everything), piece by
// piece: a piece is an ASCII character and the non-ASCII code points up to
// the next one. An ASCII character starts an NFKC segment before and after
// case folding, and folding and the final mapping go code point by code
// point, so the pieces' analyses concatenate to the string's. Only pieces
// with a code point that is not inert take the slow path: one "…" no
// longer costs a whole description.
func analysisPieces(s string) string {
	table := inertRunes()
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		j := i
		if s[j] < utf8.RuneSelf {
			j++
		}
		inert := true
		for j < len(s) && s[j] >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[j:])
			inert = inert && isInert(r, table)
			j += size
		}
		if !inert {
			b = append(b, analysisSlow(s[i:j])...)
			i = j
			continue
		}
		for ; i < j; i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
	}
	return string(b)
}

// analysisSlow is Analysis without its fast paths.
func analysisSlow(s string) string {
	if len(s) >= maxAnalyzed {
		var b strings.Builder
		splitLarge(s, maxAnalyzed, func(piece string, _ int) { b.WriteString(Analysis(piece)) })
		return b.String()
	}
	a := &analyzer{}
	a.loadString(s)
	a.run()
	var b strings.Builder
	b.Grow(len(s))
	for i, c := range a.cps {
		switch {
		case a.act[i] == drop:
		case a.act[i] == replace:
			b.WriteRune(utf8.RuneError)
		case a.cls[i] == clsSpace:
			b.WriteByte(' ')
		case a.cls[i] == clsLineSep:
			b.WriteByte('\n')
		case isDefaultIgnorable(c.r), a.cls[i] == clsInterlinear, a.cls[i] == clsFormatScript:
		default:
			b.WriteRune(c.r)
		}
	}
	t := norm.NFKC.String(b.String())
	t = foldString(t)
	t = norm.NFKC.String(t)
	// Folding can expose new ignorables or spaces only in theory; one more
	// cheap pass keeps the contract exact.
	return strings.Map(func(r rune) rune {
		if isDefaultIgnorable(r) {
			return -1
		}
		if r != ' ' && stdunicode.Is(stdunicode.Zs, r) {
			return ' '
		}
		return r
	}, t)
}

// Most non-ASCII text in tool metadata is punctuation and symbols that
// Analysis leaves as they are (dashes, bullets, quotes, arrows, "≈"), yet
// one such code point sends a string down the slow path: the analyzer,
// NFKC, case folding and NFKC again. analysisInert is the fast path for
// strings whose every non-ASCII code point is inert.

// Inert code points are looked up in a table of these ranges, which hold
// the common ones (Latin-1 to Cyrillic; punctuation, symbols, arrows,
// mathematical and technical signs, box drawing, dingbats).
const (
	inertLo1, inertHi1 = 0x80, 0x800
	inertLo2, inertHi2 = 0x2000, 0x2C00
)

// inertRunes is the table of inert code points: classOf gives clsNone (no
// hostile or invisible code point, nothing the analyzer drops, replaces
// or maps), not a space separator, NFKC and full case folding leave it
// unchanged, and it is a starter that never combines with the code point
// before it. In a string of printable ASCII (whose code points are such
// starters too) and inert code points nothing combines or reorders, so
// Analysis maps it code point by code point: ASCII letters lower-cased
// (NFKC and folding of ASCII), inert code points unchanged. ("≈" is inert
// although U+0338 after it would compose: U+0338 is not.) The table is a
// pure function of the Unicode tables, built on first use.
var inertRunes = sync.OnceValue(func() []uint64 {
	bits := make([]uint64, (inertHi1-inertLo1+inertHi2-inertLo2+63)/64)
	set := func(i int) { bits[i>>6] |= 1 << (i & 63) }
	i := 0
	for _, rg := range [][2]rune{{inertLo1, inertHi1}, {inertLo2, inertHi2}} {
		for r := rg[0]; r < rg[1]; r, i = r+1, i+1 {
			if inertRune(r) {
				set(i)
			}
		}
	}
	return bits
})

func inertRune(r rune) bool {
	if classOf(r) != clsNone || isDefaultIgnorable(r) || stdunicode.Is(stdunicode.Zs, r) || !utf8.ValidRune(r) {
		return false
	}
	s := string(r)
	p := norm.NFKC.PropertiesString(s)
	if !p.BoundaryBefore() || p.CCC() != 0 || len(p.Decomposition()) != 0 {
		return false
	}
	_, folds := foldTo(r)
	return norm.NFKC.String(s) == s && !folds
}

// isInert looks r up in inertRunes; code points outside its ranges are
// not inert.
func isInert(r rune, table []uint64) bool {
	var i int
	switch {
	case r >= inertLo1 && r < inertHi1:
		i = int(r - inertLo1)
	case r >= inertLo2 && r < inertHi2:
		i = int(r-inertLo2) + inertHi1 - inertLo1
	default:
		return false
	}
	return table[i>>6]&(1<<(i&63)) != 0
}

// analysisInert returns Analysis(s) and true when s holds only printable
// ASCII, TAB, LF and inert code points; false otherwise.
func analysisInert(s string) (string, bool) {
	var table []uint64
	upper := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F {
				return "", false
			}
			upper = upper || 'A' <= c && c <= 'Z'
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < inertLo1 || r >= inertHi2 || r >= inertHi1 && r < inertLo2 {
			return "", false // outside the table: spare building it
		}
		if table == nil {
			table = inertRunes()
		}
		if !isInert(r, table) {
			return "", false
		}
		i += size
	}
	if !upper {
		return s, true
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b), true
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t' && c != '\n') || c >= 0x7F {
			return false
		}
	}
	return true
}

// Padding describes whitespace that can push text out of view
// (threats.md §2.2, T004): long runs of spaces and runs of blank lines.
// This package does not assign T004; the tool analysis decides with
// Padded or its own thresholds.
type Padding struct {
	// LongestSpaceRun is the longest run of space characters (U+0020, TAB
	// and the exotic Zs spaces such as NBSP and U+3000), and SpaceRunOffset
	// the byte offset where it starts.
	LongestSpaceRun int
	SpaceRunOffset  int
	// MaxBlankLines is the longest run of consecutive blank (empty or
	// whitespace-only) lines, and BlankLinesOffset the byte offset of the
	// line break that starts it. LF, CR LF, CR, NEL, LS and PS end lines.
	MaxBlankLines    int
	BlankLinesOffset int
	// ExoticSpaces counts non-ASCII space characters.
	ExoticSpaces int
}

// Padding thresholds of threats.md §2.2: whitespace runs of 16 or more, or
// more than 3 consecutive blank lines.
const (
	PaddingSpaceRun   = 16
	PaddingBlankLines = 4
)

// Padded reports whether p reaches PaddingSpaceRun or PaddingBlankLines.
func (p Padding) Padded() bool {
	return p.LongestSpaceRun >= PaddingSpaceRun || p.MaxBlankLines >= PaddingBlankLines
}

// MeasurePadding measures the whitespace padding of s.
func MeasurePadding(s string) Padding {
	var p Padding
	run, runStart := 0, 0
	blank, blankStart := 0, 0 // blank lines in the current run
	lineBlank := false        // the current line has only whitespace so far
	atLineStart := false      // a line break has been seen
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		isSpace := r == ' ' || r == '\t' || (r >= 0x80 && classOf(r) == clsSpace)
		if r >= 0x80 && isSpace {
			p.ExoticSpaces++
		}
		if isSpace {
			if run == 0 {
				runStart = i
			}
			run++
			if run > p.LongestSpaceRun {
				p.LongestSpaceRun, p.SpaceRunOffset = run, runStart
			}
		} else {
			run = 0
		}
		switch {
		case isLineBreak(r):
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			if atLineStart && lineBlank {
				if blank == 0 {
					blankStart = i
				}
				blank++
				if blank > p.MaxBlankLines {
					p.MaxBlankLines, p.BlankLinesOffset = blank, blankStart
				}
			} else {
				blank = 0
			}
			atLineStart, lineBlank = true, true
		case !isSpace:
			lineBlank = false
			blank = 0
		}
		i += size
	}
	return p
}
