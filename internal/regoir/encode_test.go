package regoir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// encodeModules is the encoding of the linked plan of the modules.
func encodeModules(t testing.TB, modules map[string]string, entrypoints ...string) (*Program, []byte) {
	t.Helper()
	prog, err := Link(planModules(t, modules, entrypoints...))
	if err != nil {
		t.Fatal(err)
	}
	b, err := prog.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return prog, b
}

var encodeTestModules = map[string]string{"p.rego": `package p

launchers := {"npx", "uvx"}

v contains "launcher" if input.x in launchers

v contains sprintf("%s at %d", [x, i]) if some i, x in input.xs

v contains y if {
	some k, y in input.o
	not startswith(k, "_")
}

w := {"n": count(input.xs) + 1.5, "t": true, "f": false, "z": null} if input.x == "npx"
else := "none"
`}

// TestEncodeRoundTrip: a decoded program encodes to the same bytes and
// evaluates as the program it was encoded from.
func TestEncodeRoundTrip(t *testing.T) {
	prog, b := encodeModules(t, encodeTestModules, "p/v", "p/w")
	dec, err := Decode(string(b))
	if err != nil {
		t.Fatal(err)
	}
	again, err := dec.MarshalBinary()
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("the decoded program encodes differently (%v)", err)
	}
	want := prog.Image()
	if err := want.check(); err != nil {
		t.Fatal(err)
	}
	if dec.Frames != want.Frames || dec.Consts != want.Consts || dec.Memos != want.Memos {
		t.Errorf("frames, constants, memos %d %d %d, want %d %d %d", dec.Frames, dec.Consts, dec.Memos, want.Frames, want.Consts, want.Memos)
	}
	linked, decoded := link(t, planModules(t, encodeTestModules, "p/v", "p/w"), nil), bindOrFail(t, dec)
	for _, raw := range []string{`{"x": "npx", "xs": ["a", "b"], "o": {"_h": 1, "k": 2}}`, `{"x": "q"}`, `{}`} {
		var in any
		if err := json.Unmarshal([]byte(raw), &in); err != nil {
			t.Fatal(err)
		}
		for _, e := range []string{"p/v", "p/w"} {
			if got, want := irOutcome(t, decoded, e, in), irOutcome(t, linked, e, in); got != want {
				t.Errorf("%s on %s: decoded %s, linked %s", e, raw, got, want)
			}
		}
	}
}

func bindOrFail(t testing.TB, p *Image) *Evaluator {
	t.Helper()
	ev, err := p.Bind(nil)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestDecodeRefuses: every truncation of an encoding, and programs that
// would read out of bounds, are errors.
func TestDecodeRefuses(t *testing.T) {
	_, b := encodeModules(t, encodeTestModules, "p/v", "p/w")
	for n := range len(b) {
		if _, err := Decode(string(b[:n])); err == nil {
			t.Fatalf("the first %d of %d bytes decoded", n, len(b))
		}
	}
	if _, err := Decode(string(b) + "\x00"); err == nil {
		t.Error("a trailing byte decoded")
	}
	for name, breakIt := range map[string]func(p *Program){
		"a call out of range": func(p *Program) {
			visitAll(p, func(s *Stmt) {
				if s.Op == OpCall {
					s.N = int32(len(p.Funcs))
				}
			})
		},
		"a local out of range": func(p *Program) { p.Plans[0].Blocks[0][0].Target = p.Plans[0].Locals },
		"a scan without its body": func(p *Program) {
			visitAll(p, func(s *Stmt) {
				if s.Op == OpScan {
					s.Blocks = nil
				}
			})
		},
		"a constant out of range": func(p *Program) { p.Consts = 0 },
		"recursion": func(p *Program) {
			p.Funcs[0].Blocks = append(p.Funcs[0].Blocks, Block{{Op: OpCall, N: 0, Args: []Operand{{Local: 0}, {Local: 1}}}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			bad, err := Link(planModules(t, encodeTestModules, "p/v", "p/w"))
			if err != nil {
				t.Fatal(err)
			}
			breakIt(bad)
			enc, err := bad.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Decode(string(enc)); err == nil {
				t.Error("decoded")
			}
		})
	}
	// What the layout never makes: spans that share or leave the arrays,
	// a block inside itself, blocks nested deeper than maxDepth.
	firstOp := func(im *Image, ops ...Op) *Instr {
		for i := range im.Stmts {
			for _, op := range ops {
				if im.Stmts[i].Op == op {
					return &im.Stmts[i]
				}
			}
		}
		t.Fatalf("no %v", ops)
		return nil
	}
	for name, breakIt := range map[string]func(im *Image){
		"a block in two places": func(im *Image) { im.Plans[1].Blocks = im.Plans[0].Blocks },
		"a block inside itself": func(im *Image) {
			s := firstOp(im, OpScan)
			s.Sub.Start = im.Plans[0].Blocks.Start
		},
		"statements in two blocks": func(im *Image) { im.Blocks[1] = im.Blocks[0] },
		"an argument in two places": func(im *Image) {
			a, b := firstOp(im, OpCall, OpCallBuiltin), &Instr{}
			for i := range im.Stmts {
				if s := &im.Stmts[i]; s != a && s.Sub.Len > 0 && hasArgs(s.Op) {
					b = s
				}
			}
			b.Sub = a.Sub
		},
		"an argument that is nowhere": func(im *Image) { im.Args = append(im.Args, 0) },
		"blocks past the end":         func(im *Image) { im.Plans[0].Blocks.Len = int32(len(im.Blocks)) + 1 },
		"statements past the end":     func(im *Image) { im.Blocks[0].Len = int32(len(im.Stmts)) + 1 },
		"a negative span":             func(im *Image) { im.Blocks[0].Start = -1 },
		"a constant out of range": func(im *Image) {
			s := firstOp(im, OpEqual, OpAssignConst)
			s.A = ^Ref(len(im.Terms))
		},
		"arguments on a statement that has none": func(im *Image) {
			s := firstOp(im, OpAssignVar, OpDot)
			s.Sub = Span{Start: 0, Len: 1}
		},
		"blocks nested too deep": func(im *Image) {
			// A plan of one statement: a block around a block... maxDepth+1
			// times, each laid out after the one it is in.
			first := int32(len(im.Blocks))
			for i := range maxDepth + 2 {
				b := int32(len(im.Blocks))
				im.Blocks = append(im.Blocks, Span{Start: int32(len(im.Stmts)), Len: 1})
				if i == maxDepth+1 {
					im.Stmts = append(im.Stmts, Instr{Op: OpNop})
					break
				}
				im.Stmts = append(im.Stmts, Instr{Op: OpBlock, Sub: Span{Start: b + 1, Len: 1}})
			}
			im.Plans = append(im.Plans, Func{Name: "deep", Ret: -1, Memo: -1, Locals: 2, Blocks: Span{Start: first, Len: 1}})
		},
	} {
		t.Run(name, func(t *testing.T) {
			prog, err := Link(planModules(t, encodeTestModules, "p/v", "p/w"))
			if err != nil {
				t.Fatal(err)
			}
			im := prog.Image()
			if err := im.check(); err != nil {
				t.Fatal(err)
			}
			breakIt(im)
			enc, err := im.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Decode(string(enc)); err == nil {
				t.Error("decoded")
			}
			im.checked = false
			if _, err := im.Bind(nil); err == nil {
				t.Error("bound")
			}
		})
	}
}

func visitAll(p *Program, f func(*Stmt)) {
	for i := range p.Plans {
		visit(p.Plans[i].Blocks, f)
	}
	for i := range p.Funcs {
		visit(p.Funcs[i].Blocks, f)
	}
}

// FuzzDecode: bytes decode to an error or to a program that evaluates
// without a panic (with cyclic values refused: Evaluator.acyclic, and a
// deadline for the scans of a collection a hostile program grows as it
// scans it).
func FuzzDecode(f *testing.F) {
	_, b := encodeModules(f, encodeTestModules, "p/v", "p/w")
	f.Add(b)
	f.Add([]byte(encodingMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(string(data))
		if err != nil {
			return
		}
		ev, err := p.Bind(nil)
		if err != nil {
			return
		}
		ev.acyclic = true
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		in, _ := ast.InterfaceToValue(map[string]any{"x": "npx", "xs": []any{"a", 1}, "o": map[string]any{"k": true}})
		for _, plan := range p.Plans {
			_, _ = ev.Eval(ctx, plan.Name, in)
		}
	})
}

// TestErrorLocations: an error says where in the policy it happened, the
// same from a linked program and from its decoding (the locations are
// records read when an error needs one).
func TestErrorLocations(t *testing.T) {
	modules := map[string]string{"p.rego": `package p

x := 1 if input.a

x := 2 if input.b

y := to_number(input.s)
`}
	prog, enc := encodeModules(t, modules, "p/x", "p/y")
	dec, err := Decode(string(enc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		entrypoint, input string
		row               int
	}{
		{"p/x", `{"a": true, "b": true}`, 5},
		{"p/y", `{"s": "abc"}`, 7},
	} {
		in := ast.MustParseTerm(c.input).Value
		for name, ev := range map[string]*Evaluator{"linked": bindOrFail(t, prog.Image()), "decoded": bindOrFail(t, dec)} {
			_, err := ev.Eval(context.Background(), c.entrypoint, in)
			var te *topdown.Error
			if !errors.As(err, &te) || te.Location == nil || !strings.HasSuffix(te.Location.File, "p.rego") || te.Location.Row != c.row {
				t.Errorf("%s %s: %v, want an error at p.rego:%d", name, c.entrypoint, err, c.row)
			}
		}
	}
}

// TestImageOfAnyConstant: a program whose constants are not scalars (made
// by hand: Link makes none) lays out without hashing them, each its own
// term; scalars equal in value share one.
func TestImageOfAnyConstant(t *testing.T) {
	ref := &ast.Term{Value: ast.MustParseRef("data.x")} // not comparable
	prog := &Program{Plans: []Function{{Name: "p", Ret: -1, Memo: -1, Locals: 3, Blocks: []Block{{
		{Op: OpAssignConst, Target: 2, A: Operand{Const: ref}},
		{Op: OpAssignConst, Target: 2, A: Operand{Const: ref}},
		{Op: OpAssignConst, Target: 2, A: Operand{Const: ast.StringTerm("s")}},
		{Op: OpAssignConst, Target: 2, A: Operand{Const: ast.StringTerm("s")}},
	}}}}}
	im := prog.Image()
	if len(im.Terms) != 3 {
		t.Fatalf("%d terms, want the two references apart and one string", len(im.Terms))
	}
}

// TestCheckBoundsTheStack: a chain of calls whose locals add up past
// maxFrames (an evaluation's stack, made at once) is refused; one just
// under it is not.
func TestCheckBoundsTheStack(t *testing.T) {
	chain := func(n int) *Program {
		p := &Program{Plans: []Function{{Name: "p", Ret: -1, Memo: -1, Locals: 3, Blocks: []Block{{
			{Op: OpCall, Target: 2, N: 0, Args: []Operand{{Local: 0}, {Local: 1}}},
		}}}}}
		for i := range n {
			fn := Function{Name: fmt.Sprint("f", i), Params: []int32{0, 1}, Ret: 2, Memo: -1, Locals: maxLocals}
			if i+1 < n {
				fn.Blocks = []Block{{{Op: OpCall, Target: 2, N: int32(i + 1), Args: []Operand{{Local: 0}, {Local: 1}}}}}
			}
			p.Funcs = append(p.Funcs, fn)
		}
		return p
	}
	under := maxFrames/maxLocals - 1 // the plan's own locals come on top
	if err := chain(under).Image().check(); err != nil {
		t.Errorf("%d functions of %d locals: %v", under, maxLocals, err)
	}
	if err := chain(under + 2).Image().check(); err == nil || !strings.Contains(err.Error(), "chains of calls") {
		t.Errorf("%d functions of %d locals: %v, want the stack refused", under+2, maxLocals, err)
	}
}
