package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/internal/atomicfile"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/toolcheck"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// ToolsOptions are the flags of `mcpguard tools`.
type ToolsOptions struct {
	// Files are the tools/list documents; "-" is standard input.
	Files  []string
	Format string
	Output string
	FailOn string
	// Sanitize prints the document with hidden characters removed instead
	// of a report.
	Sanitize bool
	// IDE applies the IDE allowlist (MCPG-I001); Name "ide" implies it.
	IDE  bool
	Name string
	// Policies are custom .rego files or directories whose tool_deny and
	// tool_warn rules judge each tool (docs/policies.md).
	Policies []string
}

const toolsLong = `Analyse saved MCP tools/list results: hidden Unicode (MCPG-U001..U007),
hidden instructions and tool poisoning (T001), shadowing of built-in and
other servers' tools (T002), oversized or padded descriptions (T004),
invalid tool names (T005), misleading annotations (A001..A005) and, with
--ide, tools outside the IDE allowlist (I001). --policy adds the
organisation's tool_deny (error) and tool_warn (warning) Rego rules, which
judge each tool definition (docs/policies.md).

Each FILE is a JSON-RPC tools/list response, an object with a "tools"
array, or a bare array of tools; or a prompts/list, resources/templates/list
or resources/list response, or a capture object with any of the "tools",
"prompts", "resourceTemplates" and "resources" arrays: prompts, resource
templates and resources get the same hidden-Unicode and hidden-instruction
rules as tools (T001, T002, T004, U001..U007). "-" reads standard input. Each file is one
server, named by --name or else by the file name; tools of several files
are also compared with each other (the same tool name on two servers, a
description naming another server's tool).

--format json prints the mcpguard/report/v1 document (docs/report-schema.md)
with an empty servers list: every finding's location.path is the file and
location.pointer the JSON pointer of the offending string or key.

--sanitize prints the same JSON with hidden and hostile code points and
terminal escape sequences removed and nothing else changed (whitespace, key
order, numbers and untouched escapes stay as they were). It does not remove
visible poisoning: the exit code still reports the findings (use
--fail-on never in a pipeline).

Exit codes:
  0  nothing at or above --fail-on
  1  findings at or above --fail-on
  2  usage error, unreadable or malformed input (path:line:col)`

const toolsExample = `  mcpguard tools tools.json
  mcpguard tools --format json --output report.json github.json slack.json
  mcpguard tools --name ide ide-tools.json
  mcpguard tools --sanitize --fail-on never --output clean.json tools.json
  some-mcp-client list-tools | mcpguard tools -`

func newToolsCmd(env environment) *cobra.Command {
	opts := &ToolsOptions{}
	cmd := &cobra.Command{
		Use:     "tools FILE...",
		Short:   "Analyse saved tools/list results for poisoning, shadowing and hidden Unicode",
		Long:    toolsLong,
		Example: toolsExample,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runTools(cmd, env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "text", "output format: text, "+strings.TrimPrefix(formatNames(), "text, "))
	f.StringVarP(&opts.Output, "output", "o", "", "write the report (or the sanitized JSON) to FILE instead of stdout")
	f.StringVar(&opts.FailOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, note, never")
	f.BoolVar(&opts.Sanitize, "sanitize", false, "print the JSON with hidden characters and escape sequences removed (one FILE)")
	f.BoolVar(&opts.IDE, "ide", false, "the tools come from an IDE server: only executeCode and getDiagnostics are allowed (MCPG-I001)")
	f.StringVar(&opts.Name, "name", "", `server name of the tools (default: the file name); "ide" implies --ide`)
	f.StringArrayVar(&opts.Policies, "policy", nil, "custom Rego policy file or directory with tool_deny / tool_warn rules (repeatable)")
	return cmd
}

func formatNames() string {
	names := []string{"text"}
	for _, f := range reports.Formats() {
		if f != reports.FormatText {
			names = append(names, string(f))
		}
	}
	return strings.Join(names, ", ")
}

func runTools(cmd *cobra.Command, env environment, opts *ToolsOptions) error {
	format := reports.FormatText
	if opts.Format != "text" {
		var err error
		if format, err = reports.ParseFormat(opts.Format); err != nil {
			return &exitCodeError{code: exitError, err: fmt.Errorf("--format: %w", err)}
		}
	}
	failRank, err := reports.ParseSeverity(opts.FailOn)
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("--fail-on: %w", err)}
	}
	if opts.Sanitize && len(opts.Files) != 1 {
		return &exitCodeError{code: exitError, err: errors.New("--sanitize takes exactly one FILE")}
	}
	res, err := runner.Tools(cmd.Context(), runner.ToolsOptions{
		Files: opts.Files, Stdin: cmd.InOrStdin(), Name: opts.Name, IDE: opts.IDE,
		Policies: opts.Policies, Print: cmd.ErrOrStderr(), Meta: reportMeta(env),
	})
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	rep := res.Report
	out := cmd.OutOrStdout()
	switch {
	case opts.Sanitize:
		if len(res.Inputs) != 1 || len(rep.Errors) != 0 {
			break
		}
		clean, _, err := mcpunicode.SanitizeJSON(res.Inputs[0].Data)
		if err != nil {
			// The analysis accepted the document; a disagreement is a bug,
			// reported as malformed input rather than hidden.
			return &exitCodeError{code: exitError, err: fmt.Errorf("%s: sanitize: %w", res.Inputs[0].Path, err)}
		}
		if err := writeOutput(out, opts.Output, func(w io.Writer) error { _, err := w.Write(clean); return err }); err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
	case format == reports.FormatText:
		lists := make([]reports.ToolList, len(res.Catalogs))
		for i, c := range res.Catalogs {
			lists[i] = reports.ToolList{Path: c.Path, Server: c.Server, Tools: c.Counts(toolcheck.KindTool),
				Prompts: c.Counts(toolcheck.KindPrompt), ResourceTemplates: c.Counts(toolcheck.KindResourceTemplate), Resources: c.Counts(toolcheck.KindResource)}
		}
		color := opts.Output == "" && env.isTTY(out) && !noColor(env)
		if err := writeOutput(out, opts.Output, func(w io.Writer) error {
			return reports.WriteToolsText(w, lists, rep.Findings, rep.Errors, color)
		}); err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
	default:
		return finishReport(cmd, env, rep, nil, format, failRank, opts.FailOn, opts.Output, reports.CSVFindings)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: %s\n", reports.Printable(e.Error()))
	}
	if code, _ := reportExit(rep, failRank, opts.FailOn); code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

// writeOutput writes to stdout, or to a file replaced atomically, so a
// reader never sees half a report (not synced to disk: see below). An
// output that exists and is not a file (/dev/null, /dev/stdout, a named
// pipe) is written as it is: renaming a file over it would replace the
// device (as root) or the pipe a reader waits on. A symbolic link to a
// file keeps pointing to the file, which is replaced.
func writeOutput(stdout io.Writer, output string, write func(io.Writer) error) error {
	if output == "" || output == "-" {
		return write(stdout)
	}
	if fi, err := os.Stat(output); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(output, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", output, err)
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", output, err)
		}
		return nil
	}
	if target, err := filepath.EvalSymlinks(output); err == nil {
		output = target
	}
	// Replaced atomically but not synced: a report can be made again, and
	// waiting for a fleet document of a hundred MB to reach the disk would
	// add a large part of the merge's time for no gain.
	return atomicfile.Write(output, atomicfile.Options{NoSync: true}, write)
}
