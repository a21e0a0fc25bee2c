package reports

import "testing"

// TestRuleClass holds RuleClass, the lookup every finding makes, to
// LookupRule over the whole catalog and for a custom rule's id.
func TestRuleClass(t *testing.T) {
	ids := []string{"MCPG-X999", "", "mcpg-p001"}
	for _, r := range Catalog() {
		ids = append(ids, r.ID)
	}
	for _, id := range ids {
		want, known := LookupRule(id)
		sev, category := RuleClass(id)
		if sev != want.Severity || category != want.Category {
			t.Errorf("RuleClass(%q) = %q, %q; LookupRule gives %q, %q", id, sev, category, want.Severity, want.Category)
		}
		if known != (want.ID == id && want.Category != CategoryCustom) {
			t.Errorf("LookupRule(%q) known = %v for %+v", id, known, want)
		}
	}
	if _, known := LookupRule("MCPG-P001"); !known {
		t.Error("MCPG-P001 is not in the catalog")
	}
}
