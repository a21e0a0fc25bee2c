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
			w.problems = append(w.problems, "exception: "+e.ExceptionDetails.Text)
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
	text := eval[string](t, ctx, `document.body.innerText`)
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
