package unicode

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/bidi"
	"golang.org/x/text/unicode/norm"
)

// cp is one decoded code point and where it came from. The analyzer works
// on code points rather than bytes so that strings and JSON string tokens
// (with \uXXXX escapes and surrogate pairs) share one implementation.
type cp struct {
	r    rune  // the code point; invalidByte(b) for an invalid UTF-8 byte
	size int32 // bytes in the source (6 or 12 for JSON escapes)
	off  int32 // byte offset in the source
	doff int32 // byte offset in the decoded string
}

// maxAnalyzed bounds the input of one analyzer run so that the offsets fit
// in a cp (16 bytes per code point). Longer strings are analyzed in chunks;
// longer JSON documents are rejected with ErrTooLarge.
const maxAnalyzed = 1 << 29

// invalidByte encodes an invalid UTF-8 byte as a negative rune so that it
// can travel in a cp and be shown as "0xNN" in a finding.
func invalidByte(b byte) rune { return -1 - rune(b) }

type action uint8

const (
	keep    action = iota
	drop           // removed from the output view
	replace        // replaced by U+FFFD (invalid UTF-8, lone surrogates)
)

// event is one future Finding: a group of marked code points.
type event struct {
	kind       kindID
	start, end int // code point indexes [start, end)
	id         int32
	evidence   map[string]any
	detail     string // appended to the message
	// lite events are beyond the per-string cap for their kind: they can
	// never become findings, so no evidence is built for them.
	lite bool
}

// analyzer classifies a code point sequence, decides per code point
// whether the output view keeps it, and (if report is set) groups the
// marked code points into findings. It is reused across strings of one
// call to avoid allocations; it is not safe for concurrent use.
type analyzer struct {
	report bool

	cps  []cp
	cls  []class
	act  []action
	kind []kindID
	evt  []int32 // event id that claims the code point, 0 if none
	// flagged lists the indexes of the code points whose class is not
	// clsNone (and of invalid ones), in order.
	flagged []int32
	events  []event
	nextID  int32
	perKind [kDuplicateKey + 1]int

	confusableCandidates bool
	tokens               []token
	scratch              []byte

	// identifier is set by the caller for a string that names something
	// (an object key, a tool or parameter name, an enum value): no
	// directional mark is typography there.
	identifier bool
	// rtlLine caches rtlInLine for the line [rtlLineStart, rtlLineEnd).
	rtlLineStart, rtlLineEnd int
	rtlLine                  bool
	// url caches urlLike: 0 not computed, 1 a URL, 2 not one.
	url int8
}

// reset prepares the per-string arrays for len(a.cps) code points.
func (a *analyzer) reset() {
	n := len(a.cps)
	a.cls = grow(a.cls, n)
	a.act = grow(a.act, n)
	a.kind = grow(a.kind, n)
	a.evt = grow(a.evt, n)
	a.events = a.events[:0]
	a.flagged = a.flagged[:0]
	a.nextID = 0
	a.perKind = [kDuplicateKey + 1]int{}
	a.confusableCandidates = false
	a.rtlLineStart, a.rtlLineEnd = -1, -1
	a.url = 0
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	s = s[:n]
	clear(s)
	return s
}

// run analyzes a.cps. It returns false when nothing in the sequence needs
// attention (the common case), in which case act/kind are all zero.
func (a *analyzer) run() bool {
	a.reset()
	// The passes below visit only the flagged code points: ordinary text
	// costs one table lookup per code point and nothing more.
	for i := range a.cps {
		r := a.cps[i].r
		if r < 0 {
			a.act[i], a.kind[i] = replace, kInvalidUTF8
			a.flagged = append(a.flagged, int32(i))
			continue
		}
		c := classOf(r)
		if c == clsSurrogate {
			a.act[i], a.kind[i] = replace, kLoneSurrogate
			a.flagged = append(a.flagged, int32(i))
			continue
		}
		a.cls[i] = c
		if c != clsNone {
			a.flagged = append(a.flagged, int32(i))
		}
	}
	if len(a.flagged) == 0 {
		return false
	}
	a.passSequences()
	a.passTags()
	a.passBinary()
	a.passBidi()
	a.passSimple()
	a.passContext()
	if a.report && a.confusableCandidates {
		a.passConfusables()
	}
	return true
}

// newEvent starts an event. Each pass creates the events of a kind in
// string order, so only the first maxFindingsPerString of a kind can be
// among the findings that are kept; later ones are lite.
func (a *analyzer) newEvent(k kindID, start, end int) *event {
	a.nextID++
	a.perKind[k]++
	a.events = append(a.events, event{kind: k, start: start, end: end, id: a.nextID,
		lite: !a.report || a.perKind[k] > maxFindingsPerString})
	return &a.events[len(a.events)-1]
}

// claim marks code point i as dropped (or kept) and reported under event e.
func (a *analyzer) claim(i int, act action, k kindID, id int32) {
	a.act[i], a.kind[i], a.evt[i] = act, k, id
}

// passSequences removes ECMA-48 escape and control sequences as a whole:
// ESC-introduced and 8-bit C1 CSI, OSC, DCS, SOS, PM and APC.
func (a *analyzer) passSequences() {
	var p ansiParser
	for _, fi := range a.flagged {
		i := int(fi)
		c := a.cls[i]
		if (c != clsESC && c != clsC1) || a.act[i] != keep {
			continue // not an introducer, or inside an earlier sequence
		}
		seq, ok := p.parse(a.cps, i)
		if !ok {
			continue // a lone C1 control: passSimple reports it
		}
		e := a.newEvent(kEscape, i, seq.end)
		if !e.lite {
			e.evidence = map[string]any{
				"intent":   seq.intent,
				"sequence": escapeForDisplay(a.text(i, seq.end, false)),
			}
			e.detail = seq.intent
		}
		for j := i; j < seq.end; j++ {
			a.claim(j, drop, kEscape, e.id)
		}
	}
}

// passTags drops every tag character that is not part of an exact RGI
// emoji tag sequence (the England, Scotland and Wales flags), and reports
// all of them in one finding whose evidence is the decoded ASCII.
func (a *analyzer) passTags() {
	var e *event
	var decoded []byte
	runs, skip := 0, 0
	for _, fi := range a.flagged {
		i := int(fi)
		if i < skip || a.cls[i] != clsTag || a.act[i] != keep {
			continue
		}
		if i > 0 && a.cps[i-1].r == 0x1F3F4 && a.act[i-1] == keep {
			if k := a.matchTagFlag(i); k > 0 {
				skip = i + k
				continue
			}
		}
		if e == nil {
			e = a.newEvent(kTag, i, i+1)
		}
		if i == 0 || a.evt[i-1] != e.id {
			runs++
		}
		e.end = i + 1
		a.claim(i, drop, kTag, e.id)
		if r := a.cps[i].r; r >= 0xE0020 && r <= 0xE007E && len(decoded) < maxDecodedEvidenceBytes+1 {
			decoded = append(decoded, byte(r-0xE0000))
		}
	}
	if e != nil && !e.lite {
		e.evidence = map[string]any{"encoding": "tags", "runs": runs}
		addDecoded(e.evidence, decoded)
	}
}

// matchTagFlag returns the length of the RGI tag sequence (tags plus
// CANCEL TAG) starting at i, or 0.
func (a *analyzer) matchTagFlag(i int) int {
	for _, flag := range rgiTagFlags {
		end := i + len(flag)
		if end >= len(a.cps) || a.cps[end].r != 0xE007F {
			continue
		}
		ok := true
		for j := 0; j < len(flag); j++ {
			if a.cps[i+j].r != 0xE0000+rune(flag[j]) {
				ok = false
				break
			}
		}
		if ok {
			return len(flag) + 1
		}
	}
	return 0
}

// binaryAlphabet reports whether class c can serve as one symbol of a
// two-symbol invisible binary encoding.
func binaryAlphabet(c class) bool {
	switch c {
	case clsZWSP, clsZWNJ, clsZWJ, clsWordJoiner, clsBOM, clsMVS, clsInvisibleOp,
		clsBidiMark, clsBidiControl, clsSoftHyphen, clsCGJ, clsHangulFiller,
		clsKhmerVowel, clsDeprecatedFormat, clsIgnorable, clsBrailleBlank:
		return true
	}
	return false
}

// passBinary looks for runs of at least 8 invisible characters that use
// exactly two distinct code points and decodes them as bits
// (threats.md §1.1 "Binary encodings").
func (a *analyzer) passBinary() {
	f := a.flagged
	usable := func(k int) bool { return binaryAlphabet(a.cls[f[k]]) && a.act[f[k]] == keep }
	for k := 0; k < len(f); {
		if !usable(k) {
			k++
			continue
		}
		m := k
		for m+1 < len(f) && f[m+1] == f[m]+1 && usable(m+1) {
			m++
		}
		i, j := int(f[k]), int(f[m])+1
		k = m + 1
		if j-i >= 8 {
			if dec, zero, one, ok := decodeBinary(a.cps[i:j]); ok {
				e := a.newEvent(kBinary, i, j)
				for k := i; k < j; k++ {
					a.claim(k, drop, kBinary, e.id)
				}
				if !e.lite {
					e.evidence = map[string]any{
						"encoding": "binary",
						"bits":     fmt.Sprintf("%s=0 %s=1", formatCP(zero), formatCP(one)),
					}
					addDecoded(e.evidence, dec)
				}
			}
		}
	}
}

// passBidi drops the bidi embeddings, overrides and isolates (threats.md
// §1 row 5) and reports them in one finding per string, whose evidence
// shows the line in memory order and in display order.
func (a *analyzer) passBidi() {
	typo := a.typographicIsolates()
	var e *event
	for _, fi := range a.flagged {
		i := int(fi)
		if a.cls[i] != clsBidiControl || a.act[i] != keep || typo[i] {
			continue
		}
		if e == nil {
			e = a.newEvent(kBidiControl, i, i+1)
		}
		e.end = i + 1
		a.claim(i, drop, kBidiControl, e.id)
	}
}

// typographicIsolates returns the isolate controls that are right-to-left
// typography (issue 16): balanced pairs — LRI, RLI or FSI and the next
// bidi control, a PDI on the same line — around a run of one direction that
// agrees with the isolate (LRI around a Latin run, RLI around an Arabic
// one), in prose whose line holds right-to-left script, and that the
// Unicode Bidirectional Algorithm displays as one block in its own order.
// A string with any other bidi control keeps none: an override or an
// unbalanced isolate is the trick, and the pairs beside it are part of it.
func (a *analyzer) typographicIsolates() map[int]bool {
	var ctl []int
	for _, fi := range a.flagged {
		if i := int(fi); a.cls[i] == clsBidiControl && a.act[i] == keep {
			ctl = append(ctl, i)
		}
	}
	if len(ctl) < 2 || a.identifier || a.urlLike() {
		return nil
	}
	if len(ctl) > 2*maxTypographicIsolates {
		return nil // prose isolates a few runs, not hundreds: each costs a bidi pass over its line
	}
	typo := map[int]bool{}
	for k := 0; k < len(ctl); k++ {
		i := ctl[k]
		r := a.cps[i].r
		if r != 0x2066 && r != 0x2067 && r != 0x2068 || k+1 == len(ctl) || a.cps[ctl[k+1]].r != 0x2069 {
			return nil
		}
		j := ctl[k+1]
		if !a.typographicIsolate(i, j) {
			return nil
		}
		typo[i], typo[j] = true, true
		k++
	}
	return typo
}

// maxTypographicIsolates bounds the isolate pairs of one string that can be
// typography.
const maxTypographicIsolates = 16

func (a *analyzer) typographicIsolate(i, j int) bool {
	if j-i < 2 || !a.rtlInLine(i) {
		return false
	}
	var content []rune
	rtl, ltr, text := false, false, false
	for _, c := range a.cps[i+1 : j] {
		if c.r < 0 || lineBreak(c.r) {
			return false
		}
		p := propsOf(c.r)
		if p&(propLetter|propModLetter) != 0 {
			if p&propRTL != 0 {
				rtl = true
			} else {
				ltr = true
			}
		}
		text = text || p&(propLetter|propModLetter|propDigit) != 0
		content = append(content, c.r)
	}
	switch {
	case !text, rtl && ltr:
		return false
	case a.cps[i].r == 0x2066 && rtl, a.cps[i].r == 0x2067 && ltr:
		return false // the isolate's direction contradicts its content
	}
	// The UBA's view: the isolated run is displayed as one block, in its
	// own order (reversed for a right-to-left run).
	start, end := i, j
	for start > 0 && !lineBreak(a.cps[start-1].r) {
		start--
	}
	for end < len(a.cps) && !lineBreak(a.cps[end].r) {
		end++
	}
	line := make([]rune, 0, end-start)
	for _, c := range a.cps[start:end] {
		if c.r >= 0 {
			line = append(line, c.r)
		}
	}
	visual, ok := visualOrder(string(line))
	if !ok {
		return false
	}
	block := string(content)
	if rtl {
		block = bidi.ReverseString(block)
	}
	return strings.Contains(visual, block)
}

// passSimple handles the classes whose decision does not depend on context.
func (a *analyzer) passSimple() {
	n := len(a.cps)
	for _, fi := range a.flagged {
		i := int(fi)
		if a.act[i] != keep || a.kind[i] != kNone {
			continue
		}
		var k kindID
		act := drop
		switch a.cls[i] {
		case clsNone, clsSpace:
			continue
		case clsNonchar:
			k = kNoncharacter
		case clsTagReserved:
			k = kUnassigned
		case clsWordJoiner, clsBOM:
			k = kZeroWidth
		case clsInvisibleOp:
			k = kInvisibleOp
		case clsSoftHyphen:
			k = kSoftHyphen
		case clsKhmerVowel, clsDeprecatedFormat, clsIgnorable:
			k = kIgnorable
		case clsObjectRepl:
			k = kBlank
		case clsInterlinear:
			k = kInterlinear
		case clsLineSep:
			// Kept: the value is legitimate text; SanitizeJSON writes it as
			// an escape so line-based framing cannot split on it.
			k, act = kLineSep, keep
		case clsCR:
			if i+1 < n && a.cps[i+1].r == '\n' {
				continue
			}
			k = kOverwrite
		case clsBS:
			k = kOverwrite
		case clsC0, clsC1, clsESC:
			k = kControl
		case clsPUA:
			k = kPrivateUse
		case clsUnassigned:
			// Never strip general Cn: it may be text from a newer Unicode.
			k, act = kUnassigned, keep
		case clsCompatSyntax, clsCompatLetter, clsCyrGreek:
			a.confusableCandidates = true
			continue
		default:
			continue // context classes: passContext
		}
		a.act[i], a.kind[i] = act, k
	}
}

// prevKept and nextKept return the neighbours of i that survive the
// unconditional passes (-1 or len when there is none). Context decisions
// look through removed code points so that they give the same answer on
// the sanitized output, which keeps Sanitize idempotent.
func (a *analyzer) prevKept(i int) int {
	for i--; i >= 0 && a.act[i] == drop; i-- {
	}
	return i
}

func (a *analyzer) nextKept(i int) int {
	for i++; i < len(a.cps) && a.act[i] == drop; i++ {
	}
	return i
}

// plain reports whether code point j exists and is ordinary text (not a
// control, invisible or otherwise flagged character).
func (a *analyzer) plain(j int) bool {
	if j < 0 || j >= len(a.cps) || a.act[j] != keep || a.kind[j] != kNone {
		return false
	}
	switch a.cls[j] {
	case clsNone, clsSpace, clsCompatLetter, clsCompatSyntax, clsCyrGreek:
		return true
	}
	return false
}

type decision struct {
	i   int
	act action
	k   kindID
}

// passContext decides the classes that are legitimate in some contexts:
// joiners, bidi marks, variation selectors, fillers and the like
// (threats.md §0 rule 5: "decide with context, never by code point alone").
// Decisions are collected first and applied afterwards, so they depend only
// on the outcome of the earlier passes and not on their own order.
func (a *analyzer) passContext() {
	n := len(a.cps)
	var decisions []decision
	decide := func(i int, ok bool, k kindID) {
		if ok {
			decisions = append(decisions, decision{i, keep, kNone})
		} else {
			decisions = append(decisions, decision{i, drop, k})
		}
	}
	for _, fi := range a.flagged {
		i := int(fi)
		if a.act[i] != keep || a.kind[i] != kNone {
			continue
		}
		switch a.cls[i] {
		case clsZWSP:
			decide(i, a.sharedScript(i, wordBreakScript), kZeroWidth)
		case clsZWNJ:
			decide(i, a.sharedScript(i, joiningScript) || a.afterVirama(i), kZeroWidth)
		case clsZWJ:
			decide(i, a.emojiZWJ(i) || a.sharedScript(i, joiningScript) || a.afterVirama(i), kZeroWidth)
		case clsMVS:
			decide(i, a.sharedScript(i, func(sc uint8) bool { return scriptInfo[sc].code == "Mong" }), kZeroWidth)
		case clsBidiMark:
			decide(i, a.typographicMark(i), kBidiMark)
		case clsCGJ:
			p, q := a.prevKept(i), a.nextKept(i)
			decide(i, a.plain(p) && propsOf(a.cps[p].r)&(propLetter|propMark) != 0 &&
				a.plain(q) && propsOf(a.cps[q].r)&propMark != 0, kCGJ)
		case clsHangulFiller:
			p, q := a.prevKept(i), a.nextKept(i)
			decide(i, (a.plain(p) && isJamo(a.cps[p].r)) || (a.plain(q) && isJamo(a.cps[q].r)), kHangulFiller)
		case clsBrailleBlank:
			p, q := a.prevKept(i), a.nextKept(i)
			blankNext := (p >= 0 && a.cls[p] == clsBrailleBlank) || (q < n && a.cls[q] == clsBrailleBlank)
			braille := (a.plain(p) && isBraille(a.cps[p].r)) || (a.plain(q) && isBraille(a.cps[q].r))
			decide(i, braille && !blankNext, kBlank)
		case clsFormatScript:
			decide(i, a.formatInScript(i), kIgnorable)
		case clsPCM:
			q := a.nextKept(i)
			decide(i, a.plain(q) && propsOf(a.cps[q].r)&propDigit != 0, kIgnorable)
		case clsVS, clsVSSupp:
			if p := a.vsNeighbor(i, -1); p >= 0 && isByteVS(a.cls[p]) {
				continue // inside a run handled at its first selector
			}
			run := a.vsRun(i)
			if len(run) >= 2 {
				a.vsEncoding(run, &decisions)
				continue
			}
			decide(i, a.allowedVS(i), kStrayVS)
		case clsFVS:
			p := a.prevKept(i)
			ok := a.plain(p) && (isVariationSequence(a.cps[p].r, a.cps[i].r) ||
				(propsOf(a.cps[p].r)&propLetter != 0 && hasScript(a.cps[p].r, scriptIndex("Mong"))))
			decide(i, ok, kStrayVS)
		}
	}
	for _, d := range decisions {
		a.act[d.i], a.kind[d.i] = d.act, d.k
	}
	a.marksWithCarriers()
}

// typographicMark reports whether the implicit directional mark (LRM, RLM,
// ALM) at i is where right-to-left writers put one: in a line that holds
// right-to-left script, next to text (a Latin run, a date, a number, an
// Arabic or Hebrew word), in prose rather than in an identifier or a URL,
// and alone rather than in a run of marks.
func (a *analyzer) typographicMark(i int) bool {
	if a.identifier || a.urlLike() {
		return false
	}
	for _, j := range [2]int{i - 1, i + 1} {
		if j >= 0 && j < len(a.cps) && (a.cls[j] == clsBidiMark || a.cls[j] == clsBidiControl) {
			return false // a run of marks carries no typography
		}
	}
	if a.rtlNear(i, -1) || a.rtlNear(i, +1) {
		return true
	}
	return a.rtlInLine(i) && (a.textNear(i, -1) || a.textNear(i, +1))
}

// marksWithCarriers withdraws the typography reading from directional
// marks in a string that also hides something else: a mark beside a
// zero-width payload or a bidi override is part of the trick.
func (a *analyzer) marksWithCarriers() {
	marks, others := false, false
	for _, fi := range a.flagged {
		i := int(fi)
		switch {
		case a.cls[i] == clsBidiMark && a.act[i] == keep && a.kind[i] == kNone:
			marks = true
		case a.act[i] == drop && a.kind[i] != kNone:
			others = true
		}
	}
	if !marks || !others {
		return
	}
	for _, fi := range a.flagged {
		if i := int(fi); a.cls[i] == clsBidiMark && a.act[i] == keep && a.kind[i] == kNone {
			a.act[i], a.kind[i] = drop, kBidiMark
		}
	}
}

// urlLike reports whether the string is a URL (a scheme's "://" and no
// space): a directional mark in one hides where it leads.
func (a *analyzer) urlLike() bool {
	if a.url == 0 {
		a.url = 2
		if a.scanURL() {
			a.url = 1
		}
	}
	return a.url == 1
}

// scanURL is urlLike's scan, once per string: every mark asks.
func (a *analyzer) scanURL() bool {
	colon := false
	for k, c := range a.cps {
		switch {
		case c.r == ' ' || c.r == '\n':
			return false
		case c.r == ':' && k+2 < len(a.cps) && a.cps[k+1].r == '/' && a.cps[k+2].r == '/':
			colon = true
		}
	}
	return colon
}

// rtlInLine reports whether the line (paragraph) of code point i holds a
// right-to-left letter (Bidi_Class R or AL).
func (a *analyzer) rtlInLine(i int) bool {
	if i >= a.rtlLineStart && i < a.rtlLineEnd {
		return a.rtlLine
	}
	start, end := i, i
	for start > 0 && !lineBreak(a.cps[start-1].r) {
		start--
	}
	for end < len(a.cps) && !lineBreak(a.cps[end].r) {
		end++
	}
	rtl := false
	for _, c := range a.cps[start:end] {
		if c.r >= 0 && propsOf(c.r)&propRTL != 0 && propsOf(c.r)&(propLetter|propModLetter) != 0 {
			rtl = true
			break
		}
	}
	a.rtlLineStart, a.rtlLineEnd, a.rtlLine = start, end, rtl
	return rtl
}

func lineBreak(r rune) bool { return r == '\n' || r == '\r' || r == 0x2029 || r == 0x85 }

// textNear reports whether a letter or digit is within a few characters of
// i in direction dir, on the same line.
func (a *analyzer) textNear(i, dir int) bool {
	return a.near(i, dir, propLetter|propModLetter|propDigit) >= 0
}

// near returns the first code point within a few characters of i in
// direction dir, on the same line and through plain text only, that has
// one of the properties want; -1 when there is none.
func (a *analyzer) near(i, dir int, want uint16) int {
	j := i
	for steps := 0; steps < 4; steps++ {
		if dir < 0 {
			j = a.prevKept(j)
		} else {
			j = a.nextKept(j)
		}
		if !a.plain(j) || lineBreak(a.cps[j].r) {
			return -1
		}
		if propsOf(a.cps[j].r)&want != 0 {
			return j
		}
	}
	return -1
}

func isByteVS(c class) bool { return c == clsVS || c == clsVSSupp }

// vsRun returns the indexes of the run of byte variation selectors that
// starts at i, looking through removed and invisible code points:
// interleaving zero-width spaces must not hide a payload from the decoder.
func (a *analyzer) vsRun(i int) []int {
	run := []int{i}
	for j := a.vsNeighbor(i, +1); j < len(a.cps) && isByteVS(a.cls[j]) && a.act[j] == keep; j = a.vsNeighbor(j, +1) {
		run = append(run, j)
	}
	return run
}

// vsNeighbor returns the next code point in direction dir that is neither
// removed nor another invisible character.
func (a *analyzer) vsNeighbor(i, dir int) int {
	for i += dir; i >= 0 && i < len(a.cps) && (a.act[i] == drop || binaryAlphabet(a.cls[i])); i += dir {
	}
	return i
}

// vsEncoding reports a run of two or more variation selectors as U004 and
// decodes it: VS1..VS16 are bytes 0..15, VS17..VS256 bytes 16..255 (Paul
// Butler's scheme).
func (a *analyzer) vsEncoding(run []int, decisions *[]decision) {
	e := a.newEvent(kVSEncoding, run[0], run[len(run)-1]+1)
	buf := a.scratch[:0]
	for _, j := range run {
		a.evt[j] = e.id
		*decisions = append(*decisions, decision{j, drop, kVSEncoding})
		r := a.cps[j].r
		if len(buf) <= maxDecodedEvidenceBytes {
			if r <= 0xFE0F {
				buf = append(buf, byte(r-0xFE00))
			} else {
				buf = append(buf, byte(r-0xE0100+16))
			}
		}
	}
	a.scratch = buf
	if !e.lite {
		e.evidence = map[string]any{"encoding": "variation-selectors", "bytes": len(run)}
		addDecoded(e.evidence, buf)
		if p := a.prevKept(run[0]); p >= 0 {
			e.evidence["base"] = formatCP(a.cps[p].r)
		}
	}
}

// allowedVS reports whether the single variation selector at i follows a
// base it is defined for: a standardized or emoji variation sequence,
// FE0E/FE0F after any emoji, or one ideographic variation selector after a
// unified ideograph.
func (a *analyzer) allowedVS(i int) bool {
	p := a.prevKept(i)
	if !a.plain(p) {
		return false
	}
	base, vs := a.cps[p].r, a.cps[i].r
	if isVariationSequence(base, vs) {
		return true
	}
	props := propsOf(base)
	switch {
	case vs == 0xFE0E || vs == 0xFE0F:
		return props&propEmoji != 0
	case vs >= 0xE0100:
		return props&propUnifiedIdeograph != 0
	}
	return false
}

// emojiZWJ reports whether the ZWJ at i joins two emoji: the element before
// it (ignoring presentation selectors and skin-tone modifiers) and the one
// after it are Extended_Pictographic.
func (a *analyzer) emojiZWJ(i int) bool {
	p := a.prevKept(i)
	for p >= 0 && ((a.cls[p] == clsVS && a.cps[p].r >= 0xFE0E) || propsOf(a.cps[p].r)&propEmojiModifier != 0) {
		p = a.prevKept(p)
	}
	q := a.nextKept(i)
	return a.plain(p) && a.plain(q) &&
		propsOf(a.cps[p].r)&propExtPict != 0 && propsOf(a.cps[q].r)&propExtPict != 0
}

// sharedScript reports whether the neighbours of i are letters or marks
// that share a script accepted by ok (via Script_Extensions).
func (a *analyzer) sharedScript(i int, ok func(uint8) bool) bool {
	p, q := a.prevKept(i), a.nextKept(i)
	if !a.plain(p) || !a.plain(q) {
		return false
	}
	rp, rq := a.cps[p].r, a.cps[q].r
	const wordish = propLetter | propMark | propModLetter | propDigit
	if rp < 0x80 || rq < 0x80 || propsOf(rp)&wordish == 0 || propsOf(rq)&wordish == 0 {
		return false
	}
	set := scriptExtensions(rp)
	for k := 0; k < len(set); k++ {
		if ok(set[k]) && hasScript(rq, set[k]) {
			return true
		}
	}
	return false
}

// afterVirama reports whether the joiner at i ends a word after a combining
// mark of a joining script, as in the Malayalam chillu "ന്\u200D" or an
// explicit half form before a space.
func (a *analyzer) afterVirama(i int) bool {
	p, q := a.prevKept(i), a.nextKept(i)
	if !a.plain(p) || a.cps[p].r < 0x80 || propsOf(a.cps[p].r)&propMark == 0 {
		return false
	}
	if q < len(a.cps) && (!a.plain(q) || propsOf(a.cps[q].r)&(propLetter|propMark|propModLetter|propDigit) != 0) {
		return false
	}
	set := scriptExtensions(a.cps[p].r)
	for k := 0; k < len(set); k++ {
		if joiningScript(set[k]) {
			return true
		}
	}
	return false
}

// joiningScript reports whether ZWJ/ZWNJ have a legitimate role in script
// sc: cursive scripts (Arabic, Syriac, Mongolian, ...) and Brahmic scripts
// (conjunct control in Devanagari, Bengali, Sinhala, ...). The excluded
// scripts render identically with or without a joiner.
func joiningScript(sc uint8) bool {
	switch scriptInfo[sc].code {
	case "Zzzz", "Zyyy", "Zinh", "Latn", "Grek", "Cyrl", "Armn", "Geor", "Hebr",
		"Hani", "Hira", "Kana", "Hang", "Bopo", "Ethi", "Cher", "Brai":
		return false
	}
	return true
}

// wordBreakScript reports whether script sc is written without spaces and
// uses ZWSP to mark word boundaries (Thai, Lao, Khmer, Myanmar, Tai).
func wordBreakScript(sc uint8) bool {
	switch scriptInfo[sc].code {
	case "Thai", "Laoo", "Khmr", "Mymr", "Lana", "Tavt", "Talu", "Tale":
		return true
	}
	return false
}

// scriptIndex returns the index of the script with ISO 15924 code code.
func scriptIndex(code string) uint8 {
	for i := range scriptInfo {
		if scriptInfo[i].code == code {
			return uint8(i)
		}
	}
	return scUnknown
}

// rtlNear reports whether the nearest letter in direction dir (within a few
// neutral characters on the same line) is right-to-left (Bidi_Class R or
// AL): LRM/RLM/ALM next to Arabic or Hebrew text are legitimate.
func (a *analyzer) rtlNear(i, dir int) bool {
	j := a.near(i, dir, propLetter|propModLetter)
	return j >= 0 && propsOf(a.cps[j].r)&propRTL != 0
}

// formatInScript reports whether the script-specific format control at i
// (Egyptian hieroglyph or Duployan shorthand) stands next to a letter of
// its own script.
func (a *analyzer) formatInScript(i int) bool {
	code := "Egyp"
	if a.cps[i].r >= 0x1BCA0 {
		code = "Dupl"
	}
	sc := scriptIndex(code)
	for _, j := range [2]int{a.prevKept(i), a.nextKept(i)} {
		if a.plain(j) && propsOf(a.cps[j].r)&propLetter != 0 && hasScript(a.cps[j].r, sc) {
			return true
		}
	}
	return false
}

// isJamo reports whether r is a Hangul jamo other than a filler.
func isJamo(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x11FF, r >= 0xA960 && r <= 0xA97F, r >= 0xD7B0 && r <= 0xD7FF,
		r >= 0x3131 && r <= 0x318E, r >= 0xFFA1 && r <= 0xFFDC:
		return r != 0x115F && r != 0x1160
	}
	return false
}

// isBraille reports whether r is a non-blank Braille pattern.
func isBraille(r rune) bool { return r > 0x2800 && r <= 0x28FF }

// text returns the code points [start, end) as a string. With keptOnly it
// skips removed code points; invalid bytes become U+FFFD.
func (a *analyzer) text(start, end int, keptOnly bool) string {
	var b strings.Builder
	for i := start; i < end && i < len(a.cps); i++ {
		if keptOnly && a.act[i] == drop {
			continue
		}
		r := a.cps[i].r
		if r < 0 || (r >= 0xD800 && r <= 0xDFFF) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// findings appends the findings of the last run to dst, at most
// maxFindingsPerString of them.
func (a *analyzer) findings(dst []Finding, pointer string, isKey bool) []Finding {
	a.group()
	if len(a.events) == 0 {
		return dst
	}
	slices.SortStableFunc(a.events, func(x, y event) int { return x.start - y.start })
	omitted := 0
	if len(a.events) > maxFindingsPerString {
		omitted = len(a.events) - maxFindingsPerString
		a.events = a.events[:maxFindingsPerString]
	}
	for ei := range a.events {
		e := &a.events[ei]
		dst = append(dst, a.finding(e, pointer, isKey))
	}
	if omitted > 0 {
		dst[len(dst)-1].Evidence["omitted_findings"] = omitted
	}
	return dst
}

// group turns the marked code points that no pass has claimed into events:
// consecutive ones of the same kind form one finding.
func (a *analyzer) group() {
	n := len(a.cps)
	for i := 0; i < n; {
		k := a.kind[i]
		if k == kNone || a.evt[i] != 0 {
			i++
			continue
		}
		j := i
		e := a.newEvent(k, i, i)
		for j < n && a.kind[j] == k && a.evt[j] == 0 {
			a.evt[j] = e.id
			j++
		}
		e.end = j
		i = j
	}
}

func (a *analyzer) finding(e *event, pointer string, isKey bool) Finding {
	info := kindInfo[e.kind]
	f := Finding{
		Rule:     info.rule,
		Severity: info.severity,
		Kind:     info.name,
		Pointer:  pointer,
		IsKey:    isKey,
	}
	first, last := -1, -1
	var seen []rune
	for i := e.start; i < e.end; i++ {
		if a.evt[i] != e.id {
			continue
		}
		if first < 0 {
			first = i
		}
		last = i
		f.Count++
		r := a.cps[i].r
		if e.kind == kEscape && !isControl(r) {
			continue // list the controls of a sequence, not its ASCII parameters
		}
		if len(seen) < 16 && !slices.Contains(seen, r) {
			seen = append(seen, r)
			f.CodePoints = append(f.CodePoints, formatCP(r))
		}
	}
	if first < 0 {
		first, last = e.start, e.end-1
	}
	f.Offset = int(a.cps[first].off)
	f.StringOffset = int(a.cps[first].doff)
	f.Length = int(a.cps[last].off) + int(a.cps[last].size) - f.Offset
	if e.kind == kCompat && e.evidence == nil {
		// Compatibility syntax characters such as "＜" or "﹤".
		t := a.text(e.start, e.end, true)
		e.evidence = map[string]any{"token": t, "nfkc": norm.NFKC.String(t)}
		e.detail = quoteShort(t, 40) + " reads as " + quoteShort(norm.NFKC.String(t), 40)
	}
	f.Evidence = e.evidence
	if f.Evidence == nil {
		f.Evidence = map[string]any{}
	}
	f.Evidence["kind"] = info.name
	f.Message = a.message(e, info.what, f)
	if e.kind == kBidiControl {
		a.bidiEvidence(e, f.Evidence)
	}
	if e.kind == kInterlinear {
		a.interlinearEvidence(e, f.Evidence)
	}
	return f
}

func (a *analyzer) message(e *event, what string, f Finding) string {
	msg := what
	if s, ok := f.Evidence["decoded"].(string); ok {
		msg += ": " + quoteShort(s, 60)
	} else if e.detail != "" {
		msg += ": " + e.detail
	} else if len(f.CodePoints) > 0 {
		msg += " (" + strings.Join(f.CodePoints[:min(len(f.CodePoints), 3)], ", ")
		if f.Count > 1 {
			msg += fmt.Sprintf("; %d code points", f.Count)
		}
		msg += ")"
	}
	return msg
}

// bidiEvidence shows the string in memory (logical) order with the bidi
// controls named, and in display (visual) order.
func (a *analyzer) bidiEvidence(e *event, ev map[string]any) {
	// The line of the first control (at most 256 code points either side)
	// keeps the evidence and the bidi resolution small.
	start, end := a.lineAround(e.start, e.start+1)
	var logical strings.Builder
	for i := start; i < end; i++ {
		r := a.cps[i].r
		if name := bidiControlName(r); name != "" {
			logical.WriteString("[" + name + "]")
			continue
		}
		if a.act[i] == drop {
			continue
		}
		if r < 0 {
			r = utf8.RuneError
		}
		logical.WriteRune(r)
	}
	ev["logical"] = logical.String()
	if v, ok := visualOrder(a.visualText(start, end)); ok {
		ev["visual"] = v
	}
}

// visualText is the line with the bidi controls (which drive the visual
// order) but without the other removed code points.
func (a *analyzer) visualText(start, end int) string {
	var b strings.Builder
	for i := start; i < end; i++ {
		r := a.cps[i].r
		if a.act[i] == drop && bidiControlName(r) == "" {
			continue
		}
		if r < 0 || (r >= 0xD800 && r <= 0xDFFF) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lineAround widens [start, end) to the enclosing line, at most 256 code
// points on each side, so the evidence stays small.
func (a *analyzer) lineAround(start, end int) (int, int) {
	s := start
	for s > 0 && start-s < 256 && !isLineBreak(a.cps[s-1].r) {
		s--
	}
	t := end
	for t < len(a.cps) && t-end < 256 && !isLineBreak(a.cps[t].r) {
		t++
	}
	return s, t
}

func isControl(r rune) bool { return r < 0x20 || (r >= 0x7F && r <= 0x9F) }

func isLineBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == 0x85 || r == 0x2028 || r == 0x2029
}

func bidiControlName(r rune) string {
	switch r {
	case 0x202A:
		return "LRE"
	case 0x202B:
		return "RLE"
	case 0x202C:
		return "PDF"
	case 0x202D:
		return "LRO"
	case 0x202E:
		return "RLO"
	case 0x2066:
		return "LRI"
	case 0x2067:
		return "RLI"
	case 0x2068:
		return "FSI"
	case 0x2069:
		return "PDI"
	}
	return ""
}

// interlinearEvidence records the annotation text that follows an
// INTERLINEAR ANNOTATION SEPARATOR (U+FFFA) up to the terminator.
func (a *analyzer) interlinearEvidence(e *event, ev map[string]any) {
	for i := e.start; i < len(a.cps); i++ {
		if a.cps[i].r != 0xFFFA {
			continue
		}
		end := i + 1
		for end < len(a.cps) && a.cps[end].r != 0xFFFB && end-i < 1024 {
			end++
		}
		ev["annotation"] = a.text(i+1, end, true)
		return
	}
}

// addDecoded stores decoded hidden bytes as evidence: as text when they
// are UTF-8, else as hex, capped at 4 KB either way.
func addDecoded(ev map[string]any, b []byte) {
	if len(b) > maxDecodedEvidenceBytes {
		b = b[:maxDecodedEvidenceBytes]
		for len(b) > 0 && !utf8.Valid(b) && len(b) > maxDecodedEvidenceBytes-4 {
			b = b[:len(b)-1]
		}
		ev["decoded_truncated"] = true
	}
	if utf8.Valid(b) {
		ev["decoded"] = string(b)
	} else {
		ev["decoded_hex"] = fmt.Sprintf("%x", b)
		ev["decoded"] = strings.ToValidUTF8(string(b), "\uFFFD")
	}
}

// formatCP renders a code point as "U+XXXX" (or "0xNN" for an invalid byte).
func formatCP(r rune) string {
	if r < 0 {
		return fmt.Sprintf("0x%02X", -1-r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// quoteShort quotes s for a message, cut to max runes.
func quoteShort(s string, max int) string {
	if utf8.RuneCountInString(s) > max {
		rs := []rune(s)
		s = string(rs[:max]) + "…"
	}
	return escapeForDisplay(s)
}

// escapeForDisplay makes every control, invisible or otherwise flagged code
// point visible as an escape, so evidence can be printed safely.
func escapeForDisplay(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || classOf(r) == clsNone || classOf(r) == clsCyrGreek ||
			classOf(r) == clsCompatLetter || classOf(r) == clsCompatSyntax {
			if r != '\\' {
				b.WriteRune(r)
				continue
			}
		}
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}
