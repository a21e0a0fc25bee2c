package policy

import (
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
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
	hits      uint64
	misses    uint64
}

type memoEntry struct {
	server, ctx ast.Value
	res         *ServerResult
}

func newServerMemo() *serverMemo {
	return &serverMemo{cur: map[uint64][]memoEntry{}, prev: map[uint64][]memoEntry{}}
}

func memoKey(server, ctx ast.Value) uint64 {
	return uint64(server.Hash())*1_000_003 ^ uint64(ctx.Hash())
}

func (m *serverMemo) get(server, ctx ast.Value) *ServerResult {
	k := memoKey(server, ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := find(m.cur[k], server, ctx); e != nil {
		m.hits++
		return e.res.clone()
	}
	if e := find(m.prev[k], server, ctx); e != nil {
		m.cur[k] = append(m.cur[k], *e)
		m.hits++
		return e.res.clone()
	}
	m.misses++
	return nil
}

func find(list []memoEntry, server, ctx ast.Value) *memoEntry {
	for i := range list {
		if list[i].server.Compare(server) == 0 && list[i].ctx.Compare(ctx) == 0 {
			return &list[i]
		}
	}
	return nil
}

func (m *serverMemo) put(server, ctx ast.Value, res *ServerResult) {
	k := memoKey(server, ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if find(m.cur[k], server, ctx) == nil {
		m.cur[k] = append(m.cur[k], memoEntry{server: server, ctx: ctx, res: res.clone()})
	}
}

func (m *serverMemo) sweep() (hits, misses uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prev, m.cur = m.cur, map[uint64][]memoEntry{}
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
