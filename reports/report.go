package reports

import (
	"sort"

	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/scanner"
)

// Schema is the report schema identifier.
const Schema = "mcpguard/report/v1"

// Report is the mcpguard/report/v1 document (docs/report-schema.md).
type Report struct {
	Schema      string             `json:"schema"`
	Tool        Tool               `json:"tool"`
	GeneratedAt string             `json:"generated_at"`
	Host        Host               `json:"host"`
	Policy      scanner.PolicyInfo `json:"policy"`
	Servers     []Server           `json:"servers"`
	Findings    []Finding          `json:"findings"`
	Errors      []policy.FileError `json:"errors"`
	Sources     []scanner.Source   `json:"sources"`
	Summary     Summary            `json:"summary"`
}

// Tool names the producer.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Host identifies the machine a report describes.
type Host struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	User     string `json:"user"`
}

// Server is a server as reported: names of env variables and headers only,
// secrets redacted from the command line and the URL.
type Server struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Client     string          `json:"client"`
	Scope      string          `json:"scope"`
	Project    string          `json:"project"`
	Transport  string          `json:"transport"`
	Command    string          `json:"command"`
	Args       []string        `json:"args"`
	URL        string          `json:"url"`
	EnvKeys    []string        `json:"env_keys"`
	HeaderKeys []string        `json:"header_keys"`
	Source     policy.Location `json:"source"`
	Status     string          `json:"status"`
	Decision   policy.Decision `json:"decision"`
	FindingIDs []string        `json:"finding_ids"`
	Details    map[string]any  `json:"details,omitempty"`
}

// Finding is a finding as reported: the scanner's finding and, when a
// baseline or an ignore file accepted it, why (docs/report-schema.md).
type Finding struct {
	policy.Finding
	// Suppressed is set when the finding is accepted: it is still reported,
	// but never counts toward --fail-on.
	Suppressed *Suppression `json:"suppressed,omitempty"`
}

// Summary counts servers and findings.
type Summary struct {
	Servers  int            `json:"servers"`
	Allowed  int            `json:"allowed"`
	Blocked  int            `json:"blocked"`
	ByStatus map[string]int `json:"by_status"`
	// Findings counts every finding, suppressed ones included.
	Findings SeverityCount `json:"findings"`
	// Suppressed counts the suppressed findings among them; nil when nothing
	// is suppressed.
	Suppressed *SeverityCount `json:"suppressed,omitempty"`
	Errors     int            `json:"errors"`
}

// SeverityCount counts findings per severity.
type SeverityCount struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Note    int `json:"note"`
}

// Meta is what a report says about its own production.
type Meta struct {
	Version     string
	GeneratedAt string // RFC 3339
	Host        Host
	// Secrets redacts command lines and URLs; nil builds one.
	Secrets *secrets.Detector
}

// Build makes the report of a scan result. It never carries a secret value:
// env and header values are not in the result's JSON form, and command lines,
// arguments and URLs are redacted here.
func Build(res *scanner.Result, meta Meta) *Report {
	det := meta.Secrets
	if det == nil {
		det = secrets.NewDetector()
	}
	r := &Report{
		Schema:      Schema,
		Tool:        Tool{Name: "mcpguard", Version: meta.Version},
		GeneratedAt: meta.GeneratedAt,
		Host:        meta.Host,
		Policy:      res.Policy,
		Servers:     make([]Server, 0, len(res.Servers)),
		Findings:    make([]Finding, 0, len(res.Findings)),
		Errors:      res.Errors,
		Sources:     res.Sources,
	}
	if r.Policy.Sources == nil {
		r.Policy.Sources = []scanner.PolicySource{}
	}
	for _, f := range res.Findings {
		r.Findings = append(r.Findings, Finding{Finding: f})
	}
	if r.Errors == nil {
		r.Errors = []policy.FileError{}
	}
	if r.Sources == nil {
		r.Sources = []scanner.Source{}
	}
	for _, s := range res.Servers {
		r.Servers = append(r.Servers, reportServer(det, s))
	}
	r.Summary = summarize(r)
	return r
}

func reportServer(det *secrets.Detector, s *scanner.Server) Server {
	out := Server{
		ID:         s.ID,
		Name:       s.Name,
		Client:     s.Client,
		Scope:      s.Scope,
		Project:    s.Project,
		Transport:  s.Transport,
		Command:    det.RedactText(s.Command),
		Args:       det.RedactArgs(s.Args),
		URL:        det.RedactURL(s.URL),
		EnvKeys:    s.EnvKeys,
		HeaderKeys: s.HeaderKeys,
		Source:     s.Source,
		Status:     string(s.Status),
		Decision:   s.Decision,
		FindingIDs: s.FindingIDs,
		Details:    s.Details,
	}
	if out.Args == nil {
		out.Args = []string{}
	}
	if out.EnvKeys == nil {
		out.EnvKeys = []string{}
	}
	if out.HeaderKeys == nil {
		out.HeaderKeys = []string{}
	}
	if out.FindingIDs == nil {
		out.FindingIDs = []string{}
	}
	if out.Decision.Reasons == nil {
		out.Decision.Reasons = []string{}
	}
	return out
}

func summarize(r *Report) Summary {
	sum := Summary{Servers: len(r.Servers), ByStatus: map[string]int{}, Errors: len(r.Errors)}
	for _, s := range r.Servers {
		sum.ByStatus[s.Status]++
		if s.Status == string(scanner.StatusBlocked) {
			sum.Blocked++
		}
		if s.Decision.Allowed {
			sum.Allowed++
		}
	}
	for _, f := range r.Findings {
		sum.Findings.add(f.Severity)
		if f.Suppressed != nil {
			if sum.Suppressed == nil {
				sum.Suppressed = &SeverityCount{}
			}
			sum.Suppressed.add(f.Severity)
		}
	}
	return sum
}

func (c *SeverityCount) add(s policy.Severity) {
	switch s {
	case policy.SeverityError:
		c.Error++
	case policy.SeverityWarning:
		c.Warning++
	case policy.SeverityNote:
		c.Note++
	}
}

// SortServers orders servers for display: client, scope, project, name.
func SortServers(list []Server) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Client != b.Client {
			return a.Client < b.Client
		}
		if a.Scope != b.Scope {
			return a.Scope < b.Scope
		}
		if a.Project != b.Project {
			return a.Project < b.Project
		}
		return a.Name < b.Name
	})
}
