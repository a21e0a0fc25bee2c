package runner

import (
	"maps"
	"slices"

	"github.com/mcpguard/mcpguard/internal/chunks"
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
	// A large report on every processor: each server's part is its own.
	chunks.Each(len(res.Servers), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			r.Servers[i] = reportServer(det, res.Servers[i])
		}
	})
	addDeclaredTools(r, res)
	RedactFindings(det, r.Findings)
	for i := range r.Errors {
		r.Errors[i].Message = det.RedactText(r.Errors[i].Message)
	}
	r.Summary = reports.Summarize(r)
	return r
}

func reportServer(det *secrets.Detector, s *scanner.Server) reports.Server {
	command, args, url := s.Redacted(det)
	out := reports.Server{
		ID:         s.ID,
		Name:       det.RedactText(s.Name), // a token used as a name
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
		Details:    redacted(det, s.Details),
	}
	out.Source.Pointer = det.RedactText(out.Source.Pointer) // it spells the name
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

// RedactFindings hides, in place, what the secret definition calls a
// secret in the free text of findings: messages, pointers and evidence
// quote server names and entries, and a name may be a token (the same
// definition redacts command lines, arguments and URLs: one definition on
// every surface).
func RedactFindings(det *secrets.Detector, list []reports.Finding) {
	chunks.Each(len(list), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f := &list[i]
			f.Message = det.RedactText(f.Message)
			f.Location.Pointer = det.RedactText(f.Location.Pointer)
			f.Evidence = redacted(det, f.Evidence)
		}
	})
}

// redacted is m with every string in it (in nested maps and lists too)
// redacted: m itself when nothing changes, a copy otherwise (evidence and
// details maps may be shared).
func redacted(det *secrets.Detector, m map[string]any) map[string]any {
	out, _ := redactMap(det, m)
	return out
}

func redactMap(det *secrets.Detector, m map[string]any) (map[string]any, bool) {
	var out map[string]any
	for k, v := range m {
		r, changed := redactValue(det, v)
		if !changed {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		out[k] = r
	}
	if out == nil {
		return m, false
	}
	return out, true
}

func redactValue(det *secrets.Detector, v any) (any, bool) {
	switch x := v.(type) {
	case string:
		r := det.RedactText(x)
		return r, r != x
	case []string:
		var out []string
		for i, s := range x {
			if r := det.RedactText(s); r != s {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = r
			}
		}
		return out, out != nil
	case []any:
		var out []any
		for i, e := range x {
			if r, changed := redactValue(det, e); changed {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = r
			}
		}
		return out, out != nil
	case map[string]any:
		return redactMap(det, x)
	}
	return v, false
}
