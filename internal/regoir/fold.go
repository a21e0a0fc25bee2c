package regoir

import (
	"maps"
)

// The planner builds every collection literal of a policy when it is
// evaluated: `launchers := {"npx", "uvx", ...}` is a MakeSet and a SetAdd per
// element, for every server, each add growing a Go map. fold turns such a
// run of statements, a Make* followed by the adds of constants to what it
// made, into one OpMakeConst, whose collection Bind builds once per
// Evaluator and every evaluation shares.
//
// Sharing is sound only if nothing writes into a collection after it is
// built. The planner mutates only collections it has just made, and fold
// checks that of every mutation of the program (or folds nothing): the
// local it mutates is written only by Make* (and ResetLocal) in the whole
// function, or in the function's top-level block the mutation is in, where
// a Make* of the local precedes the mutation in its block or a block
// around it. (The planner reuses a local for other values in another rule
// body, and keeps a partial set in one across bodies.) A run is folded
// only if every other mutation of its local is in another top-level block
// and made anew there first.

// Kinds of an OpMakeConst collection (Stmt.Key).
const (
	constSet int32 = iota
	constArray
	constObject // Args are key, value, key, value...
)

// fold rewrites p's constant collections in place.
func fold(p *Program) {
	fns := make([]*Function, 0, len(p.Plans)+len(p.Funcs))
	for i := range p.Plans {
		fns = append(fns, &p.Plans[i])
	}
	for i := range p.Funcs {
		fns = append(fns, &p.Funcs[i])
	}
	flows := make([]*flow, len(fns))
	for i, fn := range fns {
		flows[i] = newFlow(fn)
		for _, m := range flows[i].muts {
			for _, mm := range m {
				if !flows[i].fresh(mm) {
					return
				}
			}
		}
	}
	p.Fresh = true
	for i, fn := range fns {
		for k := range fn.Blocks {
			fn.Blocks[k] = flows[i].foldBlock(p, fn.Blocks[k])
		}
	}
}

// flow is where one function writes and mutates its locals.
type flow struct {
	writes map[int32][]access // every write but a mutation
	muts   map[int32][]access
	// clobbers memoizes, per statement, the locals it or a statement in its
	// blocks writes other than by Make* or ResetLocal.
	clobbers map[*Stmt]map[int32]bool
}

type access struct {
	fresh bool // a write by Make* or ResetLocal
	// dominator is, for a mutation, the Make* of its local that last
	// precedes it in its block or a block around it with nothing but
	// Make* and ResetLocal writing the local in between (nor after it, in a
	// loop): the collection the mutation always mutates. Nil if none.
	dominator *Stmt
	stmt      *Stmt
}

func newFlow(fn *Function) *flow {
	f := &flow{writes: map[int32][]access{}, muts: map[int32][]access{}, clobbers: map[*Stmt]map[int32]bool{}}
	for _, p := range fn.Params {
		f.writes[p] = append(f.writes[p], access{})
	}
	for _, b := range fn.Blocks {
		f.walk(b, nil)
	}
	return f
}

// walk records b's accesses; dom is, for each local, the Make* that
// dominates b's statements.
func (f *flow) walk(b Block, dom map[int32]*Stmt) {
	dom = maps.Clone(dom)
	if dom == nil {
		dom = map[int32]*Stmt{}
	}
	for i := range b {
		s := &b[i]
		a := access{stmt: s}
		switch s.Op {
		case OpMakeArray, OpMakeObject, OpMakeSet, OpResetLocal:
			a.fresh = true
			f.writes[s.Target] = append(f.writes[s.Target], a)
		case OpArrayAppend, OpObjectInsert, OpObjectInsertOnce, OpSetAdd:
			a.dominator = dom[s.Target]
			f.muts[s.Target] = append(f.muts[s.Target], a)
		case OpAssignConst, OpAssignVar, OpAssignVarOnce, OpCall, OpCallBuiltin, OpDot, OpLen, OpMakeConst:
			f.writes[s.Target] = append(f.writes[s.Target], a)
		case OpScan:
			f.writes[s.Key] = append(f.writes[s.Key], a)
			f.writes[s.Target] = append(f.writes[s.Target], a)
		}
		// What s's blocks write ends a domination before them (a scan's body
		// runs again after it).
		for l := range f.clobbered(s) {
			delete(dom, l)
		}
		for _, sub := range s.Blocks {
			f.walk(sub, dom)
		}
		if _, _, ok := constKind(s.Op); ok {
			dom[s.Target] = s
		}
	}
}

// clobbered is the locals s or a statement in its blocks writes other
// than by Make* or ResetLocal.
func (f *flow) clobbered(s *Stmt) map[int32]bool {
	if c, ok := f.clobbers[s]; ok {
		return c
	}
	c := map[int32]bool{}
	switch s.Op {
	case OpAssignConst, OpAssignVar, OpAssignVarOnce, OpCall, OpCallBuiltin, OpDot, OpLen, OpMakeConst:
		c[s.Target] = true
	case OpScan:
		c[s.Key], c[s.Target] = true, true
	}
	for _, b := range s.Blocks {
		for i := range b {
			maps.Copy(c, f.clobbered(&b[i]))
		}
	}
	f.clobbers[s] = c
	return c
}

// fresh: mutation m mutates a collection its function made.
func (f *flow) fresh(m access) bool {
	if m.dominator != nil {
		return true
	}
	for _, w := range f.writes[m.stmt.Target] {
		if !w.fresh {
			return false
		}
	}
	return true
}

func (f *flow) foldBlock(p *Program, b Block) Block {
	out := b[:0:0]
	for i := 0; i < len(b); i++ {
		s := b[i]
		for j := range s.Blocks {
			s.Blocks[j] = f.foldBlock(p, s.Blocks[j])
		}
		kind, add, ok := constKind(s.Op)
		if !ok {
			out = append(out, s)
			continue
		}
		var elems []Operand
		run := map[*Stmt]bool{}
		j := i + 1
		for ; j < len(b) && b[j].Op == add && b[j].Target == s.Target && b[j].A.Const != nil &&
			(add != OpObjectInsert || b[j].B.Const != nil); j++ {
			elems = append(elems, b[j].A)
			if add == OpObjectInsert {
				elems = append(elems, b[j].B)
			}
			run[&b[j]] = true
		}
		if len(run) == 0 || !f.onlyRunMutates(&b[i], run) {
			out = append(out, s)
			continue
		}
		out = append(out, Stmt{Op: OpMakeConst, Target: s.Target, Key: kind, N: int32(p.Consts), Args: elems, Loc: s.Loc})
		p.Consts++
		i = j - 1
	}
	return out
}

// onlyRunMutates: besides the run, only mutations dominated by another
// Make* mutate make's local.
func (f *flow) onlyRunMutates(make *Stmt, run map[*Stmt]bool) bool {
	for _, m := range f.muts[make.Target] {
		if !run[m.stmt] && (m.dominator == nil || m.dominator == make) {
			return false
		}
	}
	return true
}

func constKind(op Op) (kind int32, add Op, ok bool) {
	switch op {
	case OpMakeSet:
		return constSet, OpSetAdd, true
	case OpMakeArray:
		return constArray, OpArrayAppend, true
	case OpMakeObject:
		return constObject, OpObjectInsert, true
	}
	return 0, 0, false
}
