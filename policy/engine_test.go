package policy

import (
	"context"
	"testing"
)

func TestEngineSmoke(t *testing.T) {
	e, err := NewEngine(context.Background(), EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctxv, _ := NewValue(map[string]any{"claude": map[string]any{"allow": nil, "deny": []any{map[string]any{"key": "serverName", "name": "evil"}}, "allow_org": nil, "deny_org": []any{}}})
	sv, _ := NewValue(map[string]any{"name": "evil", "transport": "stdio", "claude": map[string]any{"label": "user", "argv": []any{"x"}, "url": "", "has_var": false}})
	r, err := e.EvalServer(context.Background(), sv, ctxv)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", r)
	if r.Decision.Allowed || r.Decision.Reasons[0] != "DENIED_NAME" {
		t.Errorf("decision %+v", r.Decision)
	}
}
