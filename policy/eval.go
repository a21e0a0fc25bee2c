package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/mcpguard/mcpguard/internal/regoir"
	"github.com/mcpguard/mcpguard/reports"
)

// RuleResult is one finding a policy rule produced, before the caller attaches
// it to a server and a location.
type RuleResult struct {
	Rule     string
	Severity reports.Severity
	Message  string
	Evidence map[string]any
	// reports.Location, when set, points at what the rule is about (a policy entry, a
	// settings file) rather than at the server.
	Location *reports.Location
	// Package names the custom package of a custom rule.
	Package string
}

// ServerResult is the outcome of the policies for one server.
type ServerResult struct {
	Decision reports.Decision
	// Admission says how an allowed server passed Claude Code's lists:
	// "exempt-org", "exempt-builtin", "no-allowlist", "allowlist",
	// "allowlist-org"; "" when it did not.
	Admission string
	Findings  []RuleResult
}

// Value is a pre-converted part of an input document. Convert the context
// once per project and reuse it for every server.
type Value struct {
	v ast.Value
	// arena is the InputArena the value was made in (valid until it is
	// reset); nil for the heap.
	arena *InputArena
}

// NewValue converts a JSON-compatible Go value (maps, slices, strings, numbers,
// booleans, nil) for the engine: as ast.InterfaceToValue does, but each
// map whose keys are all field names of the engine's input (keyTerms)
// becomes a record keyed by those terms, from the top down, which the
// plan reads by key without hashing (regoir.Record). A map with any other
// key (a list's index by server name) is OPA's object,
// and so is all it holds, as are arrays: neither may hold a record.
func NewValue(x any) (Value, error) {
	v, err := newValue(x, keyTerms())
	if err != nil {
		return Value{}, fmt.Errorf("convert policy input: %w", err)
	}
	return Value{v: v}, nil
}

// newValue is NewValue's conversion. A record is made from the map itself,
// not from an OPA object made first and taken apart, in sorted key order
// so that the same map always makes the same record.
func newValue(x any, known map[string]*ast.Term) (ast.Value, error) {
	m, ok := x.(map[string]any)
	if !ok || len(m) == 0 {
		return ast.InterfaceToValue(x)
	}
	for k := range m {
		if known[k] == nil {
			return ast.InterfaceToValue(x)
		}
	}
	r := &regoir.Record{}
	r.Grow(len(m))
	// In key order, as OPA's object lists them: the same record, whatever
	// the map's order.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, err := newValue(m[k], known)
		if err != nil {
			return nil, err
		}
		r.Add(known[k], ast.NewTerm(v))
	}
	return r, nil
}

// Equal reports whether v and w are the same value.
func (v Value) Equal(w Value) bool {
	if v.v == nil || w.v == nil {
		return v.v == nil && w.v == nil
	}
	return regoir.PlainValue(v.v).Compare(regoir.PlainValue(w.v)) == 0
}

// String is v written as Rego writes values.
func (v Value) String() string {
	if v.v == nil {
		return "<none>"
	}
	return v.v.String()
}

// input is an evaluation's input document, {"context": ctx, "server":
// server} (no server when server is the zero Value).
func input(server, ctx Value) ast.Value { return inputTerm(server, ctx).Value }

// inputTerm is input as a term, made in server's arena.
func inputTerm(server, ctx Value) *ast.Term {
	in := server.arena.evalInput()
	in.rec.Use(in.fields[:])
	in.ctx.Value = ctx.v
	in.rec.Add(keyTerm("context"), &in.ctx)
	if server.v != nil {
		in.server.Value = server.v
		in.rec.Add(keyTerm("server"), &in.server)
	}
	in.doc.Value = &in.rec
	return &in.doc
}

// evalInput is input's record with its terms, allocated together.
type evalInput struct {
	rec              regoir.Record
	fields           [4]*ast.Term
	ctx, server, doc ast.Term
}

// inputOptions are every evaluation's options: the input, parsed, and no
// metrics (rego otherwise makes a set of timers for each evaluation that
// nothing reads).
func inputOptions(in ast.Value) []rego.EvalOption {
	// Topdown reads OPA's objects, not records (Object).
	return []rego.EvalOption{rego.EvalParsedInput(regoir.PlainValue(in)), rego.EvalMetrics(metrics.NoOp())}
}

// EvalServer evaluates the per-server policies: the Claude Code verdict, the
// shipped server rules and the custom deny and warn rules.
func (e *Engine) EvalServer(ctx context.Context, server, pctx Value) (*ServerResult, error) {
	if err := e.Err(); err != nil {
		return nil, err
	}
	if server.arena != nil && e.KeepsInputs() {
		return nil, errTransientInput
	}
	e.evaluated.Add(1)
	return e.evalServer(ctx, server, pctx)
}

// Evaluated is how many servers EvalServer has evaluated since the engine
// was made: a daemon reports the difference over a scan.
func (e *Engine) Evaluated() uint64 {
	if e == nil {
		return 0
	}
	return e.evaluated.Load()
}

func (e *Engine) evalServer(ctx context.Context, server, pctx Value) (*ServerResult, error) {
	doc := inputTerm(server, pctx)
	in := doc.Value
	res := &ServerResult{}
	if !e.withCustom && e.plan != nil {
		if err := e.planServer(ctx, doc, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	v, err := e.query(ctx, false, "", e.server, in)
	if err != nil {
		return nil, err
	}
	custom, err := decodeServer(v, res, e.withCustom)
	if err != nil {
		return nil, err
	}
	if v, err = e.query(ctx, true, entryHygiene, e.hygiene, in); err != nil {
		return nil, err
	}
	if err := appendFindings(&res.Findings, v); err != nil {
		return nil, err
	}
	// The organisation's findings follow the shipped ones.
	res.Findings = append(res.Findings, custom...)
	return res, nil
}

// query evaluates one of the engine's queries on in: through the plan's
// entrypoint when the engine has a plan and it can serve the query
// (plannable), otherwise through topdown's prepared query pq.
func (e *Engine) query(ctx context.Context, plannable bool, entrypoint string, pq rego.PreparedEvalQuery, in ast.Value) (ast.Value, error) {
	if plannable && e.plan != nil {
		return e.planned(ctx, entrypoint, in)
	}
	// The evaluation stops when ctx does, through a cancel: rego would
	// otherwise start a goroutine per evaluation to watch ctx, which wakes
	// an idle core for every server.
	cancel := topdown.NewCancel()
	defer context.AfterFunc(ctx, cancel.Cancel)()
	rs, err := pq.Eval(ctx, append(inputOptions(in), rego.EvalExternalCancel(cancel), rawResult())...)
	if err != nil {
		return nil, fmt.Errorf("evaluate policy: %w", err)
	}
	return resultValue(rs)
}

// EvalContext evaluates the rules about the policy itself (MCPG-P003, P005,
// P006) once per context.
func (e *Engine) EvalContext(ctx context.Context, pctx Value) ([]RuleResult, error) {
	if err := e.Err(); err != nil {
		return nil, err
	}
	v, err := e.query(ctx, true, entryContext, e.context, input(Value{}, pctx))
	if err != nil {
		return nil, err
	}
	var list []RuleResult
	if err := appendFindings(&list, v); err != nil {
		return nil, err
	}
	return list, nil
}

func decodeResult(rs rego.ResultSet, into any) error {
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return fmt.Errorf("evaluate policy: the entrypoint is undefined")
	}
	data, err := json.Marshal(rs[0].Expressions[0].Value)
	if err != nil {
		return fmt.Errorf("decode policy result: %w", err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("decode policy result: %w", err)
	}
	return nil
}

// customResult is one element of a custom deny or warn set. The contract is
// {"id": ..., "msg": ...}; a bare string is accepted as the message.
type customResult struct {
	Package string          `json:"package"`
	Result  json.RawMessage `json:"result"`
}

func (c customResult) finding(sev reports.Severity) RuleResult {
	var obj struct {
		ID       string         `json:"id"`
		Msg      string         `json:"msg"`
		Evidence map[string]any `json:"evidence"`
	}
	if err := json.Unmarshal(c.Result, &obj); err != nil || obj.Msg == "" {
		var s string
		if json.Unmarshal(c.Result, &s) == nil {
			obj.Msg = s
		} else {
			obj.Msg = string(c.Result)
		}
	}
	if obj.ID == "" {
		obj.ID = c.Package
	}
	return RuleResult{Rule: obj.ID, Severity: sev, Message: obj.Msg, Evidence: obj.Evidence, Package: c.Package}
}
