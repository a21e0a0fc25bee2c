package reports

import "github.com/mcpguard/mcpguard/policy"

// helpFor returns the documentation of a rule: the catalog's, or a generic
// text for a custom rule.
func helpFor(r policy.Rule) policy.Rule {
	if r.Name != "" {
		return r
	}
	full, _ := policy.LookupRule(r.ID)
	return full
}
