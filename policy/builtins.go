package policy

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/mcpguard/mcpguard/internal/urlmatch"
)

// builtin is one custom Rego function: its declaration and its option for
// rego.New. The same table feeds the engine and the Rego test runner, so a
// policy that type-checks in one does in the other.
type builtin struct {
	decl *rego.Function
	opt  func(*rego.Rego)
	fn   topdown.BuiltinFunc // the same function, for the planned evaluator
}

// function1 and function2 make a builtin of a function of one or two
// arguments that returns nil when it is undefined.
func function1(decl *rego.Function, f func(rego.BuiltinContext, *ast.Term) (*ast.Term, error)) builtin {
	return builtin{decl, rego.Function1(decl, f), func(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		t, err := f(bctx, ops[0])
		return emit(t, err, iter)
	}}
}

func function2(decl *rego.Function, f func(rego.BuiltinContext, *ast.Term, *ast.Term) (*ast.Term, error)) builtin {
	return builtin{decl, rego.Function2(decl, f), func(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		t, err := f(bctx, ops[0], ops[1])
		return emit(t, err, iter)
	}}
}

// emit hands a function's output to topdown's iterator: none when it is
// undefined.
func emit(t *ast.Term, err error, iter func(*ast.Term) error) error {
	if err != nil || t == nil {
		return err
	}
	return iter(t)
}

// urlCacheSize bounds the server URLs mcpguard.url_match keeps parsed.
const urlCacheSize = 4096

// builtins returns mcpguard's Rego functions. They are per-instance (never
// registered globally) and deterministic.
func builtins() []builtin {
	var patterns sync.Map // pattern -> *urlmatch.Pattern: patterns repeat for every server
	compile := func(p string) *urlmatch.Pattern {
		if c, ok := patterns.Load(p); ok {
			return c.(*urlmatch.Pattern)
		}
		c := urlmatch.Compile(p)
		patterns.Store(p, c)
		return c
	}
	// A server's URL is matched against every pattern of every list: it is
	// parsed once. The cache starts again when it holds urlCacheSize URLs (a
	// daemon sees the machine's URLs again on every rescan).
	var urls sync.Map // url -> *urlmatch.URL, nil when it does not parse
	var cached atomic.Int64
	parse := func(u string) *urlmatch.URL {
		if v, ok := urls.Load(u); ok {
			return v.(*urlmatch.URL)
		}
		parsed, _ := urlmatch.Parse(u)
		if cached.Add(1) > urlCacheSize {
			urls.Clear()
			cached.Store(1)
		}
		urls.Store(u, parsed)
		return parsed
	}
	str := func(t *ast.Term) (string, bool) {
		s, ok := t.Value.(ast.String)
		return string(s), ok
	}

	urlMatch := &rego.Function{
		Name:        "mcpguard.url_match",
		Description: "Claude Code's serverUrl matcher (docs/claude-code.md §8): whether pattern matches url.",
		Decl:        types.NewFunction(types.Args(types.Named("pattern", types.S), types.Named("url", types.S)), types.Named("match", types.B)),
	}
	weaknesses := &rego.Function{
		Name:        "mcpguard.url_weaknesses",
		Description: "The ways a serverUrl pattern admits more than it seems to (MCPG-P005): [{kind, detail, example}].",
		Decl: types.NewFunction(types.Args(types.Named("pattern", types.S)),
			types.Named("weaknesses", types.NewArray(nil, types.NewObject(nil, types.NewDynamicProperty(types.S, types.S))))),
	}
	never := &rego.Function{
		Name:        "mcpguard.url_never_matches",
		Description: "Whether no URL can match a serverUrl pattern (a deny entry that does nothing, MCPG-P003).",
		Decl:        types.NewFunction(types.Args(types.Named("pattern", types.S)), types.Named("never", types.B)),
	}
	return []builtin{
		function2(urlMatch, func(_ rego.BuiltinContext, p, u *ast.Term) (*ast.Term, error) {
			ps, ok1 := str(p)
			us, ok2 := str(u)
			if !ok1 || !ok2 {
				return nil, nil
			}
			return ast.BooleanTerm(compile(ps).MatchURL(parse(us))), nil
		}),
		function1(weaknesses, func(_ rego.BuiltinContext, p *ast.Term) (*ast.Term, error) {
			ps, ok := str(p)
			if !ok {
				return nil, nil
			}
			var out []*ast.Term
			for _, w := range urlmatch.Weaknesses(ps) {
				out = append(out, ast.ObjectTerm(
					ast.Item(ast.StringTerm("kind"), ast.StringTerm(string(w.Kind))),
					ast.Item(ast.StringTerm("detail"), ast.StringTerm(w.Detail)),
					ast.Item(ast.StringTerm("example"), ast.StringTerm(w.Example)),
				))
			}
			return ast.ArrayTerm(out...), nil
		}),
		function1(never, func(_ rego.BuiltinContext, p *ast.Term) (*ast.Term, error) {
			ps, ok := str(p)
			if !ok {
				return nil, nil
			}
			return ast.BooleanTerm(urlmatch.NeverMatches(ps)), nil
		}),
	}
}

// declarations returns the builtins' declarations for a compiler built by
// hand (rego.New only adds per-instance declarations to compilers it creates).
func declarations(bs []builtin) map[string]*ast.Builtin {
	out := make(map[string]*ast.Builtin, len(bs))
	for _, b := range bs {
		out[b.decl.Name] = &ast.Builtin{Name: b.decl.Name, Description: b.decl.Description, Decl: b.decl.Decl}
	}
	return out
}

// Declarations are the signatures of mcpguard's own Rego functions
// (mcpguard.url_match, ...), for compilers outside the engine that must
// accept policies calling them: OPA's bundle plugin compiles a bundle
// before activating it.
func Declarations() []*ast.Builtin {
	m := declarations(builtins())
	out := make([]*ast.Builtin, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[name])
	}
	return out
}

// Capabilities are the capabilities mcpguard's engine compiles custom
// policies with: OPA's, without the builtins a scan must not run
// (http.send, ...), plus mcpguard's own functions. `opa build
// --capabilities` with them refuses a bundle mcpguard would refuse.
func Capabilities() *ast.Capabilities { return capabilities(builtins()) }

// regoOptions returns the builtins as rego.New options.
func regoOptions(bs []builtin) []func(*rego.Rego) {
	out := make([]func(*rego.Rego), len(bs))
	for i, b := range bs {
		out[i] = b.opt
	}
	return out
}

// testerBuiltins returns the builtins for the Rego test runner.
func testerBuiltins(bs []builtin) []*tester.Builtin {
	out := make([]*tester.Builtin, len(bs))
	for i, b := range bs {
		out[i] = &tester.Builtin{
			Decl: &ast.Builtin{Name: b.decl.Name, Description: b.decl.Description, Decl: b.decl.Decl},
			Func: b.opt,
		}
	}
	return out
}
