package secrets

import (
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Redacted replaces every secret value mcpguard prints.
const Redacted = "REDACTED"

// A tokenFormat is a credential with a recognisable shape.
type tokenFormat struct {
	kind string
	// re is compiled on the first string that holds a needle: most runs
	// meet two or three of the formats, so a scan compiles those and not
	// every format.
	re func() *regexp.Regexp
	// needles are literals one of which every match contains (fold: in any
	// case): a string without any is not searched with re. Most values
	// hold none, and the regexps would otherwise walk every byte of every
	// argument.
	needles []string
	fold    bool
	// also is a byte every match contains besides a needle: "://" is in
	// every URL, and URL credentials need an '@' after it.
	also byte
}

// mayMatch reports whether s contains one of f's needles, and f.also: the
// definition of what Detector.candidates finds in one pass for every
// format at once.
func (f *tokenFormat) mayMatch(s string) bool {
	if !f.hasAlso(s) {
		return false
	}
	for _, n := range f.needles {
		if f.fold && containsFold(s, n) || !f.fold && strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// hasAlso reports whether s holds f.also, when f has one.
func (f *tokenFormat) hasAlso(s string) bool {
	return f.also == 0 || strings.IndexByte(s, f.also) >= 0
}

// A needle is one of a format's needles in Detector's index.
type needle struct {
	text   string // lower case for a format that folds
	format uint8  // index in Detector.formats
	fold   bool
}

// indexNeedles files every format's needles under their first byte, both
// cases of it for a format that folds.
func indexNeedles(formats []tokenFormat) (index [256][]needle) {
	if len(formats) > 64 {
		panic("secrets: more token formats than a candidate set holds")
	}
	for i, f := range formats {
		for _, text := range f.needles {
			n := needle{text: text, format: uint8(i), fold: f.fold}
			c := text[0]
			index[c] = append(index[c], n)
			if f.fold && 'a' <= c && c <= 'z' {
				index[c-'a'+'A'] = append(index[c-'a'+'A'], n)
			}
		}
	}
	return index
}

// candidates is the set of formats (bit i for formats[i]) one of whose
// needles s holds, found in one pass over s rather than one search per
// needle (some 35 of them). A candidate still needs its also byte (hasAlso).
func (d *Detector) candidates(s string) (set uint64) {
	for i := 0; i < len(s); i++ {
		for _, n := range d.needles[s[i]] {
			if set&(1<<n.format) != 0 || len(s)-i < len(n.text) {
				continue
			}
			if t := s[i : i+len(n.text)]; t == n.text || n.fold && strings.EqualFold(t, n.text) {
				set |= 1 << n.format
			}
		}
	}
	return set
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
		return tokenFormat{kind: kind, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(re) }), needles: needles}
	}
	fold := func(f tokenFormat) tokenFormat { f.fold = true; return f }
	also := func(f tokenFormat, b byte) tokenFormat { f.also = b; return f }
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
		// A scheme is case-insensitive: HTTPS://user:pw@host in a shell
		// string is the same credential.
		also(mk("url-credentials", `\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]+:[^/\s@]+@`, "://"), '@'),
	}
}

// Detector finds secrets. It is safe for concurrent use.
type Detector struct {
	formats []tokenFormat
	// needles indexes the formats' needles by first byte (candidates).
	needles [256][]needle
	// placeholder is placeholderPattern, compiled on first use like the
	// token formats: most values never reach it (placeholderFirst).
	placeholder func() *regexp.Regexp
	// placeholderFirst holds placeholderStarts' bytes.
	placeholderFirst [256]bool
}

// NewDetector prepares the token formats and patterns (each is compiled on
// first use). Build one per process and share it.
func NewDetector() *Detector {
	formats := tokenFormats()
	d := &Detector{
		formats:     formats,
		needles:     indexNeedles(formats),
		placeholder: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(placeholderPattern) }),
	}
	for i := range len(placeholderStarts) {
		d.placeholderFirst[placeholderStarts[i]] = true
	}
	return d
}

// Detect returns the kind of the first credential format found in s.
func (d *Detector) Detect(s string) (kind string, ok bool) {
	if len(s) < 12 || d.IsPlaceholder(s) {
		return "", false
	}
	return d.detect(s)
}

// detect is Detect for s that is not a placeholder.
func (d *Detector) detect(s string) (kind string, ok bool) {
	if len(s) < 12 {
		return "", false
	}
	set := d.candidates(s)
	for i := range d.formats {
		f := &d.formats[i]
		if set&(1<<i) == 0 || !f.hasAlso(s) {
			continue
		}
		if loc := f.re().FindStringIndex(s); loc != nil {
			if d.IsPlaceholder(s[loc[0]:loc[1]]) || placeholderTail(s[loc[0]:loc[1]]) {
				continue
			}
			return f.kind, true
		}
	}
	return "", false
}

// Classify is Secret under its older name.
func (d *Detector) Classify(key, value string) (kind string, ok bool) { return d.Secret(key, value) }

// Secret decides whether value, stored under key (an env variable, header,
// flag, query parameter or KEY=value name; "" when there is none), is a
// plaintext secret. It is the one definition mcpguard has: the redactor
// hides exactly what it calls a secret, and MCPG-C001 reports exactly that.
//
// A value is a secret when it holds a credential of a known format anywhere
// (kind: the format), or when its name says it holds a credential ("TOKEN",
// "X-Api-Key", "--password", "Authorization"; kind "credential-name") and it
// is neither a placeholder, a variable reference, a path nor a sentence. A
// name that only mentions a credential among other words ("AUTH_MODE",
// "TOKEN_FILE") needs a value that looks random: 16 characters or more with
// at least 3.5 bits of entropy each. A credential after a scheme word
// ("token ghp_...", "Bearer x", "Digest ...") is judged without the word.
func (d *Detector) Secret(key, value string) (kind string, ok bool) {
	v := strings.TrimSpace(value)
	if v == "" || d.IsPlaceholder(v) {
		return "", false
	}
	if kind, ok := d.detect(v); ok {
		return kind, true
	}
	st := nameStrength(key)
	if st == noCredential {
		return "", false
	}
	if scheme, rest, ok := strings.Cut(v, " "); ok && isSchemeWord(scheme) {
		if rest = strings.TrimSpace(rest); rest != "" && !strings.ContainsAny(rest, " \t") {
			if d.IsPlaceholder(rest) {
				return "", false
			}
			v = rest
		}
	}
	// A URL's secrets are in its userinfo and query (Detect and ScanURL
	// judge those), never in the URL as a whole.
	if strings.ContainsAny(v, " \t\r\n") || strings.Contains(v, "://") || looksLikePath(v) || notASecretWord(v) {
		return "", false
	}
	switch st {
	case strongCredential:
		return "credential-name", true
	case weakCredential:
		if len(v) >= 16 && Entropy(v) >= 3.5 {
			return "credential-name", true
		}
	}
	return "", false
}

// credentialStrength says what a name says of its value.
type credentialStrength int

const (
	noCredential credentialStrength = iota
	weakCredential
	strongCredential
)

// credentialNouns end names whose value is a credential.
var credentialNouns = map[string]bool{
	"token": true, "tokens": true, "secret": true, "secrets": true, "password": true, "passwd": true, "pwd": true,
	"pass": true, "passphrase": true, "passcode": true, "credential": true, "credentials": true, "cookie": true,
	"pat": true, "auth": true, "authorization": true, "bearer": true, "apikey": true, "privatekey": true,
	"signature": true, "sig": true,
}

// gluedNouns are the credential nouns read at the end of a longer word, a
// name written without separators (PGPASSWORD, MYSQLPASSWD, CLIENTSECRET,
// OPENAIAPIKEY). The shorter nouns are not: "bypass", "compass", "catpat".
var gluedNouns = []string{"password", "passwd", "passphrase", "secret", "apikey"}

// gluedNoun reports a word that is longer than a gluedNouns noun and ends
// with it.
func gluedNoun(w []byte) bool {
	for _, n := range gluedNouns {
		if len(w) > len(n) && string(w[len(w)-len(n):]) == n {
			return true
		}
	}
	return false
}

// keyQualifiers make "key" a credential ("API_KEY", "access-key"), unlike
// "sort_key" or "hotkey".
var keyQualifiers = map[string]bool{
	"api": true, "access": true, "private": true, "secret": true, "signing": true, "encryption": true, "client": true,
	"master": true, "license": true, "licence": true, "auth": true, "service": true, "account": true,
	"subscription": true, "app": true, "application": true, "admin": true, "session": true, "shared": true,
	"webhook": true, "x": true,
}

// nameStrength judges a name by its words ("X-Api-Key" is x, api, key;
// "authToken" is auth, token): a credential noun last is strong, anywhere
// else weak. It runs for every env key, header and flag of every server,
// so it reads the words in place (eachWord) instead of making them.
func nameStrength(name string) credentialStrength {
	var prev [maxNameWord]byte
	prevLen, words := -1, 0
	lastNoun, lastQualifiedKey, anyWeak, lastKey := false, false, false, false
	for it := (wordIter{name: name}); ; {
		w, ok := it.next()
		if !ok {
			break
		}
		short := len(w) <= maxNameWord // a longer word is no noun or qualifier
		// (Indexing a map with string(w) does not copy w.)
		noun := short && credentialNouns[string(w)] || gluedNoun(w)
		key := string(w) == "key"
		qualified := key && prevLen >= 0 && keyQualifiers[string(prev[:prevLen])]
		anyWeak = anyWeak || noun || qualified
		lastNoun, lastQualifiedKey, lastKey = noun, qualified, key
		prevLen = -1
		if short {
			prevLen = copy(prev[:], w)
		}
		words++
	}
	switch {
	case words == 0:
		return noCredential
	case lastNoun || lastQualifiedKey:
		return strongCredential
	case words == 1 && lastKey:
		return weakCredential // "key=value", a sort key, a map key
	case anyWeak:
		return weakCredential
	}
	return noCredential
}

// maxNameWord is the longest credential noun or key qualifier
// ("authorization"): a longer word is neither.
const maxNameWord = 16

// wordIter reads the words of a name, lower case: its runs of ASCII
// letters and digits, split again where a lower-case letter or digit is
// followed by an upper-case one (camelCase). It holds the word it returns
// (a callback's buffer escaped to the heap: an allocation for every env
// key, header and flag of every server).
type wordIter struct {
	name string
	i    int
	buf  [64]byte
}

// next returns the next word, valid until the next call, or false when
// there is none.
func (it *wordIter) next() ([]byte, bool) {
	cur := it.buf[:0]
	prevLower := false
	for ; it.i < len(it.name); it.i++ {
		c := it.name[it.i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			cur = append(cur, c)
			prevLower = true
		case c >= 'A' && c <= 'Z':
			if prevLower && len(cur) > 0 {
				return cur, true // the upper-case letter starts the next word
			}
			cur = append(cur, c+'a'-'A')
			prevLower = false
		default:
			prevLower = false
			if len(cur) > 0 {
				it.i++
				return cur, true
			}
		}
	}
	return cur, len(cur) > 0
}

// isSchemeWord reports an HTTP authorization scheme or similar prefix.
func isSchemeWord(w string) bool {
	if len(w) == 0 || len(w) > 20 {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	return true
}

// looksLikePath reports a file path given where a credential could be (a
// --token-file flag would not reach here, but --key ./key.pem does).
func looksLikePath(v string) bool {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") {
		return true
	}
	return len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/')
}

// notASecretWord reports literal values that configure rather than
// authenticate.
func notASecretWord(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "enabled", "disabled", "required", "optional", "oauth", "oauth2", "none", "env", "file", "keychain":
		return true
	}
	return false
}

// IsCredentialName reports whether a key, header or flag name suggests a
// credential (GITHUB_TOKEN, X-Api-Key, --password, Authorization).
func IsCredentialName(name string) bool {
	return nameStrength(strings.TrimLeft(name, "-")) != noCredential
}

const placeholderPattern = `(?i)^(?:` +
	`<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|` + // <token>, [API_KEY], {token}
	`(?:bearer|basic|token)\s+(?:<[^<>]*>|\$\{?[A-Za-z_][A-Za-z0-9_:.]*\}?|token|xxx+|\.\.\.|your[_\- ].*|changeme)|` +
	`your[_\- ].*|my[_\- ].*|insert[_\- ].*|replace[_\- ].*|example.*|sample.*|dummy.*|fake.*|test|` +
	`x{3,}|\*{3,}|\.{3,}|changeme|change_me|placeholder|redacted|none|null|todo|tbd|secret|password|token|` +
	`sk-\.\.\.|sk-x+|sk-your.*|ghp_x+|ghp_\.\.\.)$`

// placeholderStarts are the bytes a match of placeholderPattern can start
// with (with (?i), "s" also as the first byte of U+017F, which folds to it):
// a value that starts with any other cannot match, and skips the pattern.
// The pattern is tried on every value of every server and almost none
// starts like a placeholder (a URL, a flag, a path, a package), so most
// values are decided by one byte. TestPlaceholderStarts derives the set
// from the pattern.
const placeholderStarts = "*.<BCDEFGIMNPRSTXY[bcdefgimnprstxy{\xc5"

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
	return d.placeholderFirst[t[0]] && d.placeholder().MatchString(t)
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
	rest := withoutReferences(s)
	rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(rest), "Bearer"), "bearer"))
	return rest == "" && s != rest
}

// withoutReferences is s with its variable references taken out, leftmost
// first as a regexp alternation takes them: ${{name}}, ${name}, $name,
// {env:name} and %name% (the reference test holds it to that pattern),
// without a regexp: the replacement would otherwise be most of what
// judging an env value of ${VAR} costs.
func withoutReferences(s string) string {
	var b strings.Builder
	from := 0 // the start of the text not yet copied
	for i := 0; i < len(s); {
		n := referenceAt(s[i:])
		if n == 0 {
			i++
			continue
		}
		b.WriteString(s[from:i])
		i += n
		from = i
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

// referenceAt is the length of the variable reference s starts with, 0
// for none.
func referenceAt(s string) int {
	switch {
	case strings.HasPrefix(s, "${{"):
		// ${{name}}: up to the first '}', which must be followed by another.
		if j := strings.IndexByte(s[3:], '}'); j >= 0 && strings.HasPrefix(s[3+j:], "}}") {
			return 3 + j + 2
		}
		fallthrough // ${{name} is ${...}
	case strings.HasPrefix(s, "${"):
		if j := strings.IndexByte(s[2:], '}'); j >= 0 {
			return 2 + j + 1
		}
	case strings.HasPrefix(s, "$"):
		if n := identifierLen(s[1:]); n > 0 {
			return 1 + n
		}
	case strings.HasPrefix(s, "{env:"):
		if j := strings.IndexByte(s[5:], '}'); j >= 0 {
			return 5 + j + 1
		}
	case strings.HasPrefix(s, "%"):
		if n := identifierLen(s[1:]); n > 0 && strings.HasPrefix(s[1+n:], "%") {
			return 1 + n + 1
		}
	}
	return 0
}

// identifierLen is the length of the name s starts with:
// [A-Za-z_][A-Za-z0-9_]*, 0 for none.
func identifierLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}

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

// Found is a secret a scan hid: in which argument (Index, -1 outside
// argv), under which name (Key: a flag, env-style name, query parameter,
// "userinfo" or ""), and of which kind (a token format or
// "credential-name").
type Found struct {
	Index int
	Key   string
	Kind  string
}

// credentialQueryParam reports query parameter names whose values are
// credentials whatever they look like (SAS signatures, OAuth codes).
func credentialQueryParam(name string) bool {
	switch strings.ToLower(name) {
	case "key", "code", "sig", "signature", "token", "auth", "apikey", "api_key", "access_token",
		"refresh_token", "id_token", "client_secret", "password", "pass", "pwd", "secret", "x-amz-signature",
		"x-amz-credential", "x-amz-security-token":
		return true
	}
	return false
}

// ScanURL returns raw with its secrets hidden, and what it hid: userinfo
// (a password, or a user name alone, which services use for tokens), query
// parameters that Secret calls secrets or whose names are credential
// parameters, and tokens anywhere. Text that does not parse as a URL is
// scanned as text.
func (d *Detector) ScanURL(raw string) (string, []Found) {
	if !strings.ContainsAny(raw, "@?") {
		// No userinfo and no query, whatever the parse: the text is all
		// there is to scan (most servers' URLs), and it is scanned without
		// parsing.
		return d.ScanText(raw)
	}
	return d.scanParsedURL(raw)
}

// scanParsedURL is ScanURL past its shortcut.
func (d *Detector) scanParsedURL(raw string) (string, []Found) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return d.ScanText(raw)
	}
	var found []Found
	changed := false
	if u.User != nil {
		name := u.User.Username()
		pw, has := u.User.Password()
		switch {
		case has && !d.IsPlaceholder(pw):
			u.User = url.User(Redacted)
			found, changed = append(found, Found{Index: -1, Key: "userinfo", Kind: "url-credentials"}), true
		case !has && name != "" && !d.IsPlaceholder(name):
			u.User = url.User(Redacted)
			found, changed = append(found, Found{Index: -1, Key: "userinfo", Kind: "url-credentials"}), true
		}
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			name, val, has := strings.Cut(p, "=")
			if !has || val == "" {
				continue
			}
			dec, _ := url.QueryUnescape(val)
			kind, ok := d.Secret(name, dec)
			if !ok && credentialQueryParam(name) && !d.IsPlaceholder(dec) {
				kind, ok = "credential-name", true
			}
			if ok {
				parts[i] = name + "=" + Redacted
				found, changed = append(found, Found{Index: -1, Key: name, Kind: kind}), true
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	out := raw
	if changed {
		out = u.String()
	}
	out, more := d.ScanText(out)
	return out, append(found, more...)
}

// RedactURL is ScanURL without what it found.
func (d *Detector) RedactURL(raw string) string { out, _ := d.ScanURL(raw); return out }

// ScanText returns s with every token of a known format hidden, and their
// kinds.
func (d *Detector) ScanText(s string) (string, []Found) {
	if len(s) < 12 {
		return s, nil
	}
	var found []Found
	// The candidates of s as it was; once a format's redaction has
	// changed s, the formats after it are tested on what is left
	// (mayMatch), whatever the redaction took out or put in.
	set, changed := d.candidates(s), false
	for i := range d.formats {
		f := &d.formats[i]
		if changed && !f.mayMatch(s) || !changed && (set&(1<<i) == 0 || !f.hasAlso(s)) {
			continue
		}
		before := s
		s = f.re().ReplaceAllStringFunc(s, func(m string) string {
			if d.IsPlaceholder(m) || placeholderTail(m) || strings.Contains(m, Redacted) {
				return m
			}
			found = append(found, Found{Index: -1, Kind: f.kind})
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
		changed = changed || s != before
	}
	return s, found
}

// RedactText replaces every detected token in free text.
func (d *Detector) RedactText(s string) string { out, _ := d.ScanText(s); return out }

// ScanArgs returns argv with its secrets hidden, and what it hid:
// the value after a credential flag ("--token X"), "--flag=value" and
// "NAME=value" forms (docker's -e API_KEY=x, env's VAR=x), header
// arguments ("Authorization: token x"), URLs, and tokens of known formats
// anywhere. Each secret is one Secret decision. What it returns is a copy
// when it hid something, argv itself otherwise: the caller must not write
// into it.
func (d *Detector) ScanArgs(args []string) ([]string, []Found) {
	// The arguments themselves until one is hidden: most commands have
	// no secret, and need no copy.
	out := args[:len(args):len(args)]
	var found []Found
	for i, a := range args {
		v, f := d.scanArg(a)
		if len(f) == 0 && i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") && !strings.HasPrefix(a, "-") {
			flag := strings.TrimLeft(args[i-1], "-")
			if kind, ok := d.Secret(flag, a); ok {
				v = Redacted
				f = []Found{{Key: flag, Kind: kind}}
			}
		}
		if v != a {
			if &out[0] == &args[0] {
				out = slices.Clone(args)
			}
			out[i] = v
		}
		for _, x := range f {
			x.Index = i
			found = append(found, x)
		}
	}
	return out, found
}

// RedactArgs is ScanArgs without what it found.
func (d *Detector) RedactArgs(args []string) []string { out, _ := d.ScanArgs(args); return out }

// RedactFields is RedactText for a string that is or holds a command line
// (a run_command tool's command, a query with its connection string): each
// whitespace-separated field is judged as ScanArgs judges an argument —
// "--password=x", "NAME=x", "--token x", "X-Api-Key: x" — with the quotes
// around a field set aside, and tokens of known formats are hidden
// anywhere. What is not a field's value (the separators, the quotes, the
// names) is kept as it was.
func (d *Detector) RedactFields(s string) string {
	s = d.RedactText(s)
	var b strings.Builder
	prev, last := "", 0
	for i := 0; i < len(s); {
		if isFieldSpace(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isFieldSpace(s[j]) {
			j++
		}
		field := s[i:j]
		core := strings.Trim(field, `'"`)
		lead := strings.Index(field, core)
		v, f := d.scanArg(core)
		if len(f) == 0 && core != "" && !strings.HasPrefix(core, "-") {
			// The value of the field before: "--token x", "X-Api-Key: x".
			name, flag := strings.CutPrefix(prev, "-")
			name, header := strings.CutSuffix(name, ":")
			if header && isSchemeWord(core) {
				// "Authorization: Bearer x": the value is the field after.
				i = j
				continue
			}
			if (flag && !strings.Contains(name, "=")) || (header && !strings.ContainsAny(name, "/")) {
				if _, ok := d.Secret(strings.TrimLeft(name, "-"), core); ok {
					v = Redacted
				}
			}
		}
		if v != core {
			b.WriteString(s[last : i+lead])
			b.WriteString(v)
			last = i + lead + len(core)
		}
		prev, i = core, j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isFieldSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *Detector) scanArg(a string) (string, []Found) {
	if name, val, ok := strings.Cut(a, "="); ok && val != "" && !strings.ContainsAny(name, " /:") {
		key := strings.TrimLeft(name, "-")
		if kind, ok := d.Secret(key, val); ok {
			return name + "=" + Redacted, []Found{{Key: key, Kind: kind}}
		}
		if strings.HasPrefix(name, "-") {
			// --env=NAME=value, --header=X-Api-Key:value
			if inner, f := d.scanArg(val); len(f) > 0 {
				return name + "=" + inner, f
			}
		}
	}
	if name, val, ok := strings.Cut(a, ":"); ok && !strings.ContainsAny(name, "/ ") && name != "" {
		v := strings.TrimSpace(val)
		if v != "" && !strings.HasPrefix(v, "//") {
			if kind, ok := d.Secret(name, v); ok {
				if word, _, ok := strings.Cut(v, " "); ok && isSchemeWord(word) {
					return name + ": " + word + " " + Redacted, []Found{{Key: name, Kind: kind}}
				}
				return name + ": " + Redacted, []Found{{Key: name, Kind: kind}}
			}
		}
	}
	if strings.Contains(a, "://") {
		return d.ScanURL(a)
	}
	return d.ScanText(a)
}
