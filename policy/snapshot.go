package policy

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the compiled shipped policies
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	opaversion "github.com/open-policy-agent/opa/v1/version"

	bundled "github.com/mcpguard/mcpguard/rego"
)

// The shipped policies are compiled when mcpguard is built, not on every run.
//
// Parsing and compiling ~30 KB of shipped Rego was seven tenths of a one-file
// scan (docs/performance.md). shipped.snapshot holds the modules of each
// shipped group as OPA's compiler leaves them (rewritten, imports removed,
// bodies reordered for safety) and the compiler's map of rewritten variables.
// At run time they are decoded and given to a compiler that runs only the
// stages that build what evaluation looks up — the module and rule trees, rule
// indices, and comprehension indices when compiling the sources built any —
// so evaluation sees the same modules and the same indices as a full compile
// of the sources.
//
// The snapshot records a digest of the sources, the OPA version and its own
// format; when they do not match what is built in (the Rego was edited and the
// snapshot not regenerated) the engine parses and compiles the sources as
// before. TestShippedSnapshot fails in that case and regenerates it with
// -update; the differential tests compare both paths.
//
//go:generate go test -run TestShippedSnapshot -update
//go:embed shipped.snapshot
var shippedSnapshot []byte

const (
	snapshotMagic   = "mcpguard compiled rego\x00"
	snapshotVersion = 2
)

// Shipped module groups: each compiles apart.
const (
	groupVerdict = "verdict" // main, claude, policy and the generated custom index (custom rules join it)
	groupRules   = "rules"   // hygiene and weakness rules
	groupTools   = "tools"   // the proxy's tools policy
	// groupPlan is only planned (entryServer joins the other groups'
	// queries); topdown evaluates those queries apart.
	groupPlan = "plan"
)

// shippedGroup returns the group of a shipped policy file.
func shippedGroup(path string) string {
	switch {
	case strings.HasPrefix(path, "mcpguard/tools/"):
		return groupTools
	case strings.HasPrefix(path, "mcpguard/hygiene/"), strings.HasPrefix(path, "mcpguard/weakness/"):
		return groupRules
	case strings.HasPrefix(path, "mcpguard/plan/"):
		return groupPlan
	default:
		return groupVerdict
	}
}

// generatedIndexPath names the generated module that gathers custom rules.
const generatedIndexPath = "mcpguard/generated/custom.rego"

// evalStages are the compiler stages evaluation depends on once the modules
// are compiled: everything else rewrites or checks modules, which the
// snapshot holds already rewritten and checked.
// (The dependency graph, StageSetGraph, serves only the recursion and type
// checks.)
var evalStages = []ast.StageID{
	ast.StageInitLocalVarGen, ast.StageSetModuleTree, ast.StageSetRuleTree,
	ast.StageBuildRuleIndices, ast.StageBuildComprehensionIndices,
}

// snapshot is the decoded header of a snapshot: its tables, and each group's
// encoding, decoded when a command needs that group.
type snapshot struct {
	strs   []string
	locs   []*ast.Location
	groups map[string][]byte
}

// group decodes one group; nil if the snapshot does not have it.
func (s *snapshot) group(name string) (*compiledGroup, error) {
	if s == nil || s.groups[name] == nil {
		return nil, nil
	}
	r := &snapshotReader{b: s.groups[name], strs: s.strs, locs: s.locs}
	g := r.group()
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return nil, fmt.Errorf("load compiled policies: %w", r.err)
	}
	return g, nil
}

// compiledGroup is one group of the snapshot.
type compiledGroup struct {
	modules   map[string]*ast.Module
	rewritten map[ast.Var]ast.Var
	// comprehensionIndices is set when compiling the sources indexed a
	// comprehension of the group. Building the indices walks every rule (a
	// fifth of loading a group), so a group with none skips that stage.
	comprehensionIndices bool
}

// compiler returns a compiler holding the group, having run only evalStages.
// The compiler takes the group's modules: compile a group once.
func (g *compiledGroup) compiler(bs []builtin) (*ast.Compiler, error) {
	var skip []ast.StageID
	for _, s := range ast.AllStages() {
		if !slices.Contains(evalStages, s) || s == ast.StageBuildComprehensionIndices && !g.comprehensionIndices {
			skip = append(skip, s)
		}
	}
	c := ast.NewCompiler().
		WithCapabilities(capabilities(bs)).
		WithDefaultRegoVersion(ast.RegoV1).
		WithSkipStages(skip...)
	// Before Compile: the comprehension indices read it.
	for k, v := range g.rewritten {
		c.RewrittenVars[k] = v
	}
	// Compile copies every module it is given, a third of loading a group,
	// to keep the caller's. These were decoded for this compiler alone: it
	// is given empty stand-ins and takes the modules themselves in a stage
	// of its own, before any stage that reads them.
	stand := make(map[string]*ast.Module, len(g.modules))
	for k, m := range g.modules {
		stand[k] = &ast.Module{Package: m.Package}
	}
	c.WithStageAfterID(ast.StageInitLocalVarGen, ast.CompilerStageDefinition{
		Name: "mcpguard_take_modules", MetricName: "compile_stage_mcpguard_take_modules",
		Stage: func(c *ast.Compiler) *ast.Error {
			maps.Copy(c.Modules, g.modules)
			return nil
		},
	})
	c.Compile(stand)
	if c.Failed() {
		return nil, fmt.Errorf("load compiled policies: %w", c.Errors)
	}
	return c, nil
}

// shippedDigest identifies what a snapshot was compiled from: every shipped
// policy file (path and content), the OPA version and the snapshot format.
func shippedDigest() ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s%d\x00%s\x00", snapshotMagic, snapshotVersion, opaversion.Version)
	fsys := bundled.FS()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || strings.HasSuffix(path, "_test.rego") {
			return err
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(src))
		h.Write(src)
		return nil
	})
	var sum [32]byte
	if err != nil {
		return sum, fmt.Errorf("digest shipped policies: %w", err)
	}
	h.Sum(sum[:0])
	return sum, nil
}

// loadSnapshot decodes the built-in snapshot if it was compiled from the
// built-in sources; otherwise it returns nil and the caller compiles them.
func loadSnapshot() *snapshot {
	want, err := shippedDigest()
	if err != nil {
		return nil
	}
	snap, digest, err := decodeSnapshot(shippedSnapshot)
	if err != nil || digest != want {
		return nil
	}
	return snap
}

// Value tags of the snapshot encoding.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagNumber
	tagString
	tagVar
	tagRef
	tagArray
	tagObject
	tagSet
	tagCall
	tagArrayComprehension
	tagObjectComprehension
	tagSetComprehension
)

// Expression kinds (what Expr.Terms holds).
const (
	exprTerm byte = iota
	exprCall
	exprSome
	exprEvery
)

// Flag bits of rules, heads and expressions.
const (
	flagDefault   = 1 << iota // rule
	flagElse                  // rule has an else branch
	flagAssign                // head uses :=
	flagKey                   // head has a key
	flagValue                 // head has a value
	flagGenerated             // expression
	flagNegated               // expression
)

// errSnapshot is a snapshot that does not decode.
var errSnapshot = errors.New("malformed compiled policy snapshot")

// maxSnapshotDepth bounds the nesting of terms and bodies so that a corrupt
// snapshot cannot exhaust the stack.
const maxSnapshotDepth = 256

// snapshotReader decodes the snapshot. Every read checks the remaining bytes;
// the first failure sticks in err and later reads return zero values.
type snapshotReader struct {
	b     []byte
	err   error
	depth int
	strs  []string
	locs  []*ast.Location
	// A group has thousands of terms, expressions and term lists: they are
	// allocated in blocks, and the string and variable values, which are
	// immutable, once per distinct string (a value stored in an interface
	// is otherwise an allocation of its own).
	terms []ast.Term
	exprs []ast.Expr
	lists []*ast.Term
	vars  []ast.Value // by string index
	texts []ast.Value // by string index
}

// newTerm returns a zero term from the current block.
func (r *snapshotReader) newTerm() *ast.Term { return fromBlock(&r.terms, 256) }

// newExpr returns a zero expression from the current block.
func (r *snapshotReader) newExpr() *ast.Expr { return fromBlock(&r.exprs, 128) }

// fromBlock returns the next zero value of *block, which it replaces with a
// new block of n once used up.
func fromBlock[T any](block *[]T, n int) *T {
	if len(*block) == 0 {
		*block = make([]T, n)
	}
	v := &(*block)[0]
	*block = (*block)[1:]
	return v
}

// newList returns a term list of length n from the current block, with no
// room to grow into its neighbour.
func (r *snapshotReader) newList(n int) []*ast.Term {
	if n > len(r.lists) {
		r.lists = make([]*ast.Term, max(n, 512))
	}
	l := r.lists[:n:n]
	r.lists = r.lists[n:]
	return l
}

// boxedStr reads a string index and returns the value of that string as
// tag says (a string, a variable or a number); variables and strings are
// shared by every term that holds them.
func (r *snapshotReader) boxedStr(tag byte) ast.Value {
	i := r.int()
	if i >= len(r.strs) {
		r.fail()
		return ast.Null{}
	}
	var boxes *[]ast.Value
	switch tag {
	case tagNumber:
		return ast.Number(r.strs[i])
	case tagString:
		boxes = &r.texts
	default:
		boxes = &r.vars
	}
	if *boxes == nil {
		*boxes = make([]ast.Value, len(r.strs))
	}
	v := (*boxes)[i]
	if v == nil {
		if tag == tagString {
			v = ast.String(r.strs[i])
		} else {
			v = ast.Var(r.strs[i])
		}
		(*boxes)[i] = v
	}
	return v
}

// decodeSnapshot decodes the header and the string and location tables, and
// splits the groups apart.
func decodeSnapshot(b []byte) (*snapshot, [32]byte, error) {
	var digest [32]byte
	if !bytes.HasPrefix(b, []byte(snapshotMagic)) {
		return nil, digest, errSnapshot
	}
	r := &snapshotReader{b: b[len(snapshotMagic):]}
	if r.uvarint() != snapshotVersion || len(r.b) < len(digest) {
		return nil, digest, errSnapshot
	}
	copy(digest[:], r.b)
	r.b = r.b[len(digest):]
	r.stringTable()
	r.locationTable()
	snap := &snapshot{strs: r.strs, locs: r.locs, groups: map[string][]byte{}}
	for n := r.count(); n > 0 && r.err == nil; n-- {
		name := r.str()
		size := r.count()
		if r.err == nil && size > 0 {
			snap.groups[name] = r.b[:size:size]
			r.b = r.b[size:]
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail()
	}
	if r.err != nil {
		return nil, digest, r.err
	}
	return snap, digest, nil
}

// group reads a group: whether it has comprehension indices, the rewritten
// variables, then the modules by path.
func (r *snapshotReader) group() *compiledGroup {
	g := &compiledGroup{modules: map[string]*ast.Module{}, rewritten: map[ast.Var]ast.Var{}}
	switch r.byte() {
	case 0:
	case 1:
		g.comprehensionIndices = true
	default:
		r.fail()
	}
	for m := r.count(); m > 0 && r.err == nil; m-- {
		k := ast.Var(r.str())
		g.rewritten[k] = ast.Var(r.str())
	}
	for m := r.count(); m > 0 && r.err == nil; m-- {
		path := r.str()
		g.modules[path] = r.module()
	}
	return g
}

func (r *snapshotReader) fail() {
	if r.err == nil {
		r.err = errSnapshot
	}
	r.b = nil
}

func (r *snapshotReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *snapshotReader) int() int {
	v := r.uvarint()
	if v > 1<<31 {
		r.fail()
		return 0
	}
	return int(v)
}

// count reads a number of elements that follow; each takes at least one
// byte, so a count beyond the remaining bytes is corrupt (and would otherwise
// allocate without bound).
func (r *snapshotReader) count() int {
	n := r.int()
	if n > len(r.b) {
		r.fail()
		return 0
	}
	return n
}

func (r *snapshotReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *snapshotReader) stringTable() {
	n := r.count()
	lens := make([]int, n)
	total := 0
	for i := range lens {
		lens[i] = r.int()
		total += lens[i]
	}
	if r.err != nil || total > len(r.b) {
		r.fail()
		return
	}
	// One allocation for every string of the snapshot.
	all := string(r.b[:total])
	r.b = r.b[total:]
	r.strs = make([]string, n)
	off := 0
	for i, l := range lens {
		r.strs[i] = all[off : off+l]
		off += l
	}
}

func (r *snapshotReader) str() string {
	i := r.int()
	if i >= len(r.strs) {
		r.fail()
		return ""
	}
	return r.strs[i]
}

// locationTable reads the distinct locations; nodes refer to them by index
// and share them (locations are never modified after parsing).
func (r *snapshotReader) locationTable() {
	n := r.count()
	locs := make([]ast.Location, n)
	r.locs = make([]*ast.Location, n)
	for i := range locs {
		locs[i] = ast.Location{File: r.str(), Row: r.int(), Col: r.int()}
		r.locs[i] = &locs[i]
	}
}

// loc reads a location index: 0 is none, i is table entry i-1.
func (r *snapshotReader) loc() *ast.Location {
	i := r.int()
	if i == 0 {
		return nil
	}
	if i > len(r.locs) {
		r.fail()
		return nil
	}
	return r.locs[i-1]
}

func (r *snapshotReader) module() *ast.Module {
	m := &ast.Module{Package: &ast.Package{}}
	m.SetRegoVersionSpan(ast.RegoVersionSpanOf(ast.RegoV1))
	m.Package.Location = r.loc()
	m.Package.Path = r.ref()
	n := r.count()
	m.Rules = make([]*ast.Rule, 0, n)
	for ; n > 0 && r.err == nil; n-- {
		m.Rules = append(m.Rules, r.rule(m))
	}
	return m
}

func (r *snapshotReader) rule(m *ast.Module) *ast.Rule {
	if r.enter() {
		return nil
	}
	defer r.leave()
	flags := r.byte()
	rule := &ast.Rule{Module: m, Default: flags&flagDefault != 0, Location: r.loc()}
	rule.Head = r.head()
	rule.Body = r.body()
	if flags&flagElse != 0 {
		rule.Else = r.rule(m)
	}
	return rule
}

func (r *snapshotReader) head() *ast.Head {
	flags := r.byte()
	h := &ast.Head{Location: r.loc(), Name: ast.Var(r.str()), Assign: flags&flagAssign != 0}
	h.Reference = r.ref()
	if n := r.count(); n > 0 {
		h.Args = make(ast.Args, n)
		for i := range h.Args {
			h.Args[i] = r.term()
		}
	}
	if flags&flagKey != 0 {
		h.Key = r.term()
	}
	if flags&flagValue != 0 {
		h.Value = r.term()
	}
	return h
}

func (r *snapshotReader) body() ast.Body {
	n := r.count()
	body := make(ast.Body, 0, n)
	for ; n > 0 && r.err == nil; n-- {
		body = append(body, r.expr())
	}
	return body
}

func (r *snapshotReader) expr() *ast.Expr {
	flags := r.byte()
	e := r.newExpr()
	e.Index, e.Location, e.Generated, e.Negated = r.int(), r.loc(), flags&flagGenerated != 0, flags&flagNegated != 0
	switch r.byte() {
	case exprTerm:
		e.Terms = r.term()
	case exprCall:
		e.Terms = r.termList()
	case exprSome:
		loc := r.loc()
		e.Terms = &ast.SomeDecl{Location: loc, Symbols: r.termList()}
	case exprEvery:
		if r.enter() {
			return e
		}
		ev := &ast.Every{Location: r.loc()}
		ev.Key, ev.Value, ev.Domain = r.optTerm(), r.optTerm(), r.term()
		ev.Body = r.body()
		r.leave()
		e.Terms = ev
	default:
		r.fail()
	}
	if n := r.count(); n > 0 {
		e.With = make([]*ast.With, n)
		for i := range e.With {
			loc := r.loc()
			e.With[i] = &ast.With{Location: loc, Target: r.term(), Value: r.term()}
		}
	}
	return e
}

func (r *snapshotReader) termList() []*ast.Term {
	n := r.count()
	ts := r.newList(n)
	for i := range ts {
		ts[i] = r.term()
	}
	return ts
}

func (r *snapshotReader) ref() ast.Ref {
	return ast.Ref(r.termList())
}

// optTerm reads a term that may be absent (a zero byte).
func (r *snapshotReader) optTerm() *ast.Term {
	if r.byte() == 0 {
		return nil
	}
	return r.term()
}

func (r *snapshotReader) enter() bool {
	r.depth++
	if r.depth > maxSnapshotDepth {
		r.fail()
		return true
	}
	return false
}

func (r *snapshotReader) leave() { r.depth-- }

func (r *snapshotReader) term() *ast.Term {
	if r.enter() {
		return ast.NullTerm()
	}
	defer r.leave()
	t := r.newTerm()
	t.Location = r.loc()
	switch tag := r.byte(); tag {
	case tagNull:
		t.Value = ast.Null{}
	case tagFalse:
		t.Value = ast.Boolean(false)
	case tagTrue:
		t.Value = ast.Boolean(true)
	case tagNumber, tagString, tagVar:
		t.Value = r.boxedStr(tag)
	case tagRef:
		t.Value = r.ref()
	case tagArray:
		t.Value = ast.NewArray(r.termList()...)
	case tagObject:
		n := r.count()
		items := make([][2]*ast.Term, n)
		for i := range items {
			items[i] = [2]*ast.Term{r.term(), r.term()}
		}
		t.Value = ast.NewObject(items...)
	case tagSet:
		t.Value = ast.NewSet(r.termList()...)
	case tagCall:
		t.Value = ast.Call(r.termList())
	case tagArrayComprehension:
		t.Value = &ast.ArrayComprehension{Term: r.term(), Body: r.body()}
	case tagObjectComprehension:
		t.Value = &ast.ObjectComprehension{Key: r.term(), Value: r.term(), Body: r.body()}
	case tagSetComprehension:
		t.Value = &ast.SetComprehension{Term: r.term(), Body: r.body()}
	default:
		r.fail()
	}
	if r.err != nil {
		t.Value = ast.Null{}
	}
	return t
}
