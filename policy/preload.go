package policy

import (
	"context"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// A Preload is the shipped policy groups, decoded, compiled and their
// queries prepared on goroutines of their own as soon as a command knows it
// will evaluate them: a scan spends its first milliseconds parsing flags
// and reading configuration files on one core, and the snapshot can load
// on the other in that time instead of after it. Give it to one Engine
// (EngineOptions.Preload). What the engine's options change it does
// itself: custom rules join the verdict group, which it then compiles and
// prepares; a data document needs every query prepared again.
type Preload struct {
	ready  chan struct{}
	loaded preloaded
	taken  atomic.Bool
}

// preloaded is what a Preload hands to its engine. The queries are prepared
// without print statements and data: the shipped policies have neither.
type preloaded struct {
	bs                []builtin
	verdict, rules    *ast.Compiler
	verdictErr        error
	rulesErr          error
	server            rego.PreparedEvalQuery
	hygiene, context  rego.PreparedEvalQuery
	serverOK, rulesOK bool
}

// PreloadShipped starts loading the shipped policy groups and returns at
// once.
func PreloadShipped() *Preload {
	p := &Preload{ready: make(chan struct{})}
	go func() {
		defer close(p.ready)
		l := &p.loaded
		l.bs = builtins()
		snap := loadSnapshot()
		done := make(chan struct{})
		go func() {
			defer close(done)
			if l.rules, l.rulesErr = shippedCompiler(snap, groupRules, l.bs); l.rulesErr == nil {
				var err1, err2 error
				l.hygiene, err1 = prepareQuery(context.Background(), l.rules, hygieneQuery, l.bs, nil, nil)
				l.context, err2 = prepareQuery(context.Background(), l.rules, contextQuery, l.bs, nil, nil)
				l.rulesOK = err1 == nil && err2 == nil
			}
		}()
		if l.verdict, l.verdictErr = shippedCompiler(snap, groupVerdict, l.bs); l.verdictErr == nil {
			var err error
			l.server, err = prepareQuery(context.Background(), l.verdict, serverQuery, l.bs, nil, nil)
			l.serverOK = err == nil
		}
		<-done
	}()
	return p
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
