package reports

import (
	"strings"
	"testing"
)

// TestHeadlinesAgree: counts and verbs agree ("1 host gains 2 servers",
// "1 server"), whatever the numbers.
func TestHeadlinesAgree(t *testing.T) {
	w := &WhatIf{Summary: WhatIfSummary{HostsLosing: 1, Lose: 1, HostsGaining: 2, Gain: 3, Blocked: 1}}
	got := whatIfHeadline(w)
	for _, want := range []string{"1 host loses 1 server,", "2 hosts gain 3 servers;", "stop loading 1 server and start 0 servers"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	var b strings.Builder
	r := &Report{Servers: []Server{{Name: "a", Status: StatusActive}}, Findings: []Finding{{Severity: SeverityNote}}}
	r.Summary = Summarize(r)
	if err := WriteText(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if line, _, _ := strings.Cut(b.String(), "\n"); !strings.HasPrefix(line, "mcpguard: 1 server (0 allowed, 1 running but not allowed, 0 blocked); findings: 0 errors, 0 warnings, 1 note;") {
		t.Errorf("headline %q", line)
	}
}

// TestHumanTime: times for people are to the second, in UTC; what is not
// a time is shown as it is, on one line.
func TestHumanTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-21T08:10:00.750779572Z": "2026-11-21 08:10:00 UTC",
		"2026-11-21T09:10:00.5+01:00":    "2026-11-21 08:10:00 UTC",
		"2026-01-01T00:00:00Z":           "2026-01-01 00:00:00 UTC",
		"yesterday\x1b[2J":               `yesterday\x1b[2J`,
		"":                               "",
	} {
		if got := HumanTime(in); got != want {
			t.Errorf("HumanTime(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFindingsBySeverity: text lists errors, then warnings, then notes,
// each in the report's own order.
func TestFindingsBySeverity(t *testing.T) {
	r := &Report{Findings: []Finding{
		{Rule: "N1", Severity: SeverityNote}, {Rule: "W1", Severity: SeverityWarning}, {Rule: "E1", Severity: SeverityError},
		{Rule: "W2", Severity: SeverityWarning}, {Rule: "E2", Severity: SeverityError},
	}}
	r.Summary = Summarize(r)
	var b strings.Builder
	if err := WriteText(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	last := -1
	for _, rule := range []string{"E1", "E2", "W1", "W2", "N1"} {
		i := strings.Index(out, " "+rule+" ")
		if i < last {
			t.Fatalf("%s out of order:\n%s", rule, out)
		}
		last = i
	}
}
