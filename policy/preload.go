package policy

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcpguard/mcpguard/internal/regoir"
)

// A Preload is what evaluates the shipped policies — the shipped plan,
// decoded and bound, or (when the plan is stale) the shipped groups,
// compiled and their queries prepared — loaded on goroutines of
// their own as soon as a command knows it will evaluate them: a scan spends
// its first milliseconds parsing flags and reading configuration files on
// one core, and the preload runs on the other in that time instead of
// after it. Give it to one Engine (EngineOptions.Preload). What the
// engine's options change it does itself: custom rules join the verdict
// group, which it then compiles and prepares; a data document needs the
// groups loaded and every query prepared again.
type Preload struct {
	ready  chan struct{}
	loaded preloaded
	taken  atomic.Bool
}

// preloaded is what loadShipped loads: the shipped plan, or the compiled
// groups and their prepared queries (a Preload's without print statements
// or data).
type preloaded struct {
	bs                             []builtin
	plan                           *regoir.Evaluator
	verdict, rules                 *ast.Compiler
	verdictErr                     error
	rulesErr                       error
	server                         rego.PreparedEvalQuery
	hygiene, context               rego.PreparedEvalQuery
	serverOK, hygieneOK, contextOK bool
}

// PreloadShipped starts loading the shipped policy groups and returns at
// once.
func PreloadShipped() *Preload {
	p := &Preload{ready: make(chan struct{})}
	go func() {
		defer close(p.ready)
		p.loaded = *loadShipped(false, true, nil, nil)
	}()
	return p
}

// loadShipped loads what evaluates the shipped policies. Without a data
// document, that is the shipped plan (nothing to decode or compile), if it
// was planned from the sources as they are and binds; otherwise it loads
// the groups by compiling their Rego: the rules group, and the verdict group unless custom rules are to join
// it (verdict false). The two load in parallel — loading is most of a
// short command's start-up — and each has its queries prepared, print
// statements going to print and data as the data document.
func loadShipped(fromSources, verdict bool, print io.Writer, data map[string]any) *preloaded {
	l := &preloaded{bs: builtins()}
	if !fromSources && len(data) == 0 && planCurrent() {
		// A plan that does not bind leaves the queries to topdown
		// (TestShippedPlan fails on it).
		if l.plan, _ = bindShippedPlan(l.bs); l.plan != nil {
			return l
		}
	}
	GrowStack() // compiling recurses as evaluating does
	done := make(chan struct{})
	go func() {
		defer close(done)
		GrowStack()
		if l.rules, l.rulesErr = shippedCompiler(groupRules, l.bs); l.rulesErr == nil {
			var err error
			l.hygiene, err = prepareQuery(context.Background(), l.rules, hygieneQuery, l.bs, print, data)
			l.hygieneOK = err == nil
			l.context, err = prepareQuery(context.Background(), l.rules, contextQuery, l.bs, print, data)
			l.contextOK = err == nil
		}
	}()
	if verdict {
		if l.verdict, l.verdictErr = shippedCompiler(groupVerdict, l.bs); l.verdictErr == nil {
			var err error
			l.server, err = prepareQuery(context.Background(), l.verdict, shippedQuery, l.bs, print, data)
			l.serverOK = err == nil
		}
	}
	<-done
	return l
}

// Wait waits until the preload has finished. Whatever changes OPA's global
// state that compiling reads (ast.RegisterBuiltin: starting OPA's plugins)
// must wait for it first. A nil Preload has nothing to wait for.
func (p *Preload) Wait() {
	if p != nil {
		<-p.ready
	}
}

// take waits for the preload and hands it to one engine; a compiler holds
// its group's modules, so a second engine gets nothing (nil) and loads its
// own.
func (p *Preload) take() *preloaded {
	if p == nil || !p.taken.CompareAndSwap(false, true) {
		return nil
	}
	<-p.ready
	return &p.loaded
}
