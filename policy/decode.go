package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcpguard/mcpguard/reports"
)

// The results are read from OPA's values (the plan's, and topdown's
// through rawResult) rather than converted to Go's and marshalled to JSON
// and decoded again. The values are exactly those of that round trip:
// sets as sorted arrays, numbers as float64 and each byte of invalid UTF-8
// as U+FFFD, which is what encoding/json writes and reads back
// (TestDirectDecodeMatchesJSON holds the two to each other).

// rawResult has rego give a query's results as OPA's values.
func rawResult() rego.EvalOption {
	return rego.EvalGenerateJSON(func(t *ast.Term, _ *rego.EvalContext) (any, error) { return t.Value, nil })
}

// resultValue returns the value of the query's only expression, evaluated
// with rawResult.
func resultValue(rs rego.ResultSet) (ast.Value, error) {
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, fmt.Errorf("evaluate policy: the entrypoint is undefined")
	}
	v, ok := rs[0].Expressions[0].Value.(ast.Value)
	if !ok {
		return nil, fmt.Errorf("decode policy result: %T is not a value", rs[0].Expressions[0].Value)
	}
	return v, nil
}

// member is obj[key]; nil when obj is not an object or has no such key.
func member(v ast.Value, key string) ast.Value {
	obj, ok := v.(ast.Object)
	if !ok {
		return nil
	}
	if t := obj.Get(keyTerm(key)); t != nil {
		return t.Value
	}
	return nil
}

// elements are an array's elements, or a set's in order; false for any
// other value. A set's are its own sorted list, shared, not copied: the
// caller only reads them.
func elements(v ast.Value) ([]*ast.Term, bool) { return appendElements(nil, v) }

// appendElements is elements appended to buf, so that a caller can give
// a buffer on its stack for a result's few reasons or findings.
func appendElements(buf []*ast.Term, v ast.Value) ([]*ast.Term, bool) {
	switch x := v.(type) {
	case *ast.Array:
		for i := range x.Len() {
			buf = append(buf, x.Elem(i))
		}
		return buf, true
	case ast.Set:
		return append(buf, x.Slice()...), true // sorted, as rego's JSON gives them
	}
	return nil, false
}

// decodeServer reads the server entrypoint's {verdict, admission, findings,
// deny, warn}: the first three into res, and (withCustom: the shipped
// entrypoint has no deny and warn) the custom deny and warn findings, in
// that order, returned.
func decodeServer(v ast.Value, res *ServerResult, withCustom bool) ([]RuleResult, error) {
	if err := decodeVerdict(v, member(v, "verdict"), member(v, "admission"), member(v, "findings"), res); err != nil {
		return nil, err
	}
	if !withCustom {
		return nil, nil
	}
	var custom []RuleResult
	for _, kind := range []struct {
		key string
		sev reports.Severity
	}{{"deny", reports.SeverityError}, {"warn", reports.SeverityWarning}} {
		list, ok := elements(member(v, kind.key))
		if !ok {
			return nil, malformedResult(v)
		}
		for _, c := range list {
			cr, err := decodeCustom(c.Value)
			if err != nil {
				return nil, err
			}
			custom = append(custom, cr.finding(kind.sev))
		}
	}
	return custom, nil
}

// decodePlanned reads the planned server entrypoint's [verdict,
// admission, findings, hygiene findings] into res: the shipped verdict
// query's parts, then the hygiene rules' findings after its own, as
// decodeServer and appendFindings read them apart.
func decodePlanned(v ast.Value, res *ServerResult) error {
	a, ok := v.(*ast.Array)
	if !ok || a.Len() != 4 {
		return malformedResult(v)
	}
	if err := decodeVerdict(v, a.Elem(0).Value, a.Elem(1).Value, a.Elem(2).Value, res); err != nil {
		return err
	}
	return appendFindings(&res.Findings, a.Elem(3).Value)
}

// decodeVerdict reads a verdict ({"allowed", "reasons"}), an admission
// and the policy rules' findings into res; v is the result they are part
// of, for the error.
func decodeVerdict(v, verdict, admission, findings ast.Value, res *ServerResult) error {
	allowed, ok := member(verdict, "allowed").(ast.Boolean)
	if !ok {
		return malformedResult(v)
	}
	res.Decision.Allowed = bool(allowed)
	var room [8]*ast.Term
	reasons, ok := appendElements(room[:0], member(verdict, "reasons"))
	if !ok {
		return malformedResult(v)
	}
	res.Decision.Reasons = make([]string, len(reasons))
	for i, r := range reasons {
		s, ok := r.Value.(ast.String)
		if !ok {
			return malformedResult(v)
		}
		res.Decision.Reasons[i] = jsonString(string(s))
	}
	adm, ok := admission.(ast.String)
	if !ok {
		return malformedResult(v)
	}
	res.Admission = jsonString(string(adm))
	return appendFindings(&res.Findings, findings)
}

// appendFindings reads a list of shipped findings.
func appendFindings(out *[]RuleResult, v ast.Value) error {
	var room [8]*ast.Term
	list, ok := appendElements(room[:0], v)
	if !ok {
		return malformedResult(v)
	}
	for _, f := range list {
		r, err := findingValue(f.Value)
		if err != nil {
			return err
		}
		*out = append(*out, r)
	}
	return nil
}

// findingValue reads a shipped rule's {"rule", "msg", "evidence",
// "location", "severity"} as decodeFinding reads its JSON.
func findingValue(v ast.Value) (RuleResult, error) {
	bad := func() (RuleResult, error) {
		return RuleResult{}, fmt.Errorf("policy produced a malformed finding %s", jsonText(v))
	}
	if _, ok := v.(ast.Object); !ok {
		return bad()
	}
	rule, ok1 := optString(member(v, "rule"))
	msg, ok2 := optString(member(v, "msg"))
	sevText, ok3 := optString(member(v, "severity"))
	if !ok1 || !ok2 || !ok3 || rule == "" || msg == "" {
		return bad()
	}
	var evidence map[string]any
	switch e := member(v, "evidence").(type) {
	case nil, ast.Null:
	case ast.Object:
		ev, err := jsonValue(e)
		if err != nil {
			return bad()
		}
		evidence = ev.(map[string]any)
	default:
		return bad()
	}
	var loc *reports.Location
	switch l := member(v, "location").(type) {
	case nil, ast.Null:
	case ast.Object:
		loc = &reports.Location{}
		var okPath, okPtr, okLine, okCol bool
		loc.Path, okPath = optString(member(l, "path"))
		loc.Pointer, okPtr = optString(member(l, "pointer"))
		loc.Line, okLine = optInt(member(l, "line"))
		loc.Column, okCol = optInt(member(l, "column"))
		if !okPath || !okPtr || !okLine || !okCol {
			return bad()
		}
	default:
		return bad()
	}
	sev, _ := reports.RuleClass(rule)
	if sevText != "" {
		sev = reports.Severity(sevText)
	}
	return RuleResult{Rule: rule, Severity: sev, Message: msg, Evidence: evidence, Location: loc}, nil
}

// decodeCustom reads one element of the generated custom index,
// {"package", "result"}; the result, whatever the organisation's rule
// returned, goes to customResult as its JSON.
func decodeCustom(v ast.Value) (customResult, error) {
	if _, ok := v.(ast.Object); !ok {
		return customResult{}, malformedResult(v)
	}
	pkg, ok := optString(member(v, "package"))
	if !ok {
		return customResult{}, malformedResult(v)
	}
	var result any
	if r := member(v, "result"); r != nil {
		var err error
		if result, err = ast.JSON(r); err != nil {
			return customResult{}, fmt.Errorf("decode policy result: %w", err)
		}
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return customResult{}, fmt.Errorf("decode policy result: %w", err)
	}
	return customResult{Package: pkg, Result: raw}, nil
}

func malformedResult(v ast.Value) error {
	return fmt.Errorf("decode policy result: unexpected shape %.200s", jsonText(v))
}

// jsonText is v as JSON, for messages.
func jsonText(v ast.Value) string {
	if v == nil {
		return "null"
	}
	x, err := ast.JSON(v)
	if err != nil {
		return v.String()
	}
	raw, _ := json.Marshal(x)
	return string(raw)
}

// optString reads a string member that may be absent or null (""); false
// for any other type.
func optString(v ast.Value) (string, bool) {
	switch s := v.(type) {
	case nil, ast.Null:
		return "", true
	case ast.String:
		return jsonString(string(s)), true
	}
	return "", false
}

// optInt reads an integer member that may be absent or null (0), as
// encoding/json fills an int: false for a fraction, an exponent or a value
// out of range.
func optInt(v ast.Value) (int, bool) {
	switch n := v.(type) {
	case nil, ast.Null:
		return 0, true
	case ast.Number:
		i, err := strconv.ParseInt(string(n), 10, 0)
		return int(i), err == nil
	}
	return 0, false
}

// jsonValue is v after ast.JSON, json.Marshal and a json.Unmarshal into
// any.
func jsonValue(v ast.Value) (any, error) {
	switch x := v.(type) {
	case ast.Null:
		return nil, nil
	case ast.Boolean:
		return bool(x), nil
	case ast.String:
		return jsonString(string(x)), nil
	case ast.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("decode policy result: number %s: %w", x, err)
		}
		return f, nil
	case *ast.Array, ast.Set:
		elems, _ := elements(x)
		out := make([]any, len(elems))
		for i, e := range elems {
			var err error
			if out[i], err = jsonValue(e.Value); err != nil {
				return nil, err
			}
		}
		return out, nil
	case ast.Object:
		out := make(map[string]any, x.Len())
		var err error
		x.Until(func(k, e *ast.Term) bool {
			ks, ok := k.Value.(ast.String)
			jk := jsonString(string(ks))
			if _, dup := out[jk]; dup || !ok {
				// A key that is not a string, or two that differ only in
				// invalid bytes: what becomes of them is the round trip's
				// business.
				err = errRoundTrip
				return true
			}
			out[jk], err = jsonValue(e.Value)
			return err != nil
		})
		if err == errRoundTrip {
			return roundTrip(x)
		}
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return roundTrip(v)
}

var errRoundTrip = errors.New("round trip")

func roundTrip(v ast.Value) (any, error) {
	x, err := ast.JSON(v)
	if err != nil {
		return nil, fmt.Errorf("decode policy result: %w", err)
	}
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("decode policy result: %w", err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode policy result: %w", err)
	}
	return out, nil
}

// jsonString is s as encoding/json writes it and reads it back: each byte
// of invalid UTF-8 becomes U+FFFD.
func jsonString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // ranging yields U+FFFD for each invalid byte
	}
	return b.String()
}
