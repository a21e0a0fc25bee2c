package toolcheck

import (
	"slices"
	"sync"
)

// acAutomaton is an Aho–Corasick automaton over the literals of the phrase
// patterns: one pass over a text finds every literal it contains. The
// transition table is dense over byte classes (the bytes the literals use,
// and one class for all other bytes), so a step is two loads.
type acAutomaton struct {
	class  [256]uint8
	nclass int
	// next[row+class] is the row of the state after reading a byte of
	// class, where a state's row is its number times nclass (rows spare a
	// multiplication per byte), plus outBase for the states where literals
	// end: one comparison per byte tells those apart.
	next []uint32
	// outOf[state] is the index of a state where literals end among those
	// states. It was once encoded in next as multiples of outBase, which
	// overflowed uint32 past 4095 such states and silently dropped
	// literals.
	outOf []uint32
	// The literals that end at the k-th state where some end (those of its
	// suffix states included) are outs[outStart[k]:outStart[k+1]].
	outStart []uint32
	outs     []uint16
	litLen   []uint16
}

// outBase marks a transition into a state where literals end; the row is
// below it.
const outBase = 1 << 31

// newACAutomaton builds the automaton of lits (distinct, non-empty). It
// panics beyond 65535 states or literals, which the fixed pattern set
// never reaches.
func newACAutomaton(lits []string) *acAutomaton {
	m := &acAutomaton{}
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			if m.class[l[i]] == 0 {
				m.nclass++
				m.class[l[i]] = uint8(m.nclass)
			}
		}
	}
	m.nclass++ // class 0: bytes no literal uses
	// The trie, its edges listed per node (most nodes have one): only
	// the final transition table is dense.
	type edge struct {
		class uint8
		to    int32
	}
	type node struct {
		fail  int
		own   []uint16
		edges []edge
	}
	nodes := []node{{}}
	for id, l := range lits {
		s := 0
	walk:
		for i := 0; i < len(l); i++ {
			c := m.class[l[i]]
			for _, e := range nodes[s].edges {
				if e.class == c {
					s = int(e.to)
					continue walk
				}
			}
			nodes = append(nodes, node{})
			nodes[s].edges = append(nodes[s].edges, edge{c, int32(len(nodes) - 1)})
			s = len(nodes) - 1
		}
		nodes[s].own = append(nodes[s].own, uint16(id))
	}
	if len(lits) > 1<<16 {
		panic("scanner: phrase automaton too large")
	}
	// Breadth-first: failure links, dense transitions (as state numbers
	// until the renumbering below: a state's row starts as its failure
	// state's, which is shallower and so done), merged outputs.
	nc := m.nclass
	m.next = make([]uint32, len(nodes)*nc)
	outsOf := make([][]uint16, len(nodes))
	queue := make([]int, 0, len(nodes))
	for _, e := range nodes[0].edges {
		m.next[e.class] = uint32(e.to)
		queue = append(queue, int(e.to))
	}
	outsOf[0] = nodes[0].own
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		outsOf[s] = append(append([]uint16(nil), nodes[s].own...), outsOf[f]...)
		row := m.next[s*nc : (s+1)*nc]
		copy(row, m.next[f*nc:(f+1)*nc])
		for _, e := range nodes[s].edges {
			nodes[e.to].fail = int(m.next[f*nc+int(e.class)])
			row[e.class] = uint32(e.to)
			queue = append(queue, int(e.to))
		}
	}
	// Encode the transitions as rows plus output indices.
	if uint64(len(nodes))*uint64(m.nclass) >= outBase {
		panic("scanner: phrase automaton too large")
	}
	code := make([]uint32, len(nodes))
	m.outStart = []uint32{0}
	m.outOf = make([]uint32, len(nodes))
	for s := range nodes {
		code[s] = uint32(s * m.nclass)
		if len(outsOf[s]) > 0 {
			m.outOf[s] = uint32(len(m.outStart) - 1)
			m.outs = append(m.outs, outsOf[s]...)
			m.outStart = append(m.outStart, uint32(len(m.outs)))
			code[s] += outBase
		}
	}
	for i, t := range m.next {
		m.next[i] = code[t]
	}
	for _, l := range lits {
		m.litLen = append(m.litLen, uint16(len(l)))
	}
	return m
}

// phraseSet is the compiled phrase patterns of the poisoning heuristics:
// the automaton of every group literal, and which (pattern, group) pairs
// each literal satisfies. Immutable; per-call state is in phraseScratch.
//
// Its patterns (res) are the phrases' followed by auxiliary ones: the
// annotation rules' description patterns, which the description's one
// pass admits too (phraseScratch.aux).
type phraseSet struct {
	phrases []toolPhrase
	res     []*litRegexp
	ac      *acAutomaton
	// post[post0[l]:post0[l+1]] are the group slots (groupBase[p]+g) the
	// literal l satisfies, and slotPhrase the pattern of each slot.
	post0      []uint32
	post       []uint32
	slotPhrase []uint16
	// ngroups is the number of groups per pattern; always lists the
	// patterns without groups, which every text is a candidate for.
	ngroups []uint16
	always  []int
	// groupLits[p] are the literal ids of pattern p's group literals, in
	// group order (litRegexp.search's first).
	groupLits [][]uint16
	// viewLimit: viewNeeded reads only the patterns before it.
	viewLimit int
}

func newPhraseSet(phrases []toolPhrase, aux ...*litRegexp) *phraseSet {
	ps := &phraseSet{phrases: phrases}
	for i := range phrases {
		ps.res = append(ps.res, phrases[i].re)
	}
	ps.res = append(ps.res, aux...)
	ps.ngroups = make([]uint16, len(ps.res))
	ps.groupLits = make([][]uint16, len(ps.res))
	litID := map[string]int{}
	var lits []string
	var posts [][]uint32
	for p := range ps.res {
		gs := ps.res[p].groups
		ps.ngroups[p] = uint16(len(gs))
		if len(gs) == 0 {
			ps.always = append(ps.always, p)
		}
		for _, g := range gs {
			slot := uint32(len(ps.slotPhrase))
			ps.slotPhrase = append(ps.slotPhrase, uint16(p))
			for _, l := range g.lits {
				id, ok := litID[l]
				if !ok {
					id = len(lits)
					litID[l] = id
					lits = append(lits, l)
					posts = append(posts, nil)
				}
				if !slices.Contains(posts[id], slot) {
					posts[id] = append(posts[id], slot)
				}
				ps.groupLits[p] = append(ps.groupLits[p], uint16(id))
			}
		}
	}
	ps.ac = newACAutomaton(lits)
	ps.post0 = make([]uint32, len(lits)+1)
	for id, pl := range posts {
		ps.post = append(ps.post, pl...)
		ps.post0[id+1] = uint32(len(ps.post))
	}
	return ps
}

// phraseScratch is the state of one analysis' phrase matching, reused
// from text to text. Generation counters spare clearing between texts.
type phraseScratch struct {
	gen    uint32
	litGen []uint32
	// litFirst is the first occurrence of each literal seen in the text.
	litFirst []int
	first    []int
	slotGen  []uint32
	patGen   []uint32
	patCount []uint16
	cands    []int
	locs     [][2]int
	// aux has bit k set when the last text matchPhrases read admits the
	// k-th auxiliary pattern.
	aux uint32
}

func (ps *phraseSet) scratch() *phraseScratch {
	return &phraseScratch{
		litGen:   make([]uint32, len(ps.post0)-1),
		litFirst: make([]int, len(ps.post0)-1),
		slotGen:  make([]uint32, len(ps.slotPhrase)),
		patGen:   make([]uint32, len(ps.res)),
		patCount: make([]uint16, len(ps.res)),
	}
}

// candidates returns, in pattern order, the patterns whose every group has
// a literal in s.
func (ps *phraseSet) candidates(s string, sc *phraseScratch) []int {
	gen := sc.next()
	cands := append(sc.cands[:0], ps.always...)
	ac := ps.ac
	next, class := ac.next, &ac.class
	row := uint32(0)
	for i := 0; i < len(s); i++ {
		e := next[row+uint32(class[s[i]])]
		row = e % outBase
		if e >= outBase {
			cands = ps.seen(e, i, gen, sc, cands)
		}
	}
	if len(cands) > 1 {
		slices.Sort(cands)
	}
	sc.cands = cands
	return cands
}

// viewNeeded reports whether s is not printable ASCII (tlPrintableASCII)
// or candidates(matchView(s)) lists a pattern before viewLimit, without
// making the view: the automaton reads s as matchView would write
// printable ASCII (letters lower-cased, each run of white space one space
// between words) and stops at the first such pattern whose every group
// has a literal, or at the first byte that is not printable. Most texts of
// a listing need no view.
func (ps *phraseSet) viewNeeded(s string, sc *phraseScratch) bool {
	if len(ps.always) > 0 && ps.always[0] < ps.viewLimit {
		return true
	}
	gen := sc.next()
	ac := ps.ac
	next, class := ac.next, &ac.class
	row := uint32(0)
	space, started := false, false
	for i := 0; i <= len(s); i++ {
		var c byte
		switch {
		case i == len(s):
			return false
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n':
			space = started
			continue
		case space:
			// The space between two words, then this byte again.
			c, space = ' ', false
			i--
		default:
			c, started = s[i], true
			if c < 0x20 || c >= 0x7F {
				return true // not printable ASCII: matchView's other path
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
		}
		e := next[row+uint32(class[c])]
		row = e % outBase
		if e >= outBase {
			for _, p := range ps.seen(e, i, gen, sc, sc.cands[:0]) {
				if p < ps.viewLimit {
					return true
				}
			}
		}
	}
	return false
}

// next starts the scratch's stamps for a new text and returns its stamp.
func (sc *phraseScratch) next() uint32 {
	sc.gen++
	if sc.gen == 0 {
		// Wrapped: stale stamps could collide.
		clear(sc.litGen)
		clear(sc.slotGen)
		clear(sc.patGen)
		sc.gen = 1
	}
	return sc.gen
}

// seen records the literals of the automaton's transition e, which ends
// at byte i of the text stamped gen, and appends to cands the patterns
// whose every group they complete.
func (ps *phraseSet) seen(e uint32, i int, gen uint32, sc *phraseScratch, cands []int) []int {
	ac := ps.ac
	k := ac.outOf[(e%outBase)/uint32(ac.nclass)]
	for _, id := range ac.outs[ac.outStart[k]:ac.outStart[k+1]] {
		if sc.litGen[id] == gen {
			continue
		}
		sc.litGen[id] = gen
		sc.litFirst[id] = i + 1 - int(ac.litLen[id])
		for _, slot := range ps.post[ps.post0[id]:ps.post0[id+1]] {
			if sc.slotGen[slot] == gen {
				continue
			}
			sc.slotGen[slot] = gen
			p := ps.slotPhrase[slot]
			if sc.patGen[p] != gen {
				sc.patGen[p], sc.patCount[p] = gen, 0
			}
			sc.patCount[p]++
			if sc.patCount[p] == ps.ngroups[p] {
				cands = append(cands, int(p))
			}
		}
	}
	return cands
}

// firstOccurrences returns, for litRegexp.search, the first occurrence of
// each group literal of pattern p in the text candidates last read.
func (ps *phraseSet) firstOccurrences(p, textLen int, sc *phraseScratch) []int {
	first := sc.first[:0]
	for _, id := range ps.groupLits[p] {
		if sc.litGen[id] == sc.gen {
			first = append(first, sc.litFirst[id])
		} else {
			first = append(first, textLen+1)
		}
	}
	sc.first = first
	return first
}

// toolMatchers are the compiled patterns of the tool analysis, built once
// per process on first use (a pure function of the pattern constants) and
// passed down from there.
type toolMatchers struct {
	phrases                                       *phraseSet
	readOnlyClaim, strongDestroy, idempotentClaim *litRegexp
	flowVerb                                      *litRegexp
	// intentLines is the phrase set of intentRE's linePatterns, as
	// auxiliary patterns.
	intentLines *phraseSet
}

// The auxiliary patterns of the phrase set, as bits of phraseScratch.aux.
const (
	auxReadOnlyClaim = 1 << iota
	auxStrongDestroy
	auxIdempotentClaim
	// The intent rules' line patterns (intentPatterns.linePatterns: the
	// gates first), in order.
	auxIntentFirst
)

// auxIntentIndex is the index of the first line pattern among the aux
// patterns.
const auxIntentIndex = 3

// auxIntent is the mask of the intent rules' bits (intentGates' length).
const auxIntent = (1<<numIntentGates - 1) * auxIntentFirst

var compiledToolMatchers = sync.OnceValue(func() *toolMatchers {
	m := &toolMatchers{
		readOnlyClaim:   newLitRegexp(readOnlyClaimExpr),
		strongDestroy:   newLitRegexp(strongDestroyExpr),
		idempotentClaim: newLitRegexp(idempotentClaimExpr),
		flowVerb:        newLitRegexp(flowVerbExpr),
	}
	// In the order of the aux bits. The line patterns after the gates
	// are admitted in the same pass (lineIntent reads them when the view
	// is the one the pass read), but whether a text needs a view depends
	// on the phrases, the annotation patterns and the gates only.
	aux := append([]*litRegexp{m.readOnlyClaim, m.strongDestroy, m.idempotentClaim}, intentRE().linePatterns()...)
	m.phrases = newPhraseSet(poisonPhraseList(), aux...)
	m.phrases.viewLimit = len(m.phrases.phrases) + auxIntentIndex + numIntentGates
	m.intentLines = newPhraseSet(nil, intentRE().linePatterns()...)
	m.intentLines.viewLimit = len(m.intentLines.res)
	return m
})
