package toolcheck

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/internal/chunks"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// Tool analysis (SPEC §6 rules U001–U007, A001–A005, T001, T002, T004, T005,
// I001; heuristics of docs/threats.md §2, §3 and §5). Analyze reads one
// saved or live tools/list result; Compare adds what only several
// servers' lists together show. Pins (T003) are in package pins.

// Options configure Analyze.
type Options struct {
	// Path names the document in finding locations ("<stdin>", a file path).
	Path string
	// Server is the name of the server that offered the tools, when known.
	// The name "ide" implies IDE.
	Server string
	// ServerID is the report id of that server (Server.ID), when the tools
	// come from a scanned configuration; it becomes each finding's server_id.
	ServerID string
	// IDE applies Claude Code's IDE allowlist (MCPG-I001): the server is an
	// IDE extension's MCP server and may offer only executeCode and
	// getDiagnostics.
	IDE bool
	// Policy is the compiled tools policy that decides the IDE allowlist; nil
	// compiles one when an IDE server is analysed. Long-running callers (the
	// proxy) compile it once and pass it.
	Policy *policy.ToolsPolicy
	// Sanitize also computes the document's output view (what
	// unicode.SanitizeJSON returns), in the walk that finds its hidden
	// characters beside the parse: Report.SanitizedJSON returns it.
	Sanitize bool
	// Early, when set, is given the tool objects of the document while the
	// rest of it is still being parsed: in document order, on the
	// goroutine beside the parse once its hidden-Unicode walk is done,
	// until the parse ends (Analyze returns after the last call). Work
	// that needs only a tool's parsed object (pins) starts there, on a
	// core the parse leaves idle. Not every tool is given, and an object
	// that is not in the final list (a "tools" key given twice) may be:
	// match results to Report.Tools by Value.
	Early func(tool *jsonc.Value)
}

// Report is the analysis of one tools/list document.
type Report struct {
	// Path and Server repeat the options.
	Path   string
	Server string
	// Tools lists the tools in document order.
	Tools []Tool
	// Findings are sorted by position in the document, then rule.
	Findings []reports.Finding
	// Root is the parsed document and ListPointer the JSON pointer of its
	// tools array ("" for a bare array, "/tools", "/result/tools"); Listed
	// is the array's length, elements that are not objects included.
	Root        *jsonc.Value
	ListPointer string
	Listed      int

	data  []byte
	index *jsonc.LineIndex
	// serverID is Options.ServerID.
	serverID string
	// sanitized is the output view when Options.Sanitize asked for it and
	// the walk succeeded (sanitizedOK).
	sanitized        []byte
	sanitizedChanged bool
	sanitizedOK      bool
	// ownKeys are the identKeys of Tools (ownName), made once.
	ownOnce sync.Once
	ownKeys map[string]bool
}

// SanitizedJSON returns what unicode.SanitizeJSON returns for the analysed
// document, computed during the analysis when Options.Sanitize was set; ok
// is false when it was not (or the walk stopped early), and the caller
// sanitizes itself.
func (r *Report) SanitizedJSON() (out []byte, changed, ok bool) {
	return r.sanitized, r.sanitizedChanged, r.sanitizedOK
}

// Size returns the length in bytes of the analysed document.
func (r *Report) Size() int { return len(r.data) }

// Tool is one tool of a tools/list document.
type Tool struct {
	// Name is the tool's name ("" when missing or not a string).
	Name string
	// Pointer is the RFC 6901 pointer of the tool object in the document,
	// e.g. "/result/tools/3"; Location its position.
	Pointer  string
	Location reports.Location
	// Value is the parsed tool object, for pins (PinTool).
	Value *jsonc.Value

	// Analysis state kept for Compare.
	key      string // separator- and case-insensitive form of the name
	skeleton string // TR39 skeleton of key
	// The name's keys for NameTwins (mcpunicode.NameKeys), made on the
	// analysis workers when named is set.
	folded, shaped string
	named          bool
}

// ErrNoToolsList is wrapped by Analyze' error for a well-formed JSON
// document that is neither a JSON-RPC tools/list response, nor an object
// with a "tools" array, nor a bare array.
var ErrNoToolsList = errors.New("scanner: not a tools/list result")

// MaxDescription is Claude Code's cut for tool descriptions and server
// instructions, in UTF-16 code units (JavaScript string length; since
// v2.1.84, anthropics/claude-code #41593).
const MaxDescription = 2048

// Analyze analyses one tools/list result: a JSON-RPC response
// ({"jsonrpc": "2.0", "result": {"tools": [...]}}), an object with a
// "tools" array, or a bare array of tools. Every finding's location is
// opts.Path with the JSON pointer, line and column of the offending string
// or key in data.
//
// A document that is not JSON, or not one of those shapes, is an error: a
// *reports.FileError naming path:line:col (wrapping ErrNoToolsList for the
// shape). Everything inside the tools is reported as findings, never as an
// error, so hostile input cannot stop the analysis. Analyze never
// panics and its output is bounded by the input size.
func Analyze(data []byte, opts Options) (*Report, error) {
	rep := &Report{Path: opts.Path, Server: opts.Server, data: data, serverID: opts.ServerID}
	// The line index and the hidden-Unicode scan read only the bytes: they
	// run beside the parse, which is a fifth of a large listing's time.
	var ufs []mcpunicode.Finding
	var wg sync.WaitGroup
	var early *earlyTools
	var popts jsonc.Options
	if opts.Early != nil {
		early = newEarlyTools()
		popts.Element = early.element
	}
	wg.Go(func() {
		rep.index = jsonc.NewLineIndex(data)
		if !opts.Sanitize {
			ufs, _ = mcpunicode.ScanJSON(data) // a late error only stops the scan
		} else {
			var err error
			ufs, rep.sanitized, rep.sanitizedChanged, err = mcpunicode.Scanner{}.ScanSanitizeJSON(data)
			rep.sanitizedOK = err == nil
		}
		if early != nil {
			early.drain(opts.Early)
		}
	})
	root, _, err := jsonc.Parse(data, popts)
	if early != nil {
		early.finish()
	}
	wg.Wait()
	if err != nil {
		var se *jsonc.SyntaxError
		if errors.As(err, &se) {
			return nil, &reports.FileError{Path: opts.Path, Line: se.Pos.Line, Column: se.Pos.Col, Message: "invalid JSON: " + se.Msg}
		}
		return nil, &reports.FileError{Path: opts.Path, Message: err.Error()}
	}
	list, listPtr, err := toolsArray(root)
	if err != nil {
		return nil, &toolsShapeError{FileError: reports.FileError{Path: opts.Path, Line: root.Pos.Line, Column: root.Pos.Col, Message: err.Error()}}
	}
	rep.Root, rep.ListPointer, rep.Listed = root, listPtr, len(list.Elems)
	ide := opts.IDE || opts.Server == "ide"
	m := compiledToolMatchers()
	a := &toolAnalysis{rep: rep, m: m, phraseScratch: m.phrases.scratch(), intentScratch: m.intentLines.scratch()}
	a.elemTool = make([]int, len(list.Elems))
	for i, v := range list.Elems {
		ptr := listPtr + "/" + strconv.Itoa(i)
		a.elemTool[i] = -1
		if v.Kind != jsonc.Object {
			a.add(ruleT005, v.Pos, ptr, fmt.Sprintf("tools[%d] is a JSON %s, not a tool object; clients reject or skip it", i, v.Kind),
				map[string]any{"kind": "not-an-object"}, "not-object")
			continue
		}
		t := &Tool{Pointer: ptr, Value: v, Location: a.loc(v.Pos, ptr)}
		if n := v.Get("name"); n.IsString() {
			t.Name = n.Str
		}
		a.elemTool[i] = len(rep.Tools)
		rep.Tools = append(rep.Tools, *t)
	}
	a.unicodeFindings(ufs)
	a.tools()
	a.duplicateNames()
	if ide {
		p, err := toolsPolicy(opts)
		if err == nil {
			err = a.ideFindings(p, opts.Server)
		}
		if err != nil {
			return nil, fmt.Errorf("evaluate the IDE allowlist: %w", err)
		}
	}
	if opts.Policy.HasCustom() {
		if err := a.customFindings(opts.Policy, opts.Server, ide); err != nil {
			return nil, fmt.Errorf("evaluate the custom tool rules: %w", err)
		}
	}
	rep.Findings = a.findings
	sortToolFindings(rep.Findings)
	return rep, nil
}

// earlyTools hands the tool objects the parser completes to
// Options.Early on the walk's goroutine: the parser queues them (it never
// waits), the drain takes them in order until the parse is done.
type earlyTools struct {
	mu    sync.Mutex
	queue []*jsonc.Value
	done  atomic.Bool
	wake  chan struct{} // one pending wake-up: element and finish never block
}

func newEarlyTools() *earlyTools { return &earlyTools{wake: make(chan struct{}, 1)} }

// element is the parser's jsonc.Options.Element: objects in an array that
// is the document (depth 1) or the value of a "tools" member of the
// document or of its "result" (depths 2 and 3) are the shapes a tools
// list takes.
func (e *earlyTools) element(key string, depth int, v *jsonc.Value) {
	if v.Kind != jsonc.Object || !(key == "" && depth == 1 || key == "tools" && depth <= 3) {
		return
	}
	e.mu.Lock()
	e.queue = append(e.queue, v)
	e.mu.Unlock()
	e.signal()
}

func (e *earlyTools) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// finish ends the drain: the analysis needs the core from here on.
func (e *earlyTools) finish() {
	e.done.Store(true)
	e.signal()
}

// drain calls f on the queued objects, in order, until finish.
func (e *earlyTools) drain(f func(*jsonc.Value)) {
	next := 0
	for !e.done.Load() {
		e.mu.Lock()
		batch := e.queue[next:] // elements appended later do not move these
		e.mu.Unlock()
		if len(batch) == 0 {
			<-e.wake
			continue
		}
		for _, v := range batch {
			if e.done.Load() {
				return
			}
			f(v)
			next++
		}
	}
}

// toolsShapeError is a well-formed document that holds no tools list.
type toolsShapeError struct{ reports.FileError }

func (e *toolsShapeError) Unwrap() error { return ErrNoToolsList }

// AsFileError returns the positioned error of an Analyze failure, for
// a report's errors[] list, and false for other errors.
func AsFileError(err error) (*reports.FileError, bool) {
	var fe *reports.FileError
	if errors.As(err, &fe) {
		return fe, true
	}
	var se *toolsShapeError
	if errors.As(err, &se) {
		return &se.FileError, true
	}
	return nil, false
}

// toolsArray finds the tools array of the accepted shapes.
func toolsArray(root *jsonc.Value) (*jsonc.Value, string, error) {
	switch root.Kind {
	case jsonc.Array:
		return root, "", nil
	case jsonc.Object:
		if t := root.Get("tools"); t != nil {
			if t.Kind != jsonc.Array {
				return nil, "", fmt.Errorf("\"tools\" is a JSON %s, not an array", t.Kind)
			}
			return t, "/tools", nil
		}
		if r := root.Get("result"); r != nil {
			if t := r.Get("tools"); t != nil && t.Kind == jsonc.Array {
				return t, "/result/tools", nil
			}
			return nil, "", errors.New("the JSON-RPC result holds no \"tools\" array: not a tools/list response")
		}
		if e := root.Get("error"); e != nil {
			msg := ""
			if m := e.Get("message"); m.IsString() {
				msg = ": " + reports.TrimMessage(m.Str, 120)
			}
			return nil, "", fmt.Errorf("a JSON-RPC error response%s, not a tools/list result", msg)
		}
	}
	return nil, "", errors.New("want a JSON-RPC tools/list response, an object with a \"tools\" array, or an array of tools")
}

// Rule ids used here.
const (
	ruleT001 = "MCPG-T001"
	ruleT002 = "MCPG-T002"
	ruleT003 = "MCPG-T003"
	ruleT004 = "MCPG-T004"
	ruleT005 = "MCPG-T005"
	ruleU006 = "MCPG-U006"
	ruleA001 = "MCPG-A001"
	ruleA002 = "MCPG-A002"
	ruleA003 = "MCPG-A003"
	ruleA004 = "MCPG-A004"
	ruleA005 = "MCPG-A005"
	ruleI001 = "MCPG-I001"
)

// toolAnalysis is the state of one Analyze call.
type toolAnalysis struct {
	rep      *Report
	findings []reports.Finding
	// unicode findings per tool index, and their hidden decoded payloads.
	hidden map[int][]hiddenText
	// uniAt records U-findings by pointer (to avoid a second U006).
	uniAt map[string]bool
	// m are the compiled patterns; phraseScratch and intentScratch are
	// the state of the phrase matchers (m.phrases, m.intentLines), reused
	// from text to text.
	m             *toolMatchers
	phraseScratch *phraseScratch
	intentScratch *phraseScratch
	// cur caches what several rules read of the tool being analysed.
	cur toolCache
	// curParam is the name of the parameter whose description the intent
	// rules read, "" in any other text.
	curParam string
	// curRaw is the text the intent rules read, as written (intentSignals).
	curRaw string
	// curTool is the tool whose texts the intent rules read (its input
	// parameters are the sinks a text can name bare: "into label").
	curTool *Tool
	// camel are the camelCase identifiers of the text being read
	// ("sendEmail"), lower-cased as its view has them (camelIdents).
	camel     []string
	collector textCollector
	// texts are the texts of the tool being analysed (collectTexts).
	texts []toolText
	// elemTool maps an element index of the tools array to the index of
	// its tool in rep.Tools (-1: not an object).
	elemTool []int
	// uniByPtr lists the indices in findings of the Unicode findings of
	// each pointer, in order (overLong reads those of a description).
	uniByPtr map[string][]int
}

// hiddenText is text decoded from tag characters, variation selectors or a
// binary run of invisible characters.
type hiddenText struct {
	pointer string
	text    string
	rule    string
}

func (a *toolAnalysis) loc(p jsonc.Pos, ptr string) reports.Location {
	return reports.Location{Path: a.rep.Path, Pointer: ptr, Line: p.Line, Column: p.Col}
}

// add appends a finding with the catalog severity. Its message and
// evidence quote what the analysis read, cut and lower-cased, where a
// token no longer has the length of its format: a secret in a quote is
// hidden here (secrets.RedactQuote), before a report or event shows it.
func (a *toolAnalysis) add(rule string, p jsonc.Pos, ptr, msg string, ev map[string]any, disc ...string) *reports.Finding {
	msg = quoteDetector().RedactQuote(msg)
	for _, k := range quotedEvidence {
		if v, ok := ev[k]; ok {
			ev[k] = redactQuoted(v)
		}
	}
	f := reports.NewFinding(rule, a.loc(p, ptr), a.rep.serverID, msg, disc...)
	f.Evidence = ev
	a.findings = append(a.findings, f)
	return &a.findings[len(a.findings)-1]
}

// quoteDetector is the secret detector of quotes, made on first use.
var quoteDetector = sync.OnceValue(secrets.NewDetector)

// quotedEvidence are the evidence members that quote the text read.
var quotedEvidence = []string{"match", "matches", "decoded", "signals", "phrases"}

// redactQuoted hides the secrets of the quotes in an evidence value, in
// place (the evidence is the finding's own).
func redactQuoted(v any) any {
	switch v := v.(type) {
	case string:
		return quoteDetector().RedactQuote(v)
	case []string:
		for i, s := range v {
			v[i] = quoteDetector().RedactQuote(s)
		}
	case []any:
		for i, e := range v {
			v[i] = redactQuoted(e)
		}
	case []map[string]any:
		for _, e := range v {
			redactQuoted(e)
		}
	case map[string]any:
		for _, k := range [...]string{"match", "matches", "decoded"} {
			if e, ok := v[k]; ok {
				v[k] = redactQuoted(e)
			}
		}
	}
	return v
}

// toolIndex returns the index of the tool whose object holds ptr, or -1.
// Tool pointers are the list pointer, a slash and the element's decimal
// index, so the element index is read from ptr rather than searched for.
func (a *toolAnalysis) toolIndex(ptr string) int {
	lp := a.rep.ListPointer
	if len(ptr) <= len(lp)+1 || ptr[:len(lp)] != lp || ptr[len(lp)] != '/' {
		return -1
	}
	tok := ptr[len(lp)+1:]
	if j := strings.IndexByte(tok, '/'); j >= 0 {
		tok = tok[:j]
	}
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return -1 // not how strconv.Itoa writes an index
	}
	n := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c < '0' || c > '9' || n >= len(a.elemTool) {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	if n >= len(a.elemTool) {
		return -1
	}
	return a.elemTool[n]
}

// unicodeFindings turns the hidden-Unicode findings of the whole document
// into report findings (U001–U007, and T001 for duplicate keys).
func (a *toolAnalysis) unicodeFindings(ufs []mcpunicode.Finding) {
	a.hidden = map[int][]hiddenText{}
	a.uniAt = map[string]bool{}
	a.uniByPtr = map[string][]int{}
	for _, u := range ufs {
		a.uniByPtr[u.Pointer] = append(a.uniByPtr[u.Pointer], len(a.findings))
		ti := a.toolIndex(u.Pointer)
		if d, ok := u.Decoded(); ok && ti >= 0 {
			a.hidden[ti] = append(a.hidden[ti], hiddenText{pointer: u.Pointer, text: d, rule: u.Rule})
		}
		a.uniAt[u.Rule+"\x00"+u.Pointer] = true
		ev := map[string]any{}
		for k, v := range u.Evidence {
			ev[k] = v
		}
		if len(u.CodePoints) > 0 {
			ev["code_points"] = u.CodePoints
		}
		ev["count"] = u.Count
		if u.IsKey {
			ev["in_key"] = true
		}
		ev["string_offset"] = u.StringOffset
		msg := u.Message
		if ti >= 0 {
			name := a.rep.Tools[ti].Name
			ev["tool"] = name
			msg = fmt.Sprintf("tool %s: %s", QuoteName(name), msg)
		}
		p := a.rep.index.Pos(u.Offset)
		a.add(u.Rule, p, u.Pointer, msg, ev, u.Kind, strconv.Itoa(u.StringOffset), strconv.FormatBool(u.IsKey))
	}
}

// QuoteName quotes a tool name for messages, escaping anything invisible.
func QuoteName(s string) string {
	if s == "" {
		return `""`
	}
	return strconv.QuoteToASCII(reports.TrimMessage(s, 64))
}

// sortFindings orders findings by position, then rule and id.
func sortToolFindings(fs []reports.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].Location, fs[j].Location
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if fs[i].Rule != fs[j].Rule {
			return fs[i].Rule < fs[j].Rule
		}
		return fs[i].ID < fs[j].ID
	})
}

// tool runs the per-tool rules on the i-th tool.
// tools runs the per-tool rules on every tool. A tool's rules read only
// that tool and what unicodeFindings recorded, so a large list is split
// into chunks that workers analyse in parallel, each with its own scratch
// state; the chunks' findings are concatenated in chunk order, which is
// the order one pass over the tools produces.
func (a *toolAnalysis) tools() {
	n := len(a.rep.Tools)
	if !chunks.Worth(len(a.rep.data), n) {
		for i := range n {
			a.tool(i)
		}
		return
	}
	out := make([][]reports.Finding, chunks.Count(n))
	// Workers append to base, whose capacity is full: their first append
	// copies it, so none writes the shared array (overLong reads it).
	base := a.findings[:len(a.findings):len(a.findings)]
	chunks.Run(n, func() func(c, lo, hi int) {
		w := &toolAnalysis{rep: a.rep, m: a.m, phraseScratch: a.m.phrases.scratch(), intentScratch: a.m.intentLines.scratch(), findings: base,
			hidden: a.hidden, uniAt: a.uniAt, uniByPtr: a.uniByPtr, elemTool: a.elemTool}
		return func(c, lo, hi int) {
			start := len(w.findings)
			for i := lo; i < hi; i++ {
				w.tool(i)
			}
			out[c] = w.findings[start:]
		}
	})
	for _, fs := range out {
		a.findings = append(a.findings, fs...)
	}
}

func (a *toolAnalysis) tool(i int) {
	t := &a.rep.Tools[i]
	// The name's key and skeleton are the tool's own, read by its name
	// rules and, after every tool, by duplicateNames (and its NameKeys by
	// NameTwins): made here, on the workers, rather than in the listing
	// loop before them.
	t.key = identKey(t.Name)
	t.skeleton = mcpunicode.Skeleton(t.key)
	if t.Name != "" {
		t.folded, t.shaped = mcpunicode.NameKeys(t.Name)
		t.named = true
	}
	a.cur.reset()
	a.texts = a.collector.collectTexts(t)
	a.nameRules(t)
	a.poisoning(t, a.hidden[i])
	a.sizeRules(t)
	a.annotationRules(t)
}

// customFindings evaluates the organisation's tool_deny and tool_warn rules
// (docs/policies.md) once per tool, on the definition as the server sent it.
func (a *toolAnalysis) customFindings(p *policy.ToolsPolicy, server string, ide bool) error {
	srv := map[string]any{"name": server, "ide": ide}
	for i := range a.rep.Tools {
		t := &a.rep.Tools[i]
		v, err := policy.NewValue(t.Value.Interface())
		if err != nil {
			return err
		}
		results, err := p.EvalTool(context.Background(), srv, v)
		if err != nil {
			return err
		}
		for _, r := range results {
			f := a.add(r.Rule, t.Value.Pos, t.Pointer, r.Message, r.Evidence, "custom", r.Package)
			f.Severity = r.Severity
		}
	}
	return nil
}

// Location returns the location of the tool named name, and false when the
// document has no such tool.
func (r *Report) Location(name string) (reports.Location, bool) {
	for _, t := range r.Tools {
		if t.Name == name {
			return t.Location, true
		}
	}
	return reports.Location{}, false
}
