package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
)

// JUnit XML in the shape that Jenkins, GitLab, Azure DevOps and the common
// GitHub test-report actions read: <testsuites> of <testsuite>s of
// <testcase>s with at most one <failure> or <error> each.
//
// One testsuite per configuration file: a file is what a change touches and
// what a developer fixes, each file belongs to one client (so nothing is lost
// by not grouping per client: the testcase classname carries the client), a
// clean file shows as a passing suite, and CI UIs that key test history on
// suite and case names see stable names (no line numbers in them).

type junitTestsuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Hostname   string           `xml:"hostname,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitTestcase  `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestcase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit renders the report as JUnit XML: one testsuite per
// configuration file, one testcase per server (plus one for findings about
// the file itself), a failure for unsuppressed findings at or above
// opts.FailOn, the other findings as system-out, and one error testcase per
// errors[] entry.
func WriteJUnit(w io.Writer, r *Report, opts Options) error {
	doc := buildJUnit(r, opts)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func buildJUnit(r *Report, opts Options) *junitTestsuites {
	failOn := failOnRank(opts.FailOn)
	type caseKey struct{ path, serverID string }
	type suite struct {
		path   string
		client string
		cases  map[caseKey]*junitTestcase
		order  []caseKey
		lines  map[caseKey]int
		errors []junitTestcase
	}
	suites := map[string]*suite{}
	getSuite := func(path string) *suite {
		s := suites[path]
		if s == nil {
			s = &suite{path: path, cases: map[caseKey]*junitTestcase{}, lines: map[caseKey]int{}}
			suites[path] = s
		}
		return s
	}
	display := func(p string) string { return xmlAttr(displayPath(opts.WorkDir, p)) }

	servers := make(map[string]*Server, len(r.Servers))
	for i := range r.Servers {
		sv := &r.Servers[i]
		servers[sv.ID] = sv
		s := getSuite(sv.Source.Path)
		if s.client == "" {
			s.client = sv.Client
		}
		k := caseKey{sv.Source.Path, sv.ID}
		if _, ok := s.cases[k]; ok {
			continue
		}
		name := sv.Scope + "/" + sv.Name
		if p := displayPath(opts.WorkDir, sv.Project); p != "" && p != "." {
			// Local- and project-scope servers of another project than the
			// one scanned (a machine scan reads every project ~/.claude.json
			// knows).
			name += " (" + p + ")"
		}
		s.cases[k] = &junitTestcase{
			Name:      xmlAttr(name),
			Classname: xmlAttr("mcpguard." + sv.Client),
			File:      display(sv.Source.Path),
			Line:      sv.Source.Line,
			Time:      "0",
		}
		s.order = append(s.order, k)
		s.lines[k] = sv.Source.Line
	}

	type outcome struct{ fail, out []string }
	outcomes := map[*junitTestcase]*outcome{}
	firstRule := map[*junitTestcase][]string{}
	for _, f := range r.Findings {
		var tc *junitTestcase
		if sv := servers[f.ServerID]; sv != nil {
			tc = suites[sv.Source.Path].cases[caseKey{sv.Source.Path, sv.ID}]
		} else {
			// A finding about a file (a policy file, a settings file) rather
			// than one server.
			s := getSuite(f.Location.Path)
			k := caseKey{f.Location.Path, ""}
			tc = s.cases[k]
			if tc == nil {
				tc = &junitTestcase{Name: "(file)", Classname: "mcpguard.file", File: display(f.Location.Path), Time: "0"}
				s.cases[k] = tc
				s.order = append(s.order, k)
			}
		}
		o := outcomes[tc]
		if o == nil {
			o = &outcome{}
			outcomes[tc] = o
		}
		// One line per finding, whatever the message holds: a newline in a
		// hostile message cannot forge another finding's line.
		line := oneLine(fmt.Sprintf("%s %s %s: %s [%s]", f.Severity, f.Rule,
			displayLocation(opts.WorkDir, f.Location.Path, f.Location.Line, f.Location.Column)+introspectedAt(f), f.Message, f.ID))
		switch {
		case f.Suppressed != nil:
			o.out = append(o.out, line+oneLine(" (suppressed by "+f.Suppressed.Kind+": "+f.Suppressed.Justification+")"))
		case f.Severity.Rank() >= failOn:
			o.fail = append(o.fail, line)
			firstRule[tc] = append(firstRule[tc], f.Rule)
		default:
			o.out = append(o.out, line)
		}
	}
	for tc, o := range outcomes {
		if len(o.fail) > 0 {
			rules := uniqueStrings(firstRule[tc])
			tc.Failure = &junitProblem{
				Message: xmlAttr(fmt.Sprintf("%s at or above %s: %s", plural(len(o.fail), "finding"), failOnName(failOn), strings.Join(rules, ", "))),
				Type:    xmlAttr(rules[0]),
				Text:    xmlText(strings.Join(o.fail, "\n")),
			}
		}
		if len(o.out) > 0 {
			tc.SystemOut = xmlText(strings.Join(o.out, "\n"))
		}
	}

	perPath := map[string]int{}
	for _, e := range r.Errors {
		perPath[e.Path]++
	}
	seen := map[string]int{}
	for _, e := range r.Errors {
		s := getSuite(e.Path)
		seen[e.Path]++
		name := "(input error)"
		if perPath[e.Path] > 1 {
			name = fmt.Sprintf("(input error %d)", seen[e.Path])
		}
		s.errors = append(s.errors, junitTestcase{
			Name:      name,
			Classname: "mcpguard.input",
			File:      display(e.Path),
			Line:      e.Line,
			Time:      "0",
			Error: &junitProblem{
				Message: xmlAttr(e.Message),
				Type:    "input-error",
				Text:    oneLine(displayLocation(opts.WorkDir, e.Path, e.Line, e.Column) + ": " + e.Message),
			},
		})
	}

	paths := make([]string, 0, len(suites))
	for p := range suites {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	doc := &junitTestsuites{Name: "mcpguard", Time: "0", Suites: make([]junitTestsuite, 0, len(paths))}
	for _, p := range paths {
		s := suites[p]
		// Servers in source order, the file-level case last.
		sort.SliceStable(s.order, func(i, j int) bool {
			a, b := s.order[i], s.order[j]
			if (a.serverID == "") != (b.serverID == "") {
				return b.serverID == ""
			}
			return s.lines[a] < s.lines[b]
		})
		ts := junitTestsuite{
			Name:      display(p),
			Time:      "0",
			Timestamp: junitTimestamp(r.GeneratedAt),
			Hostname:  xmlAttr(r.Host.Hostname),
		}
		if s.client != "" {
			ts.Properties = &junitProperties{Property: []junitProperty{{Name: "client", Value: xmlAttr(s.client)}}}
		}
		for _, k := range s.order {
			tc := s.cases[k]
			ts.Cases = append(ts.Cases, *tc)
			if tc.Failure != nil {
				ts.Failures++
			}
		}
		ts.Cases = append(ts.Cases, s.errors...)
		ts.Errors = len(s.errors)
		ts.Tests = len(ts.Cases)
		doc.Suites = append(doc.Suites, ts)
		doc.Tests += ts.Tests
		doc.Failures += ts.Failures
		doc.Errors += ts.Errors
	}
	return doc
}

// junitTimestamp is the JUnit schema's timestamp: ISO 8601 without a zone.
func junitTimestamp(rfc3339 string) string {
	s := strings.TrimSuffix(rfc3339, "Z")
	if len(s) > 19 {
		s = s[:19]
	}
	return s
}

func uniqueStrings(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// xmlAttr makes an attribute value printable: one line, control and bidi
// characters as visible escapes. encoding/xml escapes the markup characters.
func xmlAttr(s string) string { return oneLine(s) }

// xmlText makes character data printable line by line: XML 1.0 cannot carry
// most control characters at all, and a terminal showing the log should not
// obey escape sequences.
func xmlText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = oneLine(l)
	}
	return strings.Join(lines, "\n")
}
