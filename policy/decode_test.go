package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/mcpguard/mcpguard/reports"
)

// TestDirectDecodeMatchesJSON: reading the policies' results from rego's Go
// values gives exactly what the JSON round trip the engine used before gave
// (refEvalServer, kept here as the reference) — verdicts, findings, their
// evidence numbers and strings, locations, and the organisation's deny and
// warn results of every shape — including strings with invalid UTF-8.
func TestDirectDecodeMatchesJSON(t *testing.T) {
	ctx := context.Background()
	custom := `package mcpguard.custom.decode

deny contains "a bare string"

deny contains {"id": "ORG-1", "msg": sprintf("server %s", [input.server.name]), "evidence": {"n": 1e21, "f": 0.1, "big": 12345678901234567890, "neg": -3, "list": [1, "two", null, true, {"k": input.server.name}], "<b>&": "x<y"}}

warn contains {"msg": 42}

warn contains ["not", "an", "object"]

warn contains {"id": 7, "msg": "id is a number"}

warn contains {"msg": "evidence is a list", "evidence": [1]}

warn contains input.server.name
`
	// From the sources: topdown evaluates every query, and refEvalServer
	// reads the results through it. (The plan's are compared with topdown's
	// by TestPlanEngineMatchesTopdown and FuzzPlanMatchesTopdown.)
	e, err := NewEngine(ctx, EngineOptions{Modules: map[string]string{"decode.rego": custom}, FromSources: true})
	if err != nil {
		t.Fatal(err)
	}
	pctx := benchContext(t)
	servers := benchServers(16)
	for i, name := range []string{"bad\xffname", "two\xfe\xfdbytes", "evil", "a\u202eb", "<script>"} {
		s := benchServers(1)[0]
		s["name"] = name
		if i%2 == 1 {
			s["env_keys"] = []any{"NODE_OPTIONS", "k\xff"}
		}
		servers = append(servers, s)
	}
	for _, s := range servers {
		v, err := NewValue(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.evalServer(ctx, v, pctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.refEvalServer(ctx, v, pctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("server %q:\n got %+v\nwant %+v", s["name"], got, want)
		}
		if len(got.Findings) < 7 {
			t.Fatalf("server %q: %d findings: the custom rules did not all fire", s["name"], len(got.Findings))
		}
	}
	got, err := e.EvalContext(ctx, pctx)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := e.context.Eval(ctx, inputOptions(input(Value{}, pctx))...)
	if err != nil {
		t.Fatal(err)
	}
	var raws []json.RawMessage
	if err := decodeResult(rs, &raws); err != nil {
		t.Fatal(err)
	}
	var want []RuleResult
	for _, raw := range raws {
		f, err := decodeFinding(raw)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, f)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("context:\n got %+v\nwant %+v", got, want)
	}
}

// astValue is v as OPA's value.
func astValue(t *testing.T, v any) ast.Value {
	t.Helper()
	x, err := ast.InterfaceToValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestDecodeMalformedFindings: a finding that decodeFinding refuses is
// refused directly too.
func TestDecodeMalformedFindings(t *testing.T) {
	for _, v := range []any{
		"not an object",
		map[string]any{"msg": "no rule"},
		map[string]any{"rule": "MCPG-C001"},
		map[string]any{"rule": 1, "msg": "m"},
		map[string]any{"rule": "MCPG-C001", "msg": "m", "evidence": []any{}},
		map[string]any{"rule": "MCPG-C001", "msg": "m", "location": map[string]any{"line": json.Number("1.5")}},
		map[string]any{"rule": "MCPG-C001", "msg": "m", "location": map[string]any{"path": 3}},
		map[string]any{"rule": "MCPG-C001", "msg": "m", "location": "p"},
		map[string]any{"rule": "MCPG-C001", "msg": "m", "severity": true},
		map[string]any{"rule": "MCPG-C001", "msg": "m", "evidence": map[string]any{"n": json.Number("1e400")}},
	} {
		raw, _ := json.Marshal(v)
		_, refErr := decodeFinding(raw)
		_, err := findingValue(astValue(t, v))
		if refErr == nil || err == nil {
			t.Errorf("%s: reference error %v, direct error %v", raw, refErr, err)
		}
	}
	ok := map[string]any{"rule": "MCPG-C001", "msg": "m", "severity": "note",
		"location": map[string]any{"path": "p\xff", "pointer": "/x", "line": json.Number("3"), "column": json.Number("4"), "kind": "extra"},
		"evidence": map[string]any{"a\xff": json.Number("2"), "b": []any{json.Number("1e2"), "c\xfe"}}}
	raw, _ := json.Marshal(ok)
	want, err := decodeFinding(raw)
	if err != nil {
		t.Fatal(err)
	}
	got, err := findingValue(astValue(t, ok))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v\nwant %+v", got, err, want)
	}
}

// refEvalServer is evalServer as it was: the results marshalled to JSON
// and decoded again.
func (e *Engine) refEvalServer(ctx context.Context, server, pctx Value) (*ServerResult, error) {
	in := input(server, pctx)
	rs, err := e.server.Eval(ctx, inputOptions(in)...)
	if err != nil {
		return nil, err
	}
	var out struct {
		Verdict   reports.Decision  `json:"verdict"`
		Admission string            `json:"admission"`
		Findings  []json.RawMessage `json:"findings"`
		Deny      []customResult    `json:"deny"`
		Warn      []customResult    `json:"warn"`
	}
	if err := decodeResult(rs, &out); err != nil {
		return nil, err
	}
	res := &ServerResult{Decision: out.Verdict, Admission: out.Admission}
	if res.Decision.Reasons == nil {
		res.Decision.Reasons = []string{}
	}
	for _, raw := range out.Findings {
		f, err := decodeFinding(raw)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, f)
	}
	rs, err = e.hygiene.Eval(ctx, inputOptions(in)...)
	if err != nil {
		return nil, err
	}
	var hygiene []json.RawMessage
	if err := decodeResult(rs, &hygiene); err != nil {
		return nil, err
	}
	for _, raw := range hygiene {
		f, err := decodeFinding(raw)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, f)
	}
	for _, c := range out.Deny {
		res.Findings = append(res.Findings, c.finding(reports.SeverityError))
	}
	for _, c := range out.Warn {
		res.Findings = append(res.Findings, c.finding(reports.SeverityWarning))
	}
	return res, nil
}

// decodeFinding reads a shipped rule's {"rule", "msg", "evidence", "location"}.
func decodeFinding(raw json.RawMessage) (RuleResult, error) {
	var f struct {
		Rule     string            `json:"rule"`
		Msg      string            `json:"msg"`
		Evidence map[string]any    `json:"evidence"`
		Location *reports.Location `json:"location"`
		Severity string            `json:"severity"`
	}
	if err := json.Unmarshal(raw, &f); err != nil || f.Rule == "" || f.Msg == "" {
		return RuleResult{}, fmt.Errorf("policy produced a malformed finding %s", raw)
	}
	r, _ := reports.LookupRule(f.Rule)
	sev := r.Severity
	if f.Severity != "" {
		sev = reports.Severity(f.Severity)
	}
	return RuleResult{Rule: f.Rule, Severity: sev, Message: f.Msg, Evidence: f.Evidence, Location: f.Location}, nil
}

// TestShippedQueryIsServerWithoutCustom holds the two verdict entrypoints
// together: an engine without custom rules evaluates main.shipped, which
// must be main.server without its (then empty) custom deny and warn lists.
func TestShippedQueryIsServerWithoutCustom(t *testing.T) {
	ctx := context.Background()
	bs := builtins()
	verdict, err := shippedCompiler(groupVerdict, bs)
	if err != nil {
		t.Fatal(err)
	}
	full, err := prepareQuery(ctx, verdict, serverQuery, bs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := prepareQuery(ctx, verdict, shippedQuery, bs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	servers := benchServerValues(t, 8)
	for _, pctx := range []Value{benchContext(t), testContext(t, nil), testContext(t, []any{map[string]any{"key": "serverName", "name": "srv-1"}})} {
		for i, s := range servers {
			in := input(s, pctx)
			want, err := full.Eval(ctx, inputOptions(in)...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := shipped.Eval(ctx, inputOptions(in)...)
			if err != nil {
				t.Fatal(err)
			}
			wm := want[0].Expressions[0].Value.(map[string]any)
			if len(wm["deny"].([]any)) != 0 || len(wm["warn"].([]any)) != 0 {
				t.Fatalf("server %d: custom lists without custom rules: %v", i, wm)
			}
			delete(wm, "deny")
			delete(wm, "warn")
			g := got[0].Expressions[0].Value
			if !reflect.DeepEqual(g, wm) {
				t.Fatalf("server %d:\nshipped %v\n server %v", i, g, wm)
			}
		}
	}
}

// TestDecodePlanned: the planned entrypoint's array is read as the verdict
// query's result and the hygiene findings are, one after the other, and
// any other shape is refused.
func TestDecodePlanned(t *testing.T) {
	verdict := map[string]any{"allowed": false, "reasons": []any{"DENIED_NAME"}}
	policyFinding := map[string]any{"rule": "MCPG-P001", "msg": "denied"}
	hygieneFinding := map[string]any{"rule": "MCPG-C005", "msg": "sse", "evidence": map[string]any{"transport": "sse"}}
	var want ServerResult
	if _, err := decodeServer(astValue(t, map[string]any{"verdict": verdict, "admission": "", "findings": []any{policyFinding}}), &want, false); err != nil {
		t.Fatal(err)
	}
	if err := appendFindings(&want.Findings, astValue(t, []any{hygieneFinding})); err != nil {
		t.Fatal(err)
	}
	var got ServerResult
	if err := decodePlanned(astValue(t, []any{verdict, "", []any{policyFinding}, []any{hygieneFinding}}), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || len(got.Findings) != 2 {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []any{
		map[string]any{"verdict": verdict},
		[]any{verdict, "", []any{}},
		[]any{verdict, "", []any{}, []any{}, []any{}},
		[]any{"verdict", "", []any{}, []any{}},
		[]any{verdict, 1, []any{}, []any{}},
		[]any{verdict, "", "findings", []any{}},
		[]any{verdict, "", []any{}, []any{"not a finding"}},
	} {
		if err := decodePlanned(astValue(t, bad), &ServerResult{}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
