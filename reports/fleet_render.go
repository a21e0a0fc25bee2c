package reports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// CSV kinds: one row per server (per host, in a fleet), or per finding.
const (
	CSVServers  = "servers"
	CSVFindings = "findings"
	// CSVChanges is one row per server a proposed policy would change
	// (report --policy).
	CSVChanges = "changes"
)

// RenderFleet writes a fleet report in one of the formats that can hold
// many hosts: json, text, markdown, csv (Options.CSVKind) and cyclonedx.
func RenderFleet(w io.Writer, format Format, f *Fleet, opts Options) error {
	switch format {
	case FormatJSON:
		return writeFleetJSON(w, f)
	case FormatText:
		return writeFleetText(w, f, opts)
	case FormatMarkdown:
		return writeFleetMarkdown(w, f, opts)
	case FormatCSV:
		switch opts.CSVKind {
		case CSVFindings:
			return writeFleetFindingsCSV(w, f)
		case CSVChanges:
			return writeChangesCSV(w, f)
		}
		return writeServersCSV(w, f.Servers)
	case FormatCycloneDX:
		return writeFleetCycloneDX(w, f)
	case FormatHTML:
		return writeFleetHTML(w, f)
	}
	return fmt.Errorf("--format %s renders one machine's report; for a fleet use json, text, markdown, csv, cyclonedx or html", format)
}

// FleetNeedsAggregates reports whether a fleet rendered in format shows
// the aggregates that MergeOptions.NoAggregates leaves out (no CSV kind
// does).
func FleetNeedsAggregates(format Format) bool {
	return format != FormatCSV && format != FormatCycloneDX
}

// topN bounds the lists of the terminal and Markdown summaries; the JSON
// and CSV forms hold everything.
const topN = 20

func writeFleetText(w io.Writer, f *Fleet, opts Options) error {
	bw := bufio.NewWriter(w)
	s := f.Summary
	extensions := ""
	if s.Extensions > 0 {
		extensions = ", " + plural(s.Extensions, "Claude Desktop extension")
	}
	fmt.Fprintf(bw, "mcpguard fleet: %s (%d out of compliance, %d stale), %s (%d distinct%s; %d allowed, %d not allowed); findings: %d errors, %d warnings, %d notes; unreadable reports: %d\n",
		plural(s.Hosts, "host"), s.HostsOutOfCompliance, s.StaleHosts, plural(s.Servers, "server"), s.DistinctServers, extensions, s.Allowed, s.NotAllowed,
		s.Findings.Error, s.Findings.Warning, s.Findings.Note, s.Errors)

	fmt.Fprintf(bw, "\nHOSTS\n")
	tw := newColumns(bw, "HOST", "OS", "REPORTED", "SERVERS", "NOT ALLOWED", "ERR", "WARN", "NOTE", "STATE")
	for _, h := range f.Hosts {
		tw.row(oneLine(h.Key), oneLine(h.OS), HumanTime(h.GeneratedAt), strconv.Itoa(h.Summary.Servers), strconv.Itoa(h.NotAllowed),
			strconv.Itoa(h.Summary.Findings.Error), strconv.Itoa(h.Summary.Findings.Warning), strconv.Itoa(h.Summary.Findings.Note), hostState(h))
	}
	tw.flush()

	if offenders := outOfCompliance(f); len(offenders) > 0 {
		fmt.Fprintf(bw, "\nOUT OF COMPLIANCE (most errors first)\n")
		for i, h := range offenders {
			if i == topN {
				fmt.Fprintf(bw, "  ... and %d more (see --format json or csv)\n", len(offenders)-topN)
				break
			}
			fmt.Fprintf(bw, "  %s\n", oneLine(h.Key))
			for _, why := range h.Why {
				fmt.Fprintf(bw, "    - %s\n", oneLine(why))
			}
		}
	}

	fmt.Fprintf(bw, "\nMOST COMMON SERVERS\n")
	tw = newColumns(bw, "HOSTS", "USERS", "ALLOWED", "NOT ALLOWED", "NAMES", "RUNS")
	for i, d := range f.Distinct {
		if i == topN {
			break
		}
		tw.row(strconv.Itoa(d.Hosts), strconv.Itoa(d.Users), strconv.Itoa(d.Allowed), strconv.Itoa(d.NotAllowed),
			clip(oneLine(strings.Join(d.Names, ", ")), 40), clip(oneLine(d.Key), 80))
	}
	tw.flush()

	if len(f.Rules) > 0 {
		fmt.Fprintf(bw, "\nFINDINGS BY RULE\n")
		tw = newColumns(bw, "RULE", "SEVERITY", "FINDINGS", "HOSTS")
		for _, r := range f.Rules {
			tw.row(r.Rule, string(r.Severity), strconv.Itoa(r.Findings), strconv.Itoa(r.Hosts))
		}
		tw.flush()
	}
	writeBundles(bw, f, false)
	if f.WhatIf != nil {
		writeWhatIfText(bw, f.WhatIf)
	}
	for _, e := range f.Errors {
		fmt.Fprintf(bw, "\nerror   %s", oneLine(e.Error()))
	}
	if len(f.Errors) > 0 {
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}

func hostState(h FleetHost) string {
	state := "compliant"
	if !h.Compliant {
		state = "OUT OF COMPLIANCE"
	}
	if h.Stale {
		state += ", stale"
	}
	if len(h.BundlesBehind) > 0 {
		state += ", policy behind (" + strings.Join(h.BundlesBehind, ", ") + ")"
	}
	return state
}

// writeBundles lists the organisation's bundles: the newest revision, the
// hosts at each revision, how many are behind.
func writeBundles(w io.Writer, f *Fleet, markdown bool) {
	if len(f.Bundles) == 0 {
		return
	}
	if markdown {
		fmt.Fprintf(w, "### Policy bundles\n\n| Bundle | Newest | Hosts per revision | Behind |\n|---|---|---|---:|\n")
	} else {
		fmt.Fprintf(w, "\nPOLICY BUNDLES\n")
	}
	for _, b := range f.Bundles {
		var revs []string
		for _, r := range b.Revisions {
			revs = append(revs, fmt.Sprintf("%s: %d", oneLine(r.Revision), r.Hosts))
		}
		if markdown {
			fmt.Fprintf(w, "| %s | %s | %s | %d |\n", markdownCode(b.Name), markdownCode(b.Newest), markdownCell(strings.Join(revs, ", "), mdMaxValue), b.Behind)
			continue
		}
		fmt.Fprintf(w, "%s: newest %s; hosts per revision: %s; %s behind\n", oneLine(b.Name), oneLine(b.Newest), strings.Join(revs, ", "), plural(b.Behind, "host"))
	}
	if markdown {
		fmt.Fprintln(w)
	}
}

// outOfCompliance lists the hosts out of compliance, the most error-level
// findings and blocked servers first.
func outOfCompliance(f *Fleet) []FleetHost {
	var out []FleetHost
	for _, h := range f.Hosts {
		if !h.Compliant {
			out = append(out, h)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a := out[i].Summary.Findings.Error + out[i].NotAllowed
		b := out[j].Summary.Findings.Error + out[j].NotAllowed
		if a != b {
			return a > b
		}
		return out[i].Key < out[j].Key
	})
	return out
}

func writeFleetMarkdown(w io.Writer, f *Fleet, _ Options) error {
	bw := bufio.NewWriter(w)
	s := f.Summary
	fmt.Fprintf(bw, "## mcpguard fleet report\n\n")
	fmt.Fprintf(bw, "**%s out of compliance** of %s", plural(s.HostsOutOfCompliance, "host"), plural(s.Hosts, "host"))
	if s.StaleHosts > 0 {
		fmt.Fprintf(bw, " (%d stale)", s.StaleHosts)
	}
	if s.Errors > 0 {
		fmt.Fprintf(bw, ", %s", plural(s.Errors, "unreadable report"))
	}
	fmt.Fprintf(bw, "\n\n")
	fmt.Fprintf(bw, "| Hosts | Servers | Distinct | Allowed | Not allowed | Errors | Warnings | Notes |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(bw, "| %d | %d | %d | %d | %d | %d | %d | %d |\n\n", s.Hosts, s.Servers, s.DistinctServers, s.Allowed, s.NotAllowed,
		s.Findings.Error, s.Findings.Warning, s.Findings.Note)

	writeBundles(bw, f, true)
	if f.WhatIf != nil {
		writeWhatIfMarkdown(bw, f.WhatIf)
	}
	if offenders := outOfCompliance(f); len(offenders) > 0 {
		fmt.Fprintf(bw, "### Out of compliance\n\n| Host | OS | Reported | Why |\n|---|---|---|---|\n")
		for i, h := range offenders {
			if i == topN {
				fmt.Fprintf(bw, "\n…and %d more.\n", len(offenders)-topN)
				break
			}
			fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", markdownCell(h.Key, mdMaxValue), markdownCell(h.OS, mdMaxValue),
				markdownCell(HumanTime(h.GeneratedAt), mdMaxValue), markdownCell(strings.Join(h.Why, "; "), mdMaxMessage))
		}
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "### Most common servers\n\n| Hosts | Users | Allowed | Not allowed | Names | Runs |\n|---:|---:|---:|---:|---|---|\n")
	for i, d := range f.Distinct {
		if i == topN {
			break
		}
		fmt.Fprintf(bw, "| %d | %d | %d | %d | %s | %s |\n", d.Hosts, d.Users, d.Allowed, d.NotAllowed,
			markdownCell(strings.Join(d.Names, ", "), mdMaxValue), markdownCell(d.Key, mdMaxValue))
	}
	if len(f.Rules) > 0 {
		fmt.Fprintf(bw, "\n### Findings by rule\n\n| Rule | Severity | Findings | Hosts |\n|---|---|---:|---:|\n")
		for _, r := range f.Rules {
			fmt.Fprintf(bw, "| %s | %s | %d | %d |\n", markdownCell(r.Rule, mdMaxValue), r.Severity, r.Findings, r.Hosts)
		}
	}
	fmt.Fprintf(bw, "\n<details><summary>Hosts (%d)</summary>\n\n| Host | OS | Reported | Servers | Not allowed | Errors | State |\n|---|---|---|---:|---:|---:|---|\n", len(f.Hosts))
	for _, h := range f.Hosts {
		fmt.Fprintf(bw, "| %s | %s | %s | %d | %d | %d | %s |\n", markdownCell(h.Key, mdMaxValue), markdownCell(h.OS, mdMaxValue),
			markdownCell(HumanTime(h.GeneratedAt), mdMaxValue), h.Summary.Servers, h.NotAllowed, h.Summary.Findings.Error, hostState(h))
	}
	fmt.Fprintf(bw, "\n</details>\n")
	for _, e := range f.Errors {
		fmt.Fprintf(bw, "\n- unreadable: %s", markdownText(e.Error()))
	}
	if len(f.Errors) > 0 {
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}

// serverCSVHeader names the columns of the servers CSV.
var serverCSVHeader = []string{
	"host", "user", "id", "name", "client", "scope", "project", "transport", "command", "args", "url",
	"status", "allowed", "reasons", "findings", "path", "line", "column",
	"introspection", "tools", "component", "version",
}

// writeServersCSV writes one row per server (per host), with the same
// spreadsheet safety as WriteCSV.
func writeServersCSV(w io.Writer, servers []FleetServer) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(serverCSVHeader); err != nil {
		return err
	}
	for _, s := range servers {
		row := []string{
			s.Host, s.User, s.ID, s.Name, s.Client, s.Scope, s.Project, s.Transport, s.Command, strings.Join(s.Args, " "), s.URL,
			string(s.Status), strconv.FormatBool(s.Decision.Allowed), strings.Join(s.Decision.Reasons, "; "), strconv.Itoa(len(s.FindingIDs)),
			s.Source.Path, strconv.Itoa(s.Source.Line), strconv.Itoa(s.Source.Column),
			"", "", ComponentType(s.Server), "",
		}
		if ext, ok := Extension(s.Server); ok {
			row[21] = ext.Version
		}
		if in := s.Introspection; in != nil {
			row[18] = in.Status
			if in.Status == IntrospectionOK {
				row[19] = strconv.Itoa(len(in.Tools))
			}
		}
		if err := writeSafeRow(cw, row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteServersCSV is the servers CSV of one machine's report.
func WriteServersCSV(w io.Writer, r *Report) error {
	rows := make([]FleetServer, len(r.Servers))
	for i, s := range r.Servers {
		if s.User == "" {
			s.User = r.Host.User
		}
		rows[i] = FleetServer{Server: &s, Host: r.Host.Hostname}
	}
	return writeServersCSV(w, rows)
}

// writeFleetFindingsCSV is WriteCSV's findings table with the host first.
func writeFleetFindingsCSV(w io.Writer, f *Fleet) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(append([]string{"host"}, csvHeader...)); err != nil {
		return err
	}
	servers := make(map[string]*FleetServer, len(f.Servers))
	for i := range f.Servers {
		servers[f.Servers[i].Host+"\x00"+f.Servers[i].ID] = &f.Servers[i]
	}
	for _, fd := range f.Findings {
		row := findingRow(*fd.Finding, nil)
		if s := servers[fd.Host+"\x00"+fd.ServerID]; s != nil {
			row = findingRow(*fd.Finding, s.Server)
		}
		row = append([]string{fd.Host}, row...)
		if err := writeSafeRow(cw, row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// columns collects rows for writeTable.
type columns struct {
	w    io.Writer
	rows [][]string
}

func newColumns(w io.Writer, header ...string) *columns {
	return &columns{w: w, rows: [][]string{header}}
}

func (c *columns) row(cells ...string) { c.rows = append(c.rows, cells) }

func (c *columns) flush() {
	writeTable(c.w, c.rows, func(_ int, cell string) string { return cell })
}

// writeFleetJSON writes the fleet as Encoder.SetIndent("", "  ") would,
// but one array element at a time: a 100,000-server fleet is never one
// buffer in memory (encoding/json builds the whole document, then indents
// it into a second one).
func writeFleetJSON(w io.Writer, f *Fleet) error {
	d := newJSONDoc(bufio.NewWriterSize(w, 256<<10))
	opts := elementJSON()
	generic := func(elem func(i int) any) func(b *bytes.Buffer, i int) error {
		return func(b *bytes.Buffer, i int) error { return jsonv2.MarshalWrite(b, elem(i), opts) }
	}
	d.field("schema", f.Schema)
	d.field("tool", f.Tool)
	d.field("generated_at", f.GeneratedAt)
	d.field("stale_before", f.StaleBefore)
	d.list("hosts", len(f.Hosts), generic(func(i int) any { return &f.Hosts[i] }))
	d.list("servers", len(f.Servers), func(b *bytes.Buffer, i int) error {
		if out, ok := appendFleetServer(b.AvailableBuffer(), &f.Servers[i]); ok {
			_, err := b.Write(out)
			return err
		}
		return jsonv2.MarshalWrite(b, &f.Servers[i], opts)
	})
	d.list("findings", len(f.Findings), func(b *bytes.Buffer, i int) error {
		if out, ok := appendFleetFinding(b.AvailableBuffer(), &f.Findings[i]); ok {
			_, err := b.Write(out)
			return err
		}
		return jsonv2.MarshalWrite(b, &f.Findings[i], opts)
	})
	d.list("distinct_servers", len(f.Distinct), generic(func(i int) any { return &f.Distinct[i] }))
	d.list("findings_by_rule", len(f.Rules), generic(func(i int) any { return &f.Rules[i] }))
	d.list("errors", len(f.Errors), generic(func(i int) any { return &f.Errors[i] }))
	d.field("summary", f.Summary)
	if f.WhatIf != nil {
		d.field("what_if", f.WhatIf)
	}
	if f.Bundles != nil {
		d.field("bundles", f.Bundles)
	}
	return d.end()
}

// elementJSON are the options that write an array element of the fleet
// document byte for byte as indentEncoder(w, "    ") does (encoding/json's
// semantics, indented at that depth, HTML characters unescaped), in one
// pass where encoding/json marshals, then indents into a second buffer.
// They differ on invalid UTF-8 only, which this writes as a raw U+FFFD
// and encoding/json as \ufffd, the same text once decoded: reports that
// ReadReport accepts hold none, the name of a file in errors may.
func elementJSON() jsonv2.Options {
	return jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false),
		jsontext.WithIndent("  "), jsontext.WithIndentPrefix("    "))
}

// indentEncoder writes values as Encoder.SetIndent(prefix, "  ") does at
// that depth of the fleet document, HTML characters unescaped.
func indentEncoder(w io.Writer, prefix string) *json.Encoder {
	e := json.NewEncoder(w)
	e.SetEscapeHTML(false)
	e.SetIndent(prefix, "  ")
	return e
}

// encodeChunks encodes n elements in chunks of chunk on every core and
// writes the chunks in order: a large page's data costs its share of each
// core, and at most a few chunks are held at once. A list of one chunk is
// encoded on the caller's goroutine.
func encodeChunks(n, chunk int, encode func(lo, hi int, b *bytes.Buffer) error, write func([]byte) error) error {
	if n <= chunk {
		// No goroutine to start and wait for (a small page).
		var b bytes.Buffer
		if err := encode(0, n, &b); err != nil {
			return err
		}
		return write(b.Bytes())
	}
	chunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	type result struct {
		b   *bytes.Buffer
		err error
	}
	// Each chunk has its own result channel, read in order by the writer.
	results := make([]chan result, chunks)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	// A worker takes a place in sem, then the next chunk: sem bounds the
	// chunks being encoded, or encoded and not yet written. The workers
	// take the chunks themselves: a goroutine that handed them out would
	// have to be scheduled between any two, and a worker would wait for it
	// whenever every core is busy.
	sem := make(chan struct{}, 2*workers)
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait() // after done is closed: none outlives the call
	defer close(done)
	var next, largest atomic.Int64
	// Buffers go back to a free list once written: a buffer grown once is
	// not cleared and grown again for every chunk.
	free := make(chan *bytes.Buffer, 2*workers+1)
	for range workers {
		wg.Go(func() {
			for {
				select {
				case sem <- struct{}{}:
				case <-done:
					return
				}
				i := int(next.Add(1)) - 1
				if i >= chunks {
					return // its place in sem is not needed: no chunk is left
				}
				var b *bytes.Buffer
				select {
				case b = <-free:
					b.Reset()
				default:
					// As large as a chunk encoded so far: grown from
					// nothing, a buffer allocated twice its final size.
					b = bytes.NewBuffer(make([]byte, 0, largest.Load()))
				}
				err := encode(i*chunk, min((i+1)*chunk, n), b)
				if l := int64(b.Len()); l > largest.Load() {
					largest.Store(l) // a race between two is harmless: a hint
				}
				results[i] <- result{b, err}
			}
		})
	}
	for i := range chunks {
		r := <-results[i]
		if r.err != nil {
			return r.err
		}
		if err := write(r.b.Bytes()); err != nil {
			return err
		}
		// The buffer goes back before the chunk's place in sem: a worker
		// that takes the place finds it, where given back after, the
		// worker could find the list empty and grow a buffer of its own.
		select {
		case free <- r.b:
		default:
		}
		<-sem
	}
	return nil
}
