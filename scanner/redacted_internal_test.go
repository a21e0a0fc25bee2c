package scanner

import (
	"slices"
	"testing"

	"github.com/mcpguard/mcpguard/internal/secrets"
)

// TestRedactedReusesFacts: after the policy's facts have scanned a server,
// Redacted gives what the detector's own redaction gives, and redacts
// afresh once a value changes or for another detector.
func TestRedactedReusesFacts(t *testing.T) {
	det := secrets.NewDetector()
	s := &Server{
		Command: "run-with ghp_0123456789abcdefghijABCDEFGHIJ012345",
		Args:    []string{"--token", "s3cr3t-Value-4f9a8b7c6d5e", "--api-key=sk-proj-" + "0123456789abcdefghij0123456789abcdefghijkl", "plain"},
		URL:     "https://user:pa55word@mcp.example/x?access_token=abcdef123456&q=1",
	}
	want := func(det *secrets.Detector) []string {
		return append([]string{det.RedactText(s.Command), det.RedactURL(s.URL)}, det.RedactArgs(s.Args)...)
	}
	got := func(det *secrets.Detector) []string {
		command, args, url := s.Redacted(det)
		return append([]string{command, url}, args...)
	}
	sc := &scan{secrets: det}
	var kinds []string
	sc.secretFacts(s, func(field, _ string, _ int, _ string) { kinds = append(kinds, field) })
	if s.redacted == nil || len(kinds) < 4 {
		t.Fatalf("facts found %v and kept %v", kinds, s.redacted)
	}
	w := want(det)
	if g := got(det); !slices.Equal(g, w) {
		t.Errorf("after the facts: %q, want %q", g, w)
	}
	if slices.Equal(w, append([]string{s.Command, s.URL}, s.Args...)) {
		t.Fatal("nothing was redacted: the test would pass without the facts")
	}
	// What the facts saw is not what Redacted returns for changed values.
	s.redacted.outCommand, s.redacted.outURL = "stale", "stale"
	s.Args = slices.Clone(s.Args)
	s.Args[3] = "--password=hunter2hunter2"
	s.URL = "https://mcp.example/y"
	if g, w := got(det), want(det); !slices.Equal(g, w) {
		t.Errorf("after a change: %q, want %q", g, w)
	}
	other := secrets.NewDetector()
	s.redacted.args, s.redacted.url = s.Args, s.URL // as if the facts had seen the new values
	if g, w := got(other), want(other); !slices.Equal(g, w) {
		t.Errorf("another detector: %q, want %q", g, w)
	}
	// The caller's list is its own.
	_, args, _ := s.Redacted(det)
	args[0] = "changed"
	if _, again, _ := s.Redacted(det); again[0] == "changed" {
		t.Error("Redacted returned the kept list itself")
	}
}
