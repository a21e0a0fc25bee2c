package policy

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcpguard/mcpguard/internal/regoir"
)

// serverMemo remembers EvalServer results by their input, for a
// long-running process that evaluates the same servers again after every
// file change: only a server whose input changed (its entry, its facts, or
// the context of its project) is evaluated again. Entries live for two
// generations: Sweep, called after each scan, drops what the scan before
// did not use, so the memo holds about one scan's servers.
type serverMemo struct {
	mu        sync.Mutex
	cur, prev map[uint64][]memoEntry
	// sameCtx maps a context of this scan to the remembered one it was
	// found equal to: every server of a project shares its context, which
	// was compared in full (its lists and documents) for each of them.
	sameCtx map[ast.Value]ast.Value
	hits    uint64
	misses  uint64
}

type memoEntry struct {
	server, ctx ast.Value
	res         *ServerResult
}

func newServerMemo() *serverMemo {
	return &serverMemo{cur: map[uint64][]memoEntry{}, prev: map[uint64][]memoEntry{}, sameCtx: map[ast.Value]ast.Value{}}
}

func memoKey(server, ctx ast.Value) uint64 {
	return memoHash(server)*1_000_003 ^ memoHash(ctx)
}

// memoHash hashes v as memoEqual compares it: a record field by field, in
// its order, anything else as OPA hashes it. (A record's own Hash and
// Compare build the OPA object it stands for first, for every server of
// every rescan.) Two equal values whose fields are in different orders
// hash apart, which costs an evaluation, never a wrong answer.
func memoHash(v ast.Value) uint64 {
	r, ok := v.(*regoir.Record)
	if !ok {
		return uint64(v.Hash())
	}
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := range r.Len() {
		k, val := r.Field(i)
		h = (h ^ uint64(k.Hash())) * prime
		h = (h ^ memoHash(val.Value)) * prime
	}
	return h
}

// memoEqual reports whether a and b are the same value: two records with
// the same keys in the same order field by field, anything else as OPA
// compares it.
func memoEqual(a, b ast.Value) bool {
	ra, aRec := a.(*regoir.Record)
	rb, bRec := b.(*regoir.Record)
	if aRec && bRec && ra.Len() == rb.Len() {
		sameKeys := true
		for i := range ra.Len() {
			ka, _ := ra.Field(i)
			kb, _ := rb.Field(i)
			if ka != kb && ka.Value.Compare(kb.Value) != 0 {
				sameKeys = false
				break
			}
		}
		if sameKeys {
			for i := range ra.Len() {
				_, va := ra.Field(i)
				_, vb := rb.Field(i)
				if !memoEqual(va.Value, vb.Value) {
					return false
				}
			}
			return true
		}
	}
	return regoir.PlainValue(a).Compare(regoir.PlainValue(b)) == 0
}

func (m *serverMemo) get(server, ctx ast.Value) *ServerResult {
	k := memoKey(server, ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.find(m.cur[k], server, ctx); e != nil {
		m.hits++
		return e.res.clone()
	}
	if e := m.find(m.prev[k], server, ctx); e != nil {
		m.cur[k] = append(m.cur[k], *e)
		m.hits++
		return e.res.clone()
	}
	m.misses++
	return nil
}

func (m *serverMemo) find(list []memoEntry, server, ctx ast.Value) *memoEntry {
	for i := range list {
		if memoEqual(list[i].server, server) && m.equalCtx(list[i].ctx, ctx) {
			return &list[i]
		}
	}
	return nil
}

// equalCtx is memoEqual for contexts, each context of a scan compared in
// full once.
func (m *serverMemo) equalCtx(remembered, ctx ast.Value) bool {
	if _, ok := ctx.(*regoir.Record); !ok {
		return memoEqual(remembered, ctx) // not a context NewValue made: no identity to key by
	}
	if remembered == ctx || m.sameCtx[ctx] == remembered {
		return true
	}
	if !memoEqual(remembered, ctx) {
		return false
	}
	m.sameCtx[ctx] = remembered
	return true
}

func (m *serverMemo) put(server, ctx ast.Value, res *ServerResult) {
	k := memoKey(server, ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.find(m.cur[k], server, ctx) == nil {
		m.cur[k] = append(m.cur[k], memoEntry{server: server, ctx: ctx, res: res.clone()})
	}
}

func (m *serverMemo) sweep() (hits, misses uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prev, m.cur = m.cur, map[uint64][]memoEntry{}
	clear(m.sameCtx)
	hits, misses = m.hits, m.misses
	m.hits, m.misses = 0, 0
	return hits, misses
}

// clone copies what a caller may change: the slices of the result.
func (r *ServerResult) clone() *ServerResult {
	c := *r
	c.Decision.Reasons = append([]string{}, r.Decision.Reasons...)
	c.Findings = append([]RuleResult(nil), r.Findings...)
	return &c
}

// Sweep ends one scan of a memoizing engine (EngineOptions.Memo): results
// the scan did not use are dropped at the next Sweep. It returns how many
// evaluations the memo answered and how many it ran since the last Sweep.
func (e *Engine) Sweep() (hits, misses uint64) {
	if e.memo == nil {
		return 0, 0
	}
	return e.memo.sweep()
}
