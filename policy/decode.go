package policy

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcpguard/mcpguard/reports"
)

// The per-server results are read from the Go values rego gives (maps,
// slices, json.Number, strings, booleans) rather than marshalled to JSON and
// decoded again. The values are exactly those of that round trip:
// numbers as float64 and each byte of invalid UTF-8 as U+FFFD, which is what
// encoding/json writes and reads back (TestDirectDecodeMatchesJSON holds
// the two to each other).

// resultValue returns the value of the query's only expression.
func resultValue(rs rego.ResultSet) (any, error) {
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil, fmt.Errorf("evaluate policy: the entrypoint is undefined")
	}
	return rs[0].Expressions[0].Value, nil
}

// decodeServer reads the server entrypoint's {verdict, admission, findings,
// deny, warn}: the first three into res, and (withCustom: the shipped
// entrypoint has no deny and warn) the custom deny and warn findings, in
// that order, returned.
func decodeServer(v any, res *ServerResult, withCustom bool) ([]RuleResult, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, malformedResult(v)
	}
	verdict, ok := obj["verdict"].(map[string]any)
	if !ok {
		return nil, malformedResult(v)
	}
	if res.Decision.Allowed, ok = verdict["allowed"].(bool); !ok {
		return nil, malformedResult(v)
	}
	reasons, ok := verdict["reasons"].([]any)
	if !ok {
		return nil, malformedResult(v)
	}
	res.Decision.Reasons = make([]string, len(reasons))
	for i, r := range reasons {
		s, ok := r.(string)
		if !ok {
			return nil, malformedResult(v)
		}
		res.Decision.Reasons[i] = jsonString(s)
	}
	if res.Admission, ok = obj["admission"].(string); !ok {
		return nil, malformedResult(v)
	}
	res.Admission = jsonString(res.Admission)
	if err := appendFindings(&res.Findings, obj["findings"]); err != nil {
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
		list, ok := obj[kind.key].([]any)
		if !ok {
			return nil, malformedResult(v)
		}
		for _, c := range list {
			cr, err := decodeCustom(c)
			if err != nil {
				return nil, err
			}
			custom = append(custom, cr.finding(kind.sev))
		}
	}
	return custom, nil
}

// appendFindings reads a list of shipped findings.
func appendFindings(out *[]RuleResult, v any) error {
	list, ok := v.([]any)
	if !ok {
		return malformedResult(v)
	}
	for _, f := range list {
		r, err := findingValue(f)
		if err != nil {
			return err
		}
		*out = append(*out, r)
	}
	return nil
}

// findingValue reads a shipped rule's {"rule", "msg", "evidence",
// "location", "severity"} as decodeFinding reads its JSON.
func findingValue(v any) (RuleResult, error) {
	bad := func() (RuleResult, error) {
		raw, _ := json.Marshal(v)
		return RuleResult{}, fmt.Errorf("policy produced a malformed finding %s", raw)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return bad()
	}
	rule, ok1 := optString(obj["rule"])
	msg, ok2 := optString(obj["msg"])
	sevText, ok3 := optString(obj["severity"])
	if !ok1 || !ok2 || !ok3 || rule == "" || msg == "" {
		return bad()
	}
	var evidence map[string]any
	switch e := obj["evidence"].(type) {
	case nil:
	case map[string]any:
		ev, err := jsonValue(e)
		if err != nil {
			return bad()
		}
		evidence = ev.(map[string]any)
	default:
		return bad()
	}
	var loc *reports.Location
	switch l := obj["location"].(type) {
	case nil:
	case map[string]any:
		loc = &reports.Location{}
		var okPath, okPtr, okLine, okCol bool
		loc.Path, okPath = optString(l["path"])
		loc.Pointer, okPtr = optString(l["pointer"])
		loc.Line, okLine = optInt(l["line"])
		loc.Column, okCol = optInt(l["column"])
		if !okPath || !okPtr || !okLine || !okCol {
			return bad()
		}
	default:
		return bad()
	}
	r, _ := reports.LookupRule(rule)
	sev := r.Severity
	if sevText != "" {
		sev = reports.Severity(sevText)
	}
	return RuleResult{Rule: rule, Severity: sev, Message: msg, Evidence: evidence, Location: loc}, nil
}

// decodeCustom reads one element of the generated custom index,
// {"package", "result"}; the result, whatever the organisation's rule
// returned, goes to customResult as its JSON.
func decodeCustom(v any) (customResult, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return customResult{}, malformedResult(v)
	}
	pkg, ok := optString(obj["package"])
	if !ok {
		return customResult{}, malformedResult(v)
	}
	raw, err := json.Marshal(obj["result"])
	if err != nil {
		return customResult{}, fmt.Errorf("decode policy result: %w", err)
	}
	return customResult{Package: pkg, Result: raw}, nil
}

func malformedResult(v any) error {
	raw, _ := json.Marshal(v)
	return fmt.Errorf("decode policy result: unexpected shape %.200s", raw)
}

// optString reads a string member that may be absent (""); false for any
// other type.
func optString(v any) (string, bool) {
	switch s := v.(type) {
	case nil:
		return "", true
	case string:
		return jsonString(s), true
	}
	return "", false
}

// optInt reads an integer member that may be absent (0), as encoding/json
// fills an int: false for a fraction, an exponent or a value out of range.
func optInt(v any) (int, bool) {
	switch n := v.(type) {
	case nil:
		return 0, true
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 0)
		return int(i), err == nil
	}
	return 0, false
}

// jsonValue is v after json.Marshal and a json.Unmarshal into any.
func jsonValue(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool:
		return x, nil
	case string:
		return jsonString(x), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, fmt.Errorf("decode policy result: number %s: %w", x, err)
		}
		return f, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = jsonValue(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			jk := jsonString(k)
			if _, dup := out[jk]; dup {
				// Two keys that differ only in invalid bytes: which one
				// wins is the round trip's business.
				return roundTrip(x)
			}
			var err error
			if out[jk], err = jsonValue(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return roundTrip(v)
}

func roundTrip(v any) (any, error) {
	raw, err := json.Marshal(v)
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
