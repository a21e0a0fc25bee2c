package policy

import (
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
)

// A Preload is the shipped policy groups, decoded and compiled on a
// goroutine of their own as soon as a command knows it will evaluate them:
// a scan spends its first milliseconds parsing flags and reading
// configuration files on one core, and the snapshot can load on the other
// in that time instead of after it. Give it to one Engine
// (EngineOptions.Preload); an Engine that cannot use it (custom rules
// join the verdict group) compiles that group itself.
type Preload struct {
	ready          chan struct{}
	bs             []builtin
	verdict, rules *ast.Compiler
	verdictErr     error
	rulesErr       error
	taken          atomic.Bool
}

// PreloadShipped starts loading the shipped policy groups and returns at
// once.
func PreloadShipped() *Preload {
	p := &Preload{ready: make(chan struct{}), bs: builtins()}
	go func() {
		defer close(p.ready)
		snap := loadSnapshot()
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.rules, p.rulesErr = shippedCompiler(snap, groupRules, p.bs)
		}()
		p.verdict, p.verdictErr = shippedCompiler(snap, groupVerdict, p.bs)
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

// take waits for the preloaded groups and hands them to one engine; a
// compiler holds its group's modules, so a second engine gets nothing
// (ok false) and loads its own.
func (p *Preload) take() (bs []builtin, verdict, rules *ast.Compiler, verdictErr, rulesErr error, ok bool) {
	if p == nil || !p.taken.CompareAndSwap(false, true) {
		return nil, nil, nil, nil, nil, false
	}
	<-p.ready
	return p.bs, p.verdict, p.rules, p.verdictErr, p.rulesErr, true
}
