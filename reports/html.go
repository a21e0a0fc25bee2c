package reports

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The HTML report is one self-contained file: inline CSS and SVG, no
// request of any kind (no font, image, script or style URL), readable with
// JavaScript off (the summary, the charts and the first htmlMaxRows rows of
// every table are in the markup; the inline script filters, sorts and pages
// every row from the tables' JSON data blocks), printable. Every string from
// a configuration or a tool goes through html/template's contextual
// escaping (the data blocks through encoding/json's HTML-safe escaping), and
// invisible or reordering characters are shown as escapes (visible).

//go:embed html.tmpl
var htmlTemplate string

// htmlMaxRows bounds the rows of each table in the markup, what a reader
// sees without JavaScript and what prints: a 100,000-server fleet stays a
// page a browser opens at once. The page says when a table is cut.
const htmlMaxRows = 500

// htmlPageRows is the size above which a table also carries every row as a
// JSON data block, and the script pages, filters and sorts the rows from
// there: a table of 100,000 rows stays usable, and a filter finds a row that
// is not in the markup.
const htmlPageRows = 500

// WriteHTML renders one machine's report as HTML.
func WriteHTML(w io.Writer, r *Report, _ Options) error {
	m := NewMerger(MergeOptions{Tool: r.Tool})
	m.Add("", r)
	f := m.Fleet()
	f.GeneratedAt = r.GeneratedAt
	return writeHTML(w, f, false)
}

func writeFleetHTML(w io.Writer, f *Fleet) error { return writeHTML(w, f, true) }

type htmlView struct {
	htmlAssets
	Fleet       bool
	Title       string
	GeneratedAt string
	Tool        Tool
	Summary     FleetSummary
	Host        FleetHost // one machine's report
	Cards       []htmlCard
	Charts      []htmlChart
	Hosts       []htmlHost
	Servers     []htmlServer
	// Introspected are the servers `scan --introspect` looked at.
	Introspected    []htmlIntrospected
	IntrospectedCut int
	Findings        []htmlFinding
	Distinct        []DistinctEntry
	Rules           []htmlRule
	Errors          []string
	// Cut counts the rows left out of each table (htmlMaxRows).
	HostsCut, ServersCut, FindingsCut, DistinctCut int
	Filter                                         htmlFilter
	// WhatIf is the proposal's effect (report --policy), nil without one.
	WhatIf *htmlWhatIf
	// Bundles are the organisation's OPA bundles across the fleet.
	Bundles []FleetBundle
	// Data holds the tables over htmlPageRows, whose rows the script
	// pages; writeHTML streams them between the page and its script.
	Data []htmlTableData
}

type htmlWhatIf struct {
	*WhatIf
	Policy, Headline string
	Changes          []htmlChange
	ChangesCut       int
}

type htmlChange struct {
	WhatIfChange
	Before, After string
}

// htmlHost is a host row: the first reasons it is out of compliance, the
// rest folded, so that a fleet of many hosts stays a table one can scan.
type htmlHost struct {
	FleetHost
	WhyShown, WhyMore []string
}

const htmlWhyShown = 3

func newHTMLHost(h FleetHost) htmlHost {
	out := htmlHost{FleetHost: h, WhyShown: h.Why}
	if len(h.Why) > htmlWhyShown+1 {
		out.WhyShown, out.WhyMore = h.Why[:htmlWhyShown], h.Why[htmlWhyShown:]
	}
	return out
}

type htmlCard struct {
	Label, Value, Class string
}

type htmlChart struct {
	Title string
	Bars  []htmlBar
	// Height of the SVG: one row per bar.
	Height int
}

type htmlBar struct {
	// Label fits the chart; Full is the whole text, as a tooltip.
	Label, Full, Class string
	Value, Width       int
	Y                  int
}

type htmlServer struct {
	FleetServer
	Target   string
	Findings int
}

// htmlIntrospected is one server's introspection for the page.
type htmlIntrospected struct {
	Host, User, Client, Name string
	*Introspection
	// ToolNames lists the tools the server offers.
	ToolNames []string
	// Server is serverInfo's name and version.
	Server string
}

type htmlFinding struct {
	FleetFinding
	Server   string
	Client   string
	Status   string
	User     string
	Fix      string
	Evidence []htmlEvidence
}

type htmlEvidence struct {
	Key, Value, Decoded string
}

type htmlRule struct {
	RuleCount
	Title, Fix string
}

type htmlFilter struct {
	Hosts, Users, Clients, Statuses, Rules []string
}

func writeHTML(w io.Writer, f *Fleet, fleet bool) error {
	t, err := template.New("report").Funcs(template.FuncMap{
		"visible": visible,
		"lower":   strings.ToLower,
		"join":    strings.Join,
		"add":     func(a, b int) int { return a + b },
		"when":    HumanTime,
	}).Parse(htmlTemplate)
	if err != nil {
		return fmt.Errorf("html template: %w", err)
	}
	v := htmlView{htmlAssets: newHTMLAssets(), Fleet: fleet, GeneratedAt: f.GeneratedAt, Tool: f.Tool, Summary: f.Summary, Errors: []string{}}
	for _, h := range f.Hosts {
		if len(v.Hosts) == htmlMaxRows {
			v.HostsCut++
			continue
		}
		v.Hosts = append(v.Hosts, newHTMLHost(h))
	}
	v.pageable("hosts", len(f.Hosts), func(i int, r *htmlRow) {
		h := &f.Hosts[i]
		why := make([]string, len(h.Why))
		for i, w := range h.Why {
			why[i] = visible(w)
		}
		r[0] = append(r[0], cellStr(h.Key), cellStr(h.User), htmlCell{}, htmlCell{}, htmlCell{})
		r[1] = append(r[1], cellSameOrVisible(h.Key), cellStr(visible(h.OS)), cellStr(visible(HumanTime(h.GeneratedAt))), cellNum(h.Summary.Servers),
			cellNum(h.NotAllowed), cellNum(h.Summary.Findings.Error), cellNum(h.Summary.Findings.Warning), cellFlag(h.Compliant),
			cellFlag(h.Stale), cellList(why), cellStr(visible(strings.Join(h.BundlesBehind, ", "))))
	}, nil, 0, 1, 2, 10)
	v.Title = "mcpguard fleet report"
	if !fleet && len(f.Hosts) == 1 {
		v.Host = f.Hosts[0]
		v.Title = "mcpguard report: " + visible(f.Hosts[0].Hostname)
	}
	s := f.Summary
	if fleet {
		v.Cards = append(v.Cards, htmlCard{"Hosts", fmt.Sprint(s.Hosts), ""},
			htmlCard{"Out of compliance", fmt.Sprint(s.HostsOutOfCompliance), classIf(s.HostsOutOfCompliance > 0, "bad")})
		if s.StaleHosts > 0 {
			v.Cards = append(v.Cards, htmlCard{"Stale reports", fmt.Sprint(s.StaleHosts), "warn"})
		}
	}
	v.Cards = append(v.Cards, htmlCard{"Servers", fmt.Sprint(s.Servers), ""},
		htmlCard{"Not allowed", fmt.Sprint(s.NotAllowed), classIf(s.NotAllowed > 0, "bad")},
		htmlCard{"Errors", fmt.Sprint(s.Findings.Error), classIf(s.Findings.Error > 0, "bad")},
		htmlCard{"Warnings", fmt.Sprint(s.Findings.Warning), classIf(s.Findings.Warning > 0, "warn")},
		htmlCard{"Notes", fmt.Sprint(s.Findings.Note), ""})
	if s.Errors > 0 {
		v.Cards = append(v.Cards, htmlCard{"Unreadable inputs", fmt.Sprint(s.Errors), "bad"})
	}

	byClient, byStatus := map[string]int{}, map[string]int{}
	servers := newServerIndex(f.Servers)
	// The filters' values. Consecutive servers mostly share a host and a
	// user: a value is looked up only when it differs from the server
	// before's.
	hosts, users, clients, statuses, rules := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	var prev *FleetServer
	target := func(sv *FleetServer) string {
		if sv.Transport == "stdio" {
			return strings.Join(append([]string{sv.Command}, sv.Args...), " ")
		}
		return sv.URL
	}
	for i := range f.Servers {
		sv := &f.Servers[i]
		byClient[sv.Client]++
		byStatus[string(sv.Status)]++
		if prev == nil || sv.Host != prev.Host {
			hosts[sv.Host] = true
		}
		if prev == nil || sv.User != prev.User {
			users[sv.User] = true
		}
		if prev == nil || sv.Client != prev.Client {
			clients[sv.Client] = true
		}
		if prev == nil || sv.Status != prev.Status {
			statuses[string(sv.Status)] = true
		}
		prev = sv
		if len(v.Servers) == htmlMaxRows {
			v.ServersCut++
			continue
		}
		v.Servers = append(v.Servers, htmlServer{FleetServer: *sv, Target: target(sv), Findings: len(sv.FindingIDs)})
	}
	for i := range f.Servers {
		sv := &f.Servers[i]
		in := sv.Introspection
		if in == nil {
			continue
		}
		if len(v.Introspected) == htmlMaxRows {
			v.IntrospectedCut++
			continue
		}
		hi := htmlIntrospected{Host: sv.Host, User: sv.User, Client: sv.Client, Name: sv.Name, Introspection: in}
		for _, t := range in.Tools {
			hi.ToolNames = append(hi.ToolNames, t.Name)
		}
		_, _, _, hi.Server, _ = in.summaryCells()
		v.Introspected = append(v.Introspected, hi)
	}
	v.pageable("servers", len(f.Servers), func(i int, r *htmlRow) {
		sv := &f.Servers[i]
		r[0] = append(r[0], cellStr(sv.Host), cellStr(sv.User), cellStr(sv.Client), cellStr(string(sv.Status)), htmlCell{})
		r[1] = append(r[1], cellSameOrVisible(sv.Host), cellSameOrVisible(sv.User), cellSameOrVisible(sv.Client), cellStr(visible(sv.Scope)),
			cellStr(visible(sv.Name)), cellFlag(sv.Decision.Allowed), cellStr(visible(strings.Join(sv.Decision.Reasons, ", "))),
			cellStr(visible(target(sv))), cellNum(len(sv.FindingIDs)), cellStr(visible(sv.Source.String())))
	}, nil, 0, 1, 2, 3, 4, 6, 7)
	finding := func(fd FleetFinding) htmlFinding {
		hf := htmlFinding{FleetFinding: fd, Evidence: evidenceRows(fd.Evidence)}
		if sv := servers.find(fd.Host, fd.ServerID); sv != nil {
			hf.Server, hf.Client, hf.Status, hf.User = sv.Name, sv.Client, string(sv.Status), sv.User
		}
		if rule, ok := LookupRule(fd.Rule); ok {
			hf.Fix = rule.Fix
		}
		return hf
	}
	for i, fd := range f.Findings {
		if i == 0 || fd.Rule != f.Findings[i-1].Rule {
			rules[fd.Rule] = true
		}
	}
	// People read the errors first (the data rows of a long list too).
	order := SeverityOrder(len(f.Findings), func(i int) Severity { return f.Findings[i].Severity })
	for _, i := range order {
		fd := f.Findings[i]
		if len(v.Findings) == htmlMaxRows {
			v.FindingsCut++
			continue
		}
		v.Findings = append(v.Findings, finding(fd))
	}
	fixes := map[string]string{}
	for _, r := range f.Rules {
		if rule, ok := LookupRule(r.Rule); ok {
			fixes[r.Rule] = rule.Fix
		}
	}
	v.pageable("findings", len(f.Findings), func(i int, r *htmlRow) {
		hf := finding(f.Findings[order[i]])
		r[0] = append(r[0], cellStr(hf.Host), cellStr(hf.User), cellStr(hf.Client), cellStr(hf.Status), cellStr(hf.Rule))
		r[1] = append(r[1], cellStr(string(hf.Severity)), cellFlag(hf.Suppressed != nil), cellSameOrVisible(hf.Host), cellStr(visible(hf.Server)),
			cellStr(visible(hf.Message)), evidenceCell(hf.Evidence), cellStr(visible(hf.Location.String())))
	}, fixes, 0, 2, 3, 4)
	for _, d := range f.Distinct {
		if len(v.Distinct) == htmlMaxRows {
			v.DistinctCut++
			continue
		}
		v.Distinct = append(v.Distinct, d)
	}
	v.pageable("distinct", len(f.Distinct), func(i int, r *htmlRow) {
		d := &f.Distinct[i]
		r[0] = append(r[0], htmlCell{}, htmlCell{}, htmlCell{}, htmlCell{}, htmlCell{})
		r[1] = append(r[1], cellNum(d.Hosts), cellNum(d.Users), cellNum(d.Allowed), cellNum(d.NotAllowed),
			cellStr(visible(strings.Join(d.Names, ", "))), cellStr(visible(strings.Join(d.Clients, ", "))), cellStr(visible(d.Key)))
	}, nil, 4, 5)
	for _, r := range f.Rules {
		hr := htmlRule{RuleCount: r}
		if rule, ok := LookupRule(r.Rule); ok {
			hr.Title, hr.Fix = rule.Title, rule.Fix
		}
		v.Rules = append(v.Rules, hr)
	}
	for _, e := range f.Errors {
		v.Errors = append(v.Errors, e.Error())
	}
	v.Bundles = f.Bundles
	if w := f.WhatIf; w != nil {
		hw := &htmlWhatIf{WhatIf: w, Policy: policyPaths(w), Headline: whatIfHeadline(w)}
		for _, c := range w.Changes {
			if len(hw.Changes) == htmlMaxRows {
				hw.ChangesCut++
				continue
			}
			hw.Changes = append(hw.Changes, htmlChange{WhatIfChange: c, Before: verdictText(c.Before), After: verdictText(c.After)})
		}
		v.pageable("what-if-changes", len(w.Changes), func(i int, r *htmlRow) {
			c := &w.Changes[i]
			r[0] = append(r[0], cellStr(c.Host), cellStr(c.User), cellStr(c.Client), htmlCell{}, htmlCell{})
			r[1] = append(r[1], cellSameOrVisible(c.Host), cellSameOrVisible(c.Client), cellStr(visible(c.Name)), cellStr(c.Effect),
				cellStr(visible(verdictText(c.Before))), cellStr(visible(verdictText(c.After))), cellStr(visible(c.Launch)))
		}, nil, 0, 1, 2, 3, 4, 5, 6)
		v.WhatIf = hw
		v.Cards = append(v.Cards, htmlCard{"What if: servers lost", fmt.Sprint(w.Summary.Lose), classIf(w.Summary.Lose > 0, "warn")},
			htmlCard{"What if: hosts losing", fmt.Sprint(w.Summary.HostsLosing), classIf(w.Summary.HostsLosing > 0, "warn")},
			htmlCard{"What if: servers gained", fmt.Sprint(w.Summary.Gain), ""})
	}
	v.Filter = htmlFilter{Hosts: sortedKeys(hosts), Users: sortedKeys(users), Clients: sortedKeys(clients),
		Statuses: sortedKeys(statuses), Rules: sortedKeys(rules)}

	v.Charts = append(v.Charts, barChart("Servers by client", byClient, nil, 12))
	v.Charts = append(v.Charts, barChart("Servers by status", byStatus, func(k string) string { return "st-" + k }, 12))
	ruleCounts := map[string]int{}
	ruleClass := map[string]string{}
	for _, r := range f.Rules {
		ruleCounts[r.Rule] = r.Findings
		ruleClass[r.Rule] = "sev-" + string(r.Severity)
	}
	if len(ruleCounts) > 0 {
		v.Charts = append(v.Charts, barChart("Findings by rule", ruleCounts, func(k string) string { return ruleClass[k] }, 12))
	}
	if fleet {
		common := map[string]int{}
		for i, d := range f.Distinct {
			if i == 10 {
				break
			}
			common[strings.Join(d.Names, ", ")+": "+d.Key] = d.Hosts
		}
		v.Charts = append(v.Charts, barChart("Most common servers (hosts)", common, nil, 10))
	}
	// The template writes many small pieces: buffer them, or a large
	// fleet's page costs a system call per cell.
	bw := bufio.NewWriterSize(w, 256<<10)
	if len(v.Data) == 0 {
		if err := t.ExecuteTemplate(bw, "page", v); err != nil {
			return err
		}
	} else {
		// The page's markup (html/template, on one core: a tenth of a
		// large fleet's page) is made while the data blocks that follow it
		// are encoded on the others; what they write before the markup is
		// done waits in memory.
		page := &afterPage{w: bw, done: make(chan error, 1)}
		go func() { page.done <- t.ExecuteTemplate(&page.markup, "page", v) }()
		for _, d := range v.Data {
			if err := d.write(page); err != nil {
				page.finish() // the template reads v: let it end first
				return err
			}
		}
		if err := page.finish(); err != nil {
			return err
		}
	}
	if err := t.ExecuteTemplate(bw, "tail", v); err != nil {
		return err
	}
	return bw.Flush()
}

// afterPage writes the page's markup, once it is made, then what was
// written to it: held in memory until the markup is done, passed through
// after.
type afterPage struct {
	w       io.Writer
	done    chan error // the markup's template result
	markup  bytes.Buffer
	held    bytes.Buffer
	through bool
}

func (a *afterPage) Write(p []byte) (int, error) {
	if !a.through {
		select {
		case err := <-a.done:
			if err := a.flush(err); err != nil {
				return 0, err
			}
		default:
			return a.held.Write(p)
		}
	}
	return a.w.Write(p)
}

// finish waits for the markup and writes what is still held.
func (a *afterPage) finish() error {
	if a.through {
		return nil
	}
	return a.flush(<-a.done)
}

func (a *afterPage) flush(err error) error {
	a.through = true
	if err != nil {
		return err
	}
	if _, err := a.w.Write(a.markup.Bytes()); err != nil {
		return err
	}
	_, err = a.w.Write(a.held.Bytes())
	a.markup, a.held = bytes.Buffer{}, bytes.Buffer{}
	return err
}

// serverIndex finds a finding's server: by its host, then its id there.
type serverIndex struct {
	hosts map[string]int // a host's map in byID
	byID  []map[string]*FleetServer
}

// newServerIndex indexes servers by host and id, the hosts' maps built
// on every core: a page of a large fleet looks up every finding's server
// (its name, client, status, user), and one map of host and id joined was
// a tenth of the page, on one core. A fleet lists each host's servers
// together (Merger.Fleet); a host whose servers are apart still gets one
// map, filled in their order (the last server of an id wins, as before).
func newServerIndex(servers []FleetServer) serverIndex {
	type run struct{ lo, hi int }
	x := serverIndex{hosts: map[string]int{}}
	var groups [][]run
	for lo := 0; lo < len(servers); {
		hi := lo + 1
		for hi < len(servers) && servers[hi].Host == servers[lo].Host {
			hi++
		}
		g, ok := x.hosts[servers[lo].Host]
		if !ok {
			g = len(groups)
			x.hosts[servers[lo].Host] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], run{lo, hi})
		lo = hi
	}
	x.byID = make([]map[string]*FleetServer, len(groups))
	workers := min(runtime.GOMAXPROCS(0), max(len(servers)/fleetRunServers, 1), max(len(groups), 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for g := w * len(groups) / workers; g < (w+1)*len(groups)/workers; g++ {
				n := 0
				for _, r := range groups[g] {
					n += r.hi - r.lo
				}
				m := make(map[string]*FleetServer, n)
				for _, r := range groups[g] {
					for i := r.lo; i < r.hi; i++ {
						m[servers[i].ID] = &servers[i]
					}
				}
				x.byID[g] = m
			}
		})
	}
	wg.Wait()
	return x
}

// find returns the server of host with id, or nil.
func (x serverIndex) find(host, id string) *FleetServer {
	if g, ok := x.hosts[host]; ok {
		return x.byID[g][id]
	}
	return nil
}

func classIf(cond bool, class string) string {
	if cond {
		return class
	}
	return ""
}

// barChart lays out a horizontal bar chart of counts, largest first, at
// most max bars.
func barChart(title string, counts map[string]int, class func(string) string, max int) htmlChart {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if counts[keys[i]] != counts[keys[j]] {
			return counts[keys[i]] > counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > max {
		keys = keys[:max]
	}
	top := 1
	for _, k := range keys {
		if counts[k] > top {
			top = counts[k]
		}
	}
	c := htmlChart{Title: title}
	for i, k := range keys {
		b := htmlBar{Label: visible(clip(k, 34)), Full: visible(k), Value: counts[k], Width: 4 + counts[k]*230/top, Y: i * 22}
		if class != nil {
			b.Class = class(k)
		}
		c.Bars = append(c.Bars, b)
	}
	c.Height = len(keys)*22 + 4
	return c
}

// evidenceRows lists a finding's evidence, values made visible; a value
// holding hidden characters also gets its decoded form (tag characters as
// the ASCII they encode).
// evidenceCell is a finding's evidence as the findings data shows it: a
// list of [key, value, decoded] lists.
func evidenceCell(ev []htmlEvidence) htmlCell {
	if len(ev) == 0 {
		return htmlCell{kind: cellRaw, s: "[]"}
	}
	b := []byte{'['}
	for i, e := range ev {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCellsJSON(b, []htmlCell{cellStr(e.Key), cellStr(e.Value), cellStr(e.Decoded)})
	}
	return htmlCell{kind: cellRaw, s: string(append(b, ']'))}
}

func evidenceRows(ev map[string]any) []htmlEvidence {
	keys := make([]string, 0, len(ev))
	for k := range ev {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []htmlEvidence
	for _, k := range keys {
		val := fmt.Sprint(ev[k])
		if s, ok := ev[k].(string); ok {
			val = s
		}
		row := htmlEvidence{Key: k, Value: visible(clip(val, 400))}
		if dec := decodeTags(val); dec != "" {
			row.Decoded = visible(clip(dec, 400))
		}
		out = append(out, row)
	}
	return out
}

// visible shows every character a reader could not see or that reorders
// the text around it as an escape (\u{200B}), so that hidden instructions
// and Trojan-Source reordering are shown, never obeyed; html/template then
// escapes the result for its context.
func visible(s string) string {
	if printableASCII(s) {
		// Most text, and nothing in it to show: a large fleet page calls
		// this for every cell.
		return s
	}
	return visibleRunes(s)
}

// visibleRunes is visible's general case.
func visibleRunes(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0),
			unicode.Is(unicode.Cf, r), // format: bidi controls, zero-width, tags
			unicode.Is(unicode.Zs, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r),
			r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef, // variation selectors
			r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0 || r == 0x2800, // blank-looking letters
			unicode.Is(unicode.Co, r), unicode.Is(unicode.Cn, r):
			fmt.Fprintf(&b, `\u{%04X}`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// printableASCII reports whether s is only U+0020 to U+007E.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// decodeTags returns the ASCII text that Unicode tag characters
// (U+E0020..U+E007E) in s encode, or "" when there are none.
func decodeTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xe0020 && r <= 0xe007e {
			b.WriteRune(r - 0xe0000)
		}
	}
	return b.String()
}
