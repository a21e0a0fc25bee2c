package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpguard/mcpguard/internal/hugeheap"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// ReportOptions are the flags of `mcpguard report`.
type ReportOptions struct {
	Format  string
	Output  string
	FailOn  string
	MaxAge  time.Duration
	CSVKind string
	// Policies are a proposed policy (.rego files or directories, JSON
	// files shaped like managed-settings.json): every saved server is
	// judged again under it and the fleet report shows the difference.
	Policies []string
	// Inputs are report files, directories of them, or "-" (stdin).
	Inputs []string
}

const reportLong = `Render saved reports (scan --format json, status --format json), or merge
the reports of many machines into one fleet report.

One report is rendered in any format, as scan would have. Several — files,
directories of them (searched recursively for *.json), or - for stdin — are
merged: every host with its newest report (the same hostname and user
reported twice: the later generated_at wins; the older is listed as
superseded), every server with its host and user, and what a security team
asks for: each distinct server (by what it launches, not its name) with how
many hosts and users run it and how the policy judged it, the hosts out of
compliance (a blocked server, or an unsuppressed error), findings by rule.
A host whose report is older than --max-age is marked stale. A file that is
not a report is an error entry (path:line:col) and the rest is merged.

What if: --policy judges every saved server again under a proposed policy
(the same kinds of files as scan --policy; its lists stand for the
organisation's managed settings) and the fleet report adds what would
change: which hosts lose or gain which servers, which distinct servers are
affected, what Claude Code would stop loading, and the proposal's own
weaknesses. Saved reports hold redacted arguments and no environment
values, so an entry that spells a secret or a ${VAR} matches nothing. With
--policy even one report is shown as a fleet.

Fleet formats: json (mcpguard/fleet/v2, docs/report-schema.md), text,
markdown, csv (--csv-kind servers: one row per server per host; findings:
one row per finding; changes: one row per server a --policy would
change), cyclonedx (a CycloneDX 1.6 BOM) and html (one
self-contained page: it loads nothing, works offline and prints).

Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it;
2 a usage error or an input that is not a readable report.`

const reportExample = `  mcpguard report laptop.json --format markdown
  mcpguard report reports/ --format json -o fleet.json
  mcpguard report reports/ --format csv --csv-kind findings -o findings.csv
  mcpguard report reports/ --policy new-allowlist.json --format html -o what-if.html
  ssh build-01 mcpguard scan --format json | mcpguard report -`

func newReportCmd(env environment) *cobra.Command {
	opts := &ReportOptions{}
	cmd := &cobra.Command{
		Use:     "report [flags] REPORT...",
		Short:   "Render saved reports, or merge many machines' reports into a fleet report",
		Long:    reportLong,
		Example: reportExample,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			return runReport(cmd, env, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "text", "output format: "+formatList()+" (a fleet: json, html, text, markdown, csv, cyclonedx)")
	f.StringVarP(&opts.Output, "output", "o", "", "write to FILE instead of stdout")
	f.StringVar(&opts.FailOn, "fail-on", "error", "exit 1 when a finding is at or above: error, warning, note, never")
	f.DurationVar(&opts.MaxAge, "max-age", 7*24*time.Hour, "mark hosts whose report is older than this stale (0: never)")
	f.StringVar(&opts.CSVKind, "csv-kind", reports.CSVServers, "with --format csv: servers (one row per server per host), findings, or changes (with --policy)")
	f.StringArrayVar(&opts.Policies, "policy", nil, "what if: judge the saved servers under this policy instead (a .rego file or directory, or a JSON file shaped like managed-settings.json; repeatable)")
	return cmd
}

// reportInput is one report file's bytes, or why it could not be read.
type reportInput struct {
	path string
	data []byte
	err  *reports.FileError
}

func runReport(cmd *cobra.Command, env environment, opts *ReportOptions) error {
	usage := func(format string, args ...any) error {
		return &exitCodeError{code: exitError, err: fmt.Errorf(format, args...)}
	}
	format, err := reports.ParseFormat(opts.Format)
	if err != nil {
		return usage("--format: %w", err)
	}
	failRank, err := reports.ParseSeverity(opts.FailOn)
	if err != nil {
		return usage("--fail-on: %w", err)
	}
	switch {
	case opts.CSVKind == reports.CSVChanges && len(opts.Policies) == 0:
		return usage("--csv-kind changes needs --policy: the changes are what a proposed policy would change")
	case opts.CSVKind != reports.CSVServers && opts.CSVKind != reports.CSVFindings && opts.CSVKind != reports.CSVChanges:
		return usage("--csv-kind %q: want servers, findings or changes", opts.CSVKind)
	case len(opts.Policies) > 0 && format == reports.FormatCycloneDX:
		return usage("--policy: a what-if has no CycloneDX form; use json, html, text, markdown or csv")
	}
	if opts.MaxAge < 0 {
		return usage("--max-age must not be negative")
	}
	files, err := expandReportInputs(opts.Inputs)
	if err != nil {
		return usage("%w", err)
	}
	ropts := reports.Options{FailOn: failRank, CSVKind: opts.CSVKind}
	if cwd, err := env.getwd(); err == nil {
		ropts.WorkDir = cwd
	}
	stdin := cmd.InOrStdin()

	// A proposed policy compiles before any report is read: a policy that
	// does not load stops here.
	var proposal *scanner.Proposal
	if len(opts.Policies) > 0 {
		regoPaths, jsonPaths := runner.SplitPolicies(opts.Policies)
		engine, err := policy.NewEngine(cmd.Context(), policy.EngineOptions{Paths: regoPaths, Print: cmd.ErrOrStderr()})
		if err != nil {
			return usage("load policy: %w", err)
		}
		if proposal, err = scanner.NewProposal(scanner.ProposalOptions{Policy: engine, PolicyFiles: jsonPaths}); err != nil {
			return usage("%w", err)
		}
	}

	// One report: render it as scan would have, with scan's exit codes.
	if len(files) == 1 && proposal == nil {
		in := readReportInput(files[0], stdin, new(bytes.Buffer))
		if in.err != nil {
			return usage("%s", in.err.Error())
		}
		rep, ferr := reports.ReadReport(in.path, in.data)
		if ferr != nil {
			return usage("%s", ferr.Error())
		}
		return finishReport(cmd, env, rep, nil, format, failRank, opts.FailOn, opts.Output, ropts.CSVKind)
	}

	// Several: merge them one at a time, keeping report values, not bytes.
	// The merge's heap is a few times its input, faulted in once: have it
	// mapped with huge pages where the kernel takes the advice.
	input := inputBytes(files)
	hugeheap.Reserve(int(min(mergeHeapPerInputByte*input, hugeheap.MaxReserve)))
	if proposal == nil {
		defer collectOnlyAt(mergeGCLimit(input))()
	}
	m := reports.NewMerger(reports.MergeOptions{Tool: reports.Tool{Name: "mcpguard", Version: env.version}, Now: env.now(), MaxAge: opts.MaxAge,
		NoAggregates: !reports.FleetNeedsAggregates(format)})
	for r := range readReports(files, stdin) {
		if r.err != nil {
			m.AddError(*r.err)
			continue
		}
		m.Add(r.path, r.rep)
	}
	fleet := m.Fleet()
	if proposal != nil {
		if err := judgeFleet(cmd.Context(), proposal, fleet); err != nil {
			return &exitCodeError{code: exitError, err: err}
		}
	}
	if err := writeOutput(cmd.OutOrStdout(), opts.Output, func(w io.Writer) error { return reports.RenderFleet(w, format, fleet, ropts) }); err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	errs := fleet.Errors
	if fleet.WhatIf != nil {
		errs = append(append([]reports.FileError{}, errs...), fleet.WhatIf.Errors...)
	}
	for _, e := range errs {
		fmt.Fprintf(cmd.ErrOrStderr(), "mcpguard: %s\n", reports.Printable(e.Error()))
	}
	switch {
	case len(errs) > 0:
		return &exitCodeError{code: exitError}
	case failRank <= reports.SeverityError.Rank() && len(fleet.Failing(failRank)) > 0:
		return &exitCodeError{code: exitFindings}
	}
	return nil
}

// judgeFleet judges every server of the fleet again under the proposal,
// one call per OS (the policy context depends on it), and records the
// difference.
func judgeFleet(ctx context.Context, p *scanner.Proposal, fleet *reports.Fleet) error {
	osOf := map[string]string{}
	for _, h := range fleet.Hosts {
		osOf[h.Key] = h.OS
	}
	byOS := map[string][]int{}
	for i, s := range fleet.Servers {
		byOS[osOf[s.Host]] = append(byOS[osOf[s.Host]], i)
	}
	after := make([]reports.Judged, len(fleet.Servers))
	for _, goos := range slices.Sorted(maps.Keys(byOS)) {
		idx := byOS[goos]
		saved := make([]reports.Server, len(idx))
		for k, i := range idx {
			saved[k] = *fleet.Servers[i].Server
		}
		judged, err := p.Judge(ctx, goos, saved)
		if err != nil {
			return fmt.Errorf("judge %s hosts: %w", goos, err)
		}
		for k, i := range idx {
			after[i] = judged[k]
		}
	}
	fleet.SetWhatIf(p.Sources, after, p.Findings(), p.Errors())
	return nil
}

// readResult is one input read and decoded, or why it could not be.
type readResult struct {
	path string
	rep  *reports.Report
	err  *reports.FileError
}

// readReports reads and decodes the files on every core and yields them in
// the order given, so that the merge does not depend on timing. Decoding is
// most of a merge's time; at most a few files' bytes are held at once.
func readReports(files []string, stdin io.Reader) iter.Seq[readResult] {
	return func(yield func(readResult) bool) {
		workers := min(runtime.GOMAXPROCS(0), len(files))
		results := make([]chan readResult, len(files))
		for i := range results {
			results[i] = make(chan readResult, 1)
		}
		next := make(chan int)
		done := make(chan struct{})
		defer close(done)
		for range workers {
			go func() {
				var buf bytes.Buffer // the reader keeps none of the bytes
				var rr reports.ReportReader
				for i := range next {
					in := readReportInput(files[i], stdin, &buf)
					r := readResult{path: in.path, err: in.err}
					if in.err == nil {
						r.rep, r.err = rr.Read(in.path, in.data)
					}
					results[i] <- r
				}
			}()
		}
		go func() {
			defer close(next)
			for i := range files {
				select {
				case next <- i:
				case <-done:
					return
				}
			}
		}()
		for i := range files {
			if !yield(<-results[i]) {
				return
			}
		}
	}
}

// mergeHeapPerInputByte is a fleet merge's peak heap per byte of its
// reports: 2.2x (CSV) to 3.4x (HTML) on bench/fleet.sh's fleet.
const mergeHeapPerInputByte = 4

// mergeGCLimit is the heap at which a merge of input bytes of reports
// collects: twice the most a merge keeps (mergeHeapPerInputByte), which is
// where the default collector's goal ends up at the end of such a merge.
func mergeGCLimit(input int64) int64 {
	return 2*mergeHeapPerInputByte*input + 256<<20
}

// collectOnlyAt has the collector run only when the heap reaches limit,
// and returns what puts the settings back. A merge's heap is nearly all
// live (the reports, then the fleet that points into them): collections
// as the heap doubled would find almost nothing to free and leave the
// peak where it is, at the cost of marking the whole heap each time.
func collectOnlyAt(limit int64) (restore func()) {
	oldLimit := debug.SetMemoryLimit(limit)
	oldPercent := debug.SetGCPercent(-1)
	return func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// inputBytes is the size of the report files (stdin's is not known).
func inputBytes(files []string) int64 {
	var n int64
	for _, f := range files {
		if f == "-" {
			continue
		}
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// expandReportInputs turns the arguments into files: a directory gives its
// *.json files (recursively, in name order); "-" is stdin, at most once.
func expandReportInputs(args []string) ([]string, error) {
	var out []string
	stdin := false
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, fmt.Errorf("- (stdin) given twice")
			}
			stdin = true
			out = append(out, a)
			continue
		}
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			out = append(out, a) // a missing file is reported as unreadable
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".json") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", a, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no .json report", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// maxReportSize bounds one report file: a 100,000-server machine's report
// is well under it.
const maxReportSize = 512 << 20

// readReportInput reads one report into buf (reset first), which the
// caller may use again once it has decoded the report: a fleet merge reads
// a thousand files, and a new buffer for each is memory to clear and fault
// in each time.
func readReportInput(path string, stdin io.Reader, buf *bytes.Buffer) reportInput {
	buf.Reset()
	var r io.Reader
	name := path
	if path == "-" {
		r, name = stdin, "<stdin>"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return reportInput{path: path, err: &reports.FileError{Path: path, Message: fmt.Sprintf("cannot read: %v", unwrapPathError(err))}}
		}
		defer f.Close()
		r = f
	}
	// Read into a buffer of the file's size: growing one from zero costs a
	// fleet merge more than decoding the file's bytes does.
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxReportSize {
			buf.Grow(int(fi.Size()) + bytes.MinRead)
		}
	}
	_, err := buf.ReadFrom(io.LimitReader(r, maxReportSize+1))
	data := buf.Bytes()
	if err != nil {
		return reportInput{path: name, err: &reports.FileError{Path: name, Message: fmt.Sprintf("cannot read: %v", unwrapPathError(err))}}
	}
	if len(data) > maxReportSize {
		return reportInput{path: name, err: &reports.FileError{Path: name, Message: fmt.Sprintf("over the %d MiB limit of a report", maxReportSize>>20)}}
	}
	return reportInput{path: name, data: data}
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
