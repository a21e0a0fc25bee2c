package policy

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	bundled "github.com/mcpguard/mcpguard/rego"
)

const toolsQuery = "data.mcpguard.tools.findings"

// ToolsPolicy is the compiled tool-list policy (Rego package mcpguard.tools:
// the IDE tool allowlist, MCPG-I001). It is small and compiled apart from the
// server policies, only by the commands that analyse tool lists. It is safe
// for concurrent use.
type ToolsPolicy struct {
	pq rego.PreparedEvalQuery
}

// ToolResult is one finding of the tools policy about one tool.
type ToolResult struct {
	Rule     string         `json:"rule"`
	Message  string         `json:"msg"`
	Evidence map[string]any `json:"evidence"`
	// Pointer is the JSON pointer of the tool in the tools/list document.
	Pointer string `json:"pointer"`
}

// NewToolsPolicy compiles the shipped tools policy.
func NewToolsPolicy(ctx context.Context) (*ToolsPolicy, error) {
	fsys := bundled.FS()
	paths, err := fs.Glob(fsys, "mcpguard/tools/*.rego")
	if err != nil {
		return nil, fmt.Errorf("load tools policy: %w", err)
	}
	opts := []func(*rego.Rego){rego.Query(toolsQuery), rego.StrictBuiltinErrors(true), rego.SetRegoVersion(ast.RegoV1)}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.rego") {
			continue
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("load tools policy: %w", err)
		}
		m, err := ast.ParseModuleWithOpts(p, string(src), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, fmt.Errorf("load tools policy: %w", compileError(err))
		}
		opts = append(opts, rego.ParsedModule(m))
	}
	pq, err := rego.New(opts...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("compile tools policy: %w", compileError(err))
	}
	return &ToolsPolicy{pq: pq}, nil
}

// Eval evaluates the tools policy. input is {"server": {"name", "ide"},
// "tools": [{"name", "pointer"}]}; results are ordered by pointer.
func (p *ToolsPolicy) Eval(ctx context.Context, input map[string]any) ([]ToolResult, error) {
	v, err := NewValue(input)
	if err != nil {
		return nil, err
	}
	rs, err := p.pq.Eval(ctx, rego.EvalParsedInput(v.v))
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
