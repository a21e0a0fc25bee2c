package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/toolcheck"
)

// StdinPath is how standard input is named in reports.
const StdinPath = "<stdin>"

// ToolsOptions configure the analysis of saved tools/list results.
type ToolsOptions struct {
	// Files are the documents; "-" is Stdin, which may be given once.
	Files []string
	Stdin io.Reader
	// Name names the server of every file; "" names each by its file.
	Name string
	// IDE applies the IDE allowlist (MCPG-I001); Name "ide" implies it.
	IDE bool
	// Policies are custom .rego files or directories whose tool_deny and
	// tool_warn rules judge each tool.
	Policies []string
	Print    io.Writer
	Meta     Meta
}

// ToolsResult is the analysis of saved tools/list results.
type ToolsResult struct {
	// Report holds every finding and error (no servers).
	Report *reports.Report
	// Lists are the analyses of the tools lists of the documents that
	// parsed, in order (a document with only prompts or resources has
	// none).
	Lists []*toolcheck.Report
	// Catalogs are the analyses of every document that parsed, in order:
	// its tools, prompts, resource templates and resources.
	Catalogs []*toolcheck.Catalog
	// Inputs are the documents that could be read, in order.
	Inputs []ToolsInput
}

// ToolsInput is one document that was read.
type ToolsInput struct {
	Path string // as shown in locations: the argument, or StdinPath
	Data []byte
}

// Tools analyses saved tools/list documents (and prompts/list,
// resources/templates/list and resources/list results, or captures of
// several: toolcheck.AnalyzeCatalog) one server each, then compares
// the servers with each other. Its error is a usage problem (stdin twice)
// or a policy that does not compile; unreadable and malformed documents
// are Report.Errors entries.
func Tools(ctx context.Context, opts ToolsOptions) (*ToolsResult, error) {
	// Without custom rules the tools policy is compiled only if an IDE
	// server needs it (toolcheck.Analyze does that).
	var tp *policy.ToolsPolicy
	if len(opts.Policies) > 0 {
		var err error
		if tp, err = policy.NewToolsPolicy(ctx, policy.ToolsPolicyOptions{Paths: opts.Policies, Print: opts.Print}); err != nil {
			return nil, fmt.Errorf("load policy: %w", err)
		}
	}
	out := &ToolsResult{}
	var fileErrs []reports.FileError
	var sources []reports.Source
	stdinUsed := false
	for _, p := range opts.Files {
		in := ToolsInput{Path: p}
		var err error
		if p == "-" {
			if stdinUsed {
				return nil, errors.New(`"-" (standard input) given twice`)
			}
			stdinUsed = true
			in.Path = StdinPath
			in.Data, err = io.ReadAll(opts.Stdin)
		} else {
			in.Data, err = os.ReadFile(p)
		}
		sources = append(sources, reports.Source{Path: in.Path, Kind: "tools-list"})
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			fileErrs = append(fileErrs, reports.FileError{Path: in.Path, Message: err.Error()})
			continue
		}
		out.Inputs = append(out.Inputs, in)
	}
	var findings []reports.Finding
	for _, in := range out.Inputs {
		name := opts.Name
		if name == "" {
			name = serverNameFromPath(in.Path)
		}
		cat, err := toolcheck.AnalyzeCatalog(in.Data, toolcheck.Options{Path: in.Path, Server: name, IDE: opts.IDE || opts.Name == "ide", Policy: tp})
		if err != nil {
			if fe, ok := toolcheck.AsFileError(err); ok {
				fileErrs = append(fileErrs, *fe)
				continue
			}
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		out.Catalogs = append(out.Catalogs, cat)
		if cat.Tools != nil {
			out.Lists = append(out.Lists, cat.Tools)
		}
		findings = append(findings, cat.Findings...)
	}
	findings = append(findings, toolcheck.Compare(out.Lists)...)
	out.Report = &reports.Report{
		Schema:      reports.Schema,
		Tool:        reports.Tool{Name: "mcpguard", Version: opts.Meta.Version},
		GeneratedAt: opts.Meta.GeneratedAt,
		Host:        opts.Meta.Host,
		Policy:      reports.PolicyInfo{Sources: []reports.PolicySource{}},
		Servers:     []reports.Server{},
		Findings:    findings,
		Errors:      fileErrs,
		Sources:     sources,
	}
	if out.Report.Findings == nil {
		out.Report.Findings = []reports.Finding{}
	}
	if out.Report.Errors == nil {
		out.Report.Errors = []reports.FileError{}
	}
	out.Report.Summary = reports.Summarize(out.Report)
	return out, nil
}

// serverNameFromPath names a file's server: its base name without the
// .json and .tools-list suffixes ("github.tools-list.json" → "github").
func serverNameFromPath(p string) string {
	if p == StdinPath {
		return "stdin"
	}
	b := filepath.Base(p)
	b = strings.TrimSuffix(b, filepath.Ext(b))
	return strings.TrimSuffix(strings.TrimSuffix(b, ".tools-list"), ".tools")
}
