package reports

// helpFor returns the documentation of a rule: the catalog's, or a generic
// text for a custom rule.
func helpFor(r Rule) Rule {
	if r.Name != "" {
		return r
	}
	full, _ := LookupRule(r.ID)
	return full
}
