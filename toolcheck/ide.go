package toolcheck

import (
	"context"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/policy"
)

// The IDE allowlist (MCPG-I001) is a policy decision, so it lives in Rego:
// rego/mcpguard/tools/ide.rego decides which tool names an IDE server may
// offer, and policy.ToolsPolicy evaluates it.

// toolsPolicy returns the options' compiled tools policy, compiling one when
// the caller gave none.
func toolsPolicy(opts Options) (*policy.ToolsPolicy, error) {
	if opts.Policy != nil {
		return opts.Policy, nil
	}
	return policy.NewToolsPolicy(context.Background(), policy.ToolsPolicyOptions{})
}

// ideFindings adds the I001 findings of an IDE server's tools.
func (a *toolAnalysis) ideFindings(p *policy.ToolsPolicy, server string) error {
	tools := make([]any, len(a.rep.Tools))
	byPtr := map[string]*Tool{}
	for i := range a.rep.Tools {
		t := &a.rep.Tools[i]
		tools[i] = map[string]any{"name": t.Name, "pointer": t.Pointer}
		byPtr[t.Pointer] = t
	}
	results, err := p.Eval(context.Background(), map[string]any{"server": map[string]any{"name": server, "ide": true}, "tools": tools})
	if err != nil {
		return err
	}
	for _, f := range results {
		t := byPtr[f.Pointer]
		if t == nil {
			continue
		}
		pos, ptr := t.Value.Pos, t.Pointer
		if nv := t.Value.Get("name"); nv != nil {
			pos, ptr = nv.Pos, t.Pointer+"/name"
		}
		a.add(f.Rule, pos, ptr, f.Message, f.Evidence, "ide")
	}
	return nil
}

type jsonPos = jsonc.Pos
