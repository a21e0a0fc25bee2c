package policy

import "github.com/open-policy-agent/opa/v1/ast"

// InputArena holds the objects, terms and lists of one server's input at
// a time. A scan builds an input for every server it judges and drops it
// once the evaluation's result is read; made on the heap, every input is
// new memory until the next collection. A worker that makes each server's
// input in its own arena, reset for every server, reuses the same memory:
// it keeps the 11,000-server scan's peak RSS at ~83 MB instead of ~99 MB
// (docs/performance.md).
//
// What an arena makes is valid until Reset, so only an engine that keeps
// nothing of an input past the evaluation may be given it: not one with an
// organisation's Rego or one on topdown, which evaluates with caches of
// its own (Engine.KeepsInputs; EvalServer refuses such an
// input). An arena is for one goroutine at a time. When it is full it
// makes the rest on the heap; the zero value is ready, and a nil arena
// makes everything on the heap.
type InputArena struct {
	objects                  [arenaObjects]Object
	terms                    [arenaTerms]ast.Term
	lists                    [arenaTerms]*ast.Term
	doc                      evalInput // the document that holds the input
	nObjects, nTerms, nLists int
	docUsed                  bool
}

// An input holds a dozen objects at most (its own, claude's, the facts',
// their later fields, the source, a secret's) and a few dozen strings.
const (
	arenaObjects = 16
	arenaTerms   = 64
)

// Reset makes everything the arena made invalid, for the next input.
func (a *InputArena) Reset() {
	if a != nil {
		a.nObjects, a.nTerms, a.nLists, a.docUsed = 0, 0, 0, false
	}
}

// NewObject is the package's NewObject, made in a: its fields' strings
// and lists are made there too.
func (a *InputArena) NewObject(n int) *Object {
	if a == nil || a.nObjects == len(a.objects) || n > inlineFields {
		o := NewObject(n)
		o.arena = a
		return o
	}
	o := &a.objects[a.nObjects]
	a.nObjects++
	*o = Object{arena: a}
	o.rec.Use(o.inline[:2*n])
	return o
}

// term is a term for v.
func (a *InputArena) term(v ast.Value) *ast.Term {
	if a == nil || a.nTerms == len(a.terms) {
		return ast.NewTerm(v)
	}
	t := &a.terms[a.nTerms]
	a.nTerms++
	*t = ast.Term{Value: v}
	return t
}

// stringTerm is s as a term: OPA's own for "" (a stdio server's URL, a
// remote one's command), which every input may share.
func (a *InputArena) stringTerm(s string) *ast.Term {
	if s == "" {
		return ast.InternedEmptyString
	}
	return a.term(ast.String(s))
}

// list is room for n terms.
func (a *InputArena) list(n int) []*ast.Term {
	if a == nil || a.nLists+n > len(a.lists) {
		return make([]*ast.Term, n)
	}
	l := a.lists[a.nLists : a.nLists+n : a.nLists+n]
	a.nLists += n
	return l
}

// evalInput is the input document of an evaluation of an input made in a.
func (a *InputArena) evalInput() *evalInput {
	if a == nil || a.docUsed {
		return &evalInput{}
	}
	a.docUsed = true
	a.doc = evalInput{}
	return &a.doc
}
