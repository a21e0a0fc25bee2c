package regoir

import (
	"context"
	"regexp"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// TestInlineBuiltinsMatchOPA: where the evaluator computes a built-in
// itself, it gives OPA's result, on operands of every type (where it
// leaves the call to OPA, OPA answers, errors included).
func TestInlineBuiltinsMatchOPA(t *testing.T) {
	var values []*ast.Term
	for _, src := range []string{
		`null`, `true`, `false`, `0`, `1`, `1.0`, `-1`, `2`, `1e3`, `100000000000000000000`, `""`, `"a"`, `"ab"`,
		`"é"`, `"É"`, `"AbC"`, `"b"`, `"abc"`, `[]`, `[1]`, `[1, "a"]`, `["a", 1]`, `{}`, `{"a": 1}`, `{"a": "a", "b": 1}`,
		`set()`, `{1}`, `{"a", 1}`, `[[1], {"a": [1]}]`, `{"x": {1, 2}}`,
		`["a", "b"]`, `["abc", "x"]`, `["--from=x", "-y"]`, `["--from=", "--spec="]`, `{"a", "b"}`, `["bc"]`,
	} {
		values = append(values, ast.MustParseTerm(src))
	}
	values = append(values, ast.StringTerm("\xff\xfeab"), ast.StringTerm("a\xff"))
	for name, inline := range inlineBuiltins {
		opa := topdown.GetBuiltin(name)
		if opa == nil {
			t.Fatalf("%s: no such OPA built-in", name)
		}
		arity := len(ast.BuiltinMap[name].Decl.FuncArgs().Args)
		var calls [][]*ast.Term
		for _, a := range values {
			if arity == 1 {
				calls = append(calls, []*ast.Term{a})
				continue
			}
			for _, b := range values {
				calls = append(calls, []*ast.Term{a, b})
			}
		}
		for _, args := range calls {
			got := inline(args)
			var want *ast.Term
			err := opa(topdown.BuiltinContext{Context: context.Background()}, args, func(t *ast.Term) error { want = t; return nil })
			switch {
			case got == nil && err == nil && want == nil:
				t.Errorf("%s%v: neither computes it", name, args)
			case got == nil:
				// Left to OPA.
			case err != nil:
				t.Errorf("%s%v: %v inline, OPA's error %v", name, args, got, err)
			case got.Value.Compare(want.Value) != 0:
				t.Errorf("%s%v: %v inline, %v OPA's", name, args, got, want)
			}
		}
	}
}

// TestRegexMatchMatchesOPA: regex.match on a constant pattern gives
// OPA's answer; a pattern it was not given, one that does not compile,
// and an operand that is not a string are left to OPA.
func TestRegexMatchMatchesOPA(t *testing.T) {
	pats := []string{`^=?v?[0-9]+\.[0-9]+\.[0-9]+$`, `(?i)^(-{1,2}|/)c$`, `[|&]`, `^$`, `(`}
	compiled := map[string]*regexp.Regexp{}
	lazy := map[string]*lazyRegexp{}
	for _, p := range pats {
		lazy[p] = &lazyRegexp{}
		if re, err := regexp.Compile(p); err == nil {
			compiled[p] = re
		}
	}
	match := regexMatch(lazy)
	opa := topdown.GetBuiltin("regex.match")
	operands := []*ast.Term{ast.StringTerm(""), ast.StringTerm("1.2.3"), ast.StringTerm("v1.2.3-rc"), ast.StringTerm("-C"),
		ast.StringTerm("a | b"), ast.StringTerm("\xff"), ast.IntNumberTerm(1), ast.NullTerm()}
	for _, p := range append(pats, `^not-a-constant$`) {
		for _, s := range operands {
			for _, args := range [][]*ast.Term{{ast.StringTerm(p), s}, {s, ast.StringTerm(p)}} {
				got := match(args)
				var want *ast.Term
				err := opa(topdown.BuiltinContext{Context: context.Background()}, args, func(t *ast.Term) error { want = t; return nil })
				switch {
				case got == nil:
					pat, _ := args[0].Value.(ast.String)
					_, isStr := args[1].Value.(ast.String)
					if compiled[string(pat)] != nil && isStr {
						t.Errorf("regex.match%v: left to OPA though a constant pattern", args)
					}
				case err != nil:
					t.Errorf("regex.match%v: %v inline, OPA's error %v", args, got, err)
				case got.Value.Compare(want.Value) != 0:
					t.Errorf("regex.match%v: %v inline, %v OPA's", args, got, want)
				}
			}
		}
	}
}

// TestConstantPatterns: the constant patterns of a plan's regex.match
// calls are known when it is bound, and only they; the plan answers as
// topdown does for them, for a pattern that does not compile, and for a
// pattern from the input.
func TestConstantPatterns(t *testing.T) {
	modules := map[string]string{"p.rego": `package p
ok := regex.match("^a+$", input.s)
bad := regex.match("(", input.s)
dyn := regex.match(input.p, input.s)`}
	p := planModules(t, modules, "p/ok", "p/bad", "p/dyn")
	prog, err := Link(p)
	if err != nil {
		t.Fatal(err)
	}
	im := prog.Image()
	n := int32(-1)
	for i, b := range im.Builtins {
		if b == "regex.match" {
			n = int32(i)
		}
	}
	got := constantPatterns(im, n)
	if len(got) != 2 || got["^a+$"] == nil || got["("] == nil {
		t.Errorf("constantPatterns = %v, want ^a+$ and (", got)
	}
	if got["^a+$"].get("^a+$") == nil || got["("].get("(") != nil {
		t.Error("a constant pattern compiles, or a broken one does, not as regexp.Compile says")
	}
	ev := link(t, p, nil)
	for _, in := range []map[string]any{{"s": "aaa", "p": "^a"}, {"s": "ab", "p": "("}, {"s": 1, "p": "a"}, {"s": "", "p": 2}} {
		for _, ep := range []string{"p/ok", "p/bad", "p/dyn"} {
			if got, want := irOutcome(t, ev, ep, in), topdownOutcome(t, modules, ep, in); got != want {
				t.Errorf("%s on %v: %s, topdown %s", ep, in, got, want)
			}
		}
	}
}

// TestMatchPattern: a matcher given for a constant pattern answers the
// plan's regex.match calls with that pattern, and only those; a pattern
// the plan does not call with takes none.
func TestMatchPattern(t *testing.T) {
	prog, _ := encodeModules(t, map[string]string{"p.rego": `package p

r := [regex.match("^a+$", input.s), regex.match("^b+$", input.s)]
`}, "p/r")
	ev, err := prog.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	if !ev.MatchPattern("^a+$", func(s string) bool { asked = append(asked, s); return s == "given" }) {
		t.Fatal("the plan's pattern was not found")
	}
	if ev.MatchPattern("^c+$", func(string) bool { return true }) {
		t.Error("a pattern the plan does not use was taken")
	}
	in, _ := ast.InterfaceToValue(map[string]any{"s": "given"})
	rs, err := ev.Eval(context.Background(), "p/r", in)
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v, %d results", err, len(rs))
	}
	if got := rs[0].String(); got != "[true, false]" || len(asked) != 1 || asked[0] != "given" {
		t.Errorf("result %s, matcher asked %q", got, asked)
	}
}
