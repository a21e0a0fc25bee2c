package policy

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

var update = flag.Bool("update", false, "rewrite shipped.snapshot and golden files")

// compileShippedGroups compiles every shipped group from its sources, as the
// engine does without a snapshot.
func compileShippedGroups(t testing.TB) map[string]*compiledGroup {
	t.Helper()
	bs := builtins()
	out := map[string]*compiledGroup{}
	for _, group := range []string{groupVerdict, groupRules, groupTools} {
		mods, err := groupSources(group)
		if err != nil {
			t.Fatal(err)
		}
		c, err := compileModules(mods, bs, false, false)
		if err != nil {
			t.Fatal(err)
		}
		out[group] = &compiledGroup{modules: c.Modules, rewritten: c.RewrittenVars, comprehensionIndices: hasComprehensionIndex(c)}
	}
	return out
}

// hasComprehensionIndex reports whether the compiler indexed a comprehension
// of its modules.
func hasComprehensionIndex(c *ast.Compiler) bool {
	found := false
	for _, m := range c.Modules {
		ast.WalkTerms(m, func(x *ast.Term) bool {
			switch x.Value.(type) {
			case *ast.ArrayComprehension, *ast.SetComprehension, *ast.ObjectComprehension:
				found = found || c.ComprehensionIndex(x) != nil
			}
			return found
		})
	}
	return found
}

// TestShippedSnapshot keeps shipped.snapshot in step with the shipped Rego:
// it compiles the sources and compares the encoding with the file built in
// (go test ./policy -run TestShippedSnapshot -update rewrites it).
func TestShippedSnapshot(t *testing.T) {
	digest, err := shippedDigest()
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeSnapshot(compileShippedGroups(t), digest)
	if err != nil {
		t.Fatal(err)
	}
	// Compiling is deterministic, or the comparison below means nothing.
	again, err := encodeSnapshot(compileShippedGroups(t), digest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, again) {
		t.Fatal("two compilations of the shipped policies encode differently")
	}
	if *update {
		if err := os.WriteFile("shipped.snapshot", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(want, shippedSnapshot) {
		t.Fatal("shipped.snapshot is stale: run go test ./policy -run TestShippedSnapshot -update")
	}
	if loadSnapshot() == nil {
		t.Fatal("the built-in snapshot does not load")
	}
}

// TestSnapshotRoundTrip: decoding the snapshot gives modules equal to a
// fresh compilation, the same rewritten variables, and locations; encoding
// the decoded modules again gives the same bytes.
// TestSnapshotKeepsComprehensionIndices: a group whose compilation indexes a
// comprehension records it, and the compiler built from its snapshot builds
// the index again (the shipped groups have none, so they skip that stage).
func TestSnapshotKeepsComprehensionIndices(t *testing.T) {
	m := ast.MustParseModuleWithOpts(`package x

p contains x if {
	some x in input.xs
	ys := [y | some y in input.ys; y.k == x]
	count(ys) > 0
}
`, ast.ParserOptions{RegoVersion: ast.RegoV1})
	bs := builtins()
	c, err := compileModules(map[string]*ast.Module{"x.rego": m}, bs, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if !hasComprehensionIndex(c) {
		t.Fatal("OPA indexed no comprehension: the test module does not test the flag")
	}
	enc, err := encodeSnapshot(map[string]*compiledGroup{"x": {modules: c.Modules, rewritten: c.RewrittenVars, comprehensionIndices: true}}, [32]byte{})
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := decodeSnapshot(enc)
	if err != nil {
		t.Fatal(err)
	}
	g, err := snap.group("x")
	if err != nil || !g.comprehensionIndices {
		t.Fatalf("decoded group: %v, flag %v", err, g != nil && g.comprehensionIndices)
	}
	loaded, err := g.compiler(bs)
	if err != nil {
		t.Fatal(err)
	}
	if !hasComprehensionIndex(loaded) {
		t.Error("the compiler loaded from the snapshot built no comprehension index")
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	fresh := compileShippedGroups(t)
	snap, digest, err := decodeSnapshot(shippedSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.groups) != len(fresh) {
		t.Fatalf("snapshot has %d groups, want %d", len(snap.groups), len(fresh))
	}
	groups := map[string]*compiledGroup{}
	for name, want := range fresh {
		got, err := snap.group(name)
		if err != nil || got == nil {
			t.Fatalf("group %s: %v", name, err)
		}
		groups[name] = got
		if len(got.modules) != len(want.modules) {
			t.Fatalf("group %s: %d modules, want %d", name, len(got.modules), len(want.modules))
		}
		for path, wm := range want.modules {
			gm := got.modules[path]
			if gm == nil || !gm.Equal(wm) || gm.String() != wm.String() {
				t.Errorf("group %s: module %s differs from a fresh compilation", name, path)
				continue
			}
			if wl, gl := moduleLocations(wm), moduleLocations(gm); !slices.Equal(wl, gl) {
				t.Errorf("group %s: module %s: locations differ", name, path)
			}
		}
		if fmt.Sprint(sortedVars(got.rewritten)) != fmt.Sprint(sortedVars(want.rewritten)) {
			t.Errorf("group %s: rewritten variables differ", name)
		}
	}
	again, err := encodeSnapshot(groups, digest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, shippedSnapshot) {
		t.Error("re-encoding the decoded snapshot changes it")
	}
}

// TestToolsPolicySnapshot: the tools policy loaded from the snapshot and
// compiled from its sources give the same results. (The verdict and rules
// groups are compared over the oracle corpus and generated machines in the
// scanner's tests.)
func TestToolsPolicySnapshot(t *testing.T) {
	ctx := context.Background()
	snap, err := NewToolsPolicy(ctx, ToolsPolicyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NewToolsPolicy(ctx, ToolsPolicyOptions{FromSources: true})
	if err != nil {
		t.Fatal(err)
	}
	tools := []any{
		map[string]any{"name": "executeCode", "pointer": "/tools/0"},
		map[string]any{"name": "runShell", "pointer": "/tools/1"},
		map[string]any{"name": "", "pointer": "/tools/2"},
		map[string]any{"name": "getDiagnostics", "pointer": "/tools/3"},
	}
	inputs := []map[string]any{
		{"server": map[string]any{"name": "ide", "ide": false}, "tools": tools},
		{"server": map[string]any{"name": "other", "ide": true}, "tools": tools},
		{"server": map[string]any{"name": "other", "ide": false}, "tools": tools},
		{"server": map[string]any{"name": "ide"}, "tools": []any{}},
	}
	found := 0
	for i, in := range inputs {
		a, errA := snap.Eval(ctx, in)
		b, errB := ref.Eval(ctx, in)
		if fmt.Sprint(errA) != fmt.Sprint(errB) || fmt.Sprintf("%+v", a) != fmt.Sprintf("%+v", b) {
			t.Errorf("input %d: snapshot %+v (%v), sources %+v (%v)", i, a, errA, b, errB)
		}
		found += len(a)
	}
	if found == 0 {
		t.Fatal("no tool findings: the comparison tested nothing")
	}
}

func sortedVars(m map[ast.Var]ast.Var) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, string(k)+"="+string(v))
	}
	sort.Strings(out)
	return out
}

// moduleLocations lists every node's location in walk order.
func moduleLocations(m *ast.Module) []string {
	var out []string
	ast.NewGenericVisitor(func(x any) bool {
		var loc *ast.Location
		switch n := x.(type) {
		case *ast.Term:
			loc = n.Location
		case *ast.Expr:
			loc = n.Location
		case *ast.Rule:
			loc = n.Location
		case *ast.Head:
			loc = n.Location
		case *ast.With:
			loc = n.Location
		case *ast.SomeDecl:
			loc = n.Location
		case *ast.Every:
			loc = n.Location
		case *ast.Package:
			loc = n.Location
		default:
			return false
		}
		if loc == nil {
			out = append(out, "-")
		} else {
			out = append(out, fmt.Sprintf("%s:%d:%d", loc.File, loc.Row, loc.Col))
		}
		return false
	}).Walk(m)
	return out
}

// FuzzDecodeSnapshot: a corrupt snapshot is an error, never a panic or an
// unbounded allocation.
func FuzzDecodeSnapshot(f *testing.F) {
	// A whole snapshot is too large a seed for the fuzzer to mutate
	// usefully; the tools group alone is a small valid one.
	small, err := encodeSnapshot(map[string]*compiledGroup{groupTools: compileShippedGroups(f)[groupTools]}, [32]byte{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Add(shippedSnapshot[:200])
	f.Add([]byte(snapshotMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		snap, _, err := decodeSnapshot(b)
		if err != nil {
			if snap != nil {
				t.Fatal("snapshot returned with an error")
			}
			return
		}
		for name := range snap.groups {
			if g, err := snap.group(name); (g == nil) == (err == nil) {
				t.Fatalf("group %s: %v and %v", name, g, err)
			}
		}
	})
}

// locKey is what the snapshot keeps of a location.
type locKey struct {
	File     string
	Row, Col int
}

// snapshotWriter encodes compiled groups; the inverse of snapshotReader.
type snapshotWriter struct {
	out     []byte
	strs    map[string]int
	strList []string
	locs    map[locKey]int
	locList []locKey
	err     error
}

func encodeSnapshot(groups map[string]*compiledGroup, digest [32]byte) ([]byte, error) {
	w := &snapshotWriter{strs: map[string]int{}, locs: map[locKey]int{}}
	names := make([]string, 0, len(groups))
	for name := range groups {
		names = append(names, name)
	}
	sort.Strings(names)
	w.uvarint(len(names))
	for _, name := range names {
		g := groups[name]
		w.str(name)
		// Each group is preceded by its length, so that a command decodes
		// only the groups it uses.
		outer := w.out
		w.out = nil
		if g.comprehensionIndices {
			w.byte(1)
		} else {
			w.byte(0)
		}
		vars := make([]ast.Var, 0, len(g.rewritten))
		for k := range g.rewritten {
			vars = append(vars, k)
		}
		slices.Sort(vars)
		w.uvarint(len(vars))
		for _, k := range vars {
			w.str(string(k))
			w.str(string(g.rewritten[k]))
		}
		paths := make([]string, 0, len(g.modules))
		for p := range g.modules {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		w.uvarint(len(paths))
		for _, p := range paths {
			w.str(p)
			w.module(g.modules[p])
		}
		body := w.out
		w.out = binary.AppendUvarint(outer, uint64(len(body)))
		w.out = append(w.out, body...)
	}
	if w.err != nil {
		return nil, w.err
	}
	out := []byte(snapshotMagic)
	out = binary.AppendUvarint(out, snapshotVersion)
	out = append(out, digest[:]...)
	out = binary.AppendUvarint(out, uint64(len(w.strList)))
	for _, s := range w.strList {
		out = binary.AppendUvarint(out, uint64(len(s)))
	}
	for _, s := range w.strList {
		out = append(out, s...)
	}
	// The location table refers to strings, so it is encoded after them but
	// built before: its file names are already in the table.
	var locs []byte
	locs = binary.AppendUvarint(locs, uint64(len(w.locList)))
	for _, l := range w.locList {
		locs = binary.AppendUvarint(locs, uint64(w.strs[l.File]))
		locs = binary.AppendUvarint(locs, uint64(l.Row))
		locs = binary.AppendUvarint(locs, uint64(l.Col))
	}
	out = append(out, locs...)
	return append(out, w.out...), nil
}

func (w *snapshotWriter) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("encode snapshot: "+format, args...)
	}
}

func (w *snapshotWriter) uvarint(n int) { w.out = binary.AppendUvarint(w.out, uint64(n)) }

func (w *snapshotWriter) byte(b byte) { w.out = append(w.out, b) }

func (w *snapshotWriter) str(s string) {
	i, ok := w.strs[s]
	if !ok {
		i = len(w.strList)
		w.strs[s] = i
		w.strList = append(w.strList, s)
	}
	w.uvarint(i)
}

func (w *snapshotWriter) loc(l *ast.Location) {
	if l == nil {
		w.uvarint(0)
		return
	}
	key := locKey{File: l.File, Row: l.Row, Col: l.Col}
	i, ok := w.locs[key]
	if !ok {
		i = len(w.locList)
		w.locs[key] = i
		w.locList = append(w.locList, key)
		if _, ok := w.strs[l.File]; !ok {
			w.strs[l.File] = len(w.strList)
			w.strList = append(w.strList, l.File)
		}
	}
	w.uvarint(i + 1)
}

func (w *snapshotWriter) module(m *ast.Module) {
	if len(m.Imports) > 0 {
		w.fail("module %s keeps imports after compiling", m.Package)
	}
	if m.RegoVersionSpan() != ast.RegoVersionSpanOf(ast.RegoV1) {
		w.fail("module %s is not Rego v1", m.Package)
	}
	w.loc(m.Package.Location)
	w.terms(m.Package.Path)
	w.uvarint(len(m.Rules))
	for _, r := range m.Rules {
		w.rule(r)
	}
}

func (w *snapshotWriter) rule(r *ast.Rule) {
	var flags byte
	if r.Default {
		flags |= flagDefault
	}
	if r.Else != nil {
		flags |= flagElse
	}
	w.byte(flags)
	w.loc(r.Location)
	w.head(r.Head)
	w.body(r.Body)
	if r.Else != nil {
		w.rule(r.Else)
	}
}

func (w *snapshotWriter) head(h *ast.Head) {
	var flags byte
	if h.Assign {
		flags |= flagAssign
	}
	if h.Key != nil {
		flags |= flagKey
	}
	if h.Value != nil {
		flags |= flagValue
	}
	w.byte(flags)
	w.loc(h.Location)
	w.str(string(h.Name))
	w.terms(h.Reference)
	w.terms(h.Args)
	if h.Key != nil {
		w.term(h.Key)
	}
	if h.Value != nil {
		w.term(h.Value)
	}
}

func (w *snapshotWriter) body(b ast.Body) {
	w.uvarint(len(b))
	for _, e := range b {
		w.expr(e)
	}
}

func (w *snapshotWriter) expr(e *ast.Expr) {
	var flags byte
	if e.Generated {
		flags |= flagGenerated
	}
	if e.Negated {
		flags |= flagNegated
	}
	w.byte(flags)
	w.uvarint(e.Index)
	w.loc(e.Location)
	switch ts := e.Terms.(type) {
	case *ast.Term:
		w.byte(exprTerm)
		w.term(ts)
	case []*ast.Term:
		w.byte(exprCall)
		w.terms(ts)
	case *ast.SomeDecl:
		w.byte(exprSome)
		w.loc(ts.Location)
		w.terms(ts.Symbols)
	case *ast.Every:
		w.byte(exprEvery)
		w.loc(ts.Location)
		w.optTerm(ts.Key)
		w.optTerm(ts.Value)
		w.term(ts.Domain)
		w.body(ts.Body)
	default:
		w.fail("expression %v: unknown terms %T", e, e.Terms)
	}
	w.uvarint(len(e.With))
	for _, with := range e.With {
		w.loc(with.Location)
		w.term(with.Target)
		w.term(with.Value)
	}
}

func (w *snapshotWriter) terms(ts []*ast.Term) {
	w.uvarint(len(ts))
	for _, t := range ts {
		w.term(t)
	}
}

func (w *snapshotWriter) optTerm(t *ast.Term) {
	if t == nil {
		w.byte(0)
		return
	}
	w.byte(1)
	w.term(t)
}

func (w *snapshotWriter) term(t *ast.Term) {
	w.loc(t.Location)
	switch v := t.Value.(type) {
	case ast.Null:
		w.byte(tagNull)
	case ast.Boolean:
		if v {
			w.byte(tagTrue)
		} else {
			w.byte(tagFalse)
		}
	case ast.Number:
		w.byte(tagNumber)
		w.str(string(v))
	case ast.String:
		w.byte(tagString)
		w.str(string(v))
	case ast.Var:
		w.byte(tagVar)
		w.str(string(v))
	case ast.Ref:
		w.byte(tagRef)
		w.terms(v)
	case *ast.Array:
		w.byte(tagArray)
		w.uvarint(v.Len())
		for i := range v.Len() {
			w.term(v.Elem(i))
		}
	case ast.Object:
		w.byte(tagObject)
		w.uvarint(v.Len())
		for _, k := range v.Keys() { // insertion order
			w.term(k)
			w.term(v.Get(k))
		}
	case ast.Set:
		w.byte(tagSet)
		w.terms(v.Slice())
	case ast.Call:
		w.byte(tagCall)
		w.terms(v)
	case *ast.ArrayComprehension:
		w.byte(tagArrayComprehension)
		w.term(v.Term)
		w.body(v.Body)
	case *ast.ObjectComprehension:
		w.byte(tagObjectComprehension)
		w.term(v.Key)
		w.term(v.Value)
		w.body(v.Body)
	case *ast.SetComprehension:
		w.byte(tagSetComprehension)
		w.term(v.Term)
		w.body(v.Body)
	default:
		w.fail("term %v: unsupported value %T", t, t.Value)
	}
}
