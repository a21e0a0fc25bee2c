package toolcheck

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpguard/mcpguard/reports"
)

// The evaluation of issue 44: attack cases (testdata/tools/attacks) and
// real tool lists (testdata/tools/real), each split into a development set
// the rules are tuned against and a held-out set (the heldout directories)
// that only TestHeldOut reads, and that reports counts only.

// attackCase is one file of testdata/tools/attacks: the servers of one
// client analysed together, and the tools that must be reported. Every
// tool not named in expect is a benign control: it must raise no warning
// or error.
type attackCase struct {
	Class   string         `json:"class"`
	Source  string         `json:"source"`
	Servers []attackServer `json:"servers"`
	Expect  []attackExpect `json:"expect"`
}

// attackExpect is a tool that must carry a finding of one of rules at
// warning or above, whatever order the servers are given in.
type attackExpect struct {
	Server string   `json:"server"`
	Tool   string   `json:"tool"`
	Rules  []string `json:"rules"`
	// Prompt, ResourceTemplate and Resource name an item of another list
	// instead of a tool (prompts_test.go).
	Prompt           string `json:"prompt"`
	ResourceTemplate string `json:"resource_template"`
	Resource         string `json:"resource"`
}

// evalCounts are the figures of one evaluation.
type evalCounts struct {
	Expectations, Met int                        // attack expectations, and those met
	Flagged, True     int                        // tools with a warning or error, and those expected
	RealTools         int                        // tools of the real lists
	RealFalse         int                        // warning/error findings on real tools
	BenignFalse       int                        // warning/error findings on benign controls
	RealByRule        map[string]int             // RealFalse by rule
	RealErrByRule     map[string]int             // the error-level part of RealByRule
	realServers       map[string]map[string]bool // rule: the files with a RealFalse of it
	// realFamilies counts the signal families (the rules' own category
	// names, no text of a file) of MCPG-T001 false alarms.
	realFamilies map[string]int
	Failures     []string
}

func (c *evalCounts) precision() float64 {
	if c.Flagged == 0 {
		return 1
	}
	return float64(c.True) / float64(c.Flagged)
}

func (c *evalCounts) recall() float64 {
	if c.Expectations == 0 {
		return 1
	}
	return float64(c.Met) / float64(c.Expectations)
}

func (c *evalCounts) String() string {
	return fmt.Sprintf("precision %.3f (%d/%d flagged tools), recall %.3f (%d/%d expectations), false alarms: %d on %d real tools, %d on benign controls",
		c.precision(), c.True, c.Flagged, c.recall(), c.Met, c.Expectations, c.RealFalse, c.RealTools, c.BenignFalse)
}

// toolOf returns the tool of rep whose object holds ptr.
func toolOf(rep *Report, ptr string) (string, bool) {
	for _, t := range rep.Tools {
		if ptr == t.Pointer || strings.HasPrefix(ptr, t.Pointer+"/") {
			return t.Name, true
		}
	}
	return "", false
}

// analyzeGroup analyses the lists of one client, in the given order, and
// returns its findings at warning or above keyed by "server\x00tool".
func analyzeGroup(names []string, docs [][]byte) (map[string][]reports.Finding, int, error) {
	out := map[string][]reports.Finding{}
	reps := make([]*Report, 0, len(docs))
	cats := make([]*Catalog, 0, len(docs))
	tools := 0
	for i, d := range docs {
		cat, err := AnalyzeCatalog(d, Options{Path: names[i], Server: names[i]})
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", names[i], err)
		}
		cats = append(cats, cat)
		if cat.Tools != nil {
			tools += len(cat.Tools.Tools)
			reps = append(reps, cat.Tools)
		}
	}
	byPath := map[string]*Catalog{}
	for _, c := range cats {
		byPath[c.Path] = c
	}
	put := func(f reports.Finding) {
		if f.Severity.Rank() < 2 {
			return
		}
		c := byPath[f.Location.Path]
		name, ok := "", false
		if c.Tools != nil {
			name, ok = toolOf(c.Tools, f.Location.Pointer)
		}
		if it, found := c.ItemOf(f.Location.Pointer); !ok && found {
			name, ok = itemKey(it.Kind, it.Name), true
		}
		if !ok {
			name = "\x00document"
		}
		k := c.Server + "\x00" + name
		out[k] = append(out[k], f)
	}
	for _, c := range cats {
		for _, f := range c.Findings {
			put(f)
		}
	}
	for _, f := range Compare(reps) {
		// Two servers offering the same name is true (the client picks
		// one) and no verdict on either tool.
		if k := f.Evidence["kind"]; k == "cross-server-duplicate" || k == "cross-server-lookalike" {
			continue
		}
		put(f)
	}
	return out, tools, nil
}

// evalAttacks adds the attack cases of dir to c.
func evalAttacks(dir string, c *evalCounts) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		var ac attackCase
		if err := json.Unmarshal(raw, &ac); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if ac.Class == "" || ac.Source == "" || len(ac.Servers) == 0 {
			return fmt.Errorf("%s: want class, source and servers", file)
		}
		names := make([]string, len(ac.Servers))
		docs := make([][]byte, len(ac.Servers))
		for i, s := range ac.Servers {
			names[i] = s.Name
			docs[i] = s.document()
		}
		fwd, _, err := analyzeGroup(names, docs)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		slices.Reverse(names)
		slices.Reverse(docs)
		rev, _, err := analyzeGroup(names, docs)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		expected := map[string]bool{}
		base := filepath.Base(file)
		for _, e := range ac.Expect {
			k := e.Server + "\x00" + e.key()
			expected[k] = true
			c.Expectations++
			met := true
			for _, got := range []map[string][]reports.Finding{fwd, rev} {
				met = met && slices.ContainsFunc(got[k], func(f reports.Finding) bool { return slices.Contains(e.Rules, f.Rule) })
			}
			if met {
				c.Met++
			} else {
				c.Failures = append(c.Failures, fmt.Sprintf("%s: %s/%s: no %v at warning or above", base, e.Server, e.key(), e.Rules))
			}
		}
		flagged := map[string]bool{}
		for _, got := range []map[string][]reports.Finding{fwd, rev} {
			for k, fs := range got {
				flagged[k] = true
				if !expected[k] {
					c.BenignFalse += len(fs)
					for _, f := range fs {
						c.Failures = append(c.Failures, fmt.Sprintf("%s: benign %s: %s %s %s", base, strings.ReplaceAll(k, "\x00", "/"), f.Severity, f.Rule, f.Message))
					}
				}
			}
		}
		for k := range flagged {
			c.Flagged++
			if expected[k] {
				c.True++
			}
		}
	}
	return nil
}

// evalReal adds the real tool lists of dir, analysed together, to c.
func evalReal(dir string, c *evalCounts) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	var names []string
	var docs [][]byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		names = append(names, f)
		docs = append(docs, d)
	}
	got, tools, err := analyzeGroup(names, docs)
	if err != nil {
		return err
	}
	c.RealTools += tools
	for k, fs := range got {
		c.Flagged++
		c.RealFalse += len(fs)
		for _, f := range fs {
			if c.RealByRule == nil {
				c.RealByRule = map[string]int{}
			}
			c.RealByRule[f.Rule]++
			if f.Severity == reports.SeverityError {
				if c.RealErrByRule == nil {
					c.RealErrByRule = map[string]int{}
				}
				c.RealErrByRule[f.Rule]++
			}
			if c.realServers == nil {
				c.realServers = map[string]map[string]bool{}
			}
			if c.realServers[f.Rule] == nil {
				c.realServers[f.Rule] = map[string]bool{}
			}
			file, _, _ := strings.Cut(k, "\x00")
			c.realServers[f.Rule][file] = true
			if fams, ok := f.Evidence["families"].([]string); ok && f.Rule == ruleT001 {
				if c.realFamilies == nil {
					c.realFamilies = map[string]int{}
				}
				for _, fam := range fams {
					c.realFamilies[fam]++
				}
			}
			c.Failures = append(c.Failures, fmt.Sprintf("%s: %s %s at %s: %s", strings.ReplaceAll(k, "\x00", "/"), f.Severity, f.Rule, f.Location.Pointer, f.Message))
		}
	}
	return nil
}

var (
	attacksDir = filepath.Join("testdata", "tools", "attacks")
	realDir    = filepath.Join("testdata", "tools", "real")
)

// TestAttacks: every expectation of the development attack cases is met
// at warning or above in either server order, and no benign control is
// flagged.
func TestAttacks(t *testing.T) {
	var c evalCounts
	if err := evalAttacks(attacksDir, &c); err != nil {
		t.Fatal(err)
	}
	if c.Expectations < 20 {
		t.Fatalf("want the development attack cases, got %d expectations", c.Expectations)
	}
	for _, f := range c.Failures {
		t.Error(f)
	}
	t.Log(c.String())
}

// readFloor reads testdata/tools/eval-floor.json.
func readFloor(t *testing.T) evalFloor {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "tools", "eval-floor.json"))
	if err != nil {
		t.Fatal(err)
	}
	var floor evalFloor
	if err := json.Unmarshal(raw, &floor); err != nil {
		t.Fatal(err)
	}
	return floor
}

// evalFloor is testdata/tools/eval-floor.json: the figures the rules
// reached on the held-out sets when they were last measured, asserted as
// a floor so that a change cannot make them worse unseen (the development
// sets are held to the strict target instead).
type evalFloor struct {
	MinMet         int `json:"heldout_min_met"`
	MaxBenignFalse int `json:"heldout_max_benign_false"`
	// MaxRealFalse holds for the real held-out set of RealTools tools: a
	// set that has grown since is measured again, not failed.
	MaxRealFalse int `json:"heldout_max_real_false"`
	RealTools    int `json:"heldout_real_tools"`
}

// TestHeldOut reads the held-out sets and prints counts only: no file
// name, tool or finding of them appears in its output, so that the rules
// are not tuned to them.
func TestHeldOut(t *testing.T) {
	var c evalCounts
	if err := evalAttacks(filepath.Join(attacksDir, "heldout"), &c); err != nil {
		t.Fatal("held-out attacks do not load") // the error would name a file
	}
	if err := evalReal(filepath.Join(realDir, "heldout"), &c); err != nil {
		t.Fatal("held-out real lists do not load")
	}
	t.Logf("held-out: %s", c.String())
	// Counts by rule say which rules are weakest, and nothing of a file:
	// how many are errors, and over how many servers (one server
	// annotating all its tools one way, or a kind of tool many share).
	rules := slices.Sorted(maps.Keys(c.RealByRule))
	byRule := make([]string, len(rules))
	for i, r := range rules {
		byRule[i] = fmt.Sprintf("%s %d (%d errors, %d servers)", r, c.RealByRule[r], c.RealErrByRule[r], len(c.realServers[r]))
	}
	t.Logf("held-out false alarms by rule: %s", strings.Join(byRule, ", "))
	fams := slices.Sorted(maps.Keys(c.realFamilies))
	for i, f := range fams {
		fams[i] = fmt.Sprintf("%s %d", f, c.realFamilies[f])
	}
	t.Logf("held-out MCPG-T001 false alarms by signal family: %s", strings.Join(fams, ", "))
	floor := readFloor(t)
	sameSet := c.RealTools == floor.RealTools
	if !sameSet {
		t.Logf("the real held-out set has %d tools, the floor was measured on %d: measure it again", c.RealTools, floor.RealTools)
	}
	if c.Met < floor.MinMet || sameSet && c.RealFalse > floor.MaxRealFalse || c.BenignFalse > floor.MaxBenignFalse {
		t.Errorf("held-out figures fell below the recorded floor %+v", floor)
	}
}
