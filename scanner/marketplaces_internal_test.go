package scanner

import (
	"testing"

	"github.com/mcpguard/mcpguard/internal/jsonc"
)

func mustSource(t *testing.T, js string) *mktSource {
	t.Helper()
	v, _, err := jsonc.Parse([]byte(js), jsonc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, why := parseMktSource(v)
	if why != "" {
		t.Fatalf("%s: %s", js, why)
	}
	return s
}

// TestMarketplaceMatching pins blockedMarketplaces and
// strictKnownMarketplaces matching (the cases the CLI was run on are in
// the oracle corpus, 1204-*; the rest follow Claude Code's matcher).
func TestMarketplaceMatching(t *testing.T) {
	cases := []struct {
		src, entry    string
		block, strict bool
	}{
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"github","repo":"acme/mkt"}`, true, true},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"github","repo":"acme/other"}`, false, false},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"github","repo":"ACME/mkt"}`, false, true},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"github","repo":"acme/*"}`, true, true},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"github","repo":"ACME/*"}`, true, false},
		{`{"source":"github","repo":"acme/mkt.git/"}`, `{"source":"github","repo":"acme/mkt"}`, true, false},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"github","repo":"acme/mkt","ref":"v1"}`, false, false},
		{`{"source":"github","repo":"acme/mkt","ref":"v1"}`, `{"source":"github","repo":"acme/mkt"}`, true, false},
		{`{"source":"github","repo":"acme/mkt","ref":"0123456789abcdef0123456789abcdef01234567"}`, `{"source":"github","repo":"acme/mkt","ref":"main"}`, true, false},
		{`{"source":"github","repo":"acme/mkt","path":"sub"}`, `{"source":"github","repo":"acme/mkt","path":"other"}`, false, false},
		{`{"source":"git","url":"https://github.com/acme/mkt.git"}`, `{"source":"github","repo":"acme/mkt"}`, true, false},
		{`{"source":"git","url":"git@github.com:acme/mkt.git"}`, `{"source":"github","repo":"acme/*"}`, true, false},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"git","url":"https://github.com/acme/mkt"}`, true, false},
		{`{"source":"git","url":"https://git.acme.invalid/acme/mkt.git"}`, `{"source":"git","url":"https://GIT.acme.invalid/acme/mkt.git"}`, true, true},
		{`{"source":"git","url":"https://git.acme.invalid/acme/mkt.git"}`, `{"source":"url","url":"https://git.acme.invalid/acme/mkt"}`, true, false},
		{`{"source":"url","url":"https://mkt.acme.invalid/m.json"}`, `{"source":"url","url":"https://MKT.acme.invalid/m.json"}`, true, true},
		{`{"source":"npm","package":"@acme/mkt"}`, `{"source":"npm","package":"@acme/mkt"}`, true, true},
		{`{"source":"directory","path":"/srv/mkt"}`, `{"source":"pathPattern","pathPattern":"^/srv/"}`, true, true},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"hostPattern","hostPattern":"^github\\.com$"}`, true, true},
		{`{"source":"git","url":"https://git.acme.invalid/x.git"}`, `{"source":"hostPattern","hostPattern":"^github\\.com$"}`, false, false},
		{`{"source":"github","repo":"acme/mkt"}`, `{"source":"hostPattern","hostPattern":"(["}`, false, false},
	}
	for _, tc := range cases {
		src, entry := mustSource(t, tc.src), mustSource(t, tc.entry)
		if got := blockMatches(src, entry); got != tc.block {
			t.Errorf("block %s by %s = %v, want %v", tc.src, tc.entry, got, tc.block)
		}
		if got := strictMatches(src, entry); got != tc.strict {
			t.Errorf("strict %s by %s = %v, want %v", tc.src, tc.entry, got, tc.strict)
		}
	}
}

func TestParseMktSourceRejects(t *testing.T) {
	for _, js := range []string{`[]`, `{}`, `{"source":""}`, `{"source":"github"}`, `{"source":"github","repo":7}`, `{"source":"url"}`} {
		v, _, err := jsonc.Parse([]byte(js), jsonc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, why := parseMktSource(v); why == "" {
			t.Errorf("%s accepted", js)
		}
	}
}
