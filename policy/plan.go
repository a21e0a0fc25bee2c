package policy

import (
	"encoding/hex"
	"fmt"

	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/mcpguard/mcpguard/internal/regoir"
)

//go:generate go test -run TestShippedPlan -update

// plannedEntrypoints are the entrypoints of shippedPlan: the queries an
// engine without custom rules or data evaluates for every server.
var plannedEntrypoints = []string{entryShipped, entryHygiene}

const (
	entryShipped = "mcpguard/main/shipped" // shippedQuery
	entryHygiene = "mcpguard/hygiene/findings"
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

// planCurrent reports whether shippedPlan was planned from the sources
// digest identifies.
func planCurrent(digest [32]byte) bool {
	return shippedPlanDigest == hex.EncodeToString(digest[:])
}
