// Package regoir evaluates Rego that OPA's compiler has planned into its
// intermediate representation (package ir, `opa build -t plan`): the
// imperative form OPA documents for Wasm and for other evaluators
// (https://www.openpolicyagent.org/docs/ir).
//
// When it is used: only for mcpguard's shipped policies, and only through
// package policy's plan.go (bindShippedPlan, Engine.planServer,
// Engine.planned). The plan is linked when the policies change (go test
// ./policy -run TestShippedPlan -update writes policy/shipped.plan) and
// evaluates a server's verdict and hygiene rules, and the weakness rules,
// whenever an engine has no data document. Custom Rego joins the verdict
// group, which topdown then evaluates; a data document (an OPA bundle's)
// and a plan planned from other sources than the built-in ones (a stale
// shipped.plan) leave everything to topdown.
//
// How to turn it off: policy.EngineOptions.Topdown evaluates every query
// with OPA's topdown instead. Topdown is the reference: every result of
// the plan is tested against it on generated inputs (policy's
// FuzzPlanMatchesTopdown and TestPlanMatchesTopdownGenerated, the
// scanner's TestPlanEngineMatchesTopdown over whole machines, and this
// package's TestMatchesTopdown), and the decisions and findings are the
// same either way.
//
// OPA's own evaluator, topdown, interprets the compiled AST: every
// expression is unified through bindings, every rule looked up in the rule
// tree, every result cached in a virtual document cache. A plan has done
// that work at build time: locals instead of bindings, calls resolved to
// functions, iteration as loops. Evaluating it costs a fraction of
// topdown's steps, which matters where the same policy is evaluated for
// every server of a machine.
//
// The semantics are those of OPA's Wasm compiler, the planner's first
// target: locals are the function's, composite values are references
// (appends and inserts are seen through every local that holds them), a
// statement that is undefined leaves its block, BreakStmt{Index: n} leaves
// n more enclosing blocks, and a ScanStmt's body is two blocks deep (the
// loop, then the scan). Rules (functions of input and data alone) are
// memoized for one evaluation. Built-in functions are topdown's own
// implementations (or the caller's), so they behave as they do in
// topdown; like topdown with strict built-in errors, an error in one ends
// the evaluation with that error.
//
// Link refuses statements it does not implement (with, dynamic calls,
// object merges): a caller falls back to topdown for such a plan. Link
// also folds collection literals into constants made once per Evaluator
// (fold.go). A linked Program is a tree; it is evaluated laid out as an
// Image (image.go), whose statements, blocks and arguments are arrays of
// fixed-size records without pointers. An image encodes as those records
// (MarshalBinary), for plans linked at build time, and decoding it fills
// the arrays; Decode checks that what it decodes cannot read or write out
// of bounds (check.go), and Bind that every built-in call has the
// operands its declaration takes. What they do not check is what a
// program computes: planned Rego builds trees, and a hostile program
// could build a value that contains itself (Evaluator.acyclic, for the
// fuzz test). A plan's bytes are meant to be the binary's own.
//
// An input may hold Records (record.go): objects the plan reads by key
// without the hashing an OPA object does as it is made, turned into OPA
// objects where a value leaves the plan's reads. Plain does that for
// callers that hand an input to OPA's own code.
package regoir
