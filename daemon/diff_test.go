package daemon

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
)

func server(id, name string, status reports.Status, mod ...func(*reports.Server)) reports.Server {
	s := reports.Server{ID: id, Name: name, Client: "cursor", Scope: "user", Transport: "stdio", Command: "npx",
		Args: []string{"-y", "pkg@1.0.0"}, EnvKeys: []string{}, HeaderKeys: []string{}, FindingIDs: []string{},
		Source: reports.Location{Path: "/h/.cursor/mcp.json", Line: 2, Column: 5}, Status: status,
		Decision: reports.Decision{Allowed: status != reports.StatusBlocked, Reasons: []string{"ALLOWED"}}}
	for _, m := range mod {
		m(&s)
	}
	return s
}

func report(servers []reports.Server, findings []reports.Finding, errs []reports.FileError) *reports.Report {
	r := &reports.Report{Schema: reports.Schema, Servers: servers, Findings: findings, Errors: errs}
	r.Summary = reports.Summarize(r)
	return r
}

func kinds(evs []events.Event) []string {
	var out []string
	for _, e := range evs {
		id := e.FindingID
		if id == "" {
			id = e.ServerID
		}
		if id == "" {
			id = e.Path
		}
		out = append(out, e.Kind+":"+id)
	}
	return out
}

func TestDiff(t *testing.T) {
	a := server("s-a", "a", reports.StatusActive)
	b := server("s-b", "b", reports.StatusActive)
	fA := reports.Finding{ID: "f-1", Rule: "MCPG-C002", Severity: reports.SeverityWarning, ServerID: "s-a", Message: "unpinned"}
	broken := reports.FileError{Path: "/h/x.json", Line: 1, Column: 2, Message: "invalid JSON"}
	tests := []struct {
		name     string
		old, cur inventory
		want     []string
	}{
		{"first start adds everything", inventory{}, inventory{report: report([]reports.Server{a}, []reports.Finding{fA}, nil)},
			[]string{"server-added:s-a", "finding-opened:f-1"}},
		{"nothing changed", inventory{report: report([]reports.Server{a}, nil, nil)}, inventory{report: report([]reports.Server{a}, nil, nil)}, nil},
		{"removed and added", inventory{report: report([]reports.Server{a}, nil, nil)}, inventory{report: report([]reports.Server{b}, nil, nil)},
			[]string{"server-removed:s-a", "server-added:s-b"}},
		{"status change", inventory{report: report([]reports.Server{server("s-a", "a", reports.StatusPendingApproval)}, nil, nil)},
			inventory{report: report([]reports.Server{a}, nil, nil)}, []string{"status-changed:s-a"}},
		{"command change", inventory{report: report([]reports.Server{a}, nil, nil)},
			inventory{report: report([]reports.Server{server("s-a", "a", reports.StatusActive, func(s *reports.Server) { s.Args = []string{"evil"} })}, nil, nil)},
			[]string{"server-changed:s-a"}},
		{"a moved line is no change", inventory{report: report([]reports.Server{a}, nil, nil)},
			inventory{report: report([]reports.Server{server("s-a", "a", reports.StatusActive, func(s *reports.Server) { s.Source.Line = 9 })}, nil, nil)}, nil},
		{"finding resolved", inventory{report: report([]reports.Server{a}, []reports.Finding{fA}, nil)}, inventory{report: report([]reports.Server{a}, nil, nil)},
			[]string{"finding-resolved:f-1"}},
		{"file error and recovery", inventory{report: report(nil, nil, nil)}, inventory{report: report(nil, nil, []reports.FileError{broken})},
			[]string{"file-error:/h/x.json"}},
		{"file recovered", inventory{report: report(nil, nil, []reports.FileError{broken})}, inventory{report: report(nil, nil, nil)},
			[]string{"file-recovered:/h/x.json"}},
		{"secret value changed", inventory{report: report([]reports.Server{a}, nil, nil), secrets: map[string]map[string]string{"s-a": {"env:TOKEN": "1"}}},
			inventory{report: report([]reports.Server{a}, nil, nil), secrets: map[string]map[string]string{"s-a": {"env:TOKEN": "2"}}},
			[]string{"server-changed:s-a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := kinds(diff(tc.old, tc.cur, nil)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDiffNamesChangedSecretsWithoutValues: a changed env value is named,
// its value never appears.
func TestDiffNamesChangedSecretsWithoutValues(t *testing.T) {
	a := server("s-a", "a", reports.StatusActive)
	old := inventory{report: report([]reports.Server{a}, nil, nil), secrets: map[string]map[string]string{"s-a": {"env:TOKEN": "hash1", "args": "x"}}}
	cur := inventory{report: report([]reports.Server{a}, nil, nil), secrets: map[string]map[string]string{"s-a": {"env:TOKEN": "hash2", "args": "x"}}}
	evs := diff(old, cur, secrets.NewDetector())
	if len(evs) != 1 {
		t.Fatalf("events %v", kinds(evs))
	}
	b, _ := json.Marshal(evs[0])
	if got := evs[0].Details["values"]; !reflect.DeepEqual(got, []string{"env:TOKEN"}) {
		t.Errorf("values %v in %s", got, b)
	}
	for _, h := range []string{"hash1", "hash2"} {
		if strings.Contains(string(b), h) {
			t.Errorf("event carries a hash %s: %s", h, b)
		}
	}
}

// TestDiffSurvivesTheStateFile: an inventory read back from JSON compares
// equal to the one that was written.
func TestDiffSurvivesTheStateFile(t *testing.T) {
	s := server("s-a", "a", reports.StatusActive, func(s *reports.Server) { s.Details = map[string]any{"port": 54321, "tools": []string{"x"}} })
	cur := inventory{report: report([]reports.Server{s}, nil, nil)}
	data, err := json.Marshal(cur.report)
	if err != nil {
		t.Fatal(err)
	}
	var back reports.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if evs := diff(inventory{report: &back}, cur, nil); len(evs) != 0 {
		t.Errorf("a round trip through JSON differs: %v", kinds(evs))
	}
}

// TestKeepLastGood: a file that breaks keeps its servers and their
// findings, marked, and no server-removed is emitted for them.
func TestKeepLastGood(t *testing.T) {
	a := server("s-a", "a", reports.StatusActive)
	other := server("s-o", "o", reports.StatusActive, func(s *reports.Server) { s.Source.Path = "/h/other.json" })
	f := reports.Finding{ID: "f-1", Rule: "MCPG-C002", Severity: reports.SeverityWarning, ServerID: "s-a"}
	old := inventory{report: report([]reports.Server{a, other}, []reports.Finding{f}, nil), secrets: map[string]map[string]string{"s-a": {"args": "1"}}}
	broken := reports.FileError{Path: a.Source.Path, Line: 1, Column: 1, Message: "invalid JSON"}
	cur := inventory{report: report(nil, nil, []reports.FileError{broken}), secrets: map[string]map[string]string{}}
	got := keepLastGood(old, cur)
	if len(got.report.Servers) != 1 || got.report.Servers[0].ID != "s-a" || got.report.Servers[0].Details[lastGoodKey] == nil {
		t.Fatalf("servers %+v", got.report.Servers)
	}
	if len(got.report.Findings) != 1 || got.secrets["s-a"] == nil {
		t.Errorf("findings %v, secrets %v", got.report.Findings, got.secrets)
	}
	want := []string{"file-error:" + a.Source.Path, "server-removed:s-o"}
	if evs := kinds(diff(old, got, nil)); !reflect.DeepEqual(evs, want) {
		t.Errorf("events %v, want %v", evs, want)
	}
}

// TestChangedFieldsAsJSON: comparing values as they are first finds what
// comparing their JSON alone finds (the rule for an inventory read back
// from the state file): a string whose bad bytes became U+FFFD, a number
// that became a float, an empty map that became nil are no change; a nil
// list against an empty one, or any other difference, is. A changed verdict
// (decision.allowed) is a status-changed event, not a changed field.
func TestChangedFieldsAsJSON(t *testing.T) {
	reference := func(a, b *reports.Server) []string {
		var fields []string
		decision := func(d reports.Decision) any {
			if a.Decision.Allowed != b.Decision.Allowed {
				return nil
			}
			return d
		}
		for _, f := range []struct {
			name string
			x, y any
		}{
			{"name", a.Name, b.Name}, {"transport", a.Transport, b.Transport}, {"command", a.Command, b.Command},
			{"args", a.Args, b.Args}, {"url", a.URL, b.URL}, {"env_keys", a.EnvKeys, b.EnvKeys},
			{"header_keys", a.HeaderKeys, b.HeaderKeys}, {"decision", decision(a.Decision), decision(b.Decision)},
			{"details", withoutLastGood(a.Details), withoutLastGood(b.Details)},
		} {
			if !sameJSON(f.x, f.y) {
				fields = append(fields, f.name)
			}
		}
		return fields
	}
	strs := []string{"", "a", "a\xff", "a\ufffd", "a\xfe"}
	lists := [][]string{nil, {}, {"x"}, {"x\xff"}, {"x\ufffd"}, {"x", "y"}}
	details := []map[string]any{nil, {}, {"n": 1}, {"n": 1.0}, {"n": 2}, {"last_good": true}, {"k": "v", "last_good": true}, {"k": "v"}}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() *reports.Server {
		return &reports.Server{
			Name: strs[rng.IntN(len(strs))], Transport: strs[rng.IntN(2)], Command: strs[rng.IntN(len(strs))],
			Args: lists[rng.IntN(len(lists))], URL: strs[rng.IntN(len(strs))], EnvKeys: lists[rng.IntN(len(lists))],
			HeaderKeys: lists[rng.IntN(len(lists))],
			Decision:   reports.Decision{Allowed: rng.IntN(2) == 0, Reasons: lists[rng.IntN(len(lists))]},
			Details:    details[rng.IntN(len(details))],
		}
	}
	for range 5000 {
		a, b := pick(), pick()
		got, _ := changedFields(a, b, nil, nil)
		if want := reference(a, b); !slices.Equal(got, want) {
			t.Fatalf("%+v against %+v: %q, want %q", a, b, got, want)
		}
	}
}

// TestDiffVerdictIsStatusChanged: a server whose verdict changes
// (decision.allowed) with its status unchanged was a server-changed event
// ("changed: decision, details"); it is status-changed, a warning when it
// becomes not allowed, with the old and new verdict.
func TestDiffVerdictIsStatusChanged(t *testing.T) {
	a := server("s-a", "a", reports.StatusActive)
	denied := server("s-a", "a", reports.StatusActive, func(s *reports.Server) {
		s.Decision = reports.Decision{Allowed: false, Reasons: []string{"DENIED_COMMAND"}}
	})
	evs := diff(inventory{report: report([]reports.Server{a}, nil, nil)}, inventory{report: report([]reports.Server{denied}, nil, nil)}, nil)
	if got := kinds(evs); !reflect.DeepEqual(got, []string{"status-changed:s-a"}) {
		t.Fatalf("events %v, want one status-changed", got)
	}
	e := evs[0]
	if e.Severity != "warning" || e.Details["old_allowed"] != true || e.Details["new_allowed"] != false ||
		!strings.Contains(e.Message, "allowed: true -> false") || !strings.Contains(e.Message, "DENIED_COMMAND") {
		t.Errorf("status-changed %q %v %s", e.Message, e.Details, e.Severity)
	}
	// Back: allowed again, no warning.
	evs = diff(inventory{report: report([]reports.Server{denied}, nil, nil)}, inventory{report: report([]reports.Server{a}, nil, nil)}, nil)
	if got := kinds(evs); !reflect.DeepEqual(got, []string{"status-changed:s-a"}) || evs[0].Severity != "" {
		t.Errorf("events %v (%s), want one status-changed without severity", got, evs[0].Severity)
	}
	// New reasons for the same verdict: a change of the server.
	other := server("s-a", "a", reports.StatusActive, func(s *reports.Server) { s.Decision.Reasons = []string{"ALLOWED_BY_LIST"} })
	evs = diff(inventory{report: report([]reports.Server{a}, nil, nil)}, inventory{report: report([]reports.Server{other}, nil, nil)}, nil)
	if got := kinds(evs); !reflect.DeepEqual(got, []string{"server-changed:s-a"}) {
		t.Errorf("events %v, want server-changed", got)
	}
}

// TestDiffMessagesNameOldAndNew: a change message says which field went
// from what to what, as reports show it (redacted), and a hidden value
// only by its name; the event as written is redacted again.
func TestDiffMessagesNameOldAndNew(t *testing.T) {
	a := server("s-a", "a", reports.StatusActive)
	b := server("s-a", "a", reports.StatusActive, func(s *reports.Server) {
		// The token straddles where the message cuts the value.
		s.Args = []string{"-y", "pkg@2.0.0", "--" + strings.Repeat("p", 70), "--api-key=ghp_0123456789abcdefghijklmnopqrstuvwxyz"}
		s.EnvKeys = []string{"TOKEN"}
		s.Details = map[string]any{"trust": true}
	})
	old := inventory{report: report([]reports.Server{a}, nil, nil), secrets: map[string]map[string]string{"s-a": {"url": "1"}}}
	cur := inventory{report: report([]reports.Server{b}, nil, nil), secrets: map[string]map[string]string{"s-a": {"url": "2"}}}
	evs := diff(old, cur, secrets.NewDetector())
	if len(evs) != 1 {
		t.Fatalf("events %v", kinds(evs))
	}
	l, err := newEventLog("", 0, secrets.NewDetector(), time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.emit(evs...)
	msg := l.ring[0].Message
	for _, want := range []string{`args ["-y","pkg@1.0.0"] -> ["-y","pkg@2.0.0",`, `env_keys [] -> ["TOKEN"]`, `details.trust (none) -> true`, "values of url (not shown)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "ghp_0123") {
		t.Errorf("a secret in the message: %q", msg)
	}
}
