package toolcheck

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go's regexp scans unanchored patterns at a few MB/s, far too slow for the
// dozens of phrase patterns over a large tools/list, and most texts match
// none of them. So every pattern is analysed once (reAnalysis) for
// literals its matches must contain, and for how far into a match they
// sit:
//
//   - admission: a text that lacks every literal of one group cannot
//     match, so the regexp never runs on it (litRegexp.admits, and for the
//     phrase set one Aho–Corasick pass per text, phraseSet);
//   - candidate windows: every match contains an "anchor" literal that
//     starts at most pre bytes after the match does, so the leftmost match
//     at or after q starts no earlier than the first anchor occurrence at
//     or after q, minus pre. The regexp runs on a bounded window from
//     there, not on the whole text (litRegexp.findAll).
//
// The results are exactly those of regexp's FindAllStringIndex (the
// differential tests in tools_prefilter_test.go hold them to it).

// litGroup is a necessary condition of a pattern: every match contains one
// of lits. pre bounds the byte offset of that literal's start from the
// match's start (-1: unbounded).
type litGroup struct {
	lits []string
	pre  int
}

// reAnalysis is what the prefilter knows of a pattern: the byte lengths of
// its matches (max < 0: unbounded) and its literal groups.
type reAnalysis struct {
	min, max int
	groups   []litGroup
}

// runeBytes is the UTF-8 length of r, counting surrogates (which never
// match valid text) as 3.
func runeBytes(r rune) int {
	switch {
	case r < 0x80:
		return 1
	case r < 0x800:
		return 2
	case r < 0x10000:
		return 3
	}
	return 4
}

// addLen adds byte-length bounds, where -1 is unbounded.
func addLen(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

// bestGroup returns the index of the most selective group: bounded pre
// first, then the longest shortest literal, then the fewest literals and
// the smallest pre. -1 when there is none.
func bestGroup(gs []litGroup) int {
	best := -1
	for i, g := range gs {
		if best < 0 || groupBetter(g, gs[best]) {
			best = i
		}
	}
	return best
}

func groupBetter(a, b litGroup) bool {
	if (a.pre >= 0) != (b.pre >= 0) {
		return a.pre >= 0
	}
	if ma, mb := shortestLit(a.lits), shortestLit(b.lits); ma != mb {
		return ma > mb
	}
	if len(a.lits) != len(b.lits) {
		return len(a.lits) < len(b.lits)
	}
	return a.pre < b.pre
}

func shortestLit(lits []string) int {
	n := -1
	for _, l := range lits {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

// analyzeRE computes the reAnalysis of a parsed (not simplified) pattern.
// Every bound it gives is safe; where it knows nothing it says so (no
// groups, unbounded max).
func analyzeRE(re *syntax.Regexp) reAnalysis {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return reAnalysis{}
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			// Case folding reaches other byte lengths ("k" and the Kelvin
			// sign); no literal is exact.
			lo, hi := 0, 0
			for _, r := range re.Rune {
				rl, rh := runeBytes(r), runeBytes(r)
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					rl, rh = min(rl, runeBytes(f)), max(rh, runeBytes(f))
				}
				lo, hi = lo+rl, hi+rh
			}
			return reAnalysis{min: lo, max: hi}
		}
		s := string(re.Rune)
		if slices.ContainsFunc(re.Rune, inexact) {
			// Valid UTF-8 only: windows and views are.
			return reAnalysis{min: len(s), max: len(s)}
		}
		return reAnalysis{min: len(s), max: len(s), groups: []litGroup{{lits: []string{s}}}}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return reAnalysis{}
		}
		return reAnalysis{min: runeBytes(re.Rune[0]), max: runeBytes(re.Rune[len(re.Rune)-1])}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return reAnalysis{min: 1, max: utf8.UTFMax}
	case syntax.OpCapture:
		return analyzeRE(re.Sub[0])
	case syntax.OpStar:
		sub := analyzeRE(re.Sub[0])
		if sub.max == 0 {
			return reAnalysis{}
		}
		return reAnalysis{max: -1}
	case syntax.OpPlus:
		sub := analyzeRE(re.Sub[0])
		if sub.max != 0 {
			sub.max = -1
		}
		return sub
	case syntax.OpQuest:
		sub := analyzeRE(re.Sub[0])
		return reAnalysis{max: sub.max}
	case syntax.OpRepeat:
		sub := analyzeRE(re.Sub[0])
		out := reAnalysis{min: re.Min * sub.min}
		switch {
		case sub.max == 0 || re.Max == 0:
			out.max = 0
		case re.Max < 0 || sub.max < 0:
			out.max = -1
		default:
			out.max = re.Max * sub.max
		}
		if re.Min >= 1 {
			// The first repetition holds the group's literal.
			out.groups = sub.groups
		}
		return out
	case syntax.OpConcat:
		var out reAnalysis
		// run is the product of the exact sets of the subexpressions since
		// runPre (nil: none): consecutive parts of a match, which together
		// are a longer and rarer literal than any one of them ("api" "_"
		// "key" rather than "api").
		var run []string
		runPre := 0
		flush := func() {
			g := litGroup{lits: run, pre: runPre}
			if shortestLit(run) > 0 && !slices.ContainsFunc(out.groups, func(h litGroup) bool {
				return h.pre == g.pre && slices.Equal(h.lits, g.lits)
			}) {
				out.groups = append(out.groups, g)
			}
			run = nil
		}
		for _, s := range re.Sub {
			sub := analyzeRE(s)
			for _, g := range sub.groups {
				out.groups = append(out.groups, litGroup{lits: g.lits, pre: addLen(out.max, g.pre)})
			}
			if set, ok := exactSet(s); ok {
				if run == nil {
					run, runPre = []string{""}, out.max
				}
				if next, ok := product(run, set); ok {
					run = next
				} else {
					flush()
					run, runPre = set, out.max
				}
			} else {
				// A repetition's first round is an element of its
				// operand's exact set, right after the run.
				if first, ok := firstRound(s); ok && run != nil {
					if next, ok := product(run, first); ok {
						run = next
					}
				}
				flush()
			}
			out.min += sub.min
			out.max = addLen(out.max, sub.max)
		}
		flush()
		return out
	case syntax.OpAlternate:
		out := reAnalysis{min: -1}
		var union litGroup
		all := true
		for _, s := range re.Sub {
			sub := analyzeRE(s)
			if out.min < 0 || sub.min < out.min {
				out.min = sub.min
			}
			if sub.max < 0 || out.max < 0 {
				out.max = -1
			} else {
				out.max = max(out.max, sub.max)
			}
			b := bestGroup(sub.groups)
			if b < 0 {
				all = false
				continue
			}
			g := sub.groups[b]
			if len(union.lits) == 0 {
				union.pre = g.pre
			} else if g.pre < 0 || union.pre < 0 {
				union.pre = -1
			} else {
				union.pre = max(union.pre, g.pre)
			}
			union.lits = appendUniqueStrings(union.lits, g.lits...)
		}
		if out.min < 0 {
			out.min = 0
		}
		if all && len(union.lits) > 0 {
			out.groups = []litGroup{union}
		}
		return out
	}
	// Unknown operators: no knowledge.
	return reAnalysis{max: -1}
}

// maxExact bounds the exact sets that the analysis multiplies out.
const maxExact = 32

// exactSet returns every string re matches, when they are few (a literal,
// a small class, options and alternatives of those) and known exactly (no
// case folding); the empty-width assertions match "".
func exactSet(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || slices.ContainsFunc(re.Rune, inexact) {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(set) == 10 || inexact(r) {
					return nil, false
				}
				set = append(set, string(r))
			}
		}
		return set, len(set) > 0
	case syntax.OpCapture:
		return exactSet(re.Sub[0])
	case syntax.OpQuest:
		sub, ok := exactSet(re.Sub[0])
		if !ok || len(sub) >= maxExact {
			return nil, false
		}
		return appendUniqueStrings([]string{""}, sub...), true
	case syntax.OpConcat:
		set := []string{""}
		for _, s := range re.Sub {
			sub, ok := exactSet(s)
			if !ok {
				return nil, false
			}
			if set, ok = product(set, sub); !ok {
				return nil, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		var set []string
		for _, s := range re.Sub {
			sub, ok := exactSet(s)
			if !ok {
				return nil, false
			}
			if set = appendUniqueStrings(set, sub...); len(set) > maxExact {
				return nil, false
			}
		}
		return set, true
	}
	return nil, false
}

// inexact reports a code point whose UTF-8 is not what the regexp matches
// for it: U+FFFD also matches each byte of invalid UTF-8, and surrogates
// have no UTF-8.
func inexact(r rune) bool {
	return r == utf8.RuneError || 0xD800 <= r && r <= 0xDFFF
}

// firstRound returns the exact set of a repetition's operand when the
// repetition runs at least once: its first round matches one of them.
func firstRound(re *syntax.Regexp) ([]string, bool) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && re.Min >= 1 {
		return exactSet(re.Sub[0])
	}
	return nil, false
}

// product returns every a+b of a and b, and false beyond maxExact.
func product(a, b []string) ([]string, bool) {
	if len(a)*len(b) > maxExact {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = appendUniqueStrings(out, x+y)
		}
	}
	return out, true
}

func appendUniqueStrings(list []string, add ...string) []string {
	for _, s := range add {
		if !tlHas(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// A windowed regexp run decides the match starts of a chunk of the text:
// at most maxWindowChunk bytes, so that Go's backtracker (whose cost is the
// window times the program size) stays in use, and at least
// minWindowChunk, to amortise the cost of a call. Within those bounds the
// chunk is the pattern's smallest bounded pre: a pattern whose literal
// starts its match ("http", pre 0) runs on a window little longer than a
// match, right at the literal.
const (
	minWindowChunk = 16
	maxWindowChunk = 256
)

// runStartReach bounds the backward scan for the start of a run of bytes
// a pattern can match (litRegexp.lowerBound).
const runStartReach = 256

// litRegexp is a regexp with a literal prefilter and windowed search. It
// is immutable and safe for concurrent use.
type litRegexp struct {
	re *regexp.Regexp
	// ctx matches re after one code point of left context, so that a
	// window that does not start the text sees the same \b and ^ as the
	// whole text: group 1 is re's leftmost-first match after the first
	// code point.
	ctx *regexp.Regexp
	// groups are necessary conditions: a text that lacks every literal of
	// one group does not match. Only selective groups are kept (literals
	// of three bytes or more, or the pattern's best group), so that common
	// bytes such as a space do not make every text a candidate.
	groups []litGroup
	nlits  int
	// min and max bound the byte length of a match (max < 0: unbounded).
	min, max int
	// chunk is how many match starts a window decides.
	chunk int
	// allowed holds every byte a match can contain; a match lies within
	// one run of allowed bytes. allowedAll: every byte.
	allowed    [256]bool
	allowedAll bool
	// spaces bounds how many spaces a match holds (-1: unbounded): a
	// pattern whose unbounded parts are words ("\w*[_-]\w+") has a
	// window of a few words from its anchor, not the rest of the line.
	spaces int
}

// newLitRegexp compiles expr (Perl syntax, as regexp.MustCompile) and
// analyses it. It panics on a bad pattern, like regexp.MustCompile.
func newLitRegexp(expr string) *litRegexp {
	r := &litRegexp{re: regexp.MustCompile(expr), ctx: regexp.MustCompile(`^(?s:.)(?s:.*?)(` + expr + `)`)}
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	a := analyzeRE(parsed)
	r.min, r.max = a.min, a.max
	var valid []litGroup
	for _, g := range a.groups {
		if len(g.lits) > 0 && shortestLit(g.lits) > 0 {
			valid = append(valid, g)
		}
	}
	best := bestGroup(valid)
	for i, g := range valid {
		if i == best || shortestLit(g.lits) >= 3 {
			r.groups = append(r.groups, g)
			r.nlits += len(g.lits)
		}
	}
	r.allowedAll = !allowedBytes(parsed, &r.allowed)
	r.spaces = maxByteCount(parsed, ' ')
	r.chunk = maxWindowChunk
	for _, g := range r.groups {
		if g.pre >= 0 {
			r.chunk = min(r.chunk, max(g.pre, minWindowChunk))
		}
	}
	return r
}

// allowedBytes adds to set every byte a match of re can contain, and
// reports false when that is every byte (or unknown).
func allowedBytes(re *syntax.Regexp, set *[256]bool) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return false
		}
		for _, c := range []byte(string(re.Rune)) {
			set[c] = true
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf {
				// Any multi-byte code point: every lead and continuation
				// byte.
				for c := 0x80; c < 0x100; c++ {
					set[c] = true
				}
				hi = utf8.RuneSelf - 1
			}
			for c := lo; c <= hi; c++ {
				set[c] = true
			}
		}
		return true
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat, syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !allowedBytes(sub, set) {
				return false
			}
		}
		for _, ok := range set {
			if !ok {
				return true
			}
		}
		return false
	}
	return false
}

// maxByteCount bounds how many times the ASCII byte c occurs in a match of
// re: -1 when unbounded or unknown.
func maxByteCount(re *syntax.Regexp, c byte) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			if r == rune(c) || re.Flags&syntax.FoldCase != 0 && caseFoldsTo(r, rune(c)) {
				n++
			}
		}
		return n
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= rune(c) && rune(c) <= re.Rune[i+1] {
				return 1
			}
		}
		return 0
	case syntax.OpAnyChar:
		return 1
	case syntax.OpAnyCharNotNL:
		if c == '\n' {
			return 0
		}
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxByteCount(re.Sub[0], c)
	case syntax.OpStar, syntax.OpPlus:
		if maxByteCount(re.Sub[0], c) == 0 {
			return 0
		}
		return -1
	case syntax.OpRepeat:
		sub := maxByteCount(re.Sub[0], c)
		switch {
		case sub == 0 || re.Max == 0:
			return 0
		case sub < 0 || re.Max < 0:
			return -1
		}
		return sub * re.Max
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = addLen(n, maxByteCount(sub, c))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			k := maxByteCount(sub, c)
			if k < 0 {
				return -1
			}
			n = max(n, k)
		}
		return n
	}
	return -1
}

// caseFoldsTo reports whether r and c are in one case-folding orbit.
func caseFoldsTo(r, c rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f == c {
			return true
		}
	}
	return false
}

// String returns the source text.
func (r *litRegexp) String() string { return r.re.String() }

// admits reports whether s holds a literal of every group.
func (r *litRegexp) admits(s string) bool {
	for _, g := range r.groups {
		if !containsAny(s, g.lits) {
			return false
		}
	}
	return true
}

func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// MatchString is regexp.MatchString.
func (r *litRegexp) MatchString(s string) bool {
	if !r.admits(s) {
		return false
	}
	return len(r.search(s, 1, nil, utf8.ValidString(s), nil)) > 0
}

// FindString is regexp.FindString.
func (r *litRegexp) FindString(s string) string {
	if !r.admits(s) {
		return ""
	}
	if m := r.search(s, 1, nil, utf8.ValidString(s), nil); len(m) > 0 {
		return s[m[0][0]:m[0][1]]
	}
	return ""
}

// search appends to dst what regexp.FindAllStringIndex(s, n) returns
// (n > 0); valid says whether s is valid UTF-8. Each step finds a lower
// bound ws for the next match's start from the literal groups
// (lowerBound), then runs the regexp on a window from ws that decides
// every start up to ws+r.chunk. first, when not nil, holds the first
// occurrence in s of each group literal (in group order; len(s)+1 for
// none), as the phrase set's automaton found them.
func (r *litRegexp) search(s string, n int, dst [][2]int, valid bool, first []int) [][2]int {
	if r.min == 0 || !valid {
		// Windows need code point boundaries of valid UTF-8 (regexp reads
		// each invalid byte as one code point) and no empty matches.
		for _, m := range r.re.FindAllStringIndex(s, n) {
			dst = append(dst, [2]int{m[0], m[1]})
		}
		return dst
	}
	var buf [32]int
	next := buf[:0]
	if r.nlits > len(buf) {
		next = make([]int, 0, r.nlits)
	}
	if first != nil {
		next = append(next, first...)
	} else {
		for range r.nlits {
			next = append(next, -1)
		}
	}
	for q, found := 0, 0; found < n && q < len(s); {
		ws, ok := r.lowerBound(s, q, next)
		if !ok {
			break
		}
		for ws < len(s) && !utf8.RuneStart(s[ws]) {
			ws++
		}
		// A match starting at or before ws+r.chunk ends by limit, and the
		// regexp reads one code point beyond.
		limit := len(s)
		if r.max >= 0 {
			limit = min(limit, ws+r.chunk+r.max)
		}
		if !r.allowedAll {
			for k := ws + r.chunk; k < limit; k++ {
				if !r.allowed[s[k]] {
					limit = k
					break
				}
			}
		}
		if r.spaces >= 0 {
			// A match starting at a <= ws+r.chunk ends before the
			// (spaces+1)th space from a, so before that space from
			// ws+r.chunk.
			for k, n := ws+r.chunk, 0; k < limit; k++ {
				i := strings.IndexByte(s[k:limit], ' ')
				if i < 0 {
					break
				}
				k += i
				if n++; n > r.spaces {
					limit = k
					break
				}
			}
		}
		we := len(s)
		if limit+utf8.UTFMax < len(s) {
			we = limit + utf8.UTFMax
			for we < len(s) && !utf8.RuneStart(s[we]) {
				we++
			}
		}
		a, b, ok := r.leftmost(s, ws, we)
		if ok && (we == len(s) || a <= ws+r.chunk) {
			dst = append(dst, [2]int{a, b})
			found++
			q = b
			continue
		}
		if we == len(s) {
			break
		}
		// Nothing starts in [ws, ws+r.chunk].
		q = ws + r.chunk + 1
	}
	return dst
}

// lowerBound returns the least start at or after q that a match can have
// given the groups, and false when no match starts at or after q. A match
// starting at a holds, for every group, an occurrence o with a <= o <=
// a+pre, within one run of allowed bytes; so with o the group's first
// occurrence at or after the bound, the bound rises to o-pre and to the
// start of o's run, until no group raises it. next caches each literal's
// first occurrence at or after some earlier bound (-1: unknown).
func (r *litRegexp) lowerBound(s string, q int, next []int) (int, bool) {
	ws := q
	for {
		raised := false
		k := 0
		for _, g := range r.groups {
			o := -1
			for _, l := range g.lits {
				if next[k] >= 0 && next[k] < ws {
					next[k] = -1
				}
				if next[k] < 0 {
					if i := strings.Index(s[ws:], l); i < 0 {
						next[k] = len(s) + 1
					} else {
						next[k] = ws + i
					}
				}
				if next[k] <= len(s) && (o < 0 || next[k] < o) {
					o = next[k]
				}
				k++
			}
			if o < 0 {
				return 0, false
			}
			b := ws
			if g.pre >= 0 {
				b = max(b, o-g.pre)
			}
			if !r.allowedAll {
				for i := o - 1; i >= ws && i >= o-runStartReach; i-- {
					if !r.allowed[s[i]] {
						b = max(b, i+1)
						break
					}
				}
			}
			if b > ws {
				ws, raised = b, true
			}
		}
		if !raised {
			return ws, true
		}
	}
}

// leftmost returns the leftmost-first match of re in s[ws:we] read with
// s's left context.
func (r *litRegexp) leftmost(s string, ws, we int) (int, int, bool) {
	if ws == 0 {
		m := r.re.FindStringIndex(s[:we])
		if m == nil {
			return 0, 0, false
		}
		return m[0], m[1], true
	}
	_, size := utf8.DecodeLastRuneInString(s[:ws])
	c := ws - size
	m := r.ctx.FindStringSubmatchIndex(s[c:we])
	if m == nil {
		return 0, 0, false
	}
	return c + m[2], c + m[3], true
}
