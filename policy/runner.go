package policy

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"

	"github.com/mcpguard/mcpguard/reports"
)

// TestResult is the outcome of one Rego test rule.
type TestResult struct {
	Package  string
	Name     string
	Location reports.FileError // path, line, column of the test rule
	Pass     bool
	Skip     bool
	Err      string // evaluation error, if any
	Output   string // print() output
}

// RunTests runs the shipped *_test.rego files and those under paths (custom
// policies and their tests) with mcpguard's builtins, in-process: no opa
// binary is needed. A test file that does not compile is a *CompileError.
func RunTests(ctx context.Context, paths []string) ([]TestResult, error) {
	modules, err := shippedModules(false)
	if err != nil {
		return nil, err
	}
	shippedTests, err := shippedModules(true)
	if err != nil {
		return nil, err
	}
	for k, v := range shippedTests {
		modules[k] = v
	}
	for _, tests := range []bool{false, true} {
		custom, _, _, err := customModules(paths, tests)
		if err != nil {
			return nil, err
		}
		for k, v := range custom {
			modules[k] = v
		}
	}
	// The custom index must see every custom package, as in the engine.
	var pkgs []string
	for _, m := range modules {
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		if strings.HasPrefix(pkg, CustomPrefix+".") && !strings.HasSuffix(pkg, "_test") && !contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	sort.Strings(pkgs)
	gen, err := ast.ParseModuleWithOpts("mcpguard/generated/custom.rego", customIndex(pkgs, "deny", "warn", "tool_deny", "tool_warn"), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return nil, fmt.Errorf("generate custom index: %w", err)
	}
	modules["mcpguard/generated/custom.rego"] = gen

	runner := tester.NewRunner().
		SetDefaultRegoVersion(ast.RegoV1).
		AddCustomBuiltins(testerBuiltins(builtins())).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		SetTimeout(time.Minute).
		SetModules(modules)
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return nil, compileError(err)
	}
	var out []TestResult
	for r := range ch {
		tr := TestResult{Package: strings.TrimPrefix(r.Package, "data."), Name: r.Name, Pass: r.Pass(), Skip: r.Skip,
			Output: string(r.Output)}
		if r.Location != nil {
			tr.Location = reports.FileError{Path: r.Location.File, Line: r.Location.Row, Column: r.Location.Col}
		}
		if r.Error != nil {
			tr.Err = r.Error.Error()
		}
		out = append(out, tr)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Location.Path != out[j].Location.Path {
			return out[i].Location.Path < out[j].Location.Path
		}
		return out[i].Location.Line < out[j].Location.Line
	})
	return out, nil
}
