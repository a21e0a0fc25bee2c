package toolcheck

import (
	"strings"
	"testing"
)

// TestNearSignals: in a long text (documentation of many topics) weak
// signals add up only when they stand near each other; pages apart, as in
// Claude Code's Bash tool ("silently skips", "(.env, credentials)" as what
// not to commit, a commit trailer's address), they are separate topics.
// Signals of a tool's different fields still add up.
func TestNearSignals(t *testing.T) {
	filler := func(topic string) string {
		return strings.Repeat("The "+topic+" section explains how the command treats paths, quoting and exit codes in ordinary use. ", 9)
	}
	a := "The second form silently skips `.tsx` files."
	b := "Do not commit files that likely contain secrets (.env, credentials.json)."
	c := "Co-Authored-By: Claude <noreply@anthropic.com>"
	far := a + "\n\n" + filler("globbing") + "\n\n" + b + "\n\n" + filler("staging") + "\n\n" + filler("history") + "\n\n" + c
	near := filler("globbing") + "\n\n" + filler("staging") + "\n\n" + filler("history") + "\n\n" + a + " " + b + " " + c
	if len(far) <= 2048 || len(near) <= 2048 {
		t.Fatalf("texts of %d and %d bytes are not long", len(far), len(near))
	}
	doc := func(desc string) string {
		return `{"tools": [{"name": "run", "description": ` + jstr(desc) + `}]}`
	}
	if got := levelOf(analyze(t, doc(far), Options{}).Findings, ruleT001); got == "error" {
		t.Errorf("far apart: T001 = %q, want below error", got)
	}
	near0 := levelOf(analyze(t, doc(a+" "+b+" "+c), Options{}).Findings, ruleT001)
	if got := levelOf(analyze(t, doc(near), Options{}).Findings, ruleT001); got != near0 {
		t.Errorf("together in a long text: T001 = %q, want %q as in a short one", got, near0)
	}
	if near0 != "error" {
		t.Errorf("the three sentences alone: T001 = %q, want error", near0)
	}
}
