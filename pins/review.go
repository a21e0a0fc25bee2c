package pins

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
)

// Approval is one change that ApproveNames approved.
type Approval struct {
	Name string
	// Old is the pin before (nil for a first approval), Cur the approved one.
	Old, Cur *Pin
	Diff     *PinDiff
}

// ApproveNames approves the pending change of each name, or of every
// server with all. sha256, when set, is a prefix of the one name's pending
// hash: the approval fails if the pending state changed since the review.
// Either every name is approved or none is.
func (s *Store) ApproveNames(names []string, all bool, sha256 string) ([]Approval, error) {
	var done []Approval
	err := s.Update(func(ps *Set) error {
		names := uniqueNames(names)
		if all {
			for n := range ps.Pending {
				names = append(names, n)
			}
			sort.Strings(names)
		}
		// Check every name before approving any: all or nothing.
		for _, n := range names {
			if ps.Pins[n] == nil && ps.Pending[n] == nil {
				return fmt.Errorf("%s: no server named %s", s.Path(), reports.TerminalSafe(strconv.Quote(n)))
			}
			if ps.Pending[n] == nil {
				return fmt.Errorf("%s: server %s has no change pending approval", s.Path(), reports.TerminalSafe(strconv.Quote(n)))
			}
			if want := strings.ToLower(sha256); want != "" && !strings.HasPrefix(ps.Pending[n].SHA256, want) {
				return fmt.Errorf("%s: the pending state of server %s is %s, not %s: it changed since the review; run 'mcpguard pins show' again",
					s.Path(), reports.TerminalSafe(strconv.Quote(n)), ShortHash(ps.Pending[n].SHA256), reports.TerminalSafe(sha256))
			}
		}
		for _, n := range names {
			old, cur := ps.Pins[n], ps.Pending[n]
			d, err := ps.Approve(n)
			if err != nil {
				return err
			}
			done = append(done, Approval{Name: n, Old: old, Cur: cur, Diff: d})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return done, nil
}

// Forgotten is one server that ForgetNames removed.
type Forgotten struct {
	Name string
	// Tools is the number of tools its approved pin held.
	Tools int
}

// ForgetNames removes the pinned and pending state of each name. Either
// every name is forgotten or, when one is unknown, none is.
func (s *Store) ForgetNames(names []string) ([]Forgotten, error) {
	var done []Forgotten
	err := s.Update(func(ps *Set) error {
		names := uniqueNames(names)
		for _, n := range names {
			if ps.Pins[n] == nil && ps.Pending[n] == nil {
				return fmt.Errorf("%s: no server named %s", s.Path(), reports.TerminalSafe(strconv.Quote(n)))
			}
		}
		for _, n := range names {
			tools := 0
			if p := ps.Pins[n]; p != nil {
				tools = len(p.Tools)
			}
			ps.Forget(n)
			done = append(done, Forgotten{n, tools})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return done, nil
}

// WriteApprovalsText prints every approved change in full.
func WriteApprovalsText(w io.Writer, path string, done []Approval) error {
	out := bufio.NewWriter(w)
	if len(done) == 0 {
		fmt.Fprintf(out, "%s: no change is pending approval\n", reports.TerminalSafe(path))
	}
	for _, a := range done {
		if a.Old == nil {
			fmt.Fprintf(out, "approved %s: %s (%s, first approval)\n", reports.TerminalSafe(a.Name), ShortHash(a.Cur.SHA256), plural(len(a.Cur.Tools), "tool"))
			continue
		}
		fmt.Fprintf(out, "approved %s: %s -> %s\n", reports.TerminalSafe(a.Name), ShortHash(a.Old.SHA256), ShortHash(a.Cur.SHA256))
		if a.Diff.Empty() {
			fmt.Fprintf(out, "  no difference\n")
		}
		WriteDiffText(out, "  ", a.Diff, a.Cur)
	}
	return out.Flush()
}

// WriteForgottenText prints what ForgetNames removed.
func WriteForgottenText(w io.Writer, done []Forgotten) error {
	out := bufio.NewWriter(w)
	for _, f := range done {
		fmt.Fprintf(out, "forgot %s (%s pinned); the next proxy start pins it again on first use\n", reports.TerminalSafe(f.Name), plural(f.Tools, "tool"))
	}
	return out.Flush()
}

// uniqueNames drops repeated names, keeping the first occurrence's order.
func uniqueNames(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Observation is what Observe decided about a listing.
type Observation struct {
	// First is true when the server had no pin: the listing is now pinned
	// (trust on first use).
	First bool
	// Diff is the difference from the approved pin; empty when the listing
	// matches it (or was pinned now).
	Diff *PinDiff
}

// Observe compares a complete listing of one server with its pin, as the
// proxy does for every tools/list: a server without a pin is pinned now; a
// listing that differs is recorded as the server's pending pin, for
// `mcpguard pins diff` and `approve`; a listing back at the approved pin
// clears the pending one. The approved pin is never changed here.
func (s *Store) Observe(cur *Pin) (Observation, error) {
	var obs Observation
	err := s.Update(func(ps *Set) error {
		obs = Observation{}
		if ps.Pins == nil {
			ps.Pins = map[string]*Pin{}
		}
		if ps.Pending == nil {
			ps.Pending = map[string]*Pin{}
		}
		old := ps.Pins[cur.Server]
		if old == nil {
			ps.Pins[cur.Server] = cur
			delete(ps.Pending, cur.Server)
			obs.First = true
			return nil
		}
		obs.Diff = DiffPins(old, cur)
		if obs.Diff.Empty() {
			delete(ps.Pending, cur.Server)
			return nil
		}
		ps.Pending[cur.Server] = cur
		return nil
	})
	return obs, err
}
