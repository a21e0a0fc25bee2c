package policy

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"strings"

	opaversion "github.com/open-policy-agent/opa/v1/version"

	bundled "github.com/mcpguard/mcpguard/rego"
)

// Shipped module groups: each compiles apart.
const (
	groupVerdict = "verdict" // main, claude, policy and the generated custom index (custom rules join it)
	groupRules   = "rules"   // hygiene and weakness rules
	groupTools   = "tools"   // the proxy's tools policy
	// groupPlan is only planned (entryServer joins the other groups'
	// queries); topdown evaluates those queries apart.
	groupPlan = "plan"
)

// shippedGroup returns the group of a shipped policy file.
func shippedGroup(path string) string {
	switch {
	case strings.HasPrefix(path, "mcpguard/tools/"):
		return groupTools
	case strings.HasPrefix(path, "mcpguard/hygiene/"), strings.HasPrefix(path, "mcpguard/weakness/"):
		return groupRules
	case strings.HasPrefix(path, "mcpguard/plan/"):
		return groupPlan
	default:
		return groupVerdict
	}
}

// generatedIndexPath names the generated module that gathers custom rules.
const generatedIndexPath = "mcpguard/generated/custom.rego"

// The prefix of shippedDigest's input (once the header of a compiled
// snapshot of the groups).
const (
	digestMagic   = "mcpguard compiled rego\x00"
	digestVersion = 2
)

// shippedDigest identifies the shipped policies: every shipped policy file
// (path and content) and the OPA version that evaluates them. The plan
// records the digest it was planned from (planCurrent), and a report names
// the policies by it (ShippedDigest), so its prefix stays as it is: a
// changed prefix would change every report's policy digest.
func shippedDigest() ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s%d\x00%s\x00", digestMagic, digestVersion, opaversion.Version)
	fsys := bundled.FS()
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".rego") || strings.HasSuffix(path, "_test.rego") {
			return err
		}
		src, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(src))
		h.Write(src)
		return nil
	})
	var sum [32]byte
	if err != nil {
		return sum, fmt.Errorf("digest shipped policies: %w", err)
	}
	h.Sum(sum[:0])
	return sum, nil
}
