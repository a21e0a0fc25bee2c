package secrets

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	d := NewDetector()
	tests := []struct {
		key, value string
		want       string // "" means not a secret
	}{
		{"GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_" + strings.Repeat("a1B2", 9), "github-token"},
		{"", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github-fine-grained-token"},
		{"GITLAB", "glpat-abcdefghij0123456789", "gitlab-token"},
		{"AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLF", "aws-access-key-id"},
		{"SLACK_BOT_TOKEN", "xoxb-123456789012-1234567890123-abcdefghijkl", "slack-token"},
		{"OPENAI_API_KEY", "sk-proj-" + strings.Repeat("Ab3_", 12), "openai-api-key"},
		{"ANTHROPIC_API_KEY", "sk-ant-api03-" + strings.Repeat("xY9-", 12), "anthropic-api-key"},
		{"GOOGLE", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "google-api-key"},
		{"STRIPE", "sk_live_51H8abcdefghijklmnopqrstu", "stripe-key"},
		{"Authorization", "Bearer abcdef0123456789ABCDEF", "bearer-token"},
		{"Authorization", "Basic dXNlcjpwYXNzd29yZDEyMw==", "basic-auth"},
		{"", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop", "jwt"},
		{"DB", "postgres://admin:hunter2hunter2@db.internal/prod", "url-credentials"},
		{"API_KEY", "q8Zr4Lx0Tn2Vb7Kd5Wm1Ys9P", "credential-name"},
		{"X-Api-Key", "Zq8r4Lx0Tn2Vb7Kd5Wm1", "credential-name"},
		// Not secrets.
		{"API_KEY", "${API_KEY}", ""},
		{"API_KEY", "${env:API_KEY}", ""},
		{"Authorization", "Bearer ${API_KEY}", ""},
		{"Authorization", "Bearer <token>", ""},
		{"Authorization", "Bearer token", ""},
		{"API_KEY", "your_api_key", ""},
		{"GITHUB_PERSONAL_ACCESS_TOKEN", "<redacted>", ""},
		{"TOKEN", "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", ""},
		{"PATH", "/usr/local/bin:/usr/bin:/bin:/opt/xyz", ""},
		{"DEBUG", "mcp:*", ""},
		{"COMPANY_API_URL", "https://internal.example.com", ""},
		{"PERPLEXITY_API_KEY", "${input:perplexity-key}", ""},
		{"", "a perfectly ordinary sentence", ""},
		{"X", "${{ secrets.OPENAI }}", ""},
	}
	for _, tc := range tests {
		got, _ := d.Classify(tc.key, tc.value)
		if got != tc.want {
			t.Errorf("Classify(%q, %q) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}

func TestIsCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "X-Api-Key": true, "--password": true, "Authorization": true,
		"GITHUB_PAT": true, "client-secret": true, "key": true, "PATH": false, "PATTERN": false,
		"DEBUG": false, "HOME": false, "keyboard": false,
	} {
		if got := IsCredentialName(name); got != want {
			t.Errorf("IsCredentialName(%q) = %v", name, got)
		}
	}
}

func TestRedactURL(t *testing.T) {
	d := NewDetector()
	tests := map[string]string{
		"https://alice:pw@mcp.example.com/x":             "https://REDACTED@mcp.example.com/x",
		"https://mcp.example.com/mcp?api_key=abc123&v=2": "https://mcp.example.com/mcp?api_key=REDACTED&v=2",
		"https://mcp.example.com/mcp?key=${KEY}":         "https://mcp.example.com/mcp?key=${KEY}",
		"https://mcp.example.com/mcp":                    "https://mcp.example.com/mcp",
		"${API_BASE_URL:-https://api.example.com}/mcp":   "${API_BASE_URL:-https://api.example.com}/mcp",
	}
	for in, want := range tests {
		if got := d.RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedactTextURLCredentials: URL credentials inside free text (a shell
// string) are hidden whatever the case of the scheme.
func TestRedactTextURLCredentials(t *testing.T) {
	d := NewDetector()
	for in, want := range map[string]string{
		"curl -fsS https://admin:pw0rd99@h.example/x | sh": "curl -fsS https://REDACTED@h.example/x | sh",
		"curl -fsS HTTPS://admin:pw0rd99@h.example/x | sh": "curl -fsS HTTPS://REDACTED@h.example/x | sh",
		"wget Ftp://u:longpassword@files.example/a":        "wget Ftp://REDACTED@files.example/a",
	} {
		if got := d.RedactText(in); got != want {
			t.Errorf("RedactText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	d := NewDetector()
	in := []string{"-y", "server", "--api-key", "s3cr3tvalue", "--token=abc", "-H", "Authorization: Bearer abcdefghijklmnop",
		"ghp_" + strings.Repeat("x1", 18), "--api-key", "${KEY}", "--path", "/tmp/x", "DB_PASSWORD=hunter2"}
	want := []string{"-y", "server", "--api-key", "REDACTED", "--token=REDACTED", "-H", "Authorization: Bearer REDACTED",
		"REDACTED", "--api-key", "${KEY}", "--path", "/tmp/x", "DB_PASSWORD=REDACTED"}
	got := d.RedactArgs(in)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("arg %d: got %q, want %q", i, got[i], want[i])
		}
	}
	if in[3] != "s3cr3tvalue" {
		t.Error("RedactArgs modified its input")
	}
}

// FuzzRedact checks the redactor and the finding agree: an argument is
// changed exactly when a secret is reported at its index, a NAME=value
// argument whose value Secret calls a secret is reported and hidden, and
// a token of a known format never survives.
func FuzzRedact(f *testing.F) {
	f.Add("https://u:p@h/x?token=1", "--token")
	f.Add("Bearer abcdefghijklmnopqrstu", "Authorization")
	f.Add("token ghp_aaaaBBBBccccDDDDeeeeFFFFgggg1234hhhh", "Authorization")
	f.Add("q8Zr4Lx0Tn2Vb7Kd5Wm1Ys9P", "TOKEN_URL")
	f.Add("hunter2", "--password")
	f.Fuzz(func(t *testing.T, s, key string) {
		d := NewDetector()
		_, _ = d.Secret(key, s)
		out := d.RedactURL(s)
		if kind, ok := d.Detect(s); ok && kind != "url-credentials" && strings.Contains(out, s) && len(s) > 40 {
			t.Fatalf("token %q (%s) survived redaction: %q", s, kind, out)
		}
		args := []string{key, s, key + "=" + s}
		red, found := d.ScanArgs(args)
		reported := map[int]bool{}
		for _, x := range found {
			if x.Index < 0 || x.Index >= len(args) {
				t.Fatalf("finding at index %d of %d args", x.Index, len(args))
			}
			reported[x.Index] = true
		}
		for i := range args {
			if (red[i] != args[i]) != reported[i] {
				t.Fatalf("arg %d %q redacted to %q, reported %v: the redactor and the finding disagree", i, args[i], red[i], reported[i])
			}
		}
		name := strings.TrimLeft(key, "-")
		if _, ok := d.Secret(name, s); ok && name != "" && !strings.ContainsAny(key, "= /:") && s != "" {
			if !reported[2] {
				t.Fatalf("%q: Secret(%q, %q) but ScanArgs does not report it", args[2], name, s)
			}
		}
	})
}

// TestSecretNames: how much a name says about its value. A credential noun
// last ("API_KEY", "authToken") is enough for any literal; a name that only
// mentions one ("TOKEN_URL", "AUTH_MODE") needs a random-looking value.
func TestSecretNames(t *testing.T) {
	d := NewDetector()
	ghp := "ghp_" + strings.Repeat("a1B2", 9)
	tests := []struct {
		key, value string
		want       string
	}{
		{"Authorization", "token " + ghp, "github-token"},
		{"Authorization", "token q8Zr4Lx0Tn2Vb7Kd5Wm1", "credential-name"},
		{"Authorization", "Digest q8Zr4Lx0Tn2Vb7Kd5Wm1", "credential-name"},
		{"Authorization", "token ${GITHUB_TOKEN}", ""},
		{"DB_PASSWORD", "hunter2", "credential-name"},
		{"PGPASSWORD", "hunter2", "credential-name"},
		{"MYSQLPASSWD", "hunter2", "credential-name"},
		{"OPENAIAPIKEY", "k8s9d0f7", "credential-name"},
		{"BYPASS", "hunter2", ""},
		{"COMPASS_PASS_HINT", "hunter2", ""},
		{"authToken", "abc123def", "credential-name"},
		{"client-secret", "s3cr3t-value", "credential-name"},
		{"TOKEN_URL", "q8Zr4Lx0Tn2Vb7Kd5Wm1Ys9P", "credential-name"},
		{"TOKEN_URL", "https://auth.example.com/token", ""},
		{"AUTH_MODE", "oauth", ""},
		{"AUTH_TYPE", "bearer", ""},
		{"TOKEN_FILE", "/run/secrets/token", ""},
		{"API_KEY_PATH", "./key.pem", ""},
		{"PRIVATE_KEY", `C:\keys\id.pem`, ""},
		{"SORT_KEY", "q8Zr4Lx0Tn2Vb7Kd5Wm1Ys9P", ""},
		{"HOTKEY", "ctrl+shift+k", ""},
		{"PASSWORD", "required", ""},
		{"API_KEY", "the key from the vault", ""},
	}
	for _, tc := range tests {
		got, _ := d.Secret(tc.key, tc.value)
		if got != tc.want {
			t.Errorf("Secret(%q, %q) = %q, want %q", tc.key, tc.value, got, tc.want)
		}
	}
}

// TestScanArgs: every argument form that carries a secret is found once,
// at its index, and hidden; everything else is left as it was.
func TestScanArgs(t *testing.T) {
	d := NewDetector()
	ghp := "ghp_" + strings.Repeat("x1", 18)
	tests := []struct {
		name  string
		args  []string
		want  []string
		found []int // indexes reported
	}{
		{"docker -e NAME=value",
			[]string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=abcDEF123456", "-e", "DEBUG=1", "ghcr.io/github/github-mcp-server"},
			[]string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN=REDACTED", "-e", "DEBUG=1", "ghcr.io/github/github-mcp-server"},
			[]int{4}},
		{"docker -e NAME (value from the environment)",
			[]string{"run", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "image"},
			[]string{"run", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "image"},
			nil},
		{"--env=NAME=value",
			[]string{"--env=API_KEY=q8Zr4Lx0Tn2Vb7Kd5", "--env=LOG=debug"},
			[]string{"--env=API_KEY=REDACTED", "--env=LOG=debug"},
			[]int{0}},
		{"header with a token scheme",
			[]string{"mcp-remote", "https://mcp.example.com/sse", "--header", "Authorization: token " + ghp},
			[]string{"mcp-remote", "https://mcp.example.com/sse", "--header", "Authorization: token REDACTED"},
			[]int{3}},
		{"header from a variable",
			[]string{"--header", "Authorization: Bearer ${AUTH_TOKEN}"},
			[]string{"--header", "Authorization: Bearer ${AUTH_TOKEN}"},
			nil},
		{"flag then value",
			[]string{"--password", "hunter2", "--token-file", "/run/secrets/t", "--port", "8080"},
			[]string{"--password", "REDACTED", "--token-file", "/run/secrets/t", "--port", "8080"},
			[]int{1}},
		{"URL with credentials",
			[]string{"postgres://app:hunter2hunter2@db.internal/prod", "https://mcp.example.com/mcp?api_key=abc123"},
			[]string{"postgres://REDACTED@db.internal/prod", "https://mcp.example.com/mcp?api_key=REDACTED"},
			[]int{0, 1}},
		{"bare token of a known format",
			[]string{ghp},
			[]string{"REDACTED"},
			[]int{0}},
		{"nothing",
			[]string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/src", "key=value"},
			[]string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/src", "key=value"},
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.args)
			got, found := d.ScanArgs(tc.args)
			if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") {
				t.Errorf("ScanArgs = %q, want %q", got, tc.want)
			}
			// The arguments are left as they were; they come back
			// themselves when nothing is hidden, without room to
			// append into them.
			if !slices.Equal(tc.args, before) {
				t.Errorf("ScanArgs changed its operand to %q", tc.args)
			}
			if same := len(got) > 0 && &got[0] == &tc.args[0]; same != (len(found) == 0) || cap(got) != len(got) {
				t.Errorf("ScanArgs returned its operand %v with %d found, capacity %d of %d", same, len(found), cap(got), len(got))
			}
			var idx []int
			for _, f := range found {
				idx = append(idx, f.Index)
			}
			if fmt.Sprint(idx) != fmt.Sprint(tc.found) {
				t.Errorf("found at %v, want %v (%+v)", idx, tc.found, found)
			}
		})
	}
}

// TestTokenFormatsCompile: every format's pattern compiles (they are
// compiled on first use, so a bad one would otherwise fail only on a value
// that holds its needle).
func TestTokenFormatsCompile(t *testing.T) {
	for _, f := range NewDetector().formats {
		if f.re() == nil || len(f.needles) == 0 {
			t.Errorf("%s: no pattern or no needle", f.kind)
		}
	}
}

// FuzzMayMatch: the cheap test that lets a string skip a format's regexp
// never skips one the regexp matches (a needle, and f.also, are in every
// match).
func FuzzMayMatch(f *testing.F) {
	for _, s := range []string{
		"https://user:pw@host/x", "see https://u:p@h", "https://mcp.acme.example/mcp", "ssh://git@github.com/x",
		"Bearer abcdefghijklmnopqrstu", "basic dXNlcjpwYXNzd29yZA==", "ghp_aaaaBBBBccccDDDDeeeeFFFFgggg1234hhhh",
		"AKIAABCDEFGHIJKLMNOP", "eyJhbGciOiJIUzI1.eyJzdWIiOiIx.c2lnbmF0dXJl", "-----BEGIN RSA PRIVATE KEY-----",
	} {
		f.Add(s)
	}
	d := NewDetector()
	f.Fuzz(func(t *testing.T, s string) {
		for i := range d.formats {
			tf := &d.formats[i]
			if tf.re().MatchString(s) && !tf.mayMatch(s) {
				t.Fatalf("%s matches %q, which mayMatch lets skip it", tf.kind, s)
			}
		}
	})
}

// FuzzCandidates: the formats one pass finds (candidates, with each
// format's also byte) are exactly those whose needles mayMatch finds one
// by one.
func FuzzCandidates(f *testing.F) {
	for _, s := range []string{
		"https://user:pw@host/x", "BEARER abcdefghijklmnop", "bAsIc dXNlcjpwYXNzd29yZA==", "xBearerx", "ghp_ghp_",
		"AKIAABCDEFGHIJKLMNOP", "sk-ant-api03-x", "hooks.slack.com/services/T1/B2/x", "T3BlbkFJ", "-----BEGIN ",
		"@acme/server-12@1.2.12", "/srv/data/12", "${ACME_TOKEN_12}", "", "g", "gh", "BEARE", "b\xffasic",
	} {
		f.Add(s)
	}
	d := NewDetector()
	f.Fuzz(func(t *testing.T, s string) {
		set := d.candidates(s)
		for i := range d.formats {
			tf := &d.formats[i]
			if got, want := set&(1<<i) != 0 && tf.hasAlso(s), tf.mayMatch(s); got != want {
				t.Fatalf("%s on %q: candidates %v, mayMatch %v", tf.kind, s, got, want)
			}
		}
	})
}

// FuzzNameStrength: nameStrength, which reads a name's words in place, is
// the judgement of the words as a list of strings (refNameStrength, the
// implementation it replaced).
func FuzzNameStrength(f *testing.F) {
	for _, s := range []string{
		"TOKEN", "LOG_LEVEL", "Authorization", "X-Api-Key", "authToken", "api_key", "key", "sort_key", "hotkey",
		"AUTH_MODE", "TOKEN_FILE", "--password", "client-secret", "GITHUB_PERSONAL_ACCESS_TOKEN", "apiKEY", "aPIKey",
		"x-amz-security-token", "éToken", "authorization" + strings.Repeat("x", 70), strings.Repeat("a", 70) + "_key",
		"subscriptionKey", "key_api", "KeyKey", "", "-", "9token", "PGPASSWORD", "bypass_mode", "clientsecret_file",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := nameStrength(name), refNameStrength(name); got != want {
			t.Fatalf("%q: %d, want %d", name, got, want)
		}
	})
}

func refNameStrength(name string) credentialStrength {
	w := refNameWords(name)
	if len(w) == 0 {
		return noCredential
	}
	last := w[len(w)-1]
	switch {
	case credentialNouns[last] || gluedNoun([]byte(last)):
		return strongCredential
	case last == "key" && len(w) > 1 && keyQualifiers[w[len(w)-2]]:
		return strongCredential
	case len(w) == 1 && last == "key":
		return weakCredential
	}
	for i, x := range w {
		if credentialNouns[x] || gluedNoun([]byte(x)) || x == "key" && i > 0 && keyQualifiers[w[i-1]] {
			return weakCredential
		}
	}
	return noCredential
}

func refNameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			cur = append(cur, r)
			prevLower = true
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

// FuzzWithoutReferences: withoutReferences takes out what the regexp of
// every dialect's references (the pattern it replaced) does.
func FuzzWithoutReferences(f *testing.F) {
	for _, s := range []string{
		"${TOKEN}", "Bearer ${TOKEN}", "${env:TOKEN}", "$TOKEN", "%TOKEN%", "{env:TOKEN}", "${{ secrets.TOKEN }}",
		"${{a}b}}", "${{a}", "${a", "$", "$1", "%1%", "%a", "x${A}y$B%C%{env:D}", "${}", "$_", "%_a1%", "{env:}",
		"${{}}", "${{}", "é${A}\xff", "$$A", "%%A%", "{env:a}}",
	} {
		f.Add(s)
	}
	re := regexp.MustCompile(`\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{env:[^}]*\}|%[A-Za-z_][A-Za-z0-9_]*%`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := withoutReferences(s), re.ReplaceAllString(s, ""); got != want {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	})
}

// FuzzScanURLShortcut: a URL without '@' or '?' has no userinfo and no
// query, and ScanURL's shortcut (the text alone) finds what the parse does.
func FuzzScanURLShortcut(f *testing.F) {
	for _, s := range []string{
		"https://mcp.acme.example/mcp", "https://ghp_aaaaBBBBccccDDDDeeeeFFFFgggg1234hhhh.example/x", "http://[::1]:9000/sse",
		"https://x/%40y", "not a url", "sk-ant-api03-" + strings.Repeat("a", 50), "https://h/Bearer%20abcdefghijklmnop", "",
	} {
		f.Add(s)
	}
	d := NewDetector()
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.ContainsAny(raw, "@?") {
			return
		}
		out, found := d.ScanURL(raw)
		wantOut, wantFound := d.scanParsedURL(raw)
		if out != wantOut || !slices.Equal(found, wantFound) {
			t.Fatalf("%q: %q %v, the parse %q %v", raw, out, found, wantOut, wantFound)
		}
	})
}

// TestIsPlaceholder: documentation placeholders and variable references
// are not values; anything else is.
func TestIsPlaceholder(t *testing.T) {
	d := NewDetector()
	for _, c := range []struct {
		v    string
		want bool
	}{
		{"<token>", true}, {"[API_KEY]", true}, {"{token}", true}, {"Bearer ${TOKEN}", true}, {"basic xxx", true},
		{"your-key-here", true}, {"MY_TOKEN", true}, {"example.com", true}, {"changeme", true}, {"REDACTED", true},
		{"sk-...", true}, {"ghp_xxxx", true}, {"ſecret", true}, {"${env:TOKEN}", true}, {"  ", true},
		{"info", false}, {"https://x", false}, {"-y", false}, {"@acme/x", false}, {"npx", false}, {"tests", false},
		{"ghp_" + strings.Repeat("a1", 18), false}, {"xx", false},
	} {
		if got := d.IsPlaceholder(c.v); got != c.want {
			t.Errorf("IsPlaceholder(%q) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestRedactFields: a command line inside a string has its secrets hidden
// as ScanArgs hides an argv's, and keeps every other byte.
func TestRedactFields(t *testing.T) {
	d := NewDetector()
	for _, tc := range []struct{ in, want string }{
		{"mysql -u root --password=Hunter2xq db", "mysql -u root --password=REDACTED db"},
		{"PGPASSWORD=s3cr3tpw  psql -h db", "PGPASSWORD=REDACTED  psql -h db"},
		{"deploy --token abcdef123456 --env prod", "deploy --token REDACTED --env prod"},
		{"curl -H 'X-Api-Key: kq81zzp0w7' https://api.example", "curl -H 'X-Api-Key: REDACTED' https://api.example"},
		{`docker run -e "API_KEY=plainkey991" img`, `docker run -e "API_KEY=REDACTED" img`},
		{"go test ./... -run TestLogin -v", "go test ./... -run TestLogin -v"},
		{"ls --color=auto /etc/passwd", "ls --color=auto /etc/passwd"},
		{"fix the password reset page", "fix the password reset page"},
		{"Authorization: Bearer q8Zr4Lx0Tn2Vb7Kd5Wm1", "Authorization: Bearer REDACTED"},
		{"Server=h;User Id=u;Password=Hunter2xq;", "Server=h;User Id=u;Password=REDACTED;"},
		{"export PASSWORD=Hunter2xq; run", "export PASSWORD=REDACTED; run"},
		{"--password\u00a0Hunter2xq", "--password\u00a0REDACTED"},
		{"a\u2028PGPASSWORD=Hunter2xq", "a\u2028PGPASSWORD=REDACTED"},
		{"pass\u200bword=Hunter2xq", "password=REDACTED"},
		{"", ""},
	} {
		if got := d.RedactFields(tc.in); got != tc.want {
			t.Errorf("RedactFields(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestRedactFieldsRedteam: credential forms of a command line that
// reached the call audit (red team 8), each with a benign twin that keeps
// every byte: a command's password flags (not named for what they are),
// user:password values, a Cookie header's every pair, a header glued to
// its scheme, a short Basic credential, "name = value" and quoted values
// with spaces, PowerShell and Windows switches, the pairs of a form, a
// URL without its scheme and an OAuth fragment, mount options and an XML
// element.
func TestRedactFieldsRedteam(t *testing.T) {
	d := NewDetector()
	for _, tc := range []struct{ in, want string }{
		{"mysql -uroot -pHunter2xq db", "mysql -uroot -pREDACTED db"},
		{"sshpass -p Hunter2xq ssh h", "sshpass -p REDACTED ssh h"},
		{"docker login -u ann -p Hunter2xq registry.example", "docker login -u ann -p REDACTED registry.example"},
		{"sudo mongosh -u ann -p Hunter2xq", "sudo mongosh -u ann -p REDACTED"},
		{"curl -u ann:Hunter2xq https://h", "curl -u ann:REDACTED https://h"},
		{"curl --user=ann:Hunter2xq https://h", "curl --user=ann:REDACTED https://h"},
		{"/usr/bin/curl -s --proxy-user ann:Hunter2xq https://h", "/usr/bin/curl -s --proxy-user ann:REDACTED https://h"},
		{"smbclient //h/s -U ann%Hunter2xq", "smbclient //h/s -U ann%REDACTED"},
		{"redis-cli -a Hunter2xq ping", "redis-cli -a REDACTED ping"},
		{"ldapsearch -x -D cn=admin -w Hunter2xq", "ldapsearch -x -D cn=admin -w REDACTED"},
		{"sqlcmd -S h -U sa -P Hunter2xq", "sqlcmd -S h -U sa -P REDACTED"},
		{"curl -b 'session=q8Zr4Lx0abc' h", "curl -b 'session=REDACTED' h"},
		{"curl -H 'Cookie: a=1; sid=q8Zr4Lx0abc' h", "curl -H 'Cookie: a=REDACTED; sid=REDACTED' h"},
		{"Cookie: a=1; sid=q8Zr4Lx0abc", "Cookie: a=REDACTED; sid=REDACTED"},
		{"curl -H 'Authorization:Bearer q8Zr4Lx0' h", "curl -H 'Authorization: Bearer REDACTED' h"},
		{"Authorization: Basic YW5uOnB3", "Authorization: Basic REDACTED"},
		{"password = Hunter2xq", "password = REDACTED"},
		{"{ \"api_key\" : \"Hunter2xq\" }", "{ \"api_key\" : \"REDACTED\" }"},
		{"{\"password\":\"correct horse\"}", "{\"password\":\"REDACTED\"}"},
		{"--password=\"Hunter 2xq\"", "--password=\"REDACTED\""},
		{"PASSWORD='Hunter 2xq' run", "PASSWORD='REDACTED' run"},
		{"--password 'Hunter 2xq'", "--password 'REDACTED'"},
		{"$env:PASSWORD=\"Hunter2xq\"", "$env:PASSWORD=REDACTED"},
		{"$env:PASSWORD = 'Hunter2xq'", "$env:PASSWORD = 'REDACTED'"},
		{"/password:Hunter2xq", "/password: REDACTED"},
		{"user=ann&password=Hunter2xq", "user=ann&password=REDACTED"},
		{"grant_type=password&username=ann&password=Hunter2xq", "grant_type=password&username=ann&password=REDACTED"},
		{"h.example/x?token=Hunter2xq&b=2", "h.example/x?token=REDACTED&b=2"},
		{"https://h.example/x#access_token=Hunter2xq&token_type=bearer", "https://h.example/x#access_token=REDACTED&token_type=bearer"},
		{"mount -t cifs -o username=ann,password=Hunter2xq //h/s /mnt", "mount -t cifs -o username=ann,password=REDACTED //h/s /mnt"},
		{"echo '<password>Hunter2xq</password>' > settings.xml", "echo '<password>REDACTED</password>' > settings.xml"},
		{"PW=Hunter2xq ./run", "PW=REDACTED ./run"},
		{`bash -c "mysql -uroot -pHunter2xq db"`, `bash -c "mysql -uroot -pREDACTED db"`},
		{"ＰＡＳＳＷＯＲＤ=Hunter2xq run", "PASSWORD=REDACTED run"},
		{"--ｔｏｋｅｎ abcdef123456", "--ｔｏｋｅｎ REDACTED"},
		{`(".aws/credentials with password=hunter2xq…", 1 more)`, `(".aws/credentials with password=REDACTED 1 more)`},
	} {
		if got := d.RedactFields(tc.in); got != tc.want {
			t.Errorf("RedactFields(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, s := range []string{
		// A command's short flags mean other things elsewhere.
		"docker run -p 8080:80 -u 1000:1000 nginx",
		"mysql -u root -p mydb", // -p alone asks; mydb is the database
		"git add -p",
		"mkdir -p /tmp/x && cd /tmp/x",
		"ssh -p 2222 host",
		"redis-cli -h host -p 6379 ping",
		"mongo --host h -u ann -p",
		"curl -u ann https://h", // the user alone: curl asks
		"curl -b cookies.txt https://h",
		// Prose and ordinary pairs.
		"curl 'https://h/search?q=password+reset&page=2'",
		"mount -o rw,noatime,uid=1000 /dev/sda1 /mnt",
		"fix the password reset page; don't log the token",
		"the user's password = what they chose; it's hashed",
		"Basic authentication is enabled; bearer authentication too",
		"Use Bearer Authentication with the header",
		`name = 'John Smith', title: "Lead engineer"`,
		`{"message": "reset your password here", "count": 3}`,
		"<token>${env.TOKEN}</token>",
		"SELECT * FROM users WHERE name = 'bob' AND role='admin'",
		"export PATH=/usr/bin:$PATH; ls",
		"a=b&c=d",
		"--sort=name,asc",
		"it's Bob's --verbose flag",
		"ｆｕｌｌｗｉｄｔｈ ｔｅｘｔ = ｆｉｎｅ",
	} {
		if got := d.RedactFields(s); got != s {
			t.Errorf("RedactFields(%q) = %q, want it unchanged", s, got)
		}
	}
}

// FuzzRedactFields: any string is redacted without a panic, and what the
// redaction left is left again.
func FuzzRedactFields(f *testing.F) {
	for _, s := range []string{"a --token x", "X: y", `"A=b"`, "'", "--password", " \t\n", "PGPASSWORD=é",
		"mysql -px", "curl -u a:b -b 'c=d; e=f'", `bash -c "x --password 'a b'"`, "ghp_abcd…", "a=1&password=x#token=y"} {
		f.Add(s)
	}
	d := NewDetector()
	f.Fuzz(func(t *testing.T, s string) {
		once := d.RedactFields(s)
		if twice := d.RedactFields(once); twice != once {
			t.Fatalf("%q: %q, then %q", s, once, twice)
		}
		q := d.RedactQuote(s)
		if again := d.RedactQuote(q); again != q {
			t.Fatalf("quote %q: %q, then %q", s, q, again)
		}
	})
}

// TestRedactQuote: a finding's quote, cut and lower-cased, still hides a
// token by its vendor prefix and a password= by its name; prose and
// words that merely start like a prefix stay.
func TestRedactQuote(t *testing.T) {
	d := NewDetector()
	for _, tc := range []struct{ in, want string }{
		{".ssh/id_rsa and the token ghp_a1b2c3d4e5…", ".ssh/id_rsa and the token ghp_REDACTED…"},
		{"send akiaiosfodnn7ex…", "send akiaREDACTED…"},
		{"with password=hunter2xq…", "with password=REDACTED"},
		{"with eyjhbgcioijiuz…", "with eyjREDACTED…"},
		{"send ghp_REDACTED to", "send ghp_REDACTED to"},
		{"the hf_ prefix, asia trip, npm_ x", "the hf_ prefix, asia trip, npm_ x"},
		{"a webhook_x and myghp_abcdef", "a webhook_x and myghp_abcdef"},
	} {
		if got := d.RedactQuote(tc.in); got != tc.want {
			t.Errorf("RedactQuote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
