package scanner

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/reports"
)

// Managed-settings keys of the plugin marketplace policy (claude-code.md
// §4.6). allowedMarketplaces is an alias of strictKnownMarketplaces.
const (
	keyBlockedMarketplaces = "blockedMarketplaces"
	keyStrictMarketplaces  = "strictKnownMarketplaces"
	keyAllowedMarketplaces = "allowedMarketplaces"
)

// mktSource is a marketplace source: a known_marketplaces.json "source", or
// an entry of blockedMarketplaces / strictKnownMarketplaces.
type mktSource struct {
	kind        string // github, git, url, npm, file, directory, settings, hostPattern, pathPattern, ...
	repo        string // github
	url         string // git, url
	ref, path   string // github, git (path: also file, directory)
	pkg         string // npm
	name        string // settings
	hostPattern string
	pathPattern string
}

// String is the source as a person reads it in a message.
func (s *mktSource) String() string {
	v := s.repo + s.url + s.pkg + s.name + s.hostPattern + s.pathPattern
	if v == "" {
		v = s.path
	}
	if s.ref != "" {
		v += "#" + s.ref
	}
	return strings.TrimSpace(s.kind + " " + v)
}

// parseMktSource reads a source object. It returns why it is invalid, or "".
func parseMktSource(v *jsonc.Value) (*mktSource, string) {
	if v == nil || v.Kind != jsonc.Object {
		return nil, "not an object"
	}
	str := func(key string) (string, bool) {
		m := v.Get(key)
		if m == nil {
			return "", true
		}
		return m.Str, m.Kind == jsonc.String
	}
	kind, ok := str("source")
	if !ok || kind == "" {
		return nil, `no "source" string`
	}
	s := &mktSource{kind: kind}
	var fields []srcField
	switch kind {
	case "github":
		fields = []srcField{{"repo", &s.repo, true}, {"ref", &s.ref, false}, {"path", &s.path, false}}
	case "git":
		fields = []srcField{{"url", &s.url, true}, {"ref", &s.ref, false}, {"path", &s.path, false}}
	case "url":
		fields = []srcField{{"url", &s.url, true}}
	case "npm":
		fields = []srcField{{"package", &s.pkg, true}}
	case "file", "directory":
		fields = []srcField{{"path", &s.path, true}}
	case "settings":
		fields = []srcField{{"name", &s.name, true}}
	case "hostPattern":
		fields = []srcField{{"hostPattern", &s.hostPattern, true}}
	case "pathPattern":
		fields = []srcField{{"pathPattern", &s.pathPattern, true}}
	}
	for _, f := range fields {
		val, ok := str(f.key)
		if !ok {
			return nil, fmt.Sprintf("%q is not a string", f.key)
		}
		if f.required && val == "" {
			return nil, fmt.Sprintf("a %s source needs %q", kind, f.key)
		}
		*f.dst = val
	}
	return s, ""
}

// srcField is one string field of a source object.
type srcField struct {
	key      string
	dst      *string
	required bool
}

// mktEntry is one valid entry of a marketplace list in managed settings.
type mktEntry struct {
	src *mktSource
	loc reports.Location
	raw string // the entry as written, compact JSON
}

// marketplacePolicy is the managed marketplace policy: blockedMarketplaces
// and strictKnownMarketplaces of every managed document, concatenated
// (observed: a drop-in's list adds to the base file's).
type marketplacePolicy struct {
	blocked []mktEntry
	// strict is set when any managed document has strictKnownMarketplaces
	// (or its alias); a value that is not an array counts as [] (observed:
	// nothing loads).
	strict     bool
	strictList []mktEntry
	strictLoc  reports.Location // the first strictKnownMarketplaces key
}

// restricts reports whether the policy limits marketplaces at all.
func (p *marketplacePolicy) restricts() bool {
	return p != nil && (p.strict || len(p.blocked) > 0)
}

// loadMarketplacePolicy reads the marketplace lists of the managed documents
// in effect. Invalid entries are dropped one by one, a blockedMarketplaces
// that is not an array is dropped (fails open), a strictKnownMarketplaces
// that is not an array admits nothing (fails closed); each is an MCPG-P003
// finding at the value.
func (sc *scan) loadMarketplacePolicy(docs []*managed.Document) *marketplacePolicy {
	pol := &marketplacePolicy{}
	for _, d := range docs {
		blocked := d.Get(keyBlockedMarketplaces)
		strict := d.Get(keyStrictMarketplaces)
		if strict == nil {
			strict = d.Get(keyAllowedMarketplaces)
		}
		for _, m := range []*jsonc.Member{blocked, strict} {
			if m == nil {
				continue
			}
			isBlock := m == blocked
			loc := d.Loc(m)
			if !isBlock && !pol.strict {
				pol.strict, pol.strictLoc = true, loc
			}
			if m.Value.Kind != jsonc.Array {
				effect := "Claude Code drops the whole list and blocks no marketplace"
				if !isBlock {
					effect = "Claude Code treats it as [] and loads no plugin of any marketplace"
				}
				sc.fileFindingEvidence("MCPG-P003", loc, fmt.Sprintf("%s is %s, not an array: %s", m.Key, m.Value.Kind, effect),
					map[string]any{"key": m.Key, "effect": map[bool]string{true: "fail-open", false: "fail-closed"}[isBlock]}, m.Key)
				continue
			}
			for i, e := range m.Value.Elems {
				eloc := cfgfile.Loc(d.Path, jsonc.Pointer(m.Key, fmt.Sprint(i)), e.Pos)
				src, why := parseMktSource(e)
				if why != "" {
					effect := "it blocks nothing"
					if !isBlock {
						effect = "it admits nothing"
					}
					sc.fileFindingEvidence("MCPG-P003", eloc, fmt.Sprintf("%s[%d] is dropped (%s): %s", m.Key, i, why, effect),
						map[string]any{"key": m.Key, "index": i}, m.Key, fmt.Sprint(i))
					continue
				}
				entry := mktEntry{src: src, loc: eloc, raw: compactJSON(e)}
				if isBlock {
					pol.blocked = append(pol.blocked, entry)
				} else {
					pol.strictList = append(pol.strictList, entry)
				}
			}
		}
	}
	return pol
}

// compactJSON renders a parsed value as compact JSON, for evidence.
func compactJSON(v *jsonc.Value) string {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return ""
	}
	return string(b)
}

// marketplaceVerdict is why the marketplace policy keeps a marketplace's
// plugins off: reason is "" when it does not.
type marketplaceVerdict struct {
	reason string // reports.ReasonMarketplaceBlocked or ReasonMarketplaceNotAllowed
	entry  *mktEntry
	loc    reports.Location // the blocking entry, or the strict list's key
}

// decide applies the policy to a marketplace's source (nil when
// known_marketplaces.json gives none): blockedMarketplaces first, then every
// entry of strictKnownMarketplaces.
func (p *marketplacePolicy) decide(src *mktSource) marketplaceVerdict {
	if !p.restricts() {
		return marketplaceVerdict{}
	}
	if src == nil {
		// Claude Code: "Marketplace '…' is not added on this machine, so your
		// organization's marketplace policy keeps its plugins off".
		return marketplaceVerdict{reason: reports.ReasonMarketplaceNotAllowed, loc: p.firstLoc()}
	}
	for i := range p.blocked {
		if blockMatches(src, p.blocked[i].src) {
			return marketplaceVerdict{reason: reports.ReasonMarketplaceBlocked, entry: &p.blocked[i], loc: p.blocked[i].loc}
		}
	}
	if !p.strict {
		return marketplaceVerdict{}
	}
	for i := range p.strictList {
		if strictMatches(src, p.strictList[i].src) {
			return marketplaceVerdict{}
		}
	}
	return marketplaceVerdict{reason: reports.ReasonMarketplaceNotAllowed, loc: p.strictLoc}
}

func (p *marketplacePolicy) firstLoc() reports.Location {
	if p.strict {
		return p.strictLoc
	}
	return p.blocked[0].loc
}

// ownerWildcard returns OWNER for a repo written "OWNER/*".
func ownerWildcard(repo string) (string, bool) {
	owner, ok := strings.CutSuffix(repo, "/*")
	if !ok || !validRepoPart(owner) {
		return "", false
	}
	return owner, true
}

var repoPart = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func validRepoPart(s string) bool {
	return repoPart.MatchString(s) && !strings.HasPrefix(s, "-") && s != "." && s != ".."
}

// normRepo normalises a repository path as Claude Code does before a
// blocklist comparison: percent-decoded, "." and ".." resolved, empty
// segments dropped, trailing "/" and ".git" cut.
func normRepo(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		s = d
	}
	var parts []string
	for _, p := range strings.Split(s, "/") {
		switch p {
		case ".", "":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, p)
		}
	}
	s = strings.Join(parts, "/")
	for {
		t := strings.TrimRight(s, "/")
		t = strings.TrimSuffix(t, ".git")
		if t == s {
			return s
		}
		s = t
	}
}

// blockRepoMatches compares a blocklist entry's repo with a source repo: the
// owner wildcard matches every repository of that owner (owner without
// case), anything else the normalised source repo exactly, with case.
func blockRepoMatches(entry, repo string) bool {
	n := normRepo(repo)
	owner, ok := ownerWildcard(entry)
	if !ok {
		return n == entry || repo == entry
	}
	o, r, found := strings.Cut(n, "/")
	if !found || strings.Contains(r, "/") || !validRepoPart(o) || !repoPart.MatchString(r) {
		return false
	}
	return strings.EqualFold(o, owner)
}

var fullSHA = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// blockRefMatches: an entry without a ref matches every ref; an entry naming
// a branch or tag also matches every full commit id.
func blockRefMatches(entry, ref string) bool {
	return entry == "" || entry == ref || (ref != "" && fullSHA.MatchString(ref) && !fullSHA.MatchString(entry))
}

func blockPathMatches(entry, path string) bool { return entry == "" || entry == path }

// githubRepoOfURL returns OWNER/REPO of a git URL on github.com
// (https://github.com/o/r.git, git@github.com:o/r), or "".
func githubRepoOfURL(raw string) string {
	raw = strings.TrimSpace(raw)
	var host, path string
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil {
			return ""
		}
		host, path = u.Hostname(), u.Path
	} else if at, rest, ok := strings.Cut(raw, ":"); ok {
		if i := strings.LastIndex(at, "@"); i >= 0 {
			at = at[i+1:]
		}
		host, path = at, rest
	}
	if !strings.EqualFold(strings.TrimSuffix(host, "."), "github.com") {
		return ""
	}
	repo := normRepo(strings.TrimLeft(path, "/"))
	o, r, ok := strings.Cut(repo, "/")
	if !ok || o == "" || r == "" || strings.Contains(r, "/") {
		return ""
	}
	return repo
}

// normURL lowercases the host and drops userinfo, query and fragment, for
// comparing marketplace URLs.
func normURL(raw string, stripGit bool) string {
	if !strings.Contains(raw, "://") {
		if at, rest, ok := strings.Cut(raw, ":"); ok {
			if i := strings.LastIndex(at, "@"); i >= 0 {
				at = at[i+1:]
			}
			return strings.ToLower(at) + ":" + rest
		}
		return raw
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	u.Host = strings.ToLower(u.Host)
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	p := normRepo(u.Path)
	if !stripGit {
		p = strings.TrimRight(u.Path, "/")
	}
	u.Path, u.RawPath = "/"+strings.TrimPrefix(p, "/"), ""
	return u.String()
}

// sourceHost is the host a hostPattern entry is matched against.
func sourceHost(s *mktSource) string {
	switch s.kind {
	case "github":
		return "github.com"
	case "git", "url":
		if strings.Contains(s.url, "://") {
			if u, err := url.Parse(s.url); err == nil {
				return strings.ToLower(u.Hostname())
			}
			return ""
		}
		if at, _, ok := strings.Cut(s.url, ":"); ok {
			if i := strings.LastIndex(at, "@"); i >= 0 {
				at = at[i+1:]
			}
			return strings.ToLower(at)
		}
	}
	return ""
}

func patternMatches(pattern, s string) bool {
	if s == "" {
		return false
	}
	re, err := regexp.Compile(pattern)
	return err == nil && re.MatchString(s)
}

// blockMatches reports whether a blockedMarketplaces entry matches a
// marketplace source ("entries match exactly, except that a github entry
// may use the owner-wildcard form", and a git URL on github.com counts as
// that github repository).
func blockMatches(src, e *mktSource) bool {
	switch e.kind {
	case "hostPattern":
		return patternMatches(e.hostPattern, sourceHost(src))
	case "pathPattern":
		return (src.kind == "file" || src.kind == "directory") && patternMatches(e.pathPattern, src.path)
	}
	if src.kind == e.kind {
		switch src.kind {
		case "github":
			return blockRepoMatches(e.repo, src.repo) && blockRefMatches(e.ref, src.ref) && blockPathMatches(e.path, src.path)
		case "git":
			er, sr := githubRepoOfURL(e.url), githubRepoOfURL(src.url)
			if er != "" && sr != "" {
				if !blockRepoMatches(er, sr) {
					return false
				}
			} else if normURL(e.url, false) != normURL(src.url, false) {
				return false
			}
			return blockRefMatches(e.ref, src.ref) && blockPathMatches(e.path, src.path)
		case "url":
			return normURL(e.url, false) == normURL(src.url, false)
		case "npm":
			return e.pkg == src.pkg
		case "file", "directory":
			return e.path == src.path
		case "settings":
			return e.name == src.name
		}
		return false
	}
	switch {
	case src.kind == "git" && e.kind == "github":
		r := githubRepoOfURL(src.url)
		return r != "" && blockRepoMatches(e.repo, r) && blockRefMatches(e.ref, src.ref) && blockPathMatches(e.path, src.path)
	case src.kind == "github" && e.kind == "git":
		r := githubRepoOfURL(e.url)
		return r != "" && blockRepoMatches(r, src.repo) && blockRefMatches(e.ref, src.ref) && blockPathMatches(e.path, src.path)
	case src.kind == "git" && e.kind == "url":
		return strings.Contains(src.url, "://") && normURL(src.url, true) == normURL(e.url, true)
	}
	return false
}

// strictMatches reports whether a strictKnownMarketplaces entry admits a
// marketplace source: the same source type and the same fields (a github
// repo compared without case), or the owner wildcard.
func strictMatches(src, e *mktSource) bool {
	switch e.kind {
	case "hostPattern":
		return patternMatches(e.hostPattern, sourceHost(src))
	case "pathPattern":
		return (src.kind == "file" || src.kind == "directory") && patternMatches(e.pathPattern, src.path)
	}
	if src.kind != e.kind {
		return false
	}
	switch src.kind {
	case "github":
		if owner, ok := ownerWildcard(e.repo); ok {
			o, r, found := strings.Cut(src.repo, "/")
			return found && validRepoPart(o) && validRepoPart(r) && o == owner && e.ref == src.ref && (e.path == "" || e.path == src.path)
		}
		return strings.EqualFold(e.repo, src.repo) && e.ref == src.ref && e.path == src.path
	case "git":
		return normURL(e.url, false) == normURL(src.url, false) && e.ref == src.ref && e.path == src.path
	case "url":
		return normURL(e.url, false) == normURL(src.url, false)
	case "npm":
		return e.pkg == src.pkg
	case "file", "directory":
		return e.path == src.path
	case "settings":
		return e.name == src.name
	}
	return false
}
