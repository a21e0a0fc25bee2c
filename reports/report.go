package reports

import "strings"

// Schema is the report schema identifier.
const Schema = "mcpguard/report/v1"

// Report is the mcpguard/report/v1 document (docs/report-schema.md).
type Report struct {
	Schema      string      `json:"schema"`
	Tool        Tool        `json:"tool"`
	GeneratedAt string      `json:"generated_at"`
	Host        Host        `json:"host"`
	Policy      PolicyInfo  `json:"policy"`
	Servers     []Server    `json:"servers"`
	Findings    []Finding   `json:"findings"`
	Errors      []FileError `json:"errors"`
	Sources     []Source    `json:"sources"`
	Summary     Summary     `json:"summary"`
}

// Source is one file the scanner read.
type Source struct {
	Path   string `json:"path"`
	Client string `json:"client"`
	Kind   string `json:"kind"` // e.g. "mcp-config", "settings", "managed-settings", "ide-lock"
	Scope  string `json:"scope,omitempty"`
	Error  string `json:"error,omitempty"`
}

// PolicySource is one policy input (SPEC §5 policy.sources[]).
type PolicySource struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Active bool   `json:"active"`
	Error  string `json:"error,omitempty"`
	// Revision is an OPA bundle's revision (its manifest's), for sources
	// of kind "opa-bundle" and the settings documents they hold.
	Revision string `json:"revision,omitempty"`
	// Digest names the source's contents ("sha256:" and hex): a file's
	// bytes, a bundle document's, the shipped rules' Rego sources.
	Digest string `json:"digest,omitempty"`
	// Version is the mcpguard version whose shipped rules judged, for the
	// source of kind "shipped-rules".
	Version string `json:"version,omitempty"`
}

// Kinds of policy sources that are rules rather than settings files.
const (
	// KindShippedRules is mcpguard's own Rego (Claude Code's verdict, the
	// policy, weakness and hygiene rules), path "builtin:mcpguard".
	KindShippedRules = "shipped-rules"
	// KindRego is a custom Rego file (--policy FILE.rego or DIR).
	KindRego = "rego"
)

// PolicyInfo is the report's policy block.
type PolicyInfo struct {
	Sources  []PolicySource `json:"sources"`
	Revision string         `json:"revision"`
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
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Client     string         `json:"client"`
	Scope      string         `json:"scope"`
	Project    string         `json:"project"`
	Transport  string         `json:"transport"`
	Command    string         `json:"command"`
	Args       []string       `json:"args"`
	URL        string         `json:"url"`
	EnvKeys    []string       `json:"env_keys"`
	HeaderKeys []string       `json:"header_keys"`
	Source     Location       `json:"source"`
	Status     Status         `json:"status"`
	Decision   Decision       `json:"decision"`
	FindingIDs []string       `json:"finding_ids"`
	Details    map[string]any `json:"details,omitempty"`
	// User owns the server when one inventory covers several users (the
	// daemon's --all-users); empty otherwise and for machine-wide servers.
	User string `json:"user,omitempty"`
	// Introspection is what `scan --introspect` learned from the running
	// server; nil when the scan did not introspect.
	Introspection *Introspection `json:"introspection,omitempty"`
}

// Summary counts servers and findings.
type Summary struct {
	Servers int `json:"servers"`
	Allowed int `json:"allowed"`
	Blocked int `json:"blocked"`
	// NotAllowedRunning counts the servers their client loads (Loaded)
	// although the policy does not allow them: the violations to act on.
	NotAllowedRunning int            `json:"not_allowed_running"`
	ByStatus          map[string]int `json:"by_status"`
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

// Summarize counts the servers and findings of r.
func Summarize(r *Report) Summary {
	sum := Summary{Servers: len(r.Servers), ByStatus: map[string]int{}, Errors: len(r.Errors)}
	for _, s := range r.Servers {
		sum.ByStatus[string(s.Status)]++
		if s.Status == StatusBlocked {
			sum.Blocked++
		}
		if s.Decision.Allowed {
			sum.Allowed++
		} else if s.Status.Loaded() {
			sum.NotAllowedRunning++
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

func (c *SeverityCount) add(s Severity) {
	switch s {
	case SeverityError:
		c.Error++
	case SeverityWarning:
		c.Warning++
	case SeverityNote:
		c.Note++
	}
}

// SortServers orders servers for display: client, scope, project, name.
func SortServers(list []Server) {
	sortStable(list, func(a, b *Server) int {
		if c := strings.Compare(a.Client, b.Client); c != 0 {
			return c
		}
		if c := strings.Compare(a.Scope, b.Scope); c != 0 {
			return c
		}
		if c := strings.Compare(a.Project, b.Project); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
