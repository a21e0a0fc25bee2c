package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/loader"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown/print"

	"github.com/mcpguard/mcpguard/internal/regoir"
	bundled "github.com/mcpguard/mcpguard/rego"
	"github.com/mcpguard/mcpguard/reports"
)

// CustomPrefix is the package every organisation rule must live under.
const CustomPrefix = "mcpguard.custom"

// unsafeBuiltins are refused in every policy: a policy must not reach the
// network or read the process environment (which would leak secrets into
// findings).
var unsafeBuiltins = []string{"http.send", "net.lookup_ip_addr", "net.cidr_expand", "opa.runtime", "rego.parse_module", "trace"}

// verificationStages only check policies; evaluation does not depend on them.
// The shipped policies use no print(), rego.metadata or template strings, so
// their rewrite stages have nothing to do either.
var verificationStages = []ast.StageID{
	ast.StageCheckUnusedImports, ast.StageCheckDuplicateImports, ast.StageCheckKeywordOverrides,
	ast.StageCheckTypes, ast.StageCheckDeprecatedBuiltins, ast.StageBuildRequiredCapabilities,
	ast.StageCheckRecursion, ast.StageCheckRuleConflicts, ast.StageCheckUndefinedFuncs, ast.StageCheckVoidCalls,
	ast.StageRewritePrintCalls, ast.StageRewriteRegoMetadataCalls, ast.StageRewriteTemplateStrings,
}

// CompileError is a policy that does not load or compile. Each diagnostic
// names path:line:col.
type CompileError struct {
	Diagnostics []reports.FileError
}

func (e *CompileError) Error() string {
	msgs := make([]string, 0, len(e.Diagnostics))
	for _, d := range e.Diagnostics {
		// OPA can report one problem twice (e.g. a type error seen by two
		// stages); say it once.
		if m := d.Error(); !contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	return strings.Join(msgs, "\n")
}

// EngineOptions configure NewEngine.
type EngineOptions struct {
	// Paths are custom .rego files or directories (searched recursively;
	// *_test.rego files are left to the test runner).
	Paths []string
	// Modules are custom Rego sources that come from no file — an OPA
	// bundle's policies — by name (e.g. "bundle:acme/policies/x.rego");
	// the same contract as Paths. Data is the data document they may read
	// (data.x); it must not hold the key "mcpguard".
	Modules map[string]string
	Data    map[string]any
	// Print receives the output of print() calls in policies; nil discards it.
	// It must never be stdout, which belongs to reports and the proxy protocol.
	Print io.Writer
	// Topdown turns the shipped plan off: every query is evaluated by
	// OPA's topdown, the shipped policies compiled from their Rego
	// sources. It is the reference the plan (internal/regoir) is tested
	// against, and the way to rule it out: the decisions and findings are
	// the same either way.
	Topdown bool
}

// Engine holds the compiled policies: the shipped ones and any custom ones.
// Compile once with NewEngine (or StartEngine), then evaluate many times; an
// Engine is safe for concurrent use.
type Engine struct {
	ready  chan struct{} // closed when compilation has finished
	err    error
	server rego.PreparedEvalQuery // verdict, policy and custom rules
	// withCustom says the server query is serverQuery (its result has the
	// custom deny and warn lists), not shippedQuery.
	withCustom bool
	hygiene    rego.PreparedEvalQuery // hygiene rules
	context    rego.PreparedEvalQuery // weakness rules, once per context
	// Custom lists the custom packages, e.g. "mcpguard.custom.acme".
	Custom []string
	// Sources are the custom policy files; Digests their contents'
	// digests by path (FileDigest), for the report's policy sources.
	Sources   []string
	Digests   map[string]string
	evaluated atomic.Uint64 // EvalServer's evaluations (Evaluated)
	// plan evaluates the server and hygiene queries of an engine without
	// custom rules or data, in place of topdown (nil: topdown does).
	plan *regoir.Evaluator
}

// Query entrypoints of the shipped policies.
const (
	serverQuery  = "data.mcpguard.main.server"  // with custom rules
	shippedQuery = "data.mcpguard.main.shipped" // without: no deny and warn lists
	hygieneQuery = "data.mcpguard.hygiene.findings"
	contextQuery = "data.mcpguard.weakness.findings"
)

// NewEngine loads and compiles the shipped and custom policies. A syntax or
// compile error, or a custom module outside mcpguard.custom, is a
// *CompileError.
func NewEngine(ctx context.Context, opts EngineOptions) (*Engine, error) {
	e := StartEngine(ctx, opts)
	if err := e.Err(); err != nil {
		return nil, err
	}
	return e, nil
}

// KeepsInputs reports whether an evaluation may keep part of the server
// input it is given past its return: topdown, which evaluates an
// organisation's Rego, has caches of its own. Such an engine must not be
// given an input made in an InputArena. A nil engine evaluates nothing.
func (e *Engine) KeepsInputs() bool {
	if e == nil {
		return false
	}
	if e.Err() != nil {
		return false
	}
	return e.withCustom || e.plan == nil
}

// errTransientInput is EvalServer's refusal of an InputArena's input by an
// engine that keeps inputs: a caller's mistake, loud rather than a cache
// that an arena's next input would change under it.
var errTransientInput = errors.New("evaluate policy: a server input made in an arena, given to an engine that keeps inputs")

// StartEngine compiles in the background and returns at once, so that a
// command can read its inputs meanwhile. Every method waits for the
// compilation; Err reports its failure.
func StartEngine(ctx context.Context, opts EngineOptions) *Engine {
	e := &Engine{ready: make(chan struct{})}
	go func() {
		defer close(e.ready)
		e.err = e.compile(ctx, opts)
	}()
	return e
}

// Err waits for the compilation and returns its error, if any.
func (e *Engine) Err() error {
	<-e.ready
	return e.err
}

func (e *Engine) compile(ctx context.Context, opts EngineOptions) error {
	custom, sources, digests, err := customModules(opts.Paths, false)
	if err != nil {
		return err
	}
	if err := addModules(custom, opts.Modules); err != nil {
		return err
	}
	e.Sources, e.Digests = sources, digests
	var diags []reports.FileError
	e.Custom, diags = customPackages(custom)
	if len(diags) > 0 {
		return &CompileError{Diagnostics: diags}
	}
	pre := loadShipped(opts.Topdown, len(custom) == 0, opts.Print, opts.Data)
	e.withCustom = len(custom) > 0
	e.plan = pre.plan
	if e.plan == nil || e.withCustom {
		if err := e.prepareServer(ctx, pre, custom, opts); err != nil {
			return err
		}
	}
	if e.plan != nil {
		return nil
	}
	if err := pre.rulesErr; err != nil {
		return err
	}
	if pre.hygieneOK {
		e.hygiene = pre.hygiene
	} else if e.hygiene, err = prepareQuery(ctx, pre.rules, hygieneQuery, pre.bs, opts.Print, opts.Data); err != nil {
		return err
	}
	if pre.contextOK {
		e.context = pre.context
	} else if e.context, err = prepareQuery(ctx, pre.rules, contextQuery, pre.bs, opts.Print, opts.Data); err != nil {
		return err
	}
	return nil
}

// prepareServer prepares the verdict query for topdown, when the engine
// cannot evaluate it through the shipped plan: with custom rules, which
// join the verdict group, or with a data document.
func (e *Engine) prepareServer(ctx context.Context, pre *loaded, custom map[string]*ast.Module, opts EngineOptions) error {
	if !e.withCustom {
		if err := pre.verdictErr; err != nil {
			return err
		}
		if pre.serverOK {
			e.server = pre.server
			return nil
		}
		var err error
		e.server, err = prepareQuery(ctx, pre.verdict, shippedQuery, pre.bs, opts.Print, opts.Data)
		return err
	}
	verdict, err := e.compileCustom(custom, pre.bs, opts.Print != nil)
	if err != nil {
		return err
	}
	e.server, err = prepareQuery(ctx, verdict, serverQuery, pre.bs, opts.Print, opts.Data)
	return err
}

// prepareQuery prepares one of the engine's queries on a compiled group,
// with print statements going to print (nil: none) and data as the data
// document.
func prepareQuery(ctx context.Context, c *ast.Compiler, query string, bs []builtin, print io.Writer, data map[string]any) (rego.PreparedEvalQuery, error) {
	ropts := []func(*rego.Rego){rego.Query(query), rego.Compiler(c), rego.StrictBuiltinErrors(true),
		rego.EnablePrintStatements(print != nil)}
	if print != nil {
		ropts = append(ropts, rego.PrintHook(printHook{print}))
	}
	ropts = append(ropts, regoOptions(bs)...)
	if len(data) > 0 {
		ropts = append(ropts, rego.Store(inmem.NewFromObject(data)))
	}
	pq, err := rego.New(ropts...).PrepareForEval(ctx)
	if err != nil {
		return pq, compileError(err)
	}
	return pq, nil
}

// customPackages returns the sorted package names of the custom modules, and
// a diagnostic for each module outside mcpguard.custom: a custom policy must
// not override or extend a shipped package.
func customPackages(custom map[string]*ast.Module) ([]string, []reports.FileError) {
	var pkgs []string
	var diags []reports.FileError
	for name, m := range custom {
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		if pkg != CustomPrefix && !strings.HasPrefix(pkg, CustomPrefix+".") {
			diags = append(diags, reports.FileError{Path: name, Line: m.Package.Location.Row, Column: m.Package.Location.Col,
				Message: fmt.Sprintf("package %s: custom policies must be under package %s (for example %s.acme)", pkg, CustomPrefix, CustomPrefix)})
			continue
		}
		if !contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	sort.Strings(pkgs)
	sort.Slice(diags, func(i, j int) bool { return diags[i].Path < diags[j].Path })
	return pkgs, diags
}

// customIndex generates the module that gathers every custom package's rules
// of the given kinds (deny and warn; tool_deny and tool_warn), so that the
// entrypoints need not know the package names.
func customIndex(pkgs []string, kinds ...string) string {
	var b strings.Builder
	b.WriteString("package mcpguard.generated\n\n")
	for _, kind := range kinds {
		// One array per package, concatenated: a package without the rule
		// contributes an empty array.
		parts := []string{"[]"}
		for _, p := range pkgs {
			parts = append(parts, fmt.Sprintf("[{\"package\": %q, \"result\": r} | some r in data.%s.%s]", p, p, kind))
		}
		expr := parts[len(parts)-1]
		for i := len(parts) - 2; i >= 0; i-- {
			expr = fmt.Sprintf("array.concat(%s, %s)", parts[i], expr)
		}
		fmt.Fprintf(&b, "%s := %s\n\n", kind, expr)
	}
	return b.String()
}

// shippedModules parses the embedded policies; tests selects *_test.rego
// files instead of the policies.
func shippedModules(tests bool) (map[string]*ast.Module, error) {
	return parseShipped(func(path string) bool { return strings.HasSuffix(path, "_test.rego") == tests }, tests)
}

// parseShipped parses the embedded policy files that keep selects,
// concurrently.
func parseShipped(keep func(path string) bool, annotations bool) (map[string]*ast.Module, error) {
	fsys := bundled.FS()
	var paths []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".rego") && keep(path) {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load shipped policies: %w", err)
	}
	mods := make([]*ast.Module, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, path := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, err := fs.ReadFile(fsys, path)
			if err == nil {
				mods[i], err = ast.ParseModuleWithOpts(path, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: annotations})
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	out := make(map[string]*ast.Module, len(paths))
	for i, path := range paths {
		if errs[i] != nil {
			return nil, fmt.Errorf("load shipped policies: %w", compileError(errs[i]))
		}
		out[path] = mods[i]
	}
	return out, nil
}

// groupSources parses the sources of one shipped group. The verdict group
// includes the index of custom rules, here with no custom package.
func groupSources(group string) (map[string]*ast.Module, error) {
	mods, err := parseShipped(func(path string) bool {
		return !strings.HasSuffix(path, "_test.rego") && shippedGroup(path) == group
	}, false)
	if err != nil {
		return nil, err
	}
	if group == groupVerdict {
		gen, err := ast.ParseModuleWithOpts(generatedIndexPath, customIndex(nil, "deny", "warn"), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, fmt.Errorf("generate custom index: %w", err)
		}
		mods[generatedIndexPath] = gen
	}
	return mods, nil
}

// compileModules compiles a module set. verify runs every stage; without it
// only the stages evaluation needs run, which is right for the shipped
// policies alone: their own tests type-check and lint them.
func compileModules(modules map[string]*ast.Module, bs []builtin, print, verify bool) (*ast.Compiler, error) {
	c := ast.NewCompiler().
		WithCapabilities(capabilities(bs)).
		WithEnablePrintStatements(print).
		WithDefaultRegoVersion(ast.RegoV1)
	if !verify {
		c = c.WithSkipStages(verificationStages...)
	}
	c.Compile(modules)
	if c.Failed() {
		return nil, compileError(c.Errors)
	}
	return c, nil
}

// shippedCompiler compiles one shipped group from its Rego sources.
func shippedCompiler(group string, bs []builtin) (*ast.Compiler, error) {
	mods, err := groupSources(group)
	if err != nil {
		return nil, err
	}
	return compileModules(mods, bs, false, false)
}

// compileCustom compiles the verdict group with the custom modules and their
// index. Custom code is not otherwise checked, so every stage runs.
func (e *Engine) compileCustom(custom map[string]*ast.Module, bs []builtin, print bool) (*ast.Compiler, error) {
	mods, err := parseShipped(func(path string) bool {
		return !strings.HasSuffix(path, "_test.rego") && shippedGroup(path) == groupVerdict
	}, false)
	if err != nil {
		return nil, err
	}
	maps.Copy(mods, custom)
	gen, err := ast.ParseModuleWithOpts(generatedIndexPath, customIndex(e.Custom, "deny", "warn"), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, fmt.Errorf("generate custom index: %w", err)
	}
	mods[generatedIndexPath] = gen
	return compileModules(mods, bs, print, true)
}

// customModules loads .rego files from paths. tests selects *_test.rego files
// only; otherwise they are skipped.
func customModules(paths []string, tests bool) (map[string]*ast.Module, []string, map[string]string, error) {
	if len(paths) == 0 {
		return map[string]*ast.Module{}, nil, nil, nil
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, nil, nil, &CompileError{Diagnostics: []reports.FileError{{Path: p, Message: describeOSError(err)}}}
		}
	}
	res, err := loader.NewFileLoader().
		WithRegoVersion(ast.RegoV1).
		WithProcessAnnotation(true).
		Filtered(paths, func(abspath string, info fs.FileInfo, _ int) bool {
			if info.IsDir() {
				return false
			}
			if !strings.HasSuffix(abspath, ".rego") {
				return true
			}
			return strings.HasSuffix(abspath, "_test.rego") != tests
		})
	if err != nil {
		return nil, nil, nil, compileError(err)
	}
	mods := map[string]*ast.Module{}
	digests := map[string]string{}
	var sources []string
	for _, f := range res.Modules {
		mods[f.Name] = f.Parsed
		digests[f.Name] = FileDigest(f.Raw)
		sources = append(sources, f.Name)
	}
	sort.Strings(sources)
	return mods, sources, digests, nil
}

// FileDigest is how a report names a policy file's contents:
// "sha256:" and the hex SHA-256 of its bytes.
func FileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ShippedDigest is the digest of the shipped policies this build embeds
// (their Rego sources and the OPA version that evaluates them), as a
// report's policy sources name them.
var ShippedDigest = sync.OnceValue(func() string {
	sum, err := shippedDigest()
	if err != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(sum[:])
})

// addModules parses Rego sources that come from no file into mods.
func addModules(mods map[string]*ast.Module, sources map[string]string) error {
	var diags []reports.FileError
	for name, src := range sources {
		if strings.HasSuffix(name, "_test.rego") {
			continue
		}
		m, err := ast.ParseModuleWithOpts(name, src, ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true})
		if err != nil {
			var ce *CompileError
			if errors.As(compileError(err), &ce) {
				diags = append(diags, ce.Diagnostics...)
				continue
			}
			return err
		}
		mods[name] = m
	}
	if len(diags) > 0 {
		return &CompileError{Diagnostics: diags}
	}
	return nil
}

// compileError turns OPA's errors into positioned diagnostics.
func compileError(err error) error {
	var astErrs ast.Errors
	if errors.As(err, &astErrs) {
		ce := &CompileError{}
		for _, e := range astErrs {
			ce.Diagnostics = append(ce.Diagnostics, astDiagnostic(e.Location, e.Message))
		}
		return ce
	}
	var le loader.Errors
	if errors.As(err, &le) {
		ce := &CompileError{}
		for _, e := range le {
			var astErr *ast.Error
			if errors.As(e, &astErr) && astErr.Location != nil {
				ce.Diagnostics = append(ce.Diagnostics, astDiagnostic(astErr.Location, astErr.Message))
				continue
			}
			ce.Diagnostics = append(ce.Diagnostics, reports.FileError{Message: e.Error()})
		}
		return ce
	}
	return err
}

// astDiagnostic places an OPA error. OPA reports some errors (e.g. "var x is
// unsafe") at column 0; editors and users count columns from 1.
func astDiagnostic(loc *ast.Location, msg string) reports.FileError {
	d := reports.FileError{Message: msg}
	if loc != nil {
		d.Path, d.Line, d.Column = loc.File, loc.Row, loc.Col
		if d.Line > 0 && d.Column < 1 {
			d.Column = 1
		}
	}
	return d
}

func describeOSError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// capabilities are OPA's builtins without the unsafe ones, plus mcpguard's.
func capabilities(bs []builtin) *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	unsafe := toSet(unsafeBuiltins)
	ours := declarations(bs)
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		// Ours may also be registered with OPA (fleetpolicy does, for the
		// bundle plugin's compiler): declared once, here.
		if _, bad := unsafe[b.Name]; !bad && ours[b.Name] == nil {
			kept = append(kept, b)
		}
	}
	for _, d := range ours {
		kept = append(kept, d)
	}
	caps.Builtins = kept
	return caps
}

func toSet(list []string) map[string]struct{} {
	m := make(map[string]struct{}, len(list))
	for _, s := range list {
		m[s] = struct{}{}
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// printHook sends print() output of policies to a writer (stderr).
type printHook struct{ w io.Writer }

func (h printHook) Print(ctx print.Context, msg string) error {
	loc := ""
	if ctx.Location != nil {
		loc = fmt.Sprintf("%s:%d: ", filepath.ToSlash(ctx.Location.File), ctx.Location.Row)
	}
	_, err := fmt.Fprintf(h.w, "%s%s\n", loc, msg)
	return err
}
