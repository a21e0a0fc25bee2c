package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestSetWhatIf counts what a proposal changes: losses, gains, status
// changes, unjudged servers, and orders hosts by what they lose.
func TestSetWhatIf(t *testing.T) {
	allowed := Decision{Allowed: true, Reasons: []string{ReasonAllowed}}
	denied := Decision{Reasons: []string{ReasonNotAllowlisted}}
	custom := Decision{Reasons: []string{"MCPG-X-SHELL"}}
	srv := func(host, name, client string, st Status, d Decision) FleetServer {
		return FleetServer{Host: host, Server: &Server{ID: "s-" + name, Name: name, Client: client, Transport: "stdio", Command: name, Status: st, Decision: d}}
	}
	f := &Fleet{Servers: []FleetServer{
		srv("a", "one", "claude-code", StatusActive, allowed),  // lose, blocked
		srv("a", "two", "cursor", StatusActive, denied),        // gain
		srv("b", "one", "claude-code", StatusActive, allowed),  // lose, blocked
		srv("b", "three", "cursor", StatusActive, allowed),     // lose, same status
		srv("b", "four", "claude-code", StatusBlocked, denied), // unchanged
		srv("c", "five", "claude-code", StatusActive, allowed), // custom rule: not allowed, still loads
		srv("c", "bad", "cursor", StatusInvalid, denied),       // not judged
	}}
	j := func(st Status, d Decision) Judged {
		return Judged{Verdict: Verdict{Status: st, Decision: d}, Judged: true}
	}
	// Claude Code would block "one" were the proposal its managed settings;
	// its status is what it does today.
	block := Judged{Verdict: Verdict{Status: StatusActive, Decision: denied, Change: "block"}, Judged: true}
	f.SetWhatIf(nil, []Judged{
		block, j(StatusActive, allowed), block, j(StatusActive, denied),
		j(StatusBlocked, denied), j(StatusActive, custom), {},
	}, nil, nil)
	w := f.WhatIf
	want := WhatIfSummary{Servers: 6, Unjudged: 1, AllowedBefore: 4, AllowedAfter: 1, Lose: 4, Gain: 1, Blocked: 2,
		HostsLosing: 3, HostsGaining: 1, HostsNotAllowedBefore: 2, HostsNotAllowedAfter: 3}
	if w.Summary != want {
		t.Errorf("summary\n got %+v\nwant %+v", w.Summary, want)
	}
	if len(w.Changes) != 5 {
		t.Errorf("%d changes, want 5: %+v", len(w.Changes), w.Changes)
	}
	var order []string
	for _, h := range w.Hosts {
		order = append(order, h.Key)
	}
	if len(order) != 3 || order[0] != "b" || order[1] != "a" || order[2] != "c" {
		t.Errorf("hosts %v, want b (loses 2), a, c", order)
	}
	if d := w.Distinct[0]; d.Key != "stdio one" || d.LoseHosts != 2 {
		t.Errorf("first distinct %+v, want stdio one lost on 2 hosts", d)
	}
	if w.Policy == nil || w.Findings == nil || w.Errors == nil {
		t.Error("nil lists would be null in JSON")
	}
}

// TestFleetJSONStreams: the streaming fleet writer writes exactly what
// encoding/json writes for the whole value, every field included.
func TestFleetJSONStreams(t *testing.T) {
	for _, withWhatIf := range []bool{false, true} {
		m := NewMerger(MergeOptions{Tool: Tool{Name: "mcpguard", Version: "test"}})
		m.Add("a.json", hostileReport())
		m.AddError(FileError{Path: "b.json", Line: 1, Column: 2, Message: "not a report <&>"})
		f := m.Fleet()
		if withWhatIf {
			after := make([]Judged, len(f.Servers))
			f.SetWhatIf([]PolicySource{{Path: "p.json", Kind: "policy-file", Active: true}}, after, nil, nil)
		}
		want := encodingJSON(t, f)
		var got bytes.Buffer
		if err := writeFleetJSON(&got, f); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("what-if %v: streamed fleet JSON differs from encoding/json's:\n%s", withWhatIf, got.String())
		}
	}
	var empty bytes.Buffer
	if err := writeFleetJSON(&empty, NewMerger(MergeOptions{}).Fleet()); err != nil || !json.Valid(empty.Bytes()) {
		t.Errorf("empty fleet: %v\n%s", err, empty.String())
	}
}

// TestSmallSet: the set keeps each value once, as a list and past the
// point where it becomes a map.
func TestSmallSet(t *testing.T) {
	var s smallSet
	for i := 0; i < 3; i++ {
		for _, v := range []string{"b", "a", "c", "a"} {
			s.add(v)
		}
	}
	if got := s.sorted(); len(got) != 3 || got[0] != "a" || got[2] != "c" || s.len() != 3 {
		t.Errorf("small: %v (%d)", got, s.len())
	}
	for i := 0; i < 20; i++ {
		s.add(string(rune('d' + i%12)))
	}
	if s.len() != 15 || s.m == nil || len(s.sorted()) != 15 {
		t.Errorf("large: %d values, map %v", s.len(), s.m != nil)
	}
}

// TestWriteJSONMatchesEncodingJSON: the one-pass report writer gives
// exactly encoding/json's indented output, numbers and escapes included.
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	numbers := hostileReport()
	numbers.Findings = append(numbers.Findings, Finding{ID: "f-n", Rule: "MCPG-X", Message: "numbers",
		Evidence: map[string]any{"big": 1e21, "small": 0.000001, "int": float64(12345678901234567), "neg": -0.5,
			"text": "<script>\u2028\u2029&\x7f", "bad": "a\xffb\xc3", "k\xfe": "key", "k\xfd": "sorted", "list": []any{nil, true, "é"}, "empty": map[string]any{}}})
	// Long lists, each element different.
	large := hostileReport()
	for i := range 5000 {
		s := numbers.Servers[i%len(numbers.Servers)]
		s.ID = fmt.Sprintf("s-%016x", i)
		s.Args = append([]string{fmt.Sprintf("arg-%d\xff\u2028", i)}, s.Args...)
		large.Servers = append(large.Servers, s)
		f := numbers.Findings[i%len(numbers.Findings)]
		f.ID = fmt.Sprintf("f-%016x", i)
		if i%7 == 0 {
			f.Evidence = nil
		}
		large.Findings = append(large.Findings, f)
	}
	reports := map[string]*Report{"hostile": hostileReport(), "numbers": numbers, "empty": {}, "large": large}
	// Every field of every type, filled by reflection: a field added to
	// a type the writer writes by hand, and not to the writer, fails.
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 40 {
		var r Report
		fillRandom(rng, reflect.ValueOf(&r).Elem())
		reports[fmt.Sprintf("random %d", i)] = &r
	}
	for name, r := range reports {
		want := encodingJSON(t, r)
		var got bytes.Buffer
		if err := WriteJSON(&got, r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("%s: WriteJSON differs from encoding/json:\n%s\n---\n%s", name, got.String(), want)
		}
	}
}

// encodingJSON is v as an encoding/json Encoder with two-space indentation
// and no HTML escaping writes it: the reports' JSON, by definition.
func encodingJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestFleetRunsMatchOneRun: a fleet merged in runs of hosts on several cores
// is exactly the fleet merged in one run — hosts, servers, findings, the
// distinct servers (a server on hosts of different runs, several names,
// clients and users, every status) and the rules.
func TestFleetRunsMatchOneRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	merger := func(runs int) *Merger {
		m := NewMerger(MergeOptions{Now: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), MaxAge: 7 * 24 * time.Hour})
		m.runs = runs
		return m
	}
	ms := []*Merger{merger(1), merger(2), merger(3), merger(7)}
	statuses := []Status{StatusActive, StatusBlocked, StatusInvalid, StatusPendingApproval}
	for h := range 40 {
		r := &Report{Schema: Schema, GeneratedAt: fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+h%9),
			Host: Host{Hostname: fmt.Sprintf("host-%d", h%37), User: fmt.Sprintf("u%d", h%5)}}
		for i := range 30 {
			id := fmt.Sprintf("s-%04x%04x", h, i)
			s := Server{ID: id, Name: fmt.Sprintf("srv-%d", rng.IntN(6)), Client: []string{"claude-code", "cursor", "vscode"}[rng.IntN(3)],
				Transport: "stdio", Command: "npx", Args: []string{"-y", fmt.Sprintf("pkg-%d", rng.IntN(12))}, Status: statuses[rng.IntN(len(statuses))]}
			if rng.IntN(4) == 0 {
				s.Transport, s.Command, s.Args, s.URL = "http", "", nil, fmt.Sprintf("https://mcp%d.example/mcp", rng.IntN(5))
			}
			if rng.IntN(3) == 0 {
				s.User = fmt.Sprintf("other%d", rng.IntN(3))
			}
			s.Decision.Allowed = s.Status == StatusActive
			r.Servers = append(r.Servers, s)
			if rng.IntN(2) == 0 {
				sev := []Severity{SeverityError, SeverityWarning, SeverityNote}[rng.IntN(3)]
				r.Findings = append(r.Findings, Finding{ID: "f-" + id, Rule: fmt.Sprintf("MCPG-C00%d", 1+rng.IntN(5)), Severity: sev, ServerID: id})
			}
		}
		for _, m := range ms {
			m.Add(fmt.Sprintf("r%d.json", h), r)
		}
	}
	one := ms[0].Fleet()
	if top := one.Distinct[0]; top.Hosts < 20 || len(top.Names) < 2 || top.Users < 20 {
		t.Fatalf("no server spans the runs (%+v): the comparison tests too little", top)
	}
	var want bytes.Buffer
	if err := writeFleetJSON(&want, one); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[1:] {
		var got bytes.Buffer
		if err := writeFleetJSON(&got, m.Fleet()); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d runs differ from one run", m.runs)
		}
	}
}

func (s *smallSet) len() int {
	if s.m != nil {
		return len(s.m)
	}
	return len(s.list)
}
