package managed

import (
	"fmt"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// Policy list keys and the entry keys they hold (docs/claude-code.md §2.4).
const (
	KeyAllowed = "allowedMcpServers"
	KeyDenied  = "deniedMcpServers"

	EntryName    = "serverName"
	EntryCommand = "serverCommand"
	EntryURL     = "serverUrl"
)

// Entry is one valid allow or deny entry.
type Entry struct {
	Key     string   // EntryName, EntryCommand or EntryURL
	Name    string   // serverName
	Command []string // serverCommand, unexpanded
	URL     string   // serverUrl, unexpanded
	Loc     reports.Location
	Doc     *Document
}

// ListIssue is a problem with a policy list that Claude Code resolves silently:
// an entry dropped, or a whole list turned into [] or ignored.
type ListIssue struct {
	Loc     reports.Location
	Key     string // KeyAllowed or KeyDenied
	Message string
	// Effect says which way the problem fails: "fail-open" (less is blocked
	// than the author meant) or "fail-closed" (more is blocked).
	Effect string
}

// List is one document's allowedMcpServers or deniedMcpServers after Claude
// Code's validation.
type List struct {
	Doc     *Document
	Key     string
	Defined bool // the key is present (a non-array allow list counts as [])
	Entries []Entry
	Issues  []ListIssue
}

// ParseList validates doc[key] as Claude Code does: invalid entries are dropped
// one by one; a non-array allow list becomes [] (fails closed) and a non-array
// deny list is dropped (fails open).
func ParseList(doc *Document, key string) List {
	l := List{Doc: doc, Key: key}
	m := doc.Get(key)
	if m == nil {
		return l
	}
	allow := key == KeyAllowed
	loc := doc.Loc(m)
	if m.Value.Kind != jsonc.Array {
		if allow {
			l.Defined = true
			l.issue(loc, fmt.Sprintf("%s is %s, not an array: Claude Code treats it as [] and blocks every server that is not exempt", key, m.Value.Kind), "fail-closed")
		} else {
			l.issue(loc, fmt.Sprintf("%s is %s, not an array: Claude Code ignores the whole list and denies nothing", key, m.Value.Kind), "fail-open")
		}
		return l
	}
	l.Defined = true
	for i, v := range m.Value.Elems {
		eloc := cfgfile.Loc(doc.Path, jsonc.Pointer(key, fmt.Sprint(i)), v.Pos)
		e, why := parseEntry(v, allow)
		if why != "" {
			effect := "fail-open"
			if allow {
				effect = "fail-closed"
			}
			l.issue(eloc, fmt.Sprintf("%s[%d] is dropped: %s", key, i, why), effect)
			continue
		}
		e.Loc, e.Doc = eloc, doc
		l.Entries = append(l.Entries, e)
	}
	return l
}

func (l *List) issue(loc reports.Location, msg, effect string) {
	l.Issues = append(l.Issues, ListIssue{Loc: loc, Key: l.Key, Message: msg, Effect: effect})
}

// parseEntry validates one entry: an object with exactly one of serverName,
// serverCommand and serverUrl; other keys are ignored.
func parseEntry(v *jsonc.Value, allow bool) (Entry, string) {
	if v.Kind != jsonc.Object {
		return Entry{}, "an entry must be an object, not " + v.Kind.String()
	}
	var found []*jsonc.Member
	for _, k := range []string{EntryName, EntryCommand, EntryURL} {
		if m := v.Member(k); m != nil {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		return Entry{}, fmt.Sprintf("an entry needs exactly one of serverName, serverCommand and serverUrl, it has %d", len(found))
	}
	m := found[0]
	e := Entry{Key: m.Key}
	switch m.Key {
	case EntryName:
		if m.Value.Kind != jsonc.String {
			return Entry{}, "serverName must be a string"
		}
		e.Name = m.Value.Str
		if allow && !ValidAllowName(e.Name) {
			return Entry{}, fmt.Sprintf("allow serverName %q must match ^[a-zA-Z0-9_-]+$", e.Name)
		}
		if !allow && (e.Name == "" || strings.TrimSpace(e.Name) != e.Name) {
			return Entry{}, fmt.Sprintf("deny serverName %q must be non-empty without leading or trailing whitespace", e.Name)
		}
	case EntryCommand:
		list, ok := m.Value.StringSlice()
		if !ok || len(list) == 0 {
			return Entry{}, "serverCommand must be a non-empty array of strings"
		}
		e.Command = list
	case EntryURL:
		if m.Value.Kind != jsonc.String {
			return Entry{}, "serverUrl must be a string"
		}
		e.URL = m.Value.Str
	}
	return e, ""
}

// ValidAllowName matches ^[a-zA-Z0-9_-]+$, the rule for allow serverName
// entries, managedMcpServers names and `claude mcp add`.
func ValidAllowName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Lists are the effective allow and deny lists for one project (§7.1).
type Lists struct {
	// Allow is nil when no source defines allowedMcpServers (no restriction);
	// a non-nil empty slice means [] (only exempt servers pass).
	Allow []Entry
	// AllowDefined distinguishes an undefined allowlist from [].
	AllowDefined bool
	Deny         []Entry
	// AllowOrg / DenyOrg are the lists without project and local settings, for
	// organisation servers (§7.2 steps 1 and 4).
	AllowOrg        []Entry
	AllowOrgDefined bool
	DenyOrg         []Entry
	// ManagedOnly is true when a managed document sets allowManagedMcpServersOnly.
	ManagedOnly    bool
	ManagedOnlyDoc *Document
	// Parsed holds every document's lists, issues included, in source order.
	Parsed []List
}

// BuildLists assembles the lists from managed documents and the user, project
// and local settings (any may be nil). Project and local settings count even
// in an untrusted folder.
func BuildLists(managedDocs []*Document, user, project, local *Document) *Lists {
	l := &Lists{}
	l.ManagedOnly, l.ManagedOnlyDoc = ManagedOnly(managedDocs)
	type src struct {
		doc     *Document
		managed bool
		org     bool // counts for organisation servers
	}
	var srcs []src
	for _, d := range managedDocs {
		srcs = append(srcs, src{d, true, true})
	}
	for _, s := range []src{{user, false, true}, {project, false, false}, {local, false, false}} {
		if s.doc != nil {
			srcs = append(srcs, s)
		}
	}
	for _, s := range srcs {
		allow, deny := ParseList(s.doc, KeyAllowed), ParseList(s.doc, KeyDenied)
		l.Parsed = append(l.Parsed, allow, deny)
		if allow.Defined && (!l.ManagedOnly || s.managed) {
			l.AllowDefined = true
			l.Allow = append(l.Allow, allow.Entries...)
			if s.org {
				l.AllowOrgDefined = true
				l.AllowOrg = append(l.AllowOrg, allow.Entries...)
			}
		}
		l.Deny = append(l.Deny, deny.Entries...)
		if s.org {
			l.DenyOrg = append(l.DenyOrg, deny.Entries...)
		}
	}
	if l.AllowDefined && l.Allow == nil {
		l.Allow = []Entry{}
	}
	if l.AllowOrgDefined && l.AllowOrg == nil {
		l.AllowOrg = []Entry{}
	}
	return l
}

// ManagedOnly reads allowManagedMcpServersOnly across the managed documents.
// Observed with the CLI: the last document that sets it decides (a later
// explicit false turns it off), and a non-boolean value counts as true.
func ManagedOnly(docs []*Document) (on bool, doc *Document) {
	for _, d := range docs {
		m := d.Get("allowManagedMcpServersOnly")
		if m == nil {
			continue
		}
		on, doc = m.Value.Kind != jsonc.Bool || m.Value.Bool, d
		if m.Value.Kind == jsonc.Null {
			on = false
		}
	}
	return on, doc
}
