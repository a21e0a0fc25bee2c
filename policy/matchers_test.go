package policy

import (
	"regexp"
	"strings"
	"testing"
)

// matcherInputs are package specs, versions and near misses of every
// shape the shipped matchers tell apart.
var matcherInputs = []string{
	"", ".", "./x", "/abs", "~/x", "file:../x", "file", "git+https://x", "git+", "gitx", "C:\\x", "c:/x", "C:", "C:x", "1:/x", "@acme/pkg@1.2.3",
	"1.2.3", "=1.2.3", "v1.2.3", "=v1.2.3", "v=1.2.3", "1.2", "1.2.3.4", "1.2.3-", "1.2.3-rc.1", "1.2.3-rc.1+b.2", "1.2.3+b", "1.2.3+", "1.2.3-a+",
	"01.002.3", "1.2.3 ", " 1.2.3", "1.2.3\n", "1.2.x", "latest", "^1.2.3", "١.٢.٣", "1.2.3-é",
	"pkg==1.0", "pkg===1.0", "pkg ==  1.0", "pkg====1.0", "pkg==", "==1.0", "pkg=1.0", "pkg>=1.0", "pkg==1.0 ", "pkg\t==\t1.0", "pkg\v==1.0",
	"pkg==1.0+local!1", "pkg==1.0,<2", "päkg==1.0", "pk\xffg==1.0", "\xff==1", "pkg@1.0", "pkg@latest", "@1.0", "pkg@", "pkg@1 .0", "p k@1",
	"acme-tool-2==0.2.0", "acme-tool@0.2.0", "pkg@@1", "pkg*==1", "pkg~=1.0",
}

// TestShippedMatchers: every hand-written matcher is for a pattern the
// shipped plan calls regex.match with, and answers as regexp does on the
// inputs above.
func TestShippedMatchers(t *testing.T) {
	ev, err := bindShippedPlan(builtins())
	if err != nil {
		t.Fatal(err)
	}
	for pattern, match := range shippedMatchers {
		if !ev.MatchPattern(pattern, match) {
			t.Errorf("no call of the shipped plan matches %s", pattern)
		}
		re := regexp.MustCompile(pattern)
		for _, s := range matcherInputs {
			if got, want := match(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: %v, regexp %v", pattern, s, got, want)
			}
		}
	}
}

// FuzzShippedMatchers: each matcher answers as regexp does, on any string.
func FuzzShippedMatchers(f *testing.F) {
	for _, s := range matcherInputs {
		f.Add(s)
	}
	type pair struct {
		re    *regexp.Regexp
		match func(string) bool
	}
	var pairs []pair
	for pattern, match := range shippedMatchers {
		pairs = append(pairs, pair{regexp.MustCompile(pattern), match})
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range pairs {
			if got, want := p.match(s), p.re.MatchString(s); got != want {
				t.Errorf("%s on %q: %v, regexp %v", p.re, s, got, want)
			}
			// And with the string's parts swapped around an "==" or "@".
			for _, sep := range []string{"==", "@", "."} {
				if a, b, ok := strings.Cut(s, sep); ok {
					x := b + sep + a
					if got, want := p.match(x), p.re.MatchString(x); got != want {
						t.Errorf("%s on %q: %v, regexp %v", p.re, x, got, want)
					}
				}
			}
		}
	})
}
