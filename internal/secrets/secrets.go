package secrets

import (
	"bytes"
	"encoding/base64"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
	// valid, when set, is the test a match must pass besides the
	// pattern: what a regular expression cannot say.
	valid func(m string) bool
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

// validAny reports whether a match of re in s passes f.valid.
func (f *tokenFormat) validAny(re *regexp.Regexp, s string) bool {
	for _, m := range re.FindAllString(s, -1) {
		if f.valid(m) {
			return true
		}
	}
	return false
}

// notAWord reports a bearer token that is not a word of prose ("bearer
// authentication", "Bearer Authentication"): a token has a digit, a
// symbol or capitals past its first letter.
func notAWord(m string) bool { return !proseWord(strings.TrimSpace(m[len("bearer"):])) }

// proseWord reports a word as prose writes it: letters, lower case past
// the first.
func proseWord(w string) bool {
	for i, r := range w {
		if !(unicode.IsLower(r) || i == 0 && unicode.IsUpper(r)) {
			return false
		}
	}
	return w != ""
}

// basicCredentials reports a Basic authorization whose value is what RFC
// 7617 makes it: the base64 of user:password ("Basic authentication" is
// not, nor a word of prose).
func basicCredentials(m string) bool {
	tok := strings.TrimSpace(m[len("basic"):])
	b, err := base64.StdEncoding.DecodeString(tok)
	if err != nil {
		return false
	}
	return bytes.IndexByte(b, ':') > 0 && utf8.Valid(b)
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
	valid := func(f tokenFormat, v func(string) bool) tokenFormat { f.valid = v; return f }
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
		valid(fold(mk("bearer-token", `(?i)\bbearer\s+[A-Za-z0-9_\-\.=+/~]{12,}`, "bearer")), notAWord),
		valid(fold(mk("basic-auth", `(?i)\bbasic\s+[A-Za-z0-9+/]{4,}={0,2}`, "basic")), basicCredentials),
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
			if m := s[loc[0]:loc[1]]; d.IsPlaceholder(m) || placeholderTail(m) || f.valid != nil && !f.validAny(f.re(), s) {
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
	"token": true, "tokens": true, "secret": true, "secrets": true, "password": true, "passwd": true, "pwd": true, "pw": true,
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
			if d.IsPlaceholder(m) || placeholderTail(m) || strings.Contains(m, Redacted) || f.valid != nil && !f.valid(m) {
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
// field — a run between white space (any Unicode space) or semicolons, a
// quoted run ('a b', --password="a b", {"k":"a b"}) being one — is judged
// as ScanArgs judges an argument: "--password=x", "NAME=x", "--token x",
// "X-Api-Key: x", a connection string's "Password=x;", "name = x", with
// the quotes around a field set aside, invisible format characters
// (a zero-width space inside "pass\u200bword") not counted and fullwidth
// forms read as ASCII ("ＰＡＳＳＷＯＲＤ=x"). A quoted
// value with white space under a credential's name is one too
// (--password "correct horse"). Beyond ScanArgs it reads the pairs of a
// query or form ("a=1&password=x", "host/x?token=x", "#access_token=x",
// "username=u,password=x"), every value of a Cookie header, and the
// password flags of the commands in commandFlags ("mysql -px",
// "curl -u user:x", "sshpass -p x"). Tokens of known formats are hidden
// anywhere. What is not a field's value (separators, quotes, names) is
// kept as it was, except that a field judged without its format
// characters, or with its fullwidth forms folded, is shown so when a
// value of it is hidden.
func (d *Detector) RedactFields(s string) string { return d.redactFields(d.RedactText(s), true) }

// redactFields is RedactFields past RedactText. A quoted run with white
// space that holds no secret as one field is judged again field by
// field, as the command a shell's -c runs ("bash -c 'mysql -px'") or a
// quote of a longer text, with quotes no longer joining (join false).
func (d *Detector) redactFields(s string, join bool) string {
	var b strings.Builder
	last := 0
	var st fieldState
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if isFieldSeparator(r) {
			if r == ';' {
				st.semicolon = true
			}
			i += n
			continue
		}
		j := fieldEnd(s, i, join)
		field := s[i:j]
		core := field
		quoted := false
		if len(core) >= 2 && (core[0] == '\'' || core[0] == '"') && core[len(core)-1] == core[0] {
			core, quoted = core[1:len(core)-1], true
		} else if q := field[len(field)-1]; (q == '\'' || q == '"') && strings.ContainsAny(field, "=:") && (strings.Contains(field, "="+string(q)) || strings.Contains(field, ":"+string(q))) {
			// --password="a b": the quotes are the value's.
		} else {
			core = strings.Trim(field, `'"`)
		}
		lead := strings.Index(field, core)
		judged := core
		if strings.IndexFunc(core, isFoldedChar) >= 0 {
			judged = strings.Map(func(r rune) rune {
				switch {
				case isFormatChar(r):
					return -1
				case isFullwidth(r):
					return r - 0xFF01 + '!'
				}
				return r
			}, core)
		}
		v := d.judgeField(&st, judged, quoted)
		if v == judged && join && strings.IndexFunc(judged, unicode.IsSpace) >= 0 {
			v = d.redactFields(judged, false)
		}
		if v != judged {
			b.WriteString(s[last : i+lead])
			b.WriteString(v)
			last = i + lead + len(core)
		}
		if !st.keep {
			st.prev2, st.prev = st.prev, judged
		}
		st.keep, st.semicolon, i = false, false, j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// fieldState is what RedactFields knows of the fields before the one it
// judges.
type fieldState struct {
	prev, prev2 string // the two fields before, judged
	// cmd is the command the field is an argument of (its base name, and
	// "docker login" for a subcommand that takes a password); none is
	// read yet when atCommand is set.
	cmd       string
	atCommand bool
	started   bool
	// cookie is set inside a Cookie header's value: every name=value of
	// it is a session's credential.
	cookie, cookieAt bool // cookieAt: the field before was the header's name
	semicolon        bool // a semicolon ended the field before
	// keep is set when the field is a header's scheme word ("Bearer"):
	// the field after is the header's value, judged under its name.
	keep bool
}

// fieldEnd is the end of the field that starts at i: at a separator, with
// a quote that opens the field or a value ('a b', --password="a b",
// {"k":"a b"}) read to its closing quote when there is one.
func fieldEnd(s string, i int, join bool) int {
	j := i
	for j < len(s) {
		r, n := utf8.DecodeRuneInString(s[j:])
		if isFieldSeparator(r) {
			break
		}
		if join && (r == '\'' || r == '"') && (j == i || strings.IndexByte("=:{[,(", s[j-1]) >= 0) {
			if k := strings.IndexByte(s[j+1:], byte(r)); k >= 0 {
				j += 1 + k + 1
				continue
			}
		}
		j += n
	}
	return j
}

// judgeField returns a field of RedactFields with its secret hidden, or
// the field itself.
func (d *Detector) judgeField(st *fieldState, judged string, quoted bool) string {
	if !st.command(judged) {
		if v, ok := d.commandFlag(st.cmd, st.prev, judged); ok {
			return v
		}
	}
	if st.cookie {
		// A Cookie header's value: its pairs up to the first that no
		// semicolon joins to the one before.
		if st.cookieAt || st.semicolon {
			st.cookieAt = false
			if v, ok := d.cookiePairs(judged); ok {
				return v
			}
		}
		st.cookie, st.cookieAt = false, false
	}
	if name, val, ok := strings.Cut(judged, ":"); ok && isCookieName(name) {
		if strings.TrimSpace(val) == "" {
			st.cookie, st.cookieAt = true, true
			return judged
		}
		if v, ok := d.cookiePairs(val); ok {
			return name + ":" + v
		}
	}
	a, prefix := judged, ""
	if n, ok := cutEnvPrefix(a); ok {
		// PowerShell's $env:PASSWORD="x".
		a, prefix = n, a[:len(a)-len(n)]
	} else if strings.HasPrefix(a, "/") && !strings.Contains(switchName(a[1:]), "/") {
		// A Windows switch: /password:x, /p:Password=x.
		a, prefix = a[1:], "/"
	}
	if v, f := d.scanArg(a); len(f) > 0 {
		return prefix + v
	} else if v != a {
		return prefix + v
	}
	if v, ok := d.spacedValue(a); ok {
		return prefix + v
	}
	if v, ok := d.xmlElement(a); ok {
		return v
	}
	if name, scheme, ok := strings.Cut(judged, ":"); ok && isSchemeWord(scheme) && IsCredentialName(name) && !strings.ContainsAny(name, "/ ") {
		// "Authorization:Bearer x": the value is the field after.
		st.prev, st.keep = name+":", true
		return judged
	}
	if judged != "" && !strings.HasPrefix(judged, "-") {
		// The value of the field before: "--token x", "X-Api-Key: x",
		// "password = x".
		name, flag := strings.CutPrefix(st.prev, "-")
		name, header := strings.CutSuffix(name, ":")
		if st.prev == "=" || st.prev == ":" || st.prev == ":=" {
			// "password = x", {"api_key" : "x"}
			name, flag, header = strings.Trim(st.prev2, `"'{[,`), true, false
			if n, ok := cutEnvPrefix(name); ok {
				name = n
			}
			if !quoted && proseWord(strings.TrimRight(judged, ".,")) {
				// "the password = what they chose": prose.
				return judged
			}
		}
		if header && isSchemeWord(judged) {
			// "Authorization: Bearer x": the value is the field after.
			st.keep = true
			return judged
		}
		if (flag && !strings.Contains(name, "=")) || (header && !strings.ContainsAny(name, "/")) {
			name = strings.TrimLeft(name, "-")
			if _, ok := d.Secret(name, judged); ok {
				return Redacted
			}
			if quoted && strings.IndexFunc(judged, unicode.IsSpace) >= 0 && nameStrength(name) == strongCredential && !d.IsPlaceholder(judged) {
				return Redacted
			}
		}
	}
	if v, ok := d.pairs(a); ok {
		return prefix + v
	}
	return judged
}

// wrapperCommands run the command that follows them.
var wrapperCommands = map[string]bool{"sudo": true, "doas": true, "env": true, "exec": true, "nohup": true,
	"time": true, "command": true, "nice": true}

// shellOperators end a command: the field after starts the next one.
var shellOperators = map[string]bool{"&&": true, "||": true, "|": true, "&": true, "(": true, "$(": true, "{": true, "!": true, "then": true, "do": true}

// command reads field as the shell reads a command line and reports
// whether it is the command word: the first field, or the first after an
// operator or a semicolon, past NAME=value assignments and wrappers
// (sudo, env).
func (st *fieldState) command(field string) bool {
	if !st.started || st.semicolon || shellOperators[st.prev] {
		st.started, st.atCommand, st.cmd = true, true, ""
	}
	if shellOperators[field] {
		return false
	}
	if !st.atCommand {
		if loginCommands[st.cmd] && field == "login" {
			st.cmd += " login"
		}
		return false
	}
	if name, _, ok := strings.Cut(field, "="); ok && name != "" && identifierLen(name) == len(name) {
		return false // an assignment before the command
	}
	base := field[strings.LastIndexAny(field, `/\`)+1:]
	if wrapperCommands[base] || strings.HasPrefix(field, "-") {
		return false
	}
	st.cmd, st.atCommand = strings.TrimSuffix(strings.ToLower(base), ".exe"), false
	return true
}

// commandPasswordFlags are the flags of a command whose value, not named
// for what it is, is a password: what a man page says of -p, -u or -a.
type commandPasswordFlags struct {
	glued    []string // the value written onto the flag: mysql -pSECRET
	value    []string // the value is the next field: sshpass -p SECRET
	userPass []string // user:password (curl -u), user%password (smbclient -U)
	sep      byte     // of userPass
	cookie   []string // name=value pairs (curl -b): a jar's file name has none
}

// loginCommands take a password flag in their login subcommand only
// (docker run -p is a port).
var loginCommands = map[string]bool{"docker": true, "podman": true, "nerdctl": true, "buildah": true, "skopeo": true, "oras": true}

// commandFlags are the commands whose password flags RedactFields knows.
var commandFlags = func() map[string]commandPasswordFlags {
	m := map[string]commandPasswordFlags{
		"sshpass":   {glued: []string{"-p"}, value: []string{"-p"}},
		"redis-cli": {value: []string{"-a"}},
		"curl":      {userPass: []string{"-u", "--user", "-U", "--proxy-user"}, sep: ':', cookie: []string{"-b", "--cookie"}},
		"smbclient": {userPass: []string{"-U", "--user"}, sep: '%'},
	}
	for _, c := range []string{"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump", "mariadb", "mariadb-dump", "mariadb-admin"} {
		m[c] = commandPasswordFlags{glued: []string{"-p"}} // "-p x": x is the database
	}
	for _, c := range []string{"mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"} {
		m[c] = commandPasswordFlags{value: []string{"-p"}}
	}
	for _, c := range []string{"sqlcmd", "bcp"} {
		m[c] = commandPasswordFlags{value: []string{"-P"}}
	}
	for _, c := range []string{"ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd", "ldapcompare"} {
		m[c] = commandPasswordFlags{value: []string{"-w"}}
	}
	for c := range loginCommands {
		m[c+" login"] = commandPasswordFlags{value: []string{"-p"}}
	}
	return m
}()

// commandFlag hides the value of a password flag of cmd (commandFlags):
// field is the value when prev is the flag, or the flag with its value.
func (d *Detector) commandFlag(cmd, prev, field string) (string, bool) {
	cf, ok := commandFlags[cmd]
	if !ok || field == "" {
		return "", false
	}
	secret := func(v string) bool { return v != "" && !d.IsPlaceholder(v) && !strings.Contains(v, Redacted) }
	if !strings.HasPrefix(field, "-") {
		switch {
		case slices.Contains(cf.value, prev) && secret(field):
			return Redacted, true
		case slices.Contains(cf.userPass, prev):
			return d.userPass(field, cf.sep)
		case slices.Contains(cf.cookie, prev) && strings.Contains(field, "="):
			return d.cookiePairs(field)
		}
		return "", false
	}
	if name, val, ok := strings.Cut(field, "="); ok && strings.HasPrefix(name, "--") {
		switch {
		case slices.Contains(cf.userPass, name):
			if v, ok := d.userPass(val, cf.sep); ok {
				return name + "=" + v, true
			}
		case slices.Contains(cf.cookie, name) && strings.Contains(val, "="):
			if v, ok := d.cookiePairs(val); ok {
				return name + "=" + v, true
			}
		}
		return "", false
	}
	for _, g := range cf.glued {
		if v, ok := strings.CutPrefix(field, g); ok && secret(v) {
			return g + Redacted, true
		}
	}
	return "", false
}

// userPass hides the password of a user<sep>password value.
func (d *Detector) userPass(v string, sep byte) (string, bool) {
	k := strings.IndexByte(v, sep)
	if k < 0 {
		return "", false // the user alone: the command asks for the password
	}
	pw := v[k+1:]
	if pw == "" || d.IsPlaceholder(pw) || strings.Contains(pw, Redacted) {
		return "", false
	}
	return v[:k+1] + Redacted, true
}

// isCookieName reports a Cookie or Set-Cookie header's name.
func isCookieName(name string) bool {
	return strings.EqualFold(name, "cookie") || strings.EqualFold(name, "set-cookie")
}

// cookiePairs hides the value of every name=value of a Cookie header's
// value (pairs joined by semicolons): a session's credential whatever its
// name.
func (d *Detector) cookiePairs(v string) (string, bool) {
	parts := strings.Split(v, ";")
	changed := false
	for i, p := range parts {
		name, val, ok := strings.Cut(p, "=")
		val = strings.TrimSpace(val)
		if !ok || strings.TrimSpace(name) == "" || val == "" || d.IsPlaceholder(val) || strings.Contains(val, Redacted) {
			continue
		}
		parts[i], changed = name+"="+Redacted, true
	}
	return strings.Join(parts, ";"), changed
}

// xmlElement hides the text of an element named for a credential:
// <password>x</password> (a Maven settings.xml written by echo).
func (d *Detector) xmlElement(a string) (string, bool) {
	if !strings.HasPrefix(a, "<") {
		return "", false
	}
	k := strings.IndexByte(a, '>')
	if k < 2 {
		return "", false
	}
	name := a[1:k]
	end := strings.Index(a[k+1:], "</"+name+">")
	if end <= 0 || nameStrength(name) != strongCredential {
		return "", false
	}
	val := a[k+1 : k+1+end]
	if d.IsPlaceholder(val) || strings.Contains(val, Redacted) || isReferenceLike(val) {
		return "", false
	}
	return a[:k+1] + Redacted + a[k+1+end:], true
}

// isReferenceLike reports a value that names where the secret is
// rather than holding it: ${env.PASSWORD}, {{ secret }}.
func isReferenceLike(v string) bool {
	return strings.HasPrefix(v, "${") || strings.HasPrefix(v, "{{")
}

// cutEnvPrefix returns the variable's name of PowerShell's $env:NAME.
func cutEnvPrefix(a string) (string, bool) {
	if len(a) > 5 && strings.EqualFold(a[:5], "$env:") {
		return a[5:], true
	}
	return "", false
}

// spacedValue hides a quoted value with white space under a credential's
// name: --password="correct horse", PASSWORD: 'a b', {"password":"a b"}.
// Secret takes a value with spaces for a sentence; quoted after a
// credential's name in a command line it is the value.
func (d *Detector) spacedValue(a string) (string, bool) {
	k := strings.IndexAny(a, "=:")
	if k <= 0 {
		return "", false
	}
	name := strings.Trim(a[:k], `"'{[,( -`)
	if name == "" || nameStrength(name) != strongCredential {
		return "", false
	}
	rest := a[k+1:]
	val := strings.TrimLeftFunc(rest, unicode.IsSpace)
	if val == "" || (val[0] != '"' && val[0] != '\'') {
		return "", false
	}
	end := strings.IndexByte(val[1:], val[0])
	if end < 0 {
		return "", false
	}
	inner := val[1 : 1+end]
	if strings.IndexFunc(inner, unicode.IsSpace) < 0 || d.IsPlaceholder(inner) || strings.Contains(inner, Redacted) {
		return "", false
	}
	return a[:k+1] + rest[:len(rest)-len(val)] + val[:1] + Redacted + val[1+end:], true
}

// pairs hides the values of a field's name=value pairs that a query or
// form joins with & (after ? or #: a URL without its scheme, an OAuth
// fragment), or a list with commas (mount -o username=u,password=x):
// what Secret calls secrets, and after ?, & or # the values of credential
// query parameters (credentialQueryParam).
func (d *Detector) pairs(a string) (string, bool) {
	if !strings.Contains(a, "=") || !strings.ContainsAny(a, "&?#,") {
		return "", false
	}
	var b strings.Builder
	changed := false
	sep := byte(0)
	for len(a) > 0 {
		k := strings.IndexAny(a, "&?#,")
		seg := a
		if k >= 0 {
			seg = a[:k]
		}
		if name, val, ok := strings.Cut(seg, "="); ok && val != "" && name != "" && !strings.ContainsAny(name, " /:") && !strings.Contains(val, Redacted) {
			dec, err := url.QueryUnescape(val)
			if err != nil {
				dec = val
			}
			key := strings.TrimLeft(name, "-")
			_, secret := d.Secret(key, dec)
			if !secret && sep != 0 && sep != ',' && credentialQueryParam(key) && !d.IsPlaceholder(dec) {
				secret = true
			}
			if secret {
				seg, changed = name+"="+Redacted, true
			}
		}
		b.WriteString(seg)
		if k < 0 {
			break
		}
		sep = a[k]
		b.WriteByte(sep)
		a = a[k+1:]
	}
	return b.String(), changed
}

// tokenPrefixes begin the tokens of known formats (their vendor
// prefixes): in a quote a token may be cut short of what its format
// needs, and is still one.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxa-", "xoxb-", "xoxp-",
	"xoxo-", "xoxs-", "xoxr-", "sk-ant-", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk_live_", "sk_test_", "rk_live_",
	"rk_test_", "npm_", "hf_", "aiza", "akia", "asia", "eyj"}

// RedactQuote is RedactFields for a quote of a longer text that may have
// been cut, or lower-cased, as a finding quotes what it read: a token's
// vendor prefix followed by four or more of a token's characters is a
// token there ("ghp_a1b2c3d4…"), whatever its length.
func (d *Detector) RedactQuote(s string) string {
	s = d.RedactFields(s)
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if i > 0 && isTokenByte(s[i-1]) {
			continue // not at a word's start
		}
		for _, p := range tokenPrefixes {
			if len(s)-i < len(p) || !strings.EqualFold(s[i:i+len(p)], p) {
				continue
			}
			j := i + len(p)
			for j < len(s) && isTokenByte(s[j]) {
				j++
			}
			if j-(i+len(p)) < 4 || strings.HasPrefix(s[i+len(p):], Redacted) {
				break
			}
			b.WriteString(s[last:i])
			b.WriteString(s[i : i+len(p)])
			b.WriteString(Redacted)
			last = j
			i = j - 1
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// isTokenByte reports a byte of a token's body.
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// switchName is the name of a Windows switch's text after its slash: up
// to its first ':' or '='.
func switchName(s string) string {
	if i := strings.IndexAny(s, ":="); i >= 0 {
		return s[:i]
	}
	return s
}

// isFoldedChar reports a character RedactFields reads otherwise than it
// is written: a format character (not counted) or a fullwidth form of
// ASCII (read as the ASCII, as compatibility folding does: "ＰＡＳＳＷＯＲＤ").
func isFoldedChar(r rune) bool { return isFormatChar(r) || isFullwidth(r) }

// isFullwidth reports a fullwidth form of printable ASCII (U+FF01-U+FF5E).
func isFullwidth(r rune) bool { return r >= 0xFF01 && r <= 0xFF5E }

// isFormatChar reports an invisible format character (a zero-width
// space), which RedactFields does not count in a name.
func isFormatChar(r rune) bool { return r >= 0x80 && unicode.Is(unicode.Cf, r) }

// isFieldSeparator ends a field of RedactFields: white space, and the
// semicolon of a shell command list or a connection string.
func isFieldSeparator(r rune) bool { return unicode.IsSpace(r) || r == ';' }

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
