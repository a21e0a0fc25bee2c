package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/compile"
	"github.com/open-policy-agent/opa/v1/ir"

	"github.com/mcpguard/mcpguard/internal/regoir"
	bundled "github.com/mcpguard/mcpguard/rego"
)

var update = flag.Bool("update", false, "rewrite shipped.plan and golden files")

// planShipped plans the shipped entrypoints that are evaluated for every
// server, as `opa build -t plan` does.
func planShipped(t testing.TB) *ir.Policy {
	t.Helper()
	c := compile.New().WithTarget(compile.TargetPlan).WithFS(bundled.FS()).WithPaths("mcpguard").
		WithEntrypoints(plannedEntrypoints...).WithCapabilities(capabilities(builtins())).
		WithFilter(func(path string, info fs.FileInfo, _ int) bool {
			return !info.IsDir() && strings.HasSuffix(path, "_test.rego")
		})
	if err := c.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	mods := c.Bundle().PlanModules
	if len(mods) != 1 {
		t.Fatalf("%d plan modules", len(mods))
	}
	var p ir.Policy
	if err := json.Unmarshal(mods[0].Raw, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

// TestShippedPlan: shipped.plan is the plan of the shipped policies as
// they are (-update writes it), planning is deterministic, and it decodes
// and binds.
func TestShippedPlan(t *testing.T) {
	digest, err := shippedDigest()
	if err != nil {
		t.Fatal(err)
	}
	encode := func() []byte {
		prog, err := regoir.Link(planShipped(t))
		if err != nil {
			t.Fatal(err)
		}
		b, err := prog.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return append(digest[:], b...)
	}
	want := encode()
	if again := encode(); !bytes.Equal(want, again) {
		t.Fatal("two plannings of the shipped policies encode differently")
	}
	if *update {
		if err := os.WriteFile("shipped.plan", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(want) != shippedPlan {
		t.Fatal("shipped.plan is stale: run go test ./policy -run TestShippedPlan -update")
	}
	if !planCurrent() {
		t.Fatal("the built-in plan is not taken as current")
	}
	if _, err := bindShippedPlan(builtins()); err != nil {
		t.Fatal(err)
	}
}

// TestStalePlanIsNotTaken: a plan whose digest is not the sources', or
// whose body does not decode, is not what loads the shipped policies; the
// groups, compiled from their sources, are.
func TestStalePlanIsNotTaken(t *testing.T) {
	orig := shippedPlan
	defer func() { shippedPlan = orig }()
	if l := loadShipped(false, true, nil, nil); l.plan == nil {
		t.Fatal("the current plan is not taken")
	}
	stale := []byte(orig)
	stale[0] ^= 1
	broken := []byte(orig)
	broken[len(broken)-1] ^= 0xff
	for name, plan := range map[string]string{"stale digest": string(stale), "broken body": string(broken), "empty": ""} {
		shippedPlan = plan
		l := loadShipped(false, true, nil, nil)
		if l.plan != nil || l.verdict == nil || l.rules == nil || l.verdictErr != nil || l.rulesErr != nil {
			t.Errorf("%s: plan %v, groups %v %v (%v, %v)", name, l.plan != nil, l.verdict != nil, l.rules != nil, l.verdictErr, l.rulesErr)
		}
	}
}
