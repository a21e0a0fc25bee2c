package reports

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Severity is a finding's level. The order error > warning > note drives
// --fail-on and exit codes.
type Severity string

// The severities of SPEC §6.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Rank orders severities: error 3, warning 2, note 1, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case SeverityError:
		return 3
	case SeverityWarning:
		return 2
	case SeverityNote:
		return 1
	}
	return 0
}

// SeverityOrder is the order reports for people list n findings in: the
// errors first, then the warnings, then the notes (and any other), each
// in the list's own order (CompareFindings). severity(i) is the i-th
// finding's severity.
func SeverityOrder(n int, severity func(i int) Severity) []int {
	order := make([]int, 0, n)
	for rank := 3; rank >= 0; rank-- {
		for i := range n {
			if severity(i).Rank() == rank {
				order = append(order, i)
			}
		}
	}
	return order
}

// ParseSeverity reads a --fail-on value. "never" is rank 4 (nothing reaches it).
func ParseSeverity(s string) (rank int, err error) {
	switch s {
	case "error", "warning", "note":
		return Severity(s).Rank(), nil
	case "never":
		return 4, nil
	}
	return 0, fmt.Errorf("invalid severity %q (want error, warning, note or never)", s)
}

// Location points into a source file. Pointer is an RFC 6901 JSON pointer (for
// TOML and YAML files, the pointer of the equivalent JSON document).
type Location struct {
	Path    string `json:"path"`
	Pointer string `json:"pointer"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

// String renders the location as path:line:col.
func (l Location) String() string {
	if l.Line == 0 {
		return l.Path
	}
	return l.Path + ":" + strconv.Itoa(l.Line) + ":" + strconv.Itoa(l.Column)
}

// Decision is the verdict on one server: whether it may run and the machine
// codes that explain why (SPEC §5).
type Decision struct {
	Allowed bool     `json:"allowed"`
	Reasons []string `json:"reasons"`
}

// Decision reason codes (SPEC §5, docs/report-schema.md).
const (
	ReasonAllowed          = "ALLOWED"
	ReasonDeniedName       = "DENIED_NAME"
	ReasonDeniedCommand    = "DENIED_COMMAND"
	ReasonDeniedURL        = "DENIED_URL"
	ReasonNotAllowlisted   = "NOT_ALLOWLISTED"
	ReasonEmptyAllowlist   = "EMPTY_ALLOWLIST"
	ReasonExclusiveManaged = "EXCLUSIVE_MANAGED"
	ReasonPluginOnly       = "PLUGIN_ONLY"
	ReasonReservedName     = "RESERVED_NAME"
	ReasonDuplicate        = "DUPLICATE_ENDPOINT"
	ReasonClientDisabled   = "CLIENT_DISABLED"
	ReasonClientBlocked    = "CLIENT_BLOCKED"
	ReasonInvalid          = "INVALID_ENTRY"
	ReasonPolicyUnverified = "POLICY_UNVERIFIED"
	// ReasonMarketplaceBlocked: a Claude Code plugin's marketplace matches a
	// managed blockedMarketplaces entry.
	ReasonMarketplaceBlocked = "MARKETPLACE_BLOCKED"
	// ReasonMarketplaceNotAllowed: managed strictKnownMarketplaces does not
	// list a Claude Code plugin's marketplace.
	ReasonMarketplaceNotAllowed = "MARKETPLACE_NOT_ALLOWED"
	// ReasonExtensionsDisabled: the organisation turned Claude Desktop
	// extensions off (isDesktopExtensionEnabled: false).
	ReasonExtensionsDisabled = "EXTENSIONS_DISABLED"
	// ReasonExtensionUnsigned: the organisation requires signed Claude
	// Desktop extensions and this one's install record is not signed.
	ReasonExtensionUnsigned = "EXTENSION_UNSIGNED"
)

// Finding is one problem found in a configuration, a policy or a tool list.
type Finding struct {
	ID       string         `json:"id"`
	Rule     string         `json:"rule"`
	Severity Severity       `json:"severity"`
	Category string         `json:"category"`
	Message  string         `json:"message"`
	ServerID string         `json:"server_id,omitempty"`
	Location Location       `json:"location"`
	Evidence map[string]any `json:"evidence,omitempty"`
	// Suppressed is set when a baseline or an ignore file accepted the
	// finding: it is still reported, but never counts toward --fail-on.
	Suppressed *Suppression `json:"suppressed,omitempty"`
}

// FileError is an input that could not be read or parsed: a report errors[]
// entry. Its Error method gives the path:line:col: message form users see.
type FileError struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

func (e *FileError) Error() string {
	if e.Line == 0 {
		return e.Path + ": " + e.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Message)
}

// Fingerprint returns a stable 16-hex-digit id for the given parts: the same
// parts always give the same id, so baselines and fleet merges can match
// findings and servers across runs.
func Fingerprint(parts ...string) string { return PrefixedFingerprint("", parts...) }

// PrefixedFingerprint is prefix followed by Fingerprint(parts...) ("s-" for
// a server, "f-" for a finding), made in one allocation: every server and
// finding of a scan has one, and the digest's slice, its hex encoding and
// the concatenation with the prefix were four allocations each.
func PrefixedFingerprint(prefix string, parts ...string) string {
	return fingerprint(prefix, parts, nil)
}

// fingerprint is PrefixedFingerprint of parts and then more. Parts that fit
// in a buffer on the stack are hashed in one call rather than two writes
// per part (the part, its separator): every server and finding of a scan
// has an id.
func fingerprint(prefix string, parts, more []string) string {
	var buf [256]byte
	b := buf[:0]
	for _, list := range [2][]string{parts, more} {
		for _, p := range list {
			if len(b)+len(p)+1 > len(buf) {
				return streamedFingerprint(prefix, parts, more)
			}
			b = append(append(b, p...), 0)
		}
	}
	sum := sha256.Sum256(b)
	return prefixedID(prefix, sum[:])
}

// streamedFingerprint is fingerprint for parts too long for its buffer (a
// file's whole content).
func streamedFingerprint(prefix string, parts, more []string) string {
	h := sha256.New()
	for _, list := range [2][]string{parts, more} {
		for _, p := range list {
			io.WriteString(h, p)
			h.Write([]byte{0})
		}
	}
	var sum [sha256.Size]byte
	return prefixedID(prefix, h.Sum(sum[:0]))
}

// prefixedID is prefix and the first 8 bytes of a digest in hex, in one
// allocation.
func prefixedID(prefix string, sum []byte) string {
	var out [64]byte
	return string(hex.AppendEncode(append(out[:0], prefix...), sum[:8]))
}

// NewFinding builds a finding for rule id with its catalog severity and
// category, and a fingerprint over the rule, location and discriminator (e.g. the
// offending key), so that two findings of one rule at one place stay distinct.
func NewFinding(rule string, loc Location, serverID, message string, discriminator ...string) Finding {
	sev, category := RuleClass(rule)
	return Finding{
		ID:       fingerprint("f-", []string{rule, loc.Path, loc.Pointer, serverID}, discriminator),
		Rule:     rule,
		Severity: sev,
		Category: category,
		Message:  message,
		ServerID: serverID,
		Location: loc,
	}
}

// TrimMessage shortens s to at most n runes for messages that quote input.
func TrimMessage(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// JoinReasons renders reasons for people.
func JoinReasons(r []string) string { return strings.Join(r, ", ") }

// Status is where a server stands after resolution (SPEC §5).
type Status string

// The statuses.
const (
	StatusActive          Status = "active"
	StatusPendingApproval Status = "pending-approval"
	StatusBlocked         Status = "blocked"
	StatusShadowed        Status = "shadowed"
	StatusRejected        Status = "rejected"
	StatusDisabled        Status = "disabled"
	StatusSuppressed      Status = "suppressed"
	StatusInvalid         Status = "invalid"
	// StatusUnverifiedPolicy: the organisation's policy comes from OPA
	// bundles and none has been verified yet, so nothing can be judged.
	StatusUnverifiedPolicy Status = "unverified-policy"
)

// Loaded reports whether the client starts a server with this status: active and
// pending-approval servers (pending ones load without a prompt in headless runs,
// docs/claude-code.md §5.3).
func (s Status) Loaded() bool { return s == StatusActive || s == StatusPendingApproval }

// SortFindings orders findings as reports list them (CompareFindings),
// stably.
func SortFindings(fs []Finding) { sortStable(fs, CompareFindings) }

// CompareFindings orders findings as reports list them: by location
// (path, line, column), then rule and id.
func CompareFindings(a, b *Finding) int {
	if c := strings.Compare(a.Location.Path, b.Location.Path); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Location.Line, b.Location.Line); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Location.Column, b.Location.Column); c != 0 {
		return c
	}
	if c := strings.Compare(a.Rule, b.Rule); c != 0 {
		return c
	}
	// The message before the id: two findings of one rule at one place
	// keep their order wherever the scanned tree is (ids hash its anchors).
	if c := strings.Compare(a.Message, b.Message); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// sortStable sorts list stably by compare. A finding is a large struct:
// sort.SliceStable copies two into its less function at every comparison
// and moves them by reflection at every rotation; this sorts their
// indices, comparing in place, and moves each element once.
func sortStable[T any](list []T, compare func(a, b *T) int) {
	if len(list) < 2 {
		return
	}
	order := make([]int, len(list))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return compare(&list[i], &list[j]) })
	sorted := make([]T, len(list))
	for k, i := range order {
		sorted[k] = list[i]
	}
	copy(list, sorted)
}

// SortErrors orders errors by path, line and column.
func SortErrors(es []FileError) {
	sortStable(es, func(a, b *FileError) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.Column, b.Column)
	})
}
