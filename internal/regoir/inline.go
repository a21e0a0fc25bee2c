package regoir

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// inlineBuiltins are the built-ins the evaluator computes itself: the
// comparisons, count, membership, prefix tests and case mappings that a
// policy calls many times for every server, where OPA's implementation is
// a call through its error wrapper and back through an output callback
// for one value. Each
// returns the built-in's result, or nil to leave the call to OPA's
// implementation: an operand of a type the built-in refuses, whose error
// OPA's reports (TestInlineBuiltinsMatchOPA holds each to OPA's).
var inlineBuiltins = map[string]func(args []*ast.Term) *ast.Term{
	"count": func(a []*ast.Term) *ast.Term {
		switch x := a[0].Value.(type) {
		case *ast.Array:
			return ast.InternedTerm(x.Len())
		case ast.Object:
			return ast.InternedTerm(x.Len())
		case ast.Set:
			return ast.InternedTerm(x.Len())
		case ast.String:
			return ast.InternedTerm(utf8.RuneCountInString(string(x)))
		}
		return nil
	},
	"internal.member_2": func(a []*ast.Term) *ast.Term {
		switch c := a[1].Value.(type) {
		case ast.Set:
			return ast.InternedTerm(c.Contains(a[0]))
		case *ast.Array:
			return ast.InternedTerm(c.Until(a[0].Equal))
		case ast.Object:
			return ast.InternedTerm(c.Until(func(_, v *ast.Term) bool { return a[0].Equal(v) }))
		}
		return ast.InternedTerm(false)
	},
	"gt":         func(a []*ast.Term) *ast.Term { return ast.InternedTerm(a[0].Value.Compare(a[1].Value) > 0) },
	"gte":        func(a []*ast.Term) *ast.Term { return ast.InternedTerm(a[0].Value.Compare(a[1].Value) >= 0) },
	"lt":         func(a []*ast.Term) *ast.Term { return ast.InternedTerm(a[0].Value.Compare(a[1].Value) < 0) },
	"lte":        func(a []*ast.Term) *ast.Term { return ast.InternedTerm(a[0].Value.Compare(a[1].Value) <= 0) },
	"equal":      func(a []*ast.Term) *ast.Term { return ast.InternedTerm(a[0].Equal(a[1])) },
	"neq":        func(a []*ast.Term) *ast.Term { return ast.InternedTerm(!a[0].Equal(a[1])) },
	"startswith": stringTest(strings.HasPrefix),
	"endswith":   stringTest(strings.HasSuffix),
	// The hygiene rules look for uvx's --from= and --spec= in every
	// Python launch's arguments; OPA's built-in copies both operands to
	// lists of strings first (six allocations a call).
	"strings.any_prefix_match": anyAffixMatch(strings.HasPrefix),
	"strings.any_suffix_match": anyAffixMatch(strings.HasSuffix),
	"lower":                    stringMap(strings.ToLower),
	"upper":                    stringMap(strings.ToUpper),
}

// stringMap is a built-in that maps a string to another (lower, upper):
// the operand itself when it is unchanged, as OPA's; nil (OPA's type
// error) for an operand that is not a string.
func stringMap(f func(string) string) func([]*ast.Term) *ast.Term {
	return func(a []*ast.Term) *ast.Term {
		s, ok := a[0].Value.(ast.String)
		if !ok {
			return nil
		}
		if out := f(string(s)); out != string(s) {
			return ast.StringTerm(out)
		}
		return a[0]
	}
}

// stringTest is a built-in that tests a string with another: nil (OPA's
// type error) for an operand that is not a string.
func stringTest(test func(s, affix string) bool) func([]*ast.Term) *ast.Term {
	return func(a []*ast.Term) *ast.Term {
		s, ok1 := a[0].Value.(ast.String)
		affix, ok2 := a[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return nil
		}
		return ast.InternedTerm(test(string(s), string(affix)))
	}
}

// regexMatch is regex.match for the patterns a plan writes as constants
// (constantPatterns), each compiled the first time a call uses it: OPA's
// looks every pattern up in a cache behind a lock that each evaluating
// goroutine takes, for every call. They are compiled when first used,
// not when the plan is bound: a short scan uses few of them. Another
// pattern, one
// that does not compile, or an operand that is not a string is left to
// OPA.
func regexMatch(patterns map[string]*lazyRegexp) func([]*ast.Term) *ast.Term {
	return func(a []*ast.Term) *ast.Term {
		pat, ok1 := a[0].Value.(ast.String)
		s, ok2 := a[1].Value.(ast.String)
		if !ok1 || !ok2 {
			return nil
		}
		l := patterns[string(pat)]
		if l == nil {
			return nil
		}
		if l.match != nil {
			return ast.InternedTerm(l.match(string(s)))
		}
		re := l.get(string(pat))
		if re == nil {
			return nil
		}
		return ast.InternedTerm(re.MatchString(string(s)))
	}
}

// lazyRegexp is a constant pattern, compiled once, when first used; nil
// when it does not compile.
type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
	// match, when set (Evaluator.MatchPattern), answers for the pattern.
	match func(string) bool
}

func (l *lazyRegexp) get(pat string) *regexp.Regexp {
	l.once.Do(func() { l.re, _ = regexp.Compile(pat) })
	return l.re
}

// constantPatterns are the constant first operands of im's calls of the
// built-in numbered n (regex.match), not yet compiled.
func constantPatterns(im *Image, n int32) map[string]*lazyRegexp {
	out := map[string]*lazyRegexp{}
	for i := range im.Stmts {
		st := &im.Stmts[i]
		if st.Op != OpCallBuiltin || st.N != n || st.Sub.Len == 0 {
			continue
		}
		r := im.Args[st.Sub.Start]
		if r >= 0 {
			continue
		}
		if pat, ok := im.Terms[^r].Value.(ast.String); ok {
			out[string(pat)] = &lazyRegexp{}
		}
	}
	return out
}

// anyAffixMatch is strings.any_prefix_match (any_suffix_match) for
// operands that are strings or arrays of strings: whether a string of the
// first has a prefix (suffix) among the second's. A set, or an array that
// holds anything but strings, is left to OPA (nil).
func anyAffixMatch(test func(s, affix string) bool) func([]*ast.Term) *ast.Term {
	return func(a []*ast.Term) *ast.Term {
		n, ok1 := stringCount(a[0].Value)
		m, ok2 := stringCount(a[1].Value)
		if !ok1 || !ok2 {
			return nil
		}
		for i := range n {
			s := stringAt(a[0].Value, i)
			for j := range m {
				if test(s, stringAt(a[1].Value, j)) {
					return ast.InternedTerm(true)
				}
			}
		}
		return ast.InternedTerm(false)
	}
}

// stringCount is how many strings v is: one for a string, an array's
// length when every element is a string; ok is false for anything else.
func stringCount(v ast.Value) (n int, ok bool) {
	switch x := v.(type) {
	case ast.String:
		return 1, true
	case *ast.Array:
		for i := range x.Len() {
			if _, ok := x.Elem(i).Value.(ast.String); !ok {
				return 0, false
			}
		}
		return x.Len(), true
	}
	return 0, false
}

// stringAt is the i-th string of v, which stringCount accepted.
func stringAt(v ast.Value, i int) string {
	if s, ok := v.(ast.String); ok {
		return string(s)
	}
	return string(v.(*ast.Array).Elem(i).Value.(ast.String))
}

// MatchPattern has regex.match answer with match for the plan's calls
// whose pattern is the constant pattern: a function written by hand that
// answers as the compiled pattern would, for a pattern a policy tries on
// every input, so that no regexp match is set up for each call. It
// reports whether a call of the plan has that pattern.
// Call it before the first evaluation.
func (e *Evaluator) MatchPattern(pattern string, match func(string) bool) bool {
	l := e.patterns[pattern]
	if l == nil {
		return false
	}
	l.match = match
	return true
}
