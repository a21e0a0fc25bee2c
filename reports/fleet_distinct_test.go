package reports

import (
	"testing"
	"time"
)

// TestFleetDistinctCounts: a distinct server counts each host once and
// each (host, user) pair once, whatever order the servers of a host come
// in, and a server without a user of its own is its host's user's.
func TestFleetDistinctCounts(t *testing.T) {
	srv := func(id, user string) Server {
		return Server{ID: id, Name: "gh", Client: "claude-code", Transport: "stdio", Command: "npx", Args: []string{"-y", "gh"},
			User: user, Status: StatusActive, Decision: Decision{Allowed: true}}
	}
	report := func(host, user string, servers ...Server) *Report {
		r := &Report{Schema: Schema, GeneratedAt: "2026-11-25T10:00:00Z", Host: Host{Hostname: host, OS: "linux", User: user},
			Servers: servers, Findings: []Finding{}, Errors: []FileError{}}
		r.Summary = Summarize(r)
		return r
	}
	for _, runs := range []int{1, 2} {
		m := NewMerger(MergeOptions{Now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)})
		m.runs = runs
		// alpha: a daemon's report of three users, interleaved.
		m.Add("a.json", report("alpha", "", srv("s-1", "ann"), srv("s-2", "bob"), srv("s-3", "ann"), srv("s-4", "cy"), srv("s-5", "bob")))
		// beta: one user's scan, the same user names as alpha's.
		m.Add("b.json", report("beta", "ann", srv("s-6", ""), srv("s-7", "")))
		// gamma: a user named on the servers, and one not.
		m.Add("c.json", report("gamma", "dee", srv("s-8", "bob"), srv("s-9", "")))
		f := m.Fleet()
		if len(f.Distinct) != 1 {
			t.Fatalf("runs %d: distinct %+v", runs, f.Distinct)
		}
		d := f.Distinct[0]
		// alpha/ann, alpha/bob, alpha/cy, beta/ann, gamma/bob, gamma/dee.
		if d.Hosts != 3 || d.Users != 6 || d.Instances != 9 || d.Allowed != 9 || d.ByStatus[string(StatusActive)] != 9 {
			t.Errorf("runs %d: hosts %d users %d instances %d allowed %d by status %v, want 3, 6, 9, 9, 9 active",
				runs, d.Hosts, d.Users, d.Instances, d.Allowed, d.ByStatus)
		}
	}
}
