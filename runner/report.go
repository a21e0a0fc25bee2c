package runner

import (
	"github.com/mcpguard/mcpguard/internal/chunks"
	"github.com/mcpguard/mcpguard/internal/prefault"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// Meta is what a report says about its own production.
type Meta struct {
	Version     string
	GeneratedAt string // RFC 3339
	Host        reports.Host
}

// BuildReport makes the mcpguard/report/v1 document of a scan result. It
// never carries a secret value: env and header values are not in the
// result's JSON form, and command lines, arguments and URLs are redacted
// here with det (nil builds a detector).
func BuildReport(res *scanner.Result, meta Meta, det *secrets.Detector) *reports.Report {
	if det == nil {
		det = secrets.NewDetector()
	}
	r := &reports.Report{
		Schema:      reports.Schema,
		Tool:        reports.Tool{Name: "mcpguard", Version: meta.Version},
		GeneratedAt: meta.GeneratedAt,
		Host:        meta.Host,
		Policy:      res.Policy,
		Servers:     make([]reports.Server, 0, len(res.Servers)),
		Findings:    res.Findings,
		Errors:      res.Errors,
		Sources:     res.Sources,
	}
	if r.Policy.Sources == nil {
		r.Policy.Sources = []reports.PolicySource{}
	}
	for i := range r.Policy.Sources {
		if src := &r.Policy.Sources[i]; src.Kind == reports.KindShippedRules {
			src.Version = meta.Version // informative: the digest is the revision's part
		}
	}
	if r.Findings == nil {
		r.Findings = []reports.Finding{}
	}
	if r.Errors == nil {
		r.Errors = []reports.FileError{}
	}
	if r.Sources == nil {
		r.Sources = []reports.Source{}
	}
	r.Servers = r.Servers[:len(res.Servers)]
	// Fresh memory, filled while the collection its allocation often
	// starts is marking (prefault.ForWrite): an 11,000-server scan's
	// report took a TLB shootdown per page.
	prefault.ForWrite(r.Servers)
	// A large report on every processor: building it was single-threaded
	// work at the end of every scan (35 ms of an 11,000-server one, most of
	// it the redaction's regexps), and each server's part is its own.
	chunks.Each(len(res.Servers), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r.Servers[i] = reportServer(det, res.Servers[i])
		}
	})
	r.Summary = reports.Summarize(r)
	return r
}

func reportServer(det *secrets.Detector, s *scanner.Server) reports.Server {
	command, args, url := s.Redacted(det)
	out := reports.Server{
		ID:         s.ID,
		Name:       s.Name,
		Client:     s.Client,
		Scope:      s.Scope,
		Project:    s.Project,
		Transport:  s.Transport,
		Command:    command,
		Args:       args,
		URL:        url,
		EnvKeys:    s.EnvKeys,
		HeaderKeys: s.HeaderKeys,
		Source:     s.Source,
		Status:     s.Status,
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
