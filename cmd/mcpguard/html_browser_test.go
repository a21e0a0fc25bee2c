package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mcpguard/mcpguard/reports"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "rewrite docs/img/fleet-report.png from the demo fleet")

// browser starts headless Chromium (Debian's chromium package; .ci/run
// installs it). Without it the test is skipped, unless
// MCPGUARD_REQUIRE_BROWSER is set, as CI sets it.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("CHROME_PATH")
	if path == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		if os.Getenv("MCPGUARD_REQUIRE_BROWSER") != "" {
			t.Fatal("no Chromium found (apt-get install chromium), and MCPGUARD_REQUIRE_BROWSER is set")
		}
		t.Skip("no Chromium: apt-get install chromium to run the HTML report in a real browser")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// pageWatch records what a page does that a report must never do.
type pageWatch struct {
	mu       sync.Mutex
	requests []string
	problems []string
}

func watchPage(t *testing.T, ctx context.Context) *pageWatch {
	t.Helper()
	w := &pageWatch{}
	err := chromedp.Listen(ctx, func(ev any) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			w.requests = append(w.requests, e.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				w.problems = append(w.problems, fmt.Sprintf("console %s", e.Type))
			}
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if ex := e.ExceptionDetails.Exception; ex != nil {
				msg += " " + ex.Description
			}
			w.problems = append(w.problems, fmt.Sprintf("exception at %d:%d: %s", e.ExceptionDetails.LineNumber, e.ExceptionDetails.ColumnNumber, msg))
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				w.problems = append(w.problems, "log: "+e.Entry.Text)
			}
		case *page.EventJavascriptDialogOpening:
			w.problems = append(w.problems, "a dialog opened: "+e.Message)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// check fails on any request but the page itself, and on any console
// error, exception, CSP violation or dialog.
func (w *pageWatch) check(t *testing.T, pageURL string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, u := range w.requests {
		if u != pageURL {
			t.Errorf("the page requested %s", u)
		}
	}
	for _, p := range w.problems {
		t.Errorf("in the page: %s", p)
	}
	w.requests, w.problems = nil, nil
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// TestHTMLReportInBrowser opens the fleet report in headless Chromium: it
// renders, loads nothing, logs no error, its filters and sorting work,
// hostile server names show as text, and it is readable without JavaScript.
func TestHTMLReportInBrowser(t *testing.T) {
	ctx := browser(t)
	root := t.TempDir()
	dir := filepath.Join(root, "reports")
	hosts := append([]fleetHost{}, testFleet...)
	hosts = append(hosts, fleetHost{file: "mallory.json", hostname: "mallory-pc", user: "mallory", goos: "windows", at: time.Date(2025, 12, 31, 12, 0, 0, 0, time.UTC),
		files: map[string]string{".cursor/mcp.json": `{"mcpServers": {
  "<img src=x onerror=alert(1)>": {"command": "node", "args": ["<script>alert(2)</script>"]},
  "</script><script>alert(3)</script>": {"type": "http", "url": "https://x.example/\"><svg onload=alert(4)>"},
  "hidden\u200b\u202ename": {"command": "uvx", "args": ["pkg==1.0.0"]}
}}`}})
	writeFleet(t, dir, filepath.Join(root, "homes"), hosts)
	env := testEnv(root, "/nonexistent-home", nil)
	html := filepath.Join(root, "fleet.html")
	if _, stderr, code := runCLI(t, env, "report", dir, "--format", "html", "-o", html, "--fail-on", "never"); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	fleetJSON, _, _ := runCLI(t, env, "report", dir, "--format", "json", "--fail-on", "never")
	var fleet reports.Fleet
	if err := json.Unmarshal([]byte(fleetJSON), &fleet); err != nil {
		t.Fatal(err)
	}

	w := watchPage(t, ctx)
	url := "file://" + filepath.ToSlash(html)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.title`); got != "mcpguard fleet report" {
		t.Errorf("title %q", got)
	}
	// Hostile names are text, never markup.
	if n := eval[int](t, ctx, `document.querySelectorAll("img, iframe, object, embed").length + document.querySelectorAll("svg [onload], [onerror]").length`); n != 0 {
		t.Errorf("%d elements came from server names or URLs", n)
	}
	if n := eval[int](t, ctx, `document.scripts.length`); n != 1 {
		t.Errorf("%d scripts in the page, want only mcpguard's own", n)
	}
	// The page's text nodes, not innerText: innerText depends on layout
	// (it leaves out what is not rendered, and the sections are
	// content-visibility:auto), and on a loaded machine it once lacked
	// a name that the markup holds (.ci/run on a fresh clone).
	text := eval[string](t, ctx, `(() => {
		const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT,
			{acceptNode: n => /^(SCRIPT|STYLE)$/.test(n.parentNode.nodeName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
		const s = [];
		while (w.nextNode()) s.push(w.currentNode.nodeValue);
		return s.join("\n");
	})()`)
	for _, s := range []string{"<img src=x onerror=alert(1)>", "</script><script>alert(3)</script>", `\u{200B}`, `\u{202E}`} {
		if !strings.Contains(text, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
	// Every server is in the table, and the filters narrow it.
	servers := `document.querySelectorAll('table[data-kind=servers] tbody tr:not([hidden])').length`
	if n := eval[int](t, ctx, servers); n != len(fleet.Servers) {
		t.Errorf("%d server rows, want %d", n, len(fleet.Servers))
	}
	bob := 0
	for _, s := range fleet.Servers {
		if s.Host == "bob-xps/bob" {
			bob++
		}
	}
	eval[bool](t, ctx, `(function(){var s=document.querySelector('select[data-filter=host]'); s.value="bob-xps/bob"; s.dispatchEvent(new Event('change')); return true})()`)
	if n := eval[int](t, ctx, servers); n != bob {
		t.Errorf("filtered by host bob-xps/bob: %d server rows, want %d", n, bob)
	}
	if got := eval[string](t, ctx, `document.getElementById('shown').textContent`); !strings.Contains(got, fmt.Sprintf("%d of %d servers", bob, len(fleet.Servers))) {
		t.Errorf("filter summary %q", got)
	}
	eval[bool](t, ctx, `(function(){var s=document.querySelector('select[data-filter=rule]'); s.value='MCPG-C004'; s.dispatchEvent(new Event('change')); return true})()`)
	if n := eval[int](t, ctx, `document.querySelectorAll('table[data-kind=findings] tbody tr:not([hidden])').length`); n != 1 {
		t.Errorf("bob's MCPG-C004 findings: %d rows, want 1", n)
	}
	eval[bool](t, ctx, `(document.getElementById('reset').click(), true)`)
	// Sorting: the Findings column of the servers table, ascending.
	eval[bool](t, ctx, `(function(){var t=document.querySelector('table[data-kind=servers]'); Array.prototype.find.call(t.tHead.rows[0].cells, function(c){return c.textContent==='Findings'}).click(); return true})()`)
	if !eval[bool](t, ctx, `(function(){var t=document.querySelector('table[data-kind=servers]'); var col=Array.prototype.findIndex.call(t.tHead.rows[0].cells, function(c){return c.textContent==='Findings'}); var v=Array.prototype.map.call(t.tBodies[0].rows, function(r){return +r.cells[col].textContent}); for (var i=1;i<v.length;i++){ if (v[i]<v[i-1]) return false } return v.length>1})()`) {
		t.Error("the servers table is not sorted by findings after a click on its header")
	}
	w.check(t, url)

	// Without JavaScript every table and chart is there; only the filters
	// (which need it) are not.
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('table[data-kind=servers] tbody tr').length`); n != len(fleet.Servers) {
		t.Errorf("without JavaScript: %d server rows, want %d", n, len(fleet.Servers))
	}
	if !eval[bool](t, ctx, `document.getElementById('filters').hidden && document.querySelectorAll('svg rect.bar').length > 0`) {
		t.Error("without JavaScript: want the charts shown and the filters hidden")
	}
	w.check(t, url)

	// A what-if page: the proposal's section renders, loads nothing, and
	// the host filter narrows its changes.
	proposal := writeFile(t, root, "proposal.json", `{"allowedMcpServers": [{"serverUrl": "https://mcp.linear.app/*"}, {"serverCommand": ["uvx", "pkg==1.0.0"]}]}`)
	whatIf := filepath.Join(root, "what-if.html")
	if _, stderr, code := runCLI(t, env, "report", dir, "--policy", proposal, "--format", "html", "-o", whatIf, "--fail-on", "never"); code != exitOK {
		t.Fatalf("report --policy: exit %d: %s", code, stderr)
	}
	whatIfURL := "file://" + filepath.ToSlash(whatIf)
	if err := chromedp.Do(ctx, chromedp.Navigate(whatIfURL)); err != nil {
		t.Fatal(err)
	}
	changes := `document.querySelectorAll('table[data-kind=what-if-changes] tbody tr:not([hidden])').length`
	if n := eval[int](t, ctx, changes); n != 3 {
		t.Errorf("what-if: %d change rows, want 3 (linear on two hosts, mallory's hidden-name server)", n)
	}
	eval[bool](t, ctx, `(function(){var s=document.querySelector('select[data-filter=host]'); s.value="ci-runner/ci"; s.dispatchEvent(new Event('change')); return true})()`)
	if n := eval[int](t, ctx, changes); n != 1 {
		t.Errorf("what-if filtered by host ci-runner/ci: %d change rows, want 1", n)
	}
	w.check(t, whatIfURL)

	// The demo fleet, as docs/img/fleet-report.png shows it.
	if *updateScreenshot {
		demoDir := filepath.Join(root, "demo-reports")
		writeFleet(t, demoDir, filepath.Join(root, "demo-homes"), testFleet)
		demo := filepath.Join(root, "demo.html")
		if _, stderr, code := runCLI(t, env, "report", demoDir, "--format", "html", "-o", demo, "--fail-on", "never"); code != exitOK {
			t.Fatalf("report: exit %d: %s", code, stderr)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.ToSlash(demo))); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repoRoot(t), "docs", "img", "fleet-report.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeBigFleet writes hosts machine reports of perHost servers each, one
// finding per server, as a fleet's collection would hold them.
func writeBigFleet(t *testing.T, dir string, hosts, perHost int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for h := range hosts {
		r := reports.Report{Schema: reports.Schema, Tool: reports.Tool{Name: "mcpguard", Version: "test"}, GeneratedAt: "2025-12-31T00:00:00Z",
			Host: reports.Host{Hostname: fmt.Sprintf("host-%03d", h), OS: "linux", User: fmt.Sprintf("u%03d", h)}}
		if h == hosts-2 {
			r.Host.Hostname += "\u200b" // a hidden character: shown escaped, filtered by its raw value
		}
		for i := range perHost {
			id, fid := fmt.Sprintf("s-%03d-%04d", h, i), fmt.Sprintf("f-%03d-%04d", h, i)
			loc := reports.Location{Path: "/home/u/.cursor/mcp.json", Pointer: fmt.Sprintf("/mcpServers/srv-%04d", i), Line: i + 2, Column: 5}
			r.Servers = append(r.Servers, reports.Server{ID: id, Name: fmt.Sprintf("srv-%03d-%04d", h, i), Client: "cursor", Scope: "user",
				Transport: "stdio", Command: "node", Args: []string{fmt.Sprintf("tool-%d.js", i)}, EnvKeys: []string{}, HeaderKeys: []string{},
				Source: loc, Status: reports.StatusActive, Decision: reports.Decision{Allowed: true, Reasons: []string{reports.ReasonAllowed}}, FindingIDs: []string{fid}})
			r.Findings = append(r.Findings, reports.Finding{ID: fid, Rule: "MCPG-C002", Severity: reports.SeverityWarning, Category: "config",
				Message: fmt.Sprintf("finding %d of host %d", i, h), ServerID: id, Location: loc})
		}
		r.Summary = reports.Summarize(&r)
		data, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("host-%03d.json", h)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHTMLReportPaging: a fleet larger than the page holds in its markup
// stays usable: the tables page through every row, the filters find rows
// that are not in the markup, sorting covers every row, and without
// JavaScript the page says what it left out.
func TestHTMLReportPaging(t *testing.T) {
	ctx := browser(t)
	root := t.TempDir()
	const hosts, perHost = 520, 5 // 520 hosts, 2,600 servers: over the 500 rows of markup
	writeBigFleet(t, filepath.Join(root, "reports"), hosts, perHost)
	html := filepath.Join(root, "fleet.html")
	env := testEnv(root, "/nonexistent-home", nil)
	if _, stderr, code := runCLI(t, env, "report", filepath.Join(root, "reports"), "--format", "html", "-o", html, "--fail-on", "never"); code != exitOK {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	w := watchPage(t, ctx)
	url := "file://" + filepath.ToSlash(html)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	rows := func(kind string) int {
		return eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('table[data-kind=%s] tbody tr').length`, kind))
	}
	pagerText := func(kind string) string {
		return eval[string](t, ctx, fmt.Sprintf(`document.querySelector('table[data-kind=%s]').nextElementSibling.textContent`, kind))
	}
	click := func(kind, button string) {
		eval[bool](t, ctx, fmt.Sprintf(`(function(){var b=Array.prototype.find.call(document.querySelector('table[data-kind=%s]').nextElementSibling.querySelectorAll('button'), function(b){return b.textContent.indexOf(%q)>=0}); b.click(); return true})()`, kind, button))
	}
	total := hosts * perHost
	for _, kind := range []string{"servers", "findings"} {
		if n := rows(kind); n != 200 {
			t.Errorf("%s: %d rows on the first page, want 200", kind, n)
		}
		if got := pagerText(kind); !strings.Contains(got, fmt.Sprintf("Rows 1–200 of %d (page 1 of 13)", total)) {
			t.Errorf("%s pager: %q", kind, got)
		}
		if eval[bool](t, ctx, fmt.Sprintf(`!document.querySelector('p.cut[data-cut=%s]').hidden`, kind)) {
			t.Errorf("%s: the cut notice shows although the pager shows every row", kind)
		}
	}
	click("servers", "Next")
	if got := pagerText("servers"); !strings.Contains(got, "Rows 201–400") {
		t.Errorf("after Next: %q", got)
	}
	// Rows rendered from the data show the strings the data shares between
	// rows, not their indices.
	cell := func(kind, header string) string {
		return eval[string](t, ctx, fmt.Sprintf(`(function(){var t=document.querySelector('table[data-kind=%s]'); var col=Array.prototype.findIndex.call(t.tHead.rows[0].cells, function(c){return c.textContent===%q}); return t.tBodies[0].rows[0].cells[col].textContent})()`, kind, header))
	}
	for _, c := range []struct{ kind, header, want string }{
		{"servers", "Host", "host-040/u040"}, {"servers", "Client", "cursor"}, {"servers", "Scope", "user"}, {"servers", "Status", "active"},
		{"servers", "Runs", "node tool-0.js"}, {"findings", "Severity", "warning"}, {"findings", "Rule", "MCPG-C002"},
	} {
		if got := cell(c.kind, c.header); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.kind, c.header, got, c.want)
		}
	}
	if got := pagerText("hosts"); !strings.Contains(got, "Rows 1–200 of 520 (page 1 of 3)") {
		t.Errorf("hosts pager: %q", got)
	}
	// The last host's servers are past the markup's 500 rows: the filter
	// finds them in the data.
	last := fmt.Sprintf("host-%03d/u%03d", hosts-1, hosts-1)
	eval[bool](t, ctx, fmt.Sprintf(`(function(){var s=document.querySelector('select[data-filter=host]'); s.value=%q; s.dispatchEvent(new Event('change')); return true})()`, last))
	if got := pagerText("servers"); !strings.Contains(got, fmt.Sprintf("Rows 1–%d of %d (page 1 of 1)", perHost, perHost)) {
		t.Errorf("filtered to %s: %q", last, got)
	}
	if n := rows("hosts"); n != 1 {
		t.Errorf("filtered to %s: %d host rows, want 1", last, n)
	}
	if got := eval[string](t, ctx, `document.querySelector('table[data-kind=servers] tbody tr td').textContent`); got != last {
		t.Errorf("filtered to %s: the first row is of %q", last, got)
	}
	if got := eval[string](t, ctx, `document.getElementById('shown').textContent`); !strings.Contains(got, fmt.Sprintf("%d of %d servers", perHost, total)) {
		t.Errorf("filter summary %q", got)
	}
	// A host name with a hidden character: the filter matches its raw value,
	// the cell shows the character escaped.
	hidden := fmt.Sprintf("host-%03d\u200b/u%03d", hosts-2, hosts-2)
	eval[bool](t, ctx, fmt.Sprintf(`(function(){var s=document.querySelector('select[data-filter=host]'); s.value=%q; s.dispatchEvent(new Event('change')); return true})()`, hidden))
	if got := eval[string](t, ctx, `document.querySelector('table[data-kind=servers] tbody tr td').textContent`); got != fmt.Sprintf(`host-%03d\u{200B}/u%03d`, hosts-2, hosts-2) {
		t.Errorf("a hidden character in a host name shows as %q", got)
	}
	// Rows the script renders carry the rule's fix, as the markup's do.
	if !eval[bool](t, ctx, `!!document.querySelector('table[data-kind=findings] tbody tr .fix')`) {
		t.Error("the paged findings have no fix")
	}
	eval[bool](t, ctx, `(document.getElementById('reset').click(), true)`)
	// Sorting orders every row, not only the page: Name descending puts the
	// last host's last server first.
	for range 2 {
		eval[bool](t, ctx, `(function(){var t=document.querySelector('table[data-kind=servers]'); Array.prototype.find.call(t.tHead.rows[0].cells, function(c){return c.textContent==='Name'}).click(); return true})()`)
	}
	want := fmt.Sprintf("srv-%03d-%04d", hosts-1, perHost-1)
	if got := eval[string](t, ctx, `(function(){var t=document.querySelector('table[data-kind=servers]'); var col=Array.prototype.findIndex.call(t.tHead.rows[0].cells, function(c){return c.textContent==='Name'}); return t.tBodies[0].rows[0].cells[col].textContent})()`); got != want {
		t.Errorf("sorted by name, descending: first %q, want %q", got, want)
	}
	w.check(t, url)

	// Without JavaScript: the markup's rows and the notice of what is cut.
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	if n := rows("servers"); n != 500 {
		t.Errorf("without JavaScript: %d server rows, want the 500 of the markup", n)
	}
	if got := eval[string](t, ctx, `document.querySelector('p.cut[data-cut=servers]').textContent`); !strings.Contains(got, fmt.Sprintf("%d more servers", total-500)) {
		t.Errorf("without JavaScript: cut notice %q", got)
	}
	w.check(t, url)
}
