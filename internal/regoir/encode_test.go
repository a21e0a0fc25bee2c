package regoir

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
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
	if dec.Frames != prog.Frames || dec.Consts != prog.Consts || dec.Memos != prog.Memos {
		t.Errorf("frames, constants, memos %d %d %d, want %d %d %d", dec.Frames, dec.Consts, dec.Memos, prog.Frames, prog.Consts, prog.Memos)
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

func bindOrFail(t testing.TB, p *Program) *Evaluator {
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
}

// FuzzDecode: bytes decode to an error or to a program that evaluates
// without a panic.
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
		in, _ := ast.InterfaceToValue(map[string]any{"x": "npx", "xs": []any{"a", 1}, "o": map[string]any{"k": true}})
		for _, plan := range p.Plans {
			_, _ = ev.Eval(context.Background(), plan.Name, in)
		}
	})
}
