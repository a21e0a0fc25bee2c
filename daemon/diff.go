package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
)

// inventory is one observed state of the machine: the report and, per
// server id, the keyed hashes of what the report does not show.
type inventory struct {
	report  *reports.Report
	secrets map[string]map[string]string
	// owners attributes file errors, sources and findings of no server to
	// users with --all-users; nil otherwise.
	owners *owners
}

// diff turns the difference between two inventories into events, in a
// stable order: files that broke or recovered, the policy, servers removed,
// added and changed, status changes, findings resolved and opened. old may
// be nil (a first start): every server is then added. det redacts the values
// that change messages quote before they are cut to length (nil: they are
// not redacted here).
func diff(old, cur inventory, det0 *secrets.Detector) []events.Event {
	var out []events.Event
	var oldRep reports.Report
	if old.report != nil {
		oldRep = *old.report
	}
	rep := cur.report

	// Files: one event per user whose scan found the file (with
	// --all-users), or one for a machine-wide file.
	oldErrs, curErrs := errorsByOwner(oldRep.Errors, old.owners), errorsByOwner(rep.Errors, cur.owners)
	for _, k := range sortedKeys(curErrs) {
		e := curErrs[k]
		if prev, ok := oldErrs[k]; ok && prev.FileError == e.FileError {
			continue
		}
		out = append(out, events.Event{Kind: "file-error", Severity: "error", Path: e.Path, User: e.user, Message: e.Error(),
			Details: map[string]any{"line": e.Line, "column": e.Column, "error": e.Message}})
	}
	for _, k := range sortedKeys(oldErrs) {
		if _, ok := curErrs[k]; !ok {
			e := oldErrs[k]
			out = append(out, events.Event{Kind: "file-recovered", Path: e.Path, User: e.user, Message: e.Path + ": readable and valid again"})
		}
	}

	// Policy.
	if old.report != nil && oldRep.Policy.Revision != rep.Policy.Revision {
		out = append(out, events.Event{Kind: "policy-changed", Message: "the policy in effect changed",
			Details: map[string]any{"old_revision": oldRep.Policy.Revision, "new_revision": rep.Policy.Revision, "sources": policyPaths(rep)}})
	}

	// Servers.
	oldSrv, curSrv := serversByID(oldRep.Servers), serversByID(rep.Servers)
	for _, id := range sortedKeys(oldSrv) {
		if _, ok := curSrv[id]; !ok {
			s := oldSrv[id]
			out = append(out, serverEvent("server-removed", s, fmt.Sprintf("server %q (%s, %s scope) was removed", s.Name, s.Client, s.Scope), nil))
		}
	}
	for _, id := range sortedKeys(curSrv) {
		s := curSrv[id]
		prev, ok := oldSrv[id]
		if !ok {
			out = append(out, serverEvent("server-added", s, fmt.Sprintf("server %q (%s, %s scope) was added: %s", s.Name, s.Client, s.Scope, s.Status),
				map[string]any{"status": string(s.Status), "transport": s.Transport, "command": s.Command, "args": s.Args, "url": s.URL,
					"allowed": s.Decision.Allowed, "reasons": s.Decision.Reasons}))
			continue
		}
		if fields, det := changedFields(prev, s, old.secrets[id], cur.secrets[id]); len(fields) > 0 {
			redactor := det0
			det["fields"] = fields
			out = append(out, serverEvent("server-changed", s, fmt.Sprintf("server %q changed: %s", s.Name, describeChanges(fields, det, redactor)), det))
		}
		if prev.Status != s.Status || prev.Decision.Allowed != s.Decision.Allowed {
			out = append(out, statusEvent(prev, s))
		}
	}

	// Findings: one event per owner of a finding of no server.
	oldF, curF := findingsByOwner(oldRep.Findings, old.owners), findingsByOwner(rep.Findings, cur.owners)
	for _, k := range sortedKeys(oldF) {
		if _, ok := curF[k]; !ok {
			out = append(out, findingEvent("finding-resolved", oldF[k], oldSrv, "resolved: "))
		}
	}
	for _, k := range sortedKeys(curF) {
		if _, ok := oldF[k]; !ok {
			out = append(out, findingEvent("finding-opened", curF[k], curSrv, ""))
		}
	}
	return out
}

// ownedError is a file error as one user's scan (or every user's) met it.
type ownedError struct {
	reports.FileError
	user string
}

// errorsByOwner keys errors by path and user: each owner's, or the
// machine's (no owners entry).
func errorsByOwner(list []reports.FileError, own *owners) map[string]ownedError {
	m := map[string]ownedError{}
	for _, e := range list {
		users, ok := own.errorUsers(e.Path)
		if !ok {
			users = []string{""}
		}
		for _, u := range users {
			if k := e.Path + "\x00" + u; m[k].Path == "" {
				m[k] = ownedError{FileError: e, user: u}
			}
		}
	}
	return m
}

// ownedFinding is a finding with the user an event about it names.
type ownedFinding struct {
	*reports.Finding
	user string
}

// findingsByOwner keys findings by id, and a finding of no server that
// users own by id and user.
func findingsByOwner(list []reports.Finding, own *owners) map[string]ownedFinding {
	m := make(map[string]ownedFinding, len(list))
	for i := range list {
		f := &list[i]
		if users, ok := own.finding(f.ID); ok && f.ServerID == "" {
			for _, u := range users {
				m[f.ID+"\x00"+u] = ownedFinding{Finding: f, user: u}
			}
			continue
		}
		m[f.ID] = ownedFinding{Finding: f}
	}
	return m
}

// statusEvent is the status-changed event of a server whose status or
// verdict (decision.allowed) changed; a warning when it becomes blocked or
// not allowed.
func statusEvent(prev, s *reports.Server) events.Event {
	msg := fmt.Sprintf("server %q (%s, %s scope): %s -> %s", s.Name, s.Client, s.Scope, prev.Status, s.Status)
	if prev.Status == s.Status {
		msg = fmt.Sprintf("server %q (%s, %s scope), %s", s.Name, s.Client, s.Scope, s.Status)
	}
	if prev.Decision.Allowed != s.Decision.Allowed {
		msg += fmt.Sprintf("; allowed: %v -> %v", prev.Decision.Allowed, s.Decision.Allowed)
	}
	if len(s.Decision.Reasons) > 0 {
		msg += " (" + strings.Join(s.Decision.Reasons, ", ") + ")"
	}
	ev := serverEvent("status-changed", s, msg, map[string]any{"old": string(prev.Status), "new": string(s.Status),
		"old_allowed": prev.Decision.Allowed, "new_allowed": s.Decision.Allowed, "old_reasons": prev.Decision.Reasons, "reasons": s.Decision.Reasons})
	if s.Status == reports.StatusBlocked || (prev.Decision.Allowed && !s.Decision.Allowed) {
		ev.Severity = "warning"
	}
	return ev
}

// describeChanges names each changed field with its old and new value, as
// reports show them (redacted; the event's redaction runs over the message
// again), each value cut to a readable length; secret-bearing values only
// by name.
func describeChanges(fields []string, det map[string]any, redactor *secrets.Detector) string {
	parts := make([]string, 0, len(fields))
	for _, f := range fields {
		switch c := det[f].(type) {
		case map[string]any:
			if f == "details" {
				parts = append(parts, describeDetails(c["old"], c["new"], redactor))
				continue
			}
			parts = append(parts, f+" "+showValue(c["old"], redactor)+" -> "+showValue(c["new"], redactor))
		case []string:
			parts = append(parts, "values of "+strings.Join(c, ", ")+" (not shown)")
		default:
			parts = append(parts, f)
		}
	}
	return strings.Join(parts, "; ")
}

// describeDetails names the detail keys that changed.
func describeDetails(a, b any, redactor *secrets.Detector) string {
	x, _ := a.(map[string]any)
	y, _ := b.(map[string]any)
	var parts []string
	for _, k := range sortedKeys(mergeKeys(x, y)) {
		xv, inX := x[k]
		yv, inY := y[k]
		switch {
		case !inX:
			parts = append(parts, "details."+k+" (none) -> "+showValue(yv, redactor))
		case !inY:
			parts = append(parts, "details."+k+" "+showValue(xv, redactor)+" -> (none)")
		case !sameJSON(xv, yv):
			parts = append(parts, "details."+k+" "+showValue(xv, redactor)+" -> "+showValue(yv, redactor))
		}
	}
	if len(parts) == 0 {
		return "details"
	}
	return strings.Join(parts, "; ")
}

func mergeKeys(a, b map[string]any) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// showValue renders a field's value on one line: JSON, redacted, then cut
// to at most 120 characters (a cut token would escape the redactor).
func showValue(v any, redactor *secrets.Detector) string {
	if d, ok := v.(reports.Decision); ok {
		s := fmt.Sprintf("allowed=%v", d.Allowed)
		if len(d.Reasons) > 0 {
			s += " (" + strings.Join(d.Reasons, ", ") + ")"
		}
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	text := string(b)
	if redactor != nil {
		text = redactor.RedactText(text)
	}
	const limit = 120
	if r := []rune(text); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return text
}

// serverEvent describes a server event.
func serverEvent(kind string, s *reports.Server, msg string, details map[string]any) events.Event {
	return events.Event{Kind: kind, ServerID: s.ID, Server: s.Name, Client: s.Client, Scope: s.Scope,
		Project: s.Project, Path: s.Source.Path, User: s.User, Message: msg, Details: details}
}

func findingEvent(kind string, of ownedFinding, servers map[string]*reports.Server, prefix string) events.Event {
	f := of.Finding
	e := events.Event{Kind: kind, FindingID: f.ID, Rule: f.Rule, Severity: string(f.Severity), Path: f.Location.Path,
		ServerID: f.ServerID, User: of.user, Message: prefix + f.Message,
		Details: map[string]any{"line": f.Location.Line, "column": f.Location.Column, "pointer": f.Location.Pointer}}
	if kind == "finding-resolved" {
		e.Severity = ""
	}
	if f.Suppressed != nil {
		e.Details["suppressed"] = string(f.Suppressed.Kind)
	}
	if s := servers[f.ServerID]; s != nil {
		e.Server, e.Client, e.Scope, e.Project, e.User = s.Name, s.Client, s.Scope, s.Project, s.User
	}
	return e
}

// changedFields lists what differs between two versions of a server, with
// the before and after of the fields a report shows (already redacted) and
// only the names of the secret-bearing ones that changed.
func changedFields(a, b *reports.Server, aSec, bSec map[string]string) ([]string, map[string]any) {
	var fields []string
	det := map[string]any{}
	// Compared as JSON: an inventory read back from the state file has
	// float64 numbers and nil for empty details where a fresh one has ints
	// and empty maps, and strings whose bytes were not UTF-8 as U+FFFD.
	// Values equal as they are have the same JSON, and nearly all are: only
	// the others are marshalled, so an edit's diff costs what changed, not
	// every field of every server.
	cmp := func(name string, same bool, x, y any) {
		if !same && !sameJSON(x, y) {
			fields = append(fields, name)
			det[name] = map[string]any{"old": x, "new": y}
		}
	}
	cmpString := func(name, x, y string) {
		if x != y {
			cmp(name, false, x, y)
		}
	}
	cmpList := func(name string, x, y []string) {
		if !sameList(x, y) {
			cmp(name, false, x, y)
		}
	}
	cmpString("name", a.Name, b.Name)
	cmpString("transport", a.Transport, b.Transport)
	cmpString("command", a.Command, b.Command)
	cmpList("args", a.Args, b.Args)
	cmpString("url", a.URL, b.URL)
	cmpList("env_keys", a.EnvKeys, b.EnvKeys)
	cmpList("header_keys", a.HeaderKeys, b.HeaderKeys)
	// A change of the verdict itself is a status-changed event; reasons
	// that changed under the same verdict are a change of the server.
	if a.Decision.Allowed == b.Decision.Allowed && !sameList(a.Decision.Reasons, b.Decision.Reasons) {
		cmp("decision", false, a.Decision, b.Decision)
	}
	ad, bd := withoutLastGood(a.Details), withoutLastGood(b.Details)
	cmp("details", reflect.DeepEqual(ad, bd), ad, bd)
	if aSec != nil && bSec != nil {
		var secret []string
		for _, k := range changedSecrets(aSec, bSec) {
			// A value whose name appeared or went is already in env_keys or
			// header_keys; what is left is a changed value.
			if _, inA := aSec[k]; inA {
				if _, inB := bSec[k]; inB {
					secret = append(secret, k)
				}
			}
		}
		if len(secret) > 0 {
			fields = append(fields, "values")
			det["values"] = secret
		}
	}
	return fields, det
}

// sameList reports lists that are equal as they are: the same elements,
// and both nil or neither (JSON null and [] differ).
func sameList(x, y []string) bool {
	return (x == nil) == (y == nil) && slices.Equal(x, y)
}

func sameJSON(x, y any) bool {
	norm := func(v any) []byte {
		if m, ok := v.(map[string]any); ok && len(m) == 0 {
			v = nil
		}
		b, _ := json.Marshal(v)
		return b
	}
	return bytes.Equal(norm(x), norm(y))
}

func serversByID(list []reports.Server) map[string]*reports.Server {
	m := make(map[string]*reports.Server, len(list))
	for i := range list {
		m[list[i].ID] = &list[i]
	}
	return m
}

func findingsByID(list []reports.Finding) map[string]*reports.Finding {
	m := make(map[string]*reports.Finding, len(list))
	for i := range list {
		m[list[i].ID] = &list[i]
	}
	return m
}

func policyPaths(r *reports.Report) []string {
	var out []string
	for _, s := range r.Policy.Sources {
		out = append(out, s.Path)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// keepLastGood carries the servers (and their findings) of a file that is
// unreadable or malformed now from the previous inventory into the current
// one: a half-written or briefly unreadable file keeps its last good
// servers, rather than a storm of server-removed and server-added events.
// Each carried server says so in its details.
func keepLastGood(old, cur inventory) inventory {
	if old.report == nil || len(cur.report.Errors) == 0 {
		return cur
	}
	broken := map[string]bool{}
	for _, e := range cur.report.Errors {
		broken[e.Path] = true
	}
	have := serversByID(cur.report.Servers)
	rep := *cur.report
	rep.Servers = append([]reports.Server(nil), rep.Servers...)
	rep.Findings = append([]reports.Finding(nil), rep.Findings...)
	carried := map[string]bool{}
	for _, s := range old.report.Servers {
		if !broken[s.Source.Path] || have[s.ID] != nil {
			continue
		}
		s.Details = cloneDetails(s.Details)
		s.Details[lastGoodKey] = "the file is unreadable or malformed now; this is its last good definition"
		rep.Servers = append(rep.Servers, s)
		carried[s.ID] = true
		if sec := old.secrets[s.ID]; sec != nil {
			cur.secrets[s.ID] = sec
		}
	}
	if len(carried) == 0 {
		return cur
	}
	curF := findingsByID(rep.Findings)
	for _, f := range old.report.Findings {
		if carried[f.ServerID] && curF[f.ID] == nil {
			rep.Findings = append(rep.Findings, f)
		}
	}
	rep.Summary = reports.Summarize(&rep)
	cur.report = &rep
	return cur
}

// withoutLastGood drops the mark keepLastGood adds: carrying a server over
// is not a change of the server.
func withoutLastGood(m map[string]any) map[string]any {
	if _, ok := m[lastGoodKey]; !ok {
		return m
	}
	out := cloneDetails(m)
	delete(out, lastGoodKey)
	if len(out) == 0 {
		return nil
	}
	return out
}

// lastGoodKey marks, in a server's details, a definition kept from before
// its file became unreadable or malformed.
const lastGoodKey = "last_good"

func cloneDetails(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
