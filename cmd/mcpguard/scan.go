package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// ScanOptions are the flags of `mcpguard scan`.
type ScanOptions struct {
	Paths      []string
	Home       string
	ManagedDir string
	Project    string
	Format     string
	Output     string
	FailOn     string
	// Policies are --policy paths: .rego files or directories of them, or JSON
	// files shaped like managed-settings.json.
	Policies []string
	// homeSet and managedSet record explicit flags: in path mode the machine's
	// home and managed directory are read only when asked for.
	homeSet, managedSet bool
}

const scanLong = `Scan MCP server configurations.

Without PATH, scan the whole machine: every supported client's per-user files
under --home, Claude Code's managed directory, and every project that
~/.claude.json knows plus --project. Claude Code's effective server set is
resolved for --project.

With PATH (files or directories), scan only those files: the pre-commit and
CI mode. A directory means the MCP configuration files it holds (.mcp.json,
.claude/settings*.json, .cursor/mcp.json, .vscode/mcp.json, .gemini/settings.json,
.codex/config.toml, .zed/settings.json, ...).`

const scanExample = `  mcpguard scan
  mcpguard scan --format json --output report.json
  mcpguard scan .mcp.json .cursor/mcp.json
  mcpguard scan --home testdata/demo/home --managed-dir testdata/demo/managed --project testdata/demo/project`

func newScanCmd(env environment) *cobra.Command {
	opts := &ScanOptions{}
	cmd := &cobra.Command{
		Use:     "scan [PATH...]",
		Short:   "Scan MCP configurations and report servers, findings and errors",
		Long:    scanLong,
		Example: scanExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.homeSet = cmd.Flags().Changed("home")
			opts.managedSet = cmd.Flags().Changed("managed-dir")
			return runScan(cmd, env, opts)
		},
	}
	home, _ := env.home()
	cwd, _ := env.getwd()
	f := cmd.Flags()
	f.StringVar(&opts.Home, "home", home, "home directory whose per-user client files are scanned")
	f.StringVar(&opts.ManagedDir, "managed-dir", managed.DefaultDir(env.goos), "Claude Code managed settings directory")
	f.StringVar(&opts.Project, "project", cwd, "project whose Claude Code view is resolved")
	f.StringVar(&opts.Format, "format", "text", "output format: "+formatList())
	f.StringVarP(&opts.Output, "output", "o", "", "write the report to FILE instead of stdout")
	f.StringVar(&opts.FailOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, note, never")
	f.StringArrayVar(&opts.Policies, "policy", nil, "organisation policy: a .rego file or directory, or a JSON file shaped like managed-settings.json (repeatable)")
	return cmd
}

func formatList() string {
	var names []string
	for _, f := range reports.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

func runScan(cmd *cobra.Command, env environment, opts *ScanOptions) error {
	format, err := reports.ParseFormat(opts.Format)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	failRank, err := policy.ParseSeverity(opts.FailOn)
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("--fail-on: %w", err)}
	}
	cwd, _ := env.getwd()
	sopts := scanner.Options{
		WorkDir:    cwd,
		Home:       opts.Home,
		ManagedDir: absOrEmpty(opts.ManagedDir),
		Project:    absOrEmpty(opts.Project),
		Paths:      opts.Paths,
		LookupEnv:  env.lookupEnv,
		GOOS:       env.goos,
	}
	if sopts.Home != "" {
		sopts.Home = absOrEmpty(sopts.Home)
	}
	if !opts.homeSet {
		// CLAUDE_CONFIG_DIR relocates the real home's Claude files; a rebased
		// --home is scanned as it is.
		if d, ok := env.lookupEnv("CLAUDE_CONFIG_DIR"); ok && d != "" {
			sopts.ClaudeConfigDir = d
		}
	}
	if len(opts.Paths) > 0 {
		if !opts.homeSet {
			sopts.Home, sopts.ClaudeConfigDir = "", ""
		}
		if !opts.managedSet {
			sopts.ManagedDir = ""
		}
	}
	regoPaths, jsonPaths := splitPolicies(opts.Policies)
	// Compile the policies while the scan reads the configuration files.
	engine := policy.StartEngine(cmd.Context(), policy.EngineOptions{Paths: regoPaths, Print: cmd.ErrOrStderr()})
	if len(regoPaths) > 0 {
		// A custom policy that does not compile stops here, before any scan.
		if err := engine.Err(); err != nil {
			return &exitCodeError{code: exitError, err: fmt.Errorf("load policy: %w", err)}
		}
	}
	det := secrets.NewDetector()
	sopts.Policy, sopts.PolicyFiles, sopts.Secrets = engine, jsonPaths, det
	res, err := scanner.Scan(cmd.Context(), sopts)
	if err == nil {
		if cerr := engine.Err(); cerr != nil {
			err = fmt.Errorf("load policy: %w", cerr)
		}
	}
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("scan: %w", err)}
	}
	host, _ := env.hostname()
	rep := reports.Build(res, reports.Meta{
		Secrets:     det,
		Version:     env.version,
		GeneratedAt: env.now().UTC().Format(time.RFC3339),
		Host:        reports.Host{Hostname: host, OS: env.goos, User: env.username()},
	})
	if err := writeReport(cmd.OutOrStdout(), env, opts.Output, format, rep); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	for _, e := range res.Errors {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: %s\n", e.Error())
	}
	switch {
	case len(res.Errors) > 0:
		return &exitCodeError{code: exitError}
	case policy.MaxSeverityRank(res.Findings) >= failRank:
		return &exitCodeError{code: exitFindings}
	}
	return nil
}

// writeReport renders to stdout or to a file written atomically (a temporary
// file renamed into place), so a reader never sees half a report.
func writeReport(stdout io.Writer, env environment, output string, format reports.Format, rep *reports.Report) error {
	if output == "" || output == "-" {
		return reports.Render(stdout, format, rep, reports.Options{Color: format == reports.FormatText && env.isTTY(stdout) && !noColor(env)})
	}
	dir := filepath.Dir(output)
	tmp, err := os.CreateTemp(dir, ".mcpguard-report-*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := reports.Render(tmp, format, rep, reports.Options{}); err != nil {
		tmp.Close()
		return fmt.Errorf("write report %s: %w", output, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", output, err)
	}
	if err := os.Rename(tmp.Name(), output); err != nil {
		return fmt.Errorf("write report: %w", errors.Unwrap(err))
	}
	return nil
}

// splitPolicies sorts --policy paths into Rego sources (files and directories)
// and JSON policy documents.
func splitPolicies(paths []string) (rego, jsonFiles []string) {
	for _, p := range paths {
		if strings.HasSuffix(strings.ToLower(p), ".json") {
			jsonFiles = append(jsonFiles, p)
		} else {
			rego = append(rego, p)
		}
	}
	return rego, jsonFiles
}

func noColor(env environment) bool {
	_, set := env.lookupEnv("NO_COLOR")
	return set
}

func absOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
