package policy

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// TestRuleCacheMatchesOPA runs the same random operations on a ruleCache
// and on OPA's own virtual cache and requires the same answers: references
// whose terms are permutations of each other (equal hashes), composite keys,
// values recorded undefined and then defined, frames pushed and popped, and
// the cache emptied and reused as the engine does between evaluations.
func TestRuleCacheMatchesOPA(t *testing.T) {
	refs := []ast.Ref{
		ast.MustParseRef("data.mcpguard.claude.verdict"),
		ast.MustParseRef("data.mcpguard.claude.deny_reasons"),
		ast.MustParseRef("data.mcpguard.claude"),
		ast.MustParseRef("data.a.b.c"),
		ast.MustParseRef("data.a.c.b"), // a permutation: the same hash
		ast.MustParseRef("data.c.b.a"),
		ast.MustParseRef(`data.mcpguard.claude.deny_matches[["x", "DENIED_NAME"]]`),
		ast.MustParseRef(`data.mcpguard.claude.deny_matches[["DENIED_NAME", "x"]]`),
		ast.MustParseRef(`data.mcpguard.policy.where[{"path": "/p", "line": 1}]`),
		ast.MustParseRef(`data.mcpguard.policy.where[{"path": "/p", "line": 2}]`),
		ast.MustParseRef("data.f[1][2]"),
		ast.MustParseRef("data.f[2][1]"),
	}
	values := []*ast.Term{nil, ast.StringTerm("allowlist"), ast.BooleanTerm(false), ast.MustParseTerm(`{"allowed": true}`), ast.ArrayTerm()}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 18))
		ours, theirs := newRuleCache(), topdown.NewVirtualCache()
		depth := 1
		for step := range 300 {
			ref := refs[rng.IntN(len(refs))]
			// A copy the caller then overwrites, as topdown reuses its
			// buffers: the cache must keep its own.
			buf := slices.Clone(ref)
			switch op := rng.IntN(10); {
			case op < 4:
				v := values[rng.IntN(len(values))]
				ours.Put(buf, v)
				theirs.Put(ref, v)
				clear(buf)
			case op < 8:
				gv, gu := ours.Get(buf)
				wv, wu := theirs.Get(ref)
				if gu != wu || !gv.Equal(wv) && (gv != nil || wv != nil) {
					t.Fatalf("seed %d step %d: Get(%v) = %v, %v; OPA's = %v, %v", seed, step, ref, gv, gu, wv, wu)
				}
			case op == 8 && depth < 4:
				ours.Push()
				theirs.Push()
				depth++
			case op == 8 && depth > 1:
				ours.Pop()
				theirs.Pop()
				depth--
			default:
				if rng.IntN(4) == 0 {
					ours.reset()
					theirs, depth = topdown.NewVirtualCache(), 1
				}
			}
			if g, w := refStrings(ours.Keys()), refStrings(theirs.Keys()); !slices.Equal(g, w) {
				t.Fatalf("seed %d step %d: Keys() = %v; OPA's = %v", seed, step, g, w)
			}
		}
	}
}

func refStrings(refs []ast.Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.String()
	}
	slices.Sort(out)
	return out
}

// TestRuleCacheEngineMatchesOPA evaluates servers with custom rules that push
// frames (`with`) and call functions with composite arguments through an
// engine with the rule cache and through one with OPA's (FromSources): the
// results are the same, evaluation after evaluation.
func TestRuleCacheEngineMatchesOPA(t *testing.T) {
	const custom = `package mcpguard.custom.withs

import rego.v1

named(n) := sprintf("%s:%d", [n, count(input.server.args)])

deny contains {"id": "W-001", "msg": msg} if {
	some a in input.server.args
	startswith(a, "@")
	msg := sprintf("%s runs %s as %s", [named(input.server.name), a, renamed])
}

renamed := n if {
	n := name_of with input.server.name as "renamed"
}

name_of := input.server.name

warn contains named(input.server.name) if {
	data.mcpguard.claude.stdio with input.server.transport as "stdio"
	name_of != "renamed"
}
`
	dir := writePolicy(t, map[string]string{"withs.rego": custom})
	ctx := context.Background()
	ref, err := NewEngine(ctx, EngineOptions{Paths: []string{dir}, FromSources: true})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := NewEngine(ctx, EngineOptions{Paths: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if ref.caches != nil || eng.caches == nil {
		t.Fatal("the reference engine must use OPA's cache and the other the rule cache")
	}
	pctx := benchContext(t)
	servers := benchServerValues(t, 24)
	for round := range 3 {
		for i, s := range servers {
			want, err := ref.EvalServer(ctx, s, pctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := eng.EvalServer(ctx, s, pctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, server %d:\n got %+v\nwant %+v", round, i, got, want)
			}
			if i == 0 && round == 0 && !hasRule(want, "W-001") {
				t.Fatalf("the custom rule did not fire: %+v", want.Findings)
			}
		}
	}
}

func hasRule(res *ServerResult, rule string) bool {
	for _, f := range res.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

func BenchmarkRuleCache(b *testing.B) {
	refs := make([]ast.Ref, 40)
	for i := range refs {
		refs[i] = ast.MustParseRef(fmt.Sprintf("data.mcpguard.claude.rule%d", i))
	}
	for _, tc := range []struct {
		name string
		new  func() topdown.VirtualCache
	}{
		{"opa", topdown.NewVirtualCache},
		{"rule-cache", func() topdown.VirtualCache { c := newRuleCache(); return c }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var reused *ruleCache
			for b.Loop() {
				var c topdown.VirtualCache
				if reused != nil {
					reused.reset()
					c = reused
				} else {
					c = tc.new()
					if rc, ok := c.(*ruleCache); ok {
						reused = rc
					}
				}
				for _, r := range refs {
					if v, _ := c.Get(r); v == nil {
						c.Put(r, ast.BooleanTerm(true))
					}
				}
			}
		})
	}
}
