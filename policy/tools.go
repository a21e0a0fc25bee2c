package policy

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/mcpguard/mcpguard/internal/regoir"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"

	"github.com/mcpguard/mcpguard/reports"
)

const (
	toolsQuery      = "data.mcpguard.tools.findings"
	customToolQuery = "data.mcpguard.generated"
)

// ToolsPolicy is the compiled tool-list policy: the shipped package
// mcpguard.tools (the IDE tool allowlist, MCPG-I001) and the custom tool
// rules, tool_deny and tool_warn, of any package under mcpguard.custom
// (docs/policies.md). It is small and compiled apart from the server
// policies, only by the commands that analyse tool lists. It is safe for
// concurrent use.
type ToolsPolicy struct {
	pq rego.PreparedEvalQuery
	// custom evaluates the custom tool rules; nil without custom policies.
	custom *rego.PreparedEvalQuery
	// Sources are the custom policy files.
	Sources []string
}

// ToolsPolicyOptions configure NewToolsPolicy.
type ToolsPolicyOptions struct {
	// Paths are custom .rego files or directories, and Modules and Data
	// custom sources and their data, as for EngineOptions.
	Paths   []string
	Modules map[string]string
	Data    map[string]any
	// Print receives print() output; nil discards it. Never stdout.
	Print io.Writer
}

// ToolResult is one finding of the tools policy about one tool.
type ToolResult struct {
	Rule     string         `json:"rule"`
	Message  string         `json:"msg"`
	Evidence map[string]any `json:"evidence"`
	// Pointer is the JSON pointer of the tool in the tools/list document.
	Pointer string `json:"pointer"`
}

// NewToolsPolicy compiles the shipped tools policy and the custom tool rules
// of opts.Paths. A custom module outside mcpguard.custom or one that does
// not compile is a *CompileError.
func NewToolsPolicy(ctx context.Context, opts ToolsPolicyOptions) (*ToolsPolicy, error) {
	bs := builtins()
	c, err := shippedCompiler(groupTools, bs)
	if err != nil {
		return nil, fmt.Errorf("load tools policy: %w", err)
	}
	ropts := append([]func(*rego.Rego){rego.Query(toolsQuery), rego.Compiler(c), rego.StrictBuiltinErrors(true)}, regoOptions(bs)...)
	pq, err := rego.New(ropts...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("compile tools policy: %w", compileError(err))
	}
	tp := &ToolsPolicy{pq: pq}
	if len(opts.Paths) > 0 || len(opts.Modules) > 0 {
		if err := tp.compileCustom(ctx, opts); err != nil {
			return nil, err
		}
	}
	return tp, nil
}

// compileCustom prepares the custom tool rules: every custom module, with
// every compiler stage (custom code is not otherwise checked), and a
// generated index that gathers tool_deny and tool_warn of every package.
func (p *ToolsPolicy) compileCustom(ctx context.Context, opts ToolsPolicyOptions) error {
	custom, sources, _, err := customModules(opts.Paths, false)
	if err != nil {
		return err
	}
	if err := addModules(custom, opts.Modules); err != nil {
		return err
	}
	p.Sources = sources
	pkgs, diags := customPackages(custom)
	if len(diags) > 0 {
		return &CompileError{Diagnostics: diags}
	}
	gen, err := ast.ParseModuleWithOpts("mcpguard/generated/custom.rego", customIndex(pkgs, "tool_deny", "tool_warn"), ast.ParserOptions{RegoVersion: ast.RegoV1})
	if err != nil {
		return fmt.Errorf("generate custom index: %w", err)
	}
	custom["mcpguard/generated/custom.rego"] = gen
	bs := builtins()
	c := ast.NewCompiler().
		WithCapabilities(capabilities(bs)).
		WithEnablePrintStatements(opts.Print != nil).
		WithDefaultRegoVersion(ast.RegoV1)
	c.Compile(custom)
	if c.Failed() {
		return compileError(c.Errors)
	}
	ropts := []func(*rego.Rego){rego.Query(customToolQuery), rego.Compiler(c), rego.StrictBuiltinErrors(true),
		rego.EnablePrintStatements(opts.Print != nil)}
	if opts.Print != nil {
		ropts = append(ropts, rego.PrintHook(printHook{opts.Print}))
	}
	ropts = append(ropts, regoOptions(bs)...)
	if len(opts.Data) > 0 {
		ropts = append(ropts, rego.Store(inmem.NewFromObject(opts.Data)))
	}
	pq, err := rego.New(ropts...).PrepareForEval(ctx)
	if err != nil {
		return compileError(err)
	}
	p.custom = &pq
	return nil
}

// HasCustom reports whether custom tool rules were loaded.
func (p *ToolsPolicy) HasCustom() bool { return p != nil && p.custom != nil }

// EvalTool evaluates the custom tool rules for one tool: input is
// {"server": server, "tool": tool}, tool the definition the server sent.
// tool_deny results are errors, tool_warn results warnings; each carries its
// package.
func (p *ToolsPolicy) EvalTool(ctx context.Context, server map[string]any, tool Value) ([]RuleResult, error) {
	if p.custom == nil {
		return nil, nil
	}
	sv, err := ast.InterfaceToValue(server)
	if err != nil {
		return nil, fmt.Errorf("convert policy input: %w", err)
	}
	in := ast.NewObject(ast.Item(ast.StringTerm("server"), ast.NewTerm(sv)), ast.Item(ast.StringTerm("tool"), ast.NewTerm(regoir.PlainValue(tool.v))))
	rs, err := p.custom.Eval(ctx, inputOptions(in)...)
	if err != nil {
		return nil, fmt.Errorf("evaluate tool policy: %w", err)
	}
	var out struct {
		Deny []customResult `json:"tool_deny"`
		Warn []customResult `json:"tool_warn"`
	}
	if err := decodeResult(rs, &out); err != nil {
		return nil, err
	}
	var res []RuleResult
	for _, c := range out.Deny {
		res = append(res, c.finding(reports.SeverityError))
	}
	for _, c := range out.Warn {
		res = append(res, c.finding(reports.SeverityWarning))
	}
	return res, nil
}

// Eval evaluates the tools policy. input is {"server": {"name", "ide"},
// "tools": [{"name", "pointer"}]}; results are ordered by pointer.
func (p *ToolsPolicy) Eval(ctx context.Context, input map[string]any) ([]ToolResult, error) {
	v, err := NewValue(input)
	if err != nil {
		return nil, err
	}
	rs, err := p.pq.Eval(ctx, inputOptions(v.v)...)
	if err != nil {
		return nil, fmt.Errorf("evaluate tools policy: %w", err)
	}
	var out []ToolResult
	if err := decodeResult(rs, &out); err != nil {
		return nil, err
	}
	for _, r := range out {
		if r.Rule == "" || r.Message == "" {
			return nil, fmt.Errorf("the tools policy produced a malformed finding %+v", r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out, nil
}
