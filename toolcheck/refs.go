package toolcheck

import "strings"

// refIndex finds which distinctive tool names of one server a text names
// (tlContainsWord of the lower-cased name in the text's match view), for
// Compare, in one pass over the text whatever the number of names.
//
// tlContainsWord's boundaries fall between a word byte (tlWordByte) and
// another byte, so text and names are read as runs: maximal runs of word
// bytes alternating with runs of other bytes. A name's core, from its first
// word run to its last, must equal a sequence of whole runs of the text; a
// leading (trailing) run of other bytes must end (start) one of the text's,
// which must be longer or start (end) the text. An Aho–Corasick automaton
// over run sequences finds the cores; names of other bytes only are rare
// and searched for one by one.
type refIndex struct {
	// names are the distinct lower-cased distinctive names; tools[i] the
	// tools (in order) that have names[i] and are distinctive.
	names []string
	tools [][]int
	// runs interns the runs of the cores.
	runs map[string]int32
	// The automaton: edges (state, run) → state, failure and dictionary
	// links, and the cores that end at each state.
	edges map[[2]int32]int32
	fail  []int32
	dict  []int32 // nearest proper suffix state where cores end, or -1
	ends  [][]int32
	cores []refCore
	// plain are the names without a word byte.
	plain []int
	// server holds the lower-cased words of the server's name (or path)
	// and the whole of it: a qualifier that is one of them names the
	// server ("github:create_issue").
	server map[string]bool
}

// refCore is a run sequence shared by names that differ only in their
// leading and trailing runs of other bytes.
type refCore struct {
	nruns    int
	variants []refVariant
}

type refVariant struct {
	lead, trail string
	name        int
}

func newRefIndex(r *Report) *refIndex {
	x := &refIndex{runs: map[string]int32{}, edges: map[[2]int32]int32{}, fail: []int32{0}, dict: []int32{-1}, ends: [][]int32{nil}, server: map[string]bool{}}
	label := r.Server
	if label == "" {
		label = r.Path
	}
	label = strings.ToLower(label)
	x.server[label] = true
	for _, w := range wordRuns(label) {
		if tlWordByte(w[0]) {
			x.server[w] = true
		}
	}
	byName := map[string]int{}
	for i := range r.Tools {
		o := &r.Tools[i]
		if !tlDistinctive(o.Name) {
			continue
		}
		low := strings.ToLower(o.Name)
		n, ok := byName[low]
		if !ok {
			n = len(x.names)
			byName[low] = n
			x.names = append(x.names, low)
			x.tools = append(x.tools, nil)
		}
		x.tools[n] = append(x.tools[n], i)
	}
	coreOf := map[string]int{}
	for n, name := range x.names {
		lead, core, trail := splitCore(name)
		if core == "" {
			x.plain = append(x.plain, n)
			continue
		}
		c, ok := coreOf[core]
		if !ok {
			c = len(x.cores)
			coreOf[core] = c
			runs := wordRuns(core)
			x.cores = append(x.cores, refCore{nruns: len(runs)})
			st := int32(0)
			for _, run := range runs {
				id, ok := x.runs[run]
				if !ok {
					id = int32(len(x.runs))
					x.runs[run] = id
				}
				next, ok := x.edges[[2]int32{st, id}]
				if !ok {
					next = int32(len(x.fail))
					x.edges[[2]int32{st, id}] = next
					x.fail = append(x.fail, 0)
					x.dict = append(x.dict, -1)
					x.ends = append(x.ends, nil)
				}
				st = next
			}
			x.ends[st] = append(x.ends[st], int32(c))
		}
		x.cores[c].variants = append(x.cores[c].variants, refVariant{lead: lead, trail: trail, name: n})
	}
	x.link()
	return x
}

// link computes the failure and dictionary links breadth first.
func (x *refIndex) link() {
	children := make([][][2]int32, len(x.fail)) // state → (run, child)
	for k, child := range x.edges {
		children[k[0]] = append(children[k[0]], [2]int32{k[1], child})
	}
	queue := []int32{}
	for _, e := range children[0] {
		queue = append(queue, e[1]) // depth 1: fail to the root
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range children[s] {
			run, child := e[0], e[1]
			f := x.fail[s]
			for {
				if t, ok := x.edges[[2]int32{f, run}]; ok {
					x.fail[child] = t
					break
				}
				if f == 0 {
					x.fail[child] = 0
					break
				}
				f = x.fail[f]
			}
			if fc := x.fail[child]; len(x.ends[fc]) > 0 {
				x.dict[child] = fc
			} else {
				x.dict[child] = x.dict[fc]
			}
			queue = append(queue, child)
		}
	}
}

// splitCore splits a name into its leading run of other bytes, its core
// (first to last word byte) and its trailing run; core is "" for a name
// without word bytes.
func splitCore(name string) (lead, core, trail string) {
	i := 0
	for i < len(name) && !tlWordByte(name[i]) {
		i++
	}
	if i == len(name) {
		return "", "", ""
	}
	j := len(name)
	for !tlWordByte(name[j-1]) {
		j--
	}
	return name[:i], name[i:j], name[j:]
}

// wordRuns splits s into maximal runs of word bytes and of other bytes.
func wordRuns(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && tlWordByte(s[j]) == tlWordByte(s[i]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// find calls found with the index of every name the text names (some more
// than once).
func (x *refIndex) find(text string, found func(name int)) {
	for _, n := range x.plain {
		if tlContainsWord(text, x.names[n]) {
			found(n)
		}
	}
	if len(x.cores) == 0 {
		return
	}
	// The text's runs, as [start, end) offsets.
	type span struct{ start, end int }
	var buf [64]span
	runs := buf[:0]
	for i := 0; i < len(text); {
		j := i + 1
		for j < len(text) && tlWordByte(text[j]) == tlWordByte(text[i]) {
			j++
		}
		runs = append(runs, span{i, j})
		i = j
	}
	st := int32(0)
	for k, sp := range runs {
		id, ok := x.runs[text[sp.start:sp.end]]
		if !ok {
			st = 0
			continue
		}
		for {
			if next, ok := x.edges[[2]int32{st, id}]; ok {
				st = next
				break
			}
			if st == 0 {
				break
			}
			st = x.fail[st]
		}
		// The current state, then the suffix states where cores end.
		for s := st; s > 0; s = x.dict[s] {
			for _, c := range x.ends[s] {
				core := &x.cores[c]
				first := k - core.nruns + 1
				for _, v := range core.variants {
					// Whole names only: "create-contact" is not named
					// by "create-contact-in-folder".
					if v.lead == "" && first >= 2 && identJoiner(text[runs[first-1].start:runs[first-1].end]) {
						continue
					}
					// A name qualified by another namespace is that
					// namespace's identifier: "s3tables:ListTables" is an
					// IAM action of S3 Tables, not the listTables tool of
					// a Keyspaces server. Qualified by the server's own
					// name ("keyspaces:listTables") it is the tool.
					if v.lead == "" && first >= 2 && text[runs[first-1].start:runs[first-1].end] == ":" && !x.server[text[runs[first-2].start:runs[first-2].end]] {
						continue
					}
					if v.trail == "" && k+2 < len(runs) && identJoiner(text[runs[k+1].start:runs[k+1].end]) {
						continue
					}
					if v.lead != "" {
						if first == 0 {
							continue
						}
						p := runs[first-1]
						run := text[p.start:p.end]
						if !strings.HasSuffix(run, v.lead) || (len(run) == len(v.lead) && p.start != 0) {
							continue
						}
					}
					if v.trail != "" {
						if k+1 == len(runs) {
							continue
						}
						p := runs[k+1]
						run := text[p.start:p.end]
						if !strings.HasPrefix(run, v.trail) || (len(run) == len(v.trail) && p.end != len(text)) {
							continue
						}
					}
					found(v.name)
				}
			}
		}
	}
}

// identJoiner reports whether a run of other bytes joins the words of one
// identifier ("-", "."), rather than separating two.
func identJoiner(run string) bool {
	return run == "-" || run == "."
}
