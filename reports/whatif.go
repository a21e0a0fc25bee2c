package reports

import (
	"sort"
)

// WhatIf is what a proposed policy would change in a fleet: every saved
// server judged again under it (`mcpguard report --policy`), compared with
// the verdict its report holds. It answers "if we roll out this allowlist,
// which hosts lose which servers?".
type WhatIf struct {
	// Policy lists the proposal's files.
	Policy  []PolicySource `json:"policy"`
	Summary WhatIfSummary  `json:"summary"`
	// Hosts lists the hosts with a change, the most servers lost first.
	Hosts []WhatIfHost `json:"hosts"`
	// Distinct lists the distinct servers (by what they launch) with a
	// change, the most hosts losing them first.
	Distinct []WhatIfDistinct `json:"distinct_servers"`
	// Changes lists every server whose verdict or status would change, in
	// the order of the fleet's servers.
	Changes []WhatIfChange `json:"changes"`
	// Findings are the proposal's own weaknesses (rules about the policy,
	// e.g. an allow entry broader than it looks).
	Findings []Finding `json:"findings"`
	// Errors are evaluations that failed; each such server is judged not
	// allowed (POLICY_ERROR), never allowed.
	Errors []FileError `json:"errors"`
}

// WhatIfSummary counts a proposal's effect.
type WhatIfSummary struct {
	// Servers counts the servers judged again; Unjudged those no verdict
	// applies to (invalid entries their client skips).
	Servers  int `json:"servers"`
	Unjudged int `json:"unjudged"`
	// AllowedBefore and AllowedAfter count the allowed servers under the
	// saved verdicts and under the proposal.
	AllowedBefore int `json:"allowed_before"`
	AllowedAfter  int `json:"allowed_after"`
	// Lose counts servers allowed today and not under the proposal; Gain
	// the reverse.
	Lose int `json:"lose"`
	Gain int `json:"gain"`
	// Blocked counts the Claude Code servers (and Claude Desktop
	// extensions) it would stop loading were the proposal its managed
	// settings (change "block"); Unblocked the
	// servers its lists refuse today that it would load ("unblock").
	Blocked   int `json:"blocked"`
	Unblocked int `json:"unblocked"`
	// HostsLosing and HostsGaining count the hosts with at least one
	// server lost or gained.
	HostsLosing  int `json:"hosts_losing"`
	HostsGaining int `json:"hosts_gaining"`
	// HostsNotAllowedBefore and HostsNotAllowedAfter count the hosts that
	// have at least one server the policy does not allow.
	HostsNotAllowedBefore int `json:"hosts_not_allowed_before"`
	HostsNotAllowedAfter  int `json:"hosts_not_allowed_after"`
}

// Verdict is a server's status and the policy's decision about it, and
// for a Claude Code server under a proposal what the proposal would change
// in Claude Code were it the managed settings: "block" a server it loads,
// "unblock" one its lists refuse ("" for no change).
type Verdict struct {
	Status   Status   `json:"status"`
	Decision Decision `json:"decision"`
	Change   string   `json:"change,omitempty"`
}

// Judged is a server's verdict under a proposal; Judged false means no
// verdict applies (the saved one stands).
type Judged struct {
	Verdict
	Judged bool
}

// Effects of a change.
const (
	EffectLose = "lose" // allowed today, not under the proposal
	EffectGain = "gain" // not allowed today, allowed under the proposal
	// EffectEnforcement: the same decision, and Claude Code would block or
	// unblock the server were the proposal its managed settings.
	EffectEnforcement = "enforcement"
)

// WhatIfChange is one server whose verdict would change.
type WhatIfChange struct {
	Host     string  `json:"host"`
	User     string  `json:"user"`
	ServerID string  `json:"server_id"`
	Name     string  `json:"name"`
	Client   string  `json:"client"`
	Scope    string  `json:"scope"`
	Launch   string  `json:"launch"`
	Effect   string  `json:"effect"`
	Before   Verdict `json:"before"`
	After    Verdict `json:"after"`
}

// WhatIfRef names a server of a host.
type WhatIfRef struct {
	ServerID string `json:"server_id"`
	Name     string `json:"name"`
	Client   string `json:"client"`
}

// WhatIfHost is one host's changes.
type WhatIfHost struct {
	Key  string      `json:"key"`
	Lose []WhatIfRef `json:"lose"`
	Gain []WhatIfRef `json:"gain"`
}

// WhatIfDistinct is one distinct server's changes across the fleet.
type WhatIfDistinct struct {
	Key   string   `json:"key"`
	Names []string `json:"names"`
	// LoseHosts and GainHosts count the hosts losing or gaining it.
	LoseHosts int `json:"lose_hosts"`
	GainHosts int `json:"gain_hosts"`
}

// SetWhatIf compares the fleet's saved verdicts with after (one per
// f.Servers entry, in order) and records the difference as f.WhatIf.
func (f *Fleet) SetWhatIf(policy []PolicySource, after []Judged, findings []Finding, errs []FileError) {
	w := &WhatIf{Policy: policy, Hosts: []WhatIfHost{}, Distinct: []WhatIfDistinct{}, Changes: []WhatIfChange{},
		Findings: findings, Errors: errs}
	if w.Policy == nil {
		w.Policy = []PolicySource{}
	}
	if w.Findings == nil {
		w.Findings = []Finding{}
	}
	if w.Errors == nil {
		w.Errors = []FileError{}
	}
	hosts := map[string]*WhatIfHost{}
	var hostOrder []string
	type changedServer struct {
		names          map[string]bool
		loseHs, gainHs map[string]bool
	}
	distinct := map[string]*changedServer{}
	notAllowedBefore, notAllowedAfter := map[string]bool{}, map[string]bool{}
	for i := range f.Servers {
		s := &f.Servers[i]
		before := Verdict{Status: s.Status, Decision: s.Decision}
		before.Change, _ = s.Details["intended_change"].(string)
		a := Judged{Verdict: before}
		if i < len(after) {
			a = after[i]
		}
		if !a.Judged {
			w.Summary.Unjudged++
			a.Verdict = before
		} else {
			w.Summary.Servers++
		}
		if before.Decision.Allowed {
			w.Summary.AllowedBefore++
		} else if before.Status != StatusInvalid {
			notAllowedBefore[s.Host] = true
		}
		if a.Decision.Allowed {
			w.Summary.AllowedAfter++
		} else if a.Status != StatusInvalid {
			notAllowedAfter[s.Host] = true
		}
		effect := ""
		switch {
		case before.Decision.Allowed && !a.Decision.Allowed:
			effect = EffectLose
			w.Summary.Lose++
		case !before.Decision.Allowed && a.Decision.Allowed:
			effect = EffectGain
			w.Summary.Gain++
		case a.Change != "" || before.Status != a.Status:
			effect = EffectEnforcement
		default:
			continue
		}
		switch a.Change {
		case "block":
			w.Summary.Blocked++
		case "unblock":
			w.Summary.Unblocked++
		}
		w.Changes = append(w.Changes, WhatIfChange{Host: s.Host, User: s.User, ServerID: s.ID, Name: s.Name, Client: s.Client,
			Scope: s.Scope, Launch: launchKey(s.Server), Effect: effect, Before: before, After: a.Verdict})
		if effect == EffectEnforcement {
			continue
		}
		h := hosts[s.Host]
		if h == nil {
			h = &WhatIfHost{Key: s.Host, Lose: []WhatIfRef{}, Gain: []WhatIfRef{}}
			hosts[s.Host] = h
			hostOrder = append(hostOrder, s.Host)
		}
		d := distinct[launchKey(s.Server)]
		if d == nil {
			d = &changedServer{names: map[string]bool{}, loseHs: map[string]bool{}, gainHs: map[string]bool{}}
			distinct[launchKey(s.Server)] = d
		}
		d.names[s.Name] = true
		ref := WhatIfRef{ServerID: s.ID, Name: s.Name, Client: s.Client}
		if effect == EffectLose {
			h.Lose = append(h.Lose, ref)
			d.loseHs[s.Host] = true
		} else {
			h.Gain = append(h.Gain, ref)
			d.gainHs[s.Host] = true
		}
	}
	for _, k := range hostOrder {
		h := hosts[k]
		if len(h.Lose) > 0 {
			w.Summary.HostsLosing++
		}
		if len(h.Gain) > 0 {
			w.Summary.HostsGaining++
		}
		w.Hosts = append(w.Hosts, *h)
	}
	sort.SliceStable(w.Hosts, func(i, j int) bool {
		a, b := w.Hosts[i], w.Hosts[j]
		if len(a.Lose) != len(b.Lose) {
			return len(a.Lose) > len(b.Lose)
		}
		return a.Key < b.Key
	})
	for k, d := range distinct {
		w.Distinct = append(w.Distinct, WhatIfDistinct{Key: k, Names: sortedKeys(d.names), LoseHosts: len(d.loseHs), GainHosts: len(d.gainHs)})
	}
	sort.Slice(w.Distinct, func(i, j int) bool {
		a, b := w.Distinct[i], w.Distinct[j]
		if a.LoseHosts != b.LoseHosts {
			return a.LoseHosts > b.LoseHosts
		}
		if a.GainHosts != b.GainHosts {
			return a.GainHosts > b.GainHosts
		}
		return a.Key < b.Key
	})
	w.Summary.HostsNotAllowedBefore, w.Summary.HostsNotAllowedAfter = len(notAllowedBefore), len(notAllowedAfter)
	f.WhatIf = w
}
