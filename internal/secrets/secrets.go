package secrets

import (
	"math"
	"net/url"
	"regexp"
	"strings"
)

// Redacted replaces every secret value mcpguard prints.
const Redacted = "REDACTED"

// A tokenFormat is a credential with a recognisable shape.
type tokenFormat struct {
	kind string
	re   *regexp.Regexp
	// needles are literals one of which every match contains (fold: in any
	// case): a string without any is not searched with re. Most values
	// hold none, and the regexps would otherwise walk every byte of every
	// argument.
	needles []string
	fold    bool
}

// mayMatch reports whether s contains one of f's needles.
func (f *tokenFormat) mayMatch(s string) bool {
	for _, n := range f.needles {
		if f.fold && containsFold(s, n) || !f.fold && strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains needle (ASCII, lower case) in any
// case, without allocating.
func containsFold(s, needle string) bool {
	first := needle[0]
	upper := first - 'a' + 'A'
	for i := 0; i+len(needle) <= len(s); {
		j := strings.IndexAny(s[i:], string([]byte{first, upper}))
		if j < 0 || i+j+len(needle) > len(s) {
			return false
		}
		if strings.EqualFold(s[i+j:i+j+len(needle)], needle) {
			return true
		}
		i += j + 1
	}
	return false
}

// Token formats, anchored on the vendor prefix so that they stay precise. The
// regexps are compiled once per process by Detector; they are not globals so
// that the package has no init-time cost for commands that never use it.
func tokenFormats() []tokenFormat {
	mk := func(kind, re string, needles ...string) tokenFormat {
		return tokenFormat{kind: kind, re: regexp.MustCompile(re), needles: needles}
	}
	fold := func(f tokenFormat) tokenFormat { f.fold = true; return f }
	return []tokenFormat{
		mk("github-token", `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b`, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
		mk("github-fine-grained-token", `\bgithub_pat_[A-Za-z0-9_]{22,}\b`, "github_pat_"),
		mk("gitlab-token", `\bglpat-[A-Za-z0-9_\-]{20,}\b`, "glpat-"),
		mk("aws-access-key-id", `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, "AKIA", "ASIA", "ABIA", "ACCA"),
		mk("slack-token", `\bxox[abposr]-[A-Za-z0-9-]{10,}\b`, "xox"),
		mk("slack-webhook", `hooks\.slack\.com/services/T[A-Za-z0-9]+/B[A-Za-z0-9]+/[A-Za-z0-9]{16,}`, "hooks.slack.com/services/"),
		mk("anthropic-api-key", `\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{40,}`, "sk-ant-"),
		mk("openai-api-key", `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}`, "T3BlbkFJ"),
		mk("openai-api-key", `\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}`, "sk-proj-", "sk-svcacct-", "sk-admin-"),
		mk("google-api-key", `\bAIza[0-9A-Za-z_\-]{35}\b`, "AIza"),
		mk("stripe-key", `\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}\b`, "k_live_", "k_test_"),
		mk("npm-token", `\bnpm_[A-Za-z0-9]{36}\b`, "npm_"),
		mk("huggingface-token", `\bhf_[A-Za-z0-9]{30,}\b`, "hf_"),
		mk("sendgrid-key", `\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b`, "SG."),
		mk("jwt", `\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`, "eyJ"),
		mk("private-key", `-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----`, "-----BEGIN "),
		fold(mk("bearer-token", `(?i)\bbearer\s+[A-Za-z0-9_\-\.=+/~]{12,}`, "bearer")),
		fold(mk("basic-auth", `(?i)\bbasic\s+[A-Za-z0-9+/]{12,}={0,2}`, "basic")),
		mk("url-credentials", `\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:[^/\s@]+@`, "://"),
	}
}

// Detector finds secrets. It is safe for concurrent use.
type Detector struct {
	formats     []tokenFormat
	placeholder *regexp.Regexp
	reference   *regexp.Regexp
}

// NewDetector compiles the token formats. Build one per process and share it.
func NewDetector() *Detector {
	return &Detector{
		formats:     tokenFormats(),
		placeholder: regexp.MustCompile(placeholderPattern),
		reference:   regexp.MustCompile(referencePattern),
	}
}

// Detect returns the kind of the first credential format found in s.
func (d *Detector) Detect(s string) (kind string, ok bool) {
	if len(s) < 12 || d.IsPlaceholder(s) {
		return "", false
	}
	for i := range d.formats {
		f := &d.formats[i]
		if !f.mayMatch(s) {
			continue
		}
		if loc := f.re.FindStringIndex(s); loc != nil {
			if d.IsPlaceholder(s[loc[0]:loc[1]]) || placeholderTail(s[loc[0]:loc[1]]) {
				continue
			}
			return f.kind, true
		}
	}
	return "", false
}

// Classify decides whether value, stored under key (an env variable, header or
// flag name, or "" when there is none), is a plaintext secret. It reports the
// token format, or "credential-name" for a high-entropy value under a
// credential-like key.
func (d *Detector) Classify(key, value string) (kind string, ok bool) {
	if kind, ok := d.Detect(value); ok {
		return kind, true
	}
	if key == "" || !IsCredentialName(key) || d.IsPlaceholder(value) {
		return "", false
	}
	v := strings.TrimSpace(value)
	if len(v) >= 16 && !strings.ContainsAny(v, " \t") && Entropy(v) >= 3.5 {
		return "credential-name", true
	}
	return "", false
}

var credentialWords = []string{
	"token", "secret", "password", "passwd", "pwd", "apikey", "api_key", "api-key",
	"auth", "credential", "private_key", "privatekey", "access_key", "accesskey",
	"client_secret", "session", "cookie", "signature", "bearer", "pat",
}

// IsCredentialName reports whether a key, header or flag name suggests a
// credential (GITHUB_TOKEN, X-Api-Key, --password, Authorization).
func IsCredentialName(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	n = strings.NewReplacer("-", "_", ".", "_").Replace(n)
	for _, w := range credentialWords {
		w = strings.ReplaceAll(w, "-", "_")
		if w == "pat" {
			// Only as a whole word: PAT, GITHUB_PAT; not "path" or "pattern".
			for _, part := range strings.Split(n, "_") {
				if part == "pat" {
					return true
				}
			}
			continue
		}
		if strings.Contains(n, w) {
			return true
		}
	}
	return n == "key" || strings.HasSuffix(n, "_key") || strings.HasPrefix(n, "key_")
}

const placeholderPattern = `(?i)^(?:` +
	`<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|` + // <token>, [API_KEY], {token}
	`(?:bearer|basic|token)\s+(?:<[^<>]*>|\$\{?[A-Za-z_][A-Za-z0-9_:.]*\}?|token|xxx+|\.\.\.|your[_\- ].*|changeme)|` +
	`your[_\- ].*|my[_\- ].*|insert[_\- ].*|replace[_\- ].*|example.*|sample.*|dummy.*|fake.*|test|` +
	`x{3,}|\*{3,}|\.{3,}|changeme|change_me|placeholder|redacted|none|null|todo|tbd|secret|password|token|` +
	`sk-\.\.\.|sk-x+|sk-your.*|ghp_x+|ghp_\.\.\.)$`

// IsPlaceholder reports whether v is a variable reference or an obvious
// documentation placeholder rather than a value.
func (d *Detector) IsPlaceholder(v string) bool {
	t := strings.TrimSpace(v)
	if t == "" {
		return true
	}
	if d.isReferenceOnly(t) {
		return true
	}
	return d.placeholder.MatchString(t)
}

// placeholderTail catches tokens whose body is filler ("ghp_xxxxxxxx...").
func placeholderTail(tok string) bool {
	i := strings.LastIndexAny(tok, "_- ")
	body := tok[i+1:]
	if len(body) < 8 {
		return false
	}
	return strings.Count(body, string(body[0])) == len(body)
}

// isReferenceOnly reports whether s is made of variable references (in any
// client dialect) and separators only, e.g. "${env:TOKEN}", "Bearer ${TOKEN}".
func (d *Detector) isReferenceOnly(s string) bool {
	if !strings.ContainsAny(s, "$%{") {
		return false
	}
	rest := d.reference.ReplaceAllString(s, "")
	rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(rest), "Bearer"), "bearer"))
	return rest == "" && s != rest
}

const referencePattern = `\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{env:[^}]*\}|%[A-Za-z_][A-Za-z0-9_]*%`

// Entropy returns the Shannon entropy of s in bits per byte.
func Entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// credentialQueryParams are query parameter names whose values are redacted.
func isCredentialQueryParam(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "key", "code", "sig", "signature", "token", "auth", "apikey", "api_key", "access_token",
		"refresh_token", "id_token", "client_secret", "password", "pass", "pwd", "secret", "x-amz-signature",
		"x-amz-credential", "x-amz-security-token", "sv", "se", "sp", "sr", "skoid", "sktid":
		return true
	}
	return IsCredentialName(n)
}

// RedactURL removes userinfo passwords and usernames and the values of
// credential-like query parameters. Text that does not parse as a URL is
// returned with detected tokens redacted.
func (d *Detector) RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return d.RedactText(raw)
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(Redacted, Redacted)
		} else {
			u.User = url.User(Redacted)
		}
		changed = true
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			name, val, has := strings.Cut(p, "=")
			if !has || val == "" {
				continue
			}
			dec, _ := url.QueryUnescape(val)
			if isCredentialQueryParam(name) && !d.IsPlaceholder(dec) {
				parts[i] = name + "=" + Redacted
				changed = true
			} else if _, ok := d.Detect(dec); ok {
				parts[i] = name + "=" + Redacted
				changed = true
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	if !changed {
		return d.RedactText(raw)
	}
	return d.RedactText(u.String())
}

// RedactText replaces every detected token in free text.
func (d *Detector) RedactText(s string) string {
	if len(s) < 12 {
		return s
	}
	for i := range d.formats {
		f := &d.formats[i]
		if !f.mayMatch(s) {
			continue
		}
		s = f.re.ReplaceAllStringFunc(s, func(m string) string {
			if d.IsPlaceholder(m) || placeholderTail(m) {
				return m
			}
			switch f.kind {
			case "bearer-token", "basic-auth":
				word, _, _ := strings.Cut(m, " ")
				return word + " " + Redacted
			case "url-credentials":
				scheme, _, _ := strings.Cut(m, "://")
				return scheme + "://" + Redacted + "@"
			}
			return Redacted
		})
	}
	return s
}

// RedactArgs returns a copy of argv with secrets replaced: tokens of known
// formats anywhere, the value after a credential-named flag ("--token X"),
// "--flag=value" forms, KEY=value pairs with credential names, and header
// arguments such as "Authorization: Bearer x".
func (d *Detector) RedactArgs(args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = d.redactArg(a)
		if i > 0 && isCredentialFlag(args[i-1]) && !strings.HasPrefix(a, "-") && !d.IsPlaceholder(a) {
			out[i] = Redacted
		}
	}
	return out
}

// isCredentialFlag reports whether a is a flag like --api-key or -p (without a
// value) whose next argument is a credential.
func isCredentialFlag(a string) bool {
	if !strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
		return false
	}
	n := strings.TrimLeft(a, "-")
	return n != "" && IsCredentialName(n)
}

func (d *Detector) redactArg(a string) string {
	if name, val, ok := strings.Cut(a, "="); ok && val != "" && !strings.ContainsAny(name, " /:") {
		if IsCredentialName(name) && !d.IsPlaceholder(val) {
			return name + "=" + Redacted
		}
	}
	if name, val, ok := strings.Cut(a, ":"); ok && !strings.Contains(name, "/") && IsCredentialName(strings.TrimSpace(name)) {
		v := strings.TrimSpace(val)
		if v != "" && !strings.HasPrefix(v, "//") && !d.IsPlaceholder(v) {
			if word, _, ok := strings.Cut(v, " "); ok && (strings.EqualFold(word, "bearer") || strings.EqualFold(word, "basic")) {
				return name + ": " + word + " " + Redacted
			}
			return name + ": " + Redacted
		}
	}
	if strings.Contains(a, "://") {
		return d.RedactURL(a)
	}
	return d.RedactText(a)
}
