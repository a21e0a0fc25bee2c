package reports

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

// TestSortFindingsIsStable: SortFindings, SortErrors and SortServers order
// as a stable sort by their keys does (location, rule, message, id), ties
// kept in their order.
func TestSortFindingsIsStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) int { return rng.IntN(n) }
	fs := make([]Finding, 3000)
	es := make([]FileError, 3000)
	for i := range fs {
		fs[i] = Finding{ID: fmt.Sprintf("f-%d", pick(40)), Rule: fmt.Sprintf("R%d", pick(3)), Message: fmt.Sprint(i),
			Location: Location{Path: fmt.Sprintf("/p/%d", pick(4)), Line: pick(5), Column: pick(3)}}
		es[i] = FileError{Path: fmt.Sprintf("/p/%d", pick(4)), Line: pick(5), Column: pick(3), Message: fmt.Sprint(i)}
	}
	wantF := append([]Finding(nil), fs...)
	sort.SliceStable(wantF, func(i, j int) bool {
		a, b := wantF[i], wantF[j]
		if a.Location.Path != b.Location.Path {
			return a.Location.Path < b.Location.Path
		}
		if a.Location.Line != b.Location.Line {
			return a.Location.Line < b.Location.Line
		}
		if a.Location.Column != b.Location.Column {
			return a.Location.Column < b.Location.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Message != b.Message {
			return a.Message < b.Message
		}
		return a.ID < b.ID
	})
	wantE := append([]FileError(nil), es...)
	sort.SliceStable(wantE, func(i, j int) bool {
		a, b := wantE[i], wantE[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	SortFindings(fs)
	SortErrors(es)
	if !reflect.DeepEqual(fs, wantF) {
		t.Error("SortFindings differs from a stable sort")
	}
	if !reflect.DeepEqual(es, wantE) {
		t.Error("SortErrors differs from a stable sort")
	}
	SortFindings(nil)
	SortErrors([]FileError{{Path: "x"}})

	ss := make([]Server, 3000)
	for i := range ss {
		ss[i] = Server{Client: fmt.Sprint(pick(3)), Scope: fmt.Sprint(pick(3)), Project: fmt.Sprint(pick(3)), Name: fmt.Sprint(pick(4)), ID: fmt.Sprint(i)}
	}
	keys := func(s Server) string { return s.Client + "\x00" + s.Scope + "\x00" + s.Project + "\x00" + s.Name }
	wantS := append([]Server(nil), ss...)
	sort.SliceStable(wantS, func(i, j int) bool { return keys(wantS[i]) < keys(wantS[j]) })
	SortServers(ss)
	if !reflect.DeepEqual(ss, wantS) {
		t.Error("SortServers differs from a stable sort")
	}
}
