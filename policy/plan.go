package policy

import (
	"context"
	_ "embed" // shipped.plan
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcpguard/mcpguard/internal/regoir"
)

// This file is the policy package's one door to internal/regoir's
// evaluator: bindShippedPlan makes it (loadShipped calls it when the plan
// is current and EngineOptions.Topdown is not set), planServer and
// planned evaluate through it. Everything else evaluates with topdown,
// the reference every result of the plan is tested against
// (FuzzPlanMatchesTopdown, TestPlanMatchesTopdownGenerated, and the
// scanner's TestPlanEngineMatchesTopdown over whole machines).

// shippedPlan is the plan of the shipped queries (plannedEntrypoints),
// linked: the digest of the sources it was planned from (shippedDigest),
// then regoir's encoding. TestShippedPlan writes it.
//
//go:generate go test -run TestShippedPlan -update
//go:embed shipped.plan
var shippedPlan string

// plannedEntrypoints are the entrypoints of shippedPlan: the shipped
// queries. An engine without a data document evaluates the hygiene and
// weakness rules through the plan, and without custom rules (which join
// the verdict group) a server's verdict query and hygiene rules in one
// evaluation (entryServer).
var plannedEntrypoints = []string{entryServer, entryHygiene, entryContext}

const (
	entryServer  = "mcpguard/plan/server"       // [shippedQuery's verdict, admission, findings; hygieneQuery]
	entryHygiene = "mcpguard/hygiene/findings"  // hygieneQuery
	entryContext = "mcpguard/weakness/findings" // contextQuery
)

// digestSize is the length of shippedPlan's digest.
const digestSize = 32

// bindShippedPlan decodes the shipped plan and gives it mcpguard's
// functions.
func bindShippedPlan(bs []builtin) (*regoir.Evaluator, error) {
	if len(shippedPlan) < digestSize {
		return nil, fmt.Errorf("shipped plan: %d bytes", len(shippedPlan))
	}
	// The plan reads the input's fields by the terms the input is built
	// with.
	prog, err := regoir.DecodeShared(shippedPlan[digestSize:], keyTerms())
	if err != nil {
		return nil, fmt.Errorf("shipped plan: %w", err)
	}
	fns := make(map[string]regoir.Builtin, len(bs))
	for _, b := range bs {
		fns[b.decl.Name] = regoir.Builtin{Decl: b.decl.Decl, Fn: b.fn}
	}
	ev, err := prog.Bind(fns)
	if err != nil {
		return nil, fmt.Errorf("shipped plan: %w", err)
	}
	for pattern, match := range shippedMatchers {
		ev.MatchPattern(pattern, match)
	}
	return ev, nil
}

// planCurrent reports whether shippedPlan was planned from the shipped
// policies as they are: one edited since, and not planned again, is
// evaluated by topdown.
func planCurrent() bool {
	digest, err := shippedDigest()
	return err == nil && len(shippedPlan) >= digestSize && shippedPlan[:digestSize] == string(digest[:])
}

// planServer evaluates a server's verdict query and hygiene rules through
// the plan, in one evaluation (entryServer), into res. The result is
// read before the evaluation returns (EvalTermWith): its collections live
// in memory the evaluator reuses for the next one.
func (e *Engine) planServer(ctx context.Context, doc *ast.Term, res *ServerResult) error {
	err := e.plan.EvalTermWith(ctx, entryServer, doc, func(rs []*ast.Term) error {
		if len(rs) != 1 {
			return errUndefinedEntry
		}
		return decodePlanned(rs[0].Value, res)
	})
	if err != nil {
		return fmt.Errorf("evaluate policy: %w", err)
	}
	return nil
}

// planned evaluates one of the plan's entrypoints on in and returns its
// value.
func (e *Engine) planned(ctx context.Context, entrypoint string, in ast.Value) (ast.Value, error) {
	rs, err := e.plan.EvalTerm(ctx, entrypoint, ast.NewTerm(in))
	if err != nil {
		return nil, fmt.Errorf("evaluate policy: %w", err)
	}
	if len(rs) != 1 {
		return nil, fmt.Errorf("evaluate policy: %w", errUndefinedEntry)
	}
	return rs[0].Value, nil
}

var errUndefinedEntry = errors.New("the entrypoint is undefined")
