package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
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
array, or a bare array of tools; "-" reads standard input. Each file is one
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

// toolsInput is one read document.
type toolsInput struct {
	path string // as shown in locations: the argument, or <stdin>
	data []byte
}

func runTools(cmd *cobra.Command, env environment, opts *ToolsOptions) error {
	format := reports.Format(opts.Format)
	if opts.Format != "text" {
		var err error
		if format, err = reports.ParseFormat(opts.Format); err != nil {
			return &exitCodeError{code: exitError, err: fmt.Errorf("--format: %w", err)}
		}
	}
	failRank, err := policy.ParseSeverity(opts.FailOn)
	if err != nil {
		return &exitCodeError{code: exitError, err: fmt.Errorf("--fail-on: %w", err)}
	}
	if opts.Sanitize && len(opts.Files) != 1 {
		return &exitCodeError{code: exitError, err: errors.New("--sanitize takes exactly one FILE")}
	}
	// Without custom rules the tools policy is compiled only if an IDE server
	// needs it (AnalyzeTools does that).
	var tp *policy.ToolsPolicy
	if len(opts.Policies) > 0 {
		if tp, err = policy.NewToolsPolicy(cmd.Context(), policy.ToolsPolicyOptions{Paths: opts.Policies, Print: cmd.ErrOrStderr()}); err != nil {
			return &exitCodeError{code: exitError, err: fmt.Errorf("load policy: %w", err)}
		}
	}
	stdinUsed := false
	var inputs []toolsInput
	var fileErrs []policy.FileError
	for _, p := range opts.Files {
		in := toolsInput{path: p}
		if p == "-" {
			if stdinUsed {
				return &exitCodeError{code: exitError, err: errors.New(`"-" (standard input) given twice`)}
			}
			stdinUsed = true
			in.path = "<stdin>"
			in.data, err = io.ReadAll(cmd.InOrStdin())
		} else {
			in.data, err = os.ReadFile(p)
		}
		if err != nil {
			fileErrs = append(fileErrs, policy.FileError{Path: in.path, Message: describeReadError(err)})
			continue
		}
		inputs = append(inputs, in)
	}

	var toolReports []*toolcheck.Report
	var findings []policy.Finding
	nTools := 0
	for _, in := range inputs {
		name := opts.Name
		if name == "" {
			name = serverNameFromPath(in.path)
		}
		rep, err := toolcheck.Analyze(in.data, toolcheck.Options{Path: in.path, Server: name, IDE: opts.IDE || opts.Name == "ide", Policy: tp})
		if err != nil {
			if fe, ok := toolcheck.AsFileError(err); ok {
				fileErrs = append(fileErrs, *fe)
				continue
			}
			return &exitCodeError{code: exitError, err: fmt.Errorf("%s: %w", in.path, err)}
		}
		toolReports = append(toolReports, rep)
		findings = append(findings, rep.Findings...)
		nTools += len(rep.Tools)
	}
	findings = append(findings, toolcheck.Compare(toolReports)...)

	host, _ := env.hostname()
	res := &scanner.Result{Findings: findings, Errors: fileErrs}
	for _, p := range opts.Files {
		if p == "-" {
			p = "<stdin>"
		}
		res.Sources = append(res.Sources, scanner.Source{Path: p, Kind: "tools-list"})
	}
	rep := reports.Build(res, reports.Meta{
		Version:     env.version,
		GeneratedAt: env.now().UTC().Format(time.RFC3339),
		Host:        reports.Host{Hostname: host, OS: env.goos, User: env.username()},
	})
	// Decided once, before rendering, so a SARIF invocation records the code
	// the process exits with.
	code, why := scanExit(rep, failRank, opts.FailOn)

	out := cmd.OutOrStdout()
	var write func(io.Writer) error
	switch {
	case opts.Sanitize:
		if len(inputs) == 1 && len(fileErrs) == 0 {
			clean, _, err := mcpunicode.SanitizeJSON(inputs[0].data)
			if err != nil {
				// AnalyzeTools accepted the document; a disagreement is a bug,
				// reported as malformed input rather than hidden.
				return &exitCodeError{code: exitError, err: fmt.Errorf("%s: sanitize: %w", inputs[0].path, err)}
			}
			write = func(w io.Writer) error { _, err := w.Write(clean); return err }
		}
	case opts.Format == "text":
		color := opts.Output == "" && env.isTTY(out) && !noColor(env)
		write = func(w io.Writer) error {
			return writeToolsText(w, toolReports, findings, fileErrs, nTools, color)
		}
	default:
		cwd, _ := env.getwd()
		ropts := reports.Options{
			FailOn:     failRank,
			WorkDir:    cwd,
			Invocation: &reports.Invocation{ExitCode: code, ExitCodeDescription: why},
		}
		write = func(w io.Writer) error { return reports.Render(w, format, rep, ropts) }
	}
	if write != nil {
		if err := writeOutput(out, opts.Output, write); err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
	}
	for _, e := range fileErrs {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: %s\n", reports.Printable(e.Error()))
	}
	if code != exitOK {
		return &exitCodeError{code: code}
	}
	return nil
}

// describeReadError drops the path an *fs.PathError repeats.
func describeReadError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// serverNameFromPath names a file's server: its base name without the
// .json and .tools-list suffixes ("github.tools-list.json" → "github").
func serverNameFromPath(p string) string {
	if p == "<stdin>" {
		return "stdin"
	}
	b := filepath.Base(p)
	b = strings.TrimSuffix(b, filepath.Ext(b))
	return strings.TrimSuffix(strings.TrimSuffix(b, ".tools-list"), ".tools")
}

// writeOutput writes to stdout, or to a file written atomically (a
// temporary file renamed into place), so a reader never sees half a report.
func writeOutput(stdout io.Writer, output string, write func(io.Writer) error) error {
	if output == "" || output == "-" {
		return write(stdout)
	}
	tmp, err := os.CreateTemp(filepath.Dir(output), ".mcpguard-output-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", output, err)
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", output, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", output, err)
	}
	if err := os.Rename(tmp.Name(), output); err != nil {
		return fmt.Errorf("write %s: %w", output, err)
	}
	return nil
}

// writeToolsText renders findings for people: a summary line, then per
// file its findings with the JSON pointer and any decoded hidden text.
// Everything quoted from the input is made terminal-safe.
func writeToolsText(w io.Writer, reps []*toolcheck.Report, findings []policy.Finding, errs []policy.FileError, nTools int, color bool) error {
	bw := bufio.NewWriter(w)
	var count [4]int
	for _, f := range findings {
		count[f.Severity.Rank()]++
	}
	sev := func(s policy.Severity, text string) string {
		if !color {
			return text
		}
		code := map[policy.Severity]string{policy.SeverityError: "31", policy.SeverityWarning: "33", policy.SeverityNote: "36"}[s]
		return "\x1b[" + code + "m" + text + "\x1b[0m"
	}
	fmt.Fprintf(bw, "mcpguard tools: %s, %s; findings: %s, %s, %s; errors: %d\n",
		plural(len(reps), "file"), plural(nTools, "tool"),
		sev(policy.SeverityError, plural(count[3], "error")), sev(policy.SeverityWarning, plural(count[2], "warning")),
		sev(policy.SeverityNote, plural(count[1], "note")), len(errs))
	byPath := map[string][]policy.Finding{}
	for _, f := range findings {
		byPath[f.Location.Path] = append(byPath[f.Location.Path], f)
	}
	for _, r := range reps {
		fs := byPath[r.Path]
		sort.SliceStable(fs, func(i, j int) bool {
			a, b := fs[i].Location, fs[j].Location
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			if a.Column != b.Column {
				return a.Column < b.Column
			}
			return fs[i].Rule < fs[j].Rule
		})
		fmt.Fprintf(bw, "\n%s (server %s): %s, %s\n", terminalSafe(r.Path), terminalSafe(r.Server), plural(len(r.Tools), "tool"), plural(len(fs), "finding"))
		for _, f := range fs {
			fmt.Fprintf(bw, "  %s %s %s: %s\n", sev(f.Severity, fmt.Sprintf("%-7s", f.Severity)), f.Rule, terminalSafe(f.Location.String()), terminalSafe(f.Message))
			fmt.Fprintf(bw, "          at %s\n", terminalSafe(f.Location.Pointer))
			if d, ok := f.Evidence["decoded"].(string); ok && d != "" {
				fmt.Fprintf(bw, "          decoded: %s\n", terminalSafe(fmt.Sprintf("%q", d)))
			}
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(bw, "\nERRORS\n")
		for _, e := range errs {
			fmt.Fprintf(bw, "%s\n", terminalSafe(e.Error()))
		}
	}
	return bw.Flush()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// terminalSafe escapes what a terminal would act on or hide: controls,
// format characters (bidi, zero-width, tags), private-use and unassigned
// code points, variation selectors and line separators. Text a person
// reads in a report must not be able to rewrite the report.
func terminalSafe(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || r == 0x2028 || r == 0x2029 || r == 0xFFFD ||
			unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Variation_Selector, r) ||
			!unicode.IsGraphic(r) && r != ' ':
			fmt.Fprintf(&b, `\u{%X}`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
