package reports

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
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

// TestFleetNoAggregates: every form that FleetNeedsAggregates says does
// without the aggregates renders a fleet merged with NoAggregates byte for
// byte as it renders the full fleet; the aggregates are then left out.
func TestFleetNoAggregates(t *testing.T) {
	merge := func(noAggregates bool) *Fleet {
		m := NewMerger(MergeOptions{Tool: Tool{Name: "mcpguard", Version: "test"}, Now: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC),
			NoAggregates: noAggregates})
		for _, host := range []string{"alpha", "beta", "gamma"} {
			r := hostileReport()
			r.Host.Hostname = host
			m.Add(host+".json", r)
		}
		return m.Fleet()
	}
	full, lean := merge(false), merge(true)
	if len(full.Distinct) == 0 || len(full.Rules) == 0 {
		t.Fatalf("the full fleet has no aggregates to leave out (%d distinct, %d rules): the test cannot tell", len(full.Distinct), len(full.Rules))
	}
	if len(lean.Distinct) != 0 || len(lean.Rules) != 0 || lean.Summary.DistinctServers != 0 {
		t.Errorf("NoAggregates kept %d distinct servers, %d rules", len(lean.Distinct), len(lean.Rules))
	}
	checked := 0
	for _, format := range []Format{FormatJSON, FormatText, FormatMarkdown, FormatCSV, FormatCycloneDX, FormatHTML} {
		if FleetNeedsAggregates(format) {
			continue
		}
		for _, kind := range []string{CSVServers, CSVFindings} {
			var a, b bytes.Buffer
			if err := RenderFleet(&a, format, full, Options{CSVKind: kind}); err != nil {
				t.Fatal(err)
			}
			if err := RenderFleet(&b, format, lean, Options{CSVKind: kind}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s (%s): the fleet without aggregates renders differently", format, kind)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no form does without the aggregates")
	}
	// The forms that show them must not be given a fleet without them.
	for _, format := range []Format{FormatJSON, FormatText, FormatMarkdown, FormatHTML} {
		if !FleetNeedsAggregates(format) {
			t.Errorf("%s shows the aggregates, but FleetNeedsAggregates says it does not", format)
		}
	}
}

// TestSortParallel: split, sorted apart and merged, any length on any
// number of workers gives what one sort gives.
func TestSortParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 70 {
		for _, workers := range []int{1, 2, 3, 4, 7} {
			s := make([]int, n)
			for i := range s {
				s[i] = rng.IntN(1000)*100 + i // distinct: a total order
			}
			want := slices.Sorted(slices.Values(s))
			sortParallel(s, cmp.Compare[int], workers)
			if !slices.Equal(s, want) {
				t.Fatalf("n %d, %d workers: %v, want %v", n, workers, s, want)
			}
		}
	}
}
