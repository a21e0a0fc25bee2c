package policy

import (
	"context"
	"io"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcpguard/mcpguard/internal/regoir"
)

// loaded is what loadShipped loads: the shipped plan, or the compiled
// groups and their prepared queries.
type loaded struct {
	bs                             []builtin
	plan                           *regoir.Evaluator
	verdict, rules                 *ast.Compiler
	verdictErr                     error
	rulesErr                       error
	server                         rego.PreparedEvalQuery
	hygiene, context               rego.PreparedEvalQuery
	serverOK, hygieneOK, contextOK bool
}

// loadShipped loads what evaluates the shipped policies. Unless topdown
// is asked for or there is a data document, that is the shipped plan, if
// it was planned from the sources as they are and binds; otherwise it
// compiles the groups from their Rego: the rules group, and the verdict
// group unless custom rules are to join it (verdict false). The two
// compile in parallel, and each has its queries prepared, print
// statements going to print and data as the data document.
func loadShipped(topdown, verdict bool, print io.Writer, data map[string]any) *loaded {
	l := &loaded{bs: builtins()}
	if !topdown && len(data) == 0 && planCurrent() {
		// A plan that does not bind leaves the queries to topdown
		// (TestShippedPlan fails on it).
		if l.plan, _ = bindShippedPlan(l.bs); l.plan != nil {
			return l
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if l.rules, l.rulesErr = shippedCompiler(groupRules, l.bs); l.rulesErr == nil {
			var err error
			l.hygiene, err = prepareQuery(context.Background(), l.rules, hygieneQuery, l.bs, print, data)
			l.hygieneOK = err == nil
			l.context, err = prepareQuery(context.Background(), l.rules, contextQuery, l.bs, print, data)
			l.contextOK = err == nil
		}
	}()
	if verdict {
		if l.verdict, l.verdictErr = shippedCompiler(groupVerdict, l.bs); l.verdictErr == nil {
			var err error
			l.server, err = prepareQuery(context.Background(), l.verdict, shippedQuery, l.bs, print, data)
			l.serverOK = err == nil
		}
	}
	<-done
	return l
}
