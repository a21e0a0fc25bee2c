package policy

import (
	"encoding/hex"
	"fmt"

	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/mcpguard/mcpguard/internal/regoir"
)

//go:generate go test -run TestShippedPlan -update

// plannedEntrypoints are the entrypoints of shippedPlan: the shipped
// queries. An engine without a data document evaluates the hygiene and
// weakness rules through the plan, and the verdict query too when it has
// no custom rules (which join the verdict group).
var plannedEntrypoints = []string{entryShipped, entryHygiene, entryContext}

const (
	entryShipped = "mcpguard/main/shipped"      // shippedQuery
	entryHygiene = "mcpguard/hygiene/findings"  // hygieneQuery
	entryContext = "mcpguard/weakness/findings" // contextQuery
)

// bindShippedPlan gives the generated plan mcpguard's functions.
func bindShippedPlan(bs []builtin) (*regoir.Evaluator, error) {
	fns := make(map[string]topdown.BuiltinFunc, len(bs))
	for _, b := range bs {
		fns[b.decl.Name] = b.fn
	}
	ev, err := shippedPlan.Bind(fns)
	if err != nil {
		return nil, fmt.Errorf("shipped plan: %w", err)
	}
	return ev, nil
}

// planCurrent reports whether shippedPlan was planned from the shipped
// policies as they are: one edited since, and not planned again, is
// evaluated by topdown.
func planCurrent() bool {
	digest, err := shippedDigest()
	return err == nil && shippedPlanDigest == hex.EncodeToString(digest[:])
}
