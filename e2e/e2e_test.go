package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// testTimeout bounds one test and every process it starts: a hang fails the
// test with the stderr of every process instead of stalling the package.
const testTimeout = 60 * time.Second

// codeWithheld is the JSON-RPC error code of a call to a withheld tool.
const codeWithheld = -32001

var (
	mcpguardBin string // the binary TestMain built
	nodeBin     string
	nodeDir     string // absolute path of testdata/node
	skipReason  string // why the tests cannot run here
	buildErr    error
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := filepath.Abs(filepath.Join("testdata", "node"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	nodeDir = dir
	if p, err := exec.LookPath("node"); err != nil {
		skipReason = "node is not on PATH"
	} else {
		nodeBin = p
	}
	for _, pkg := range []string{"sdk", "server-everything", "client", "server", "conformance"} {
		f := filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", pkg, "package.json")
		if _, err := os.Stat(f); err != nil && skipReason == "" {
			skipReason = fmt.Sprintf("e2e/testdata/node/node_modules lacks @modelcontextprotocol/%s", pkg)
		}
	}
	if bin := os.Getenv("MCPGUARD_E2E_BINARY"); bin != "" && skipReason == "" {
		mcpguardBin = bin // test a binary built elsewhere (a release)
	} else if skipReason == "" {
		tmp, err := os.MkdirTemp("", "mcpguard-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(tmp)
		mcpguardBin = filepath.Join(tmp, "mcpguard")
		if runtime.GOOS == "windows" {
			mcpguardBin += ".exe"
		}
		cmd := exec.Command(goTool(), "build", "-o", mcpguardBin, "./cmd/mcpguard")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/mcpguard: %v\n%s", err, out)
		}
	}
	return m.Run()
}

var stampOnce sync.Once

// stampInputs looks again, from within a test, at everything TestMain
// looked at and at every file of the module. go test caches a package's
// result until a file or environment variable the test consulted changes;
// it only sees what tests do (not TestMain before m.Run) and nothing of what
// go build reads. Without this, a change to the proxy, or installing the
// node packages after a skip, would be answered with a cached result.
func stampInputs() {
	_, _ = exec.LookPath("node")
	_ = os.Getenv("MCPGUARD_E2E_BINARY")
	for _, pkg := range []string{"sdk", "server-everything", "client", "server", "conformance"} {
		_, _ = os.Stat(filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", pkg, "package.json"))
	}
	_, _ = os.Stat(filepath.Join(nodeDir, "package-lock.json"))
	_ = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if name == ".git" || name == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".test") || strings.HasSuffix(name, ".out") || path == filepath.Join("..", "mcpguard") {
			return nil // build artifacts (.gitignore)
		}
		_, _ = os.Stat(path)
		return nil
	})
}

// goTool is the go command that runs these tests.
func goTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// ---------------------------------------------------------------------------
// Processes

// harness runs the processes of one test and reports their stderr when the
// test fails.
type harness struct {
	t     *testing.T
	ctx   context.Context
	mu    sync.Mutex
	procs []*proc
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWithin(t, testTimeout)
}

// newHarnessWithin is newHarness for a test that runs many sessions: it may
// take up to timeout.
func newHarnessWithin(t *testing.T, timeout time.Duration) *harness {
	t.Helper()
	stampOnce.Do(stampInputs)
	if skipReason != "" {
		t.Skipf("%s; install the e2e peers with: npm ci --prefix e2e/testdata/node", skipReason)
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	h := &harness{t: t, ctx: ctx}
	// Registered first, so it runs last: after every process has stopped
	// and its stderr is complete.
	t.Cleanup(func() {
		cancel()
		h.sweepLeftovers()
		if !t.Failed() {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, p := range h.procs {
			t.Logf("--- %s: %s\n%s", p.name, strings.Join(p.cmd.Args, " "), p.stderrText())
		}
	})
	return h
}

// tag is an argument that marks the stdio servers of this test: a server
// that outlives its session (a failure the test reports) is found by it and
// stopped, so that failing runs do not leave servers behind.
func (h *harness) tag() string {
	return fmt.Sprintf("mcpguard-e2e-%d-%p", os.Getpid(), h)
}

// sweepLeftovers kills the processes whose command line holds the test's
// tag (Linux: /proc; elsewhere a no-op).
func (h *harness) sweepLeftovers() {
	if runtime.GOOS != "linux" {
		return
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(h.tag())) {
			continue
		}
		if p, err := os.FindProcess(pid); err == nil && p.Kill() == nil {
			h.t.Logf("killed leftover process %d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte(" ")))
		}
	}
}

// proc is one process; its stderr is kept and can be waited on.
type proc struct {
	name   string
	cmd    *exec.Cmd
	stdout bytes.Buffer // only read after done

	mu     sync.Mutex
	stderr bytes.Buffer
	grew   chan struct{} // closed (and replaced) whenever stderr grows

	done chan struct{}
	err  error // Wait's result, set before done closes
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stderr.Write(b)
	close(p.grew)
	p.grew = make(chan struct{})
	return len(b), nil
}

func (p *proc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// start starts argv in dir with extra environment variables.
func (h *harness) start(name, dir string, env []string, argv ...string) *proc {
	h.t.Helper()
	p, err := h.startProc(name, dir, env, argv...)
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

// startProc is start for any goroutine: it returns the error.
func (h *harness) startProc(name, dir string, env []string, argv ...string) (*proc, error) {
	p := &proc{name: name, grew: make(chan struct{}), done: make(chan struct{})}
	p.cmd = exec.CommandContext(h.ctx, argv[0], argv[1:]...)
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = p
	// A grandchild that keeps a pipe open must not keep Wait waiting.
	p.cmd.WaitDelay = 3 * time.Second
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %v", name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	h.mu.Lock()
	h.procs = append(h.procs, p)
	h.mu.Unlock()
	h.t.Cleanup(func() {
		select {
		case <-p.done:
			return
		default:
		}
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(3 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p, nil
}

// waitFor waits until the process's stderr matches re and returns the
// submatches; it fails when the process exits first or the test times out.
func (h *harness) waitFor(p *proc, re *regexp.Regexp) []string {
	h.t.Helper()
	for {
		p.mu.Lock()
		m := re.FindStringSubmatch(p.stderr.String())
		grew := p.grew
		p.mu.Unlock()
		if m != nil {
			return m
		}
		select {
		case <-grew:
		case <-p.done:
			// Whatever it wrote before exiting is in stderr now.
			if m := re.FindStringSubmatch(p.stderrText()); m != nil {
				return m
			}
			h.t.Fatalf("%s exited (%v) before its stderr matched %q", p.name, p.err, re)
		case <-h.ctx.Done():
			h.t.Fatalf("%s: stderr did not match %q within %v", p.name, re, testTimeout)
		}
	}
}

// ---------------------------------------------------------------------------
// Peers

type transport string

const (
	stdio      transport = "stdio"
	streamable transport = "http"
	legacySSE  transport = "sse"
)

// upstream is an MCP server: a command line (stdio) or an endpoint URL.
type upstream struct {
	argv []string
	url  string
}

var everythingListening = regexp.MustCompile(`(?:listening|running) on port (\d+)`)

// everything starts server-everything: for stdio its command line, for
// HTTP a running server on a free port.
func (h *harness) everything(tr transport) upstream {
	h.t.Helper()
	js := filepath.Join(nodeDir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if tr == stdio {
		// server-everything reads its first argument only; the second marks
		// the processes of this test for sweepLeftovers.
		return upstream{argv: []string{nodeBin, js, "stdio", h.tag()}}
	}
	// server-everything takes its port from PORT and cannot report a port
	// the system chose; a port can be taken between freePort and listen, so
	// try a few.
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var port int
		if port, err = freePort(); err != nil {
			break
		}
		mode, path := "streamableHttp", "/mcp"
		if tr == legacySSE {
			mode, path = "sse", "/sse"
		}
		p := h.start("server-everything ("+string(tr)+")", nodeDir, []string{fmt.Sprintf("PORT=%d", port)}, nodeBin, js, mode)
		select {
		case <-h.ready(p, everythingListening):
			return upstream{url: fmt.Sprintf("http://127.0.0.1:%d%s", port, path)}
		case <-p.done:
			err = fmt.Errorf("exited: %v", p.err)
		case <-h.ctx.Done():
			h.t.Fatalf("server-everything did not start within %v", testTimeout)
		}
	}
	h.t.Fatalf("start server-everything over HTTP: %v", err)
	return upstream{}
}

// ready is closed when p's stderr matches re.
func (h *harness) ready(p *proc, re *regexp.Regexp) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		for {
			p.mu.Lock()
			ok := re.MatchString(p.stderr.String())
			grew := p.grew
			p.mu.Unlock()
			if ok {
				close(c)
				return
			}
			select {
			case <-grew:
			case <-p.done:
				return
			case <-h.ctx.Done():
				return
			}
		}
	}()
	return c
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var hostileListening = regexp.MustCompile(`hostile-server: listening on (http://\S+)`)

// hostile starts the hostile test server (HTTP) or returns its command line
// (stdio). stateFile, when set, persists its rug pull.
func (h *harness) hostile(tr transport, stateFile string) upstream {
	h.t.Helper()
	argv := []string{nodeBin, filepath.Join(nodeDir, "hostile-server.mjs")}
	if stateFile != "" {
		argv = append(argv, "--state", stateFile)
	}
	if tr == stdio {
		return upstream{argv: argv}
	}
	p := h.start("hostile-server (http)", nodeDir, nil, append(argv, "--http", "--port", "0")...)
	return upstream{url: h.waitFor(p, hostileListening)[1]}
}

// direct is the client's target for a direct connection to u.
func direct(u upstream) []string {
	if u.url != "" {
		return []string{"--url", u.url}
	}
	return append([]string{"--"}, u.argv...)
}

var proxyListening = regexp.MustCompile(`listening on (http://[^ \s]+)`)

// proxy is the client's target for a connection to u through mcpguard
// proxy with flags: for stdio the command line the client runs, for HTTP
// the URL of a proxy it starts.
func (h *harness) proxy(u upstream, flags ...string) []string {
	h.t.Helper()
	if u.url == "" {
		argv := append([]string{"--", mcpguardBin, "proxy"}, flags...)
		return append(append(argv, "--"), u.argv...)
	}
	args := append([]string{mcpguardBin, "proxy"}, flags...)
	args = append(args, "--upstream", u.url, "--listen", "127.0.0.1:0")
	p := h.start("mcpguard proxy (http)", "", nil, args...)
	base, err := url.Parse(h.waitFor(p, proxyListening)[1])
	if err != nil {
		h.t.Fatalf("mcpguard proxy printed an unusable URL: %v", err)
	}
	up, _ := url.Parse(u.url)
	if base.Path == "" || base.Path == "/" {
		base.Path = up.Path // the same endpoint path as the upstream's
	}
	return []string{"--url", base.String()}
}

// guardFlags are the flags every proxied run passes: its own pin file and
// event log in dir.
func guardFlags(dir, name string, more ...string) []string {
	return append([]string{"--name", name,
		"--pins", filepath.Join(dir, "pins.json"),
		"--events", filepath.Join(dir, "events.jsonl")}, more...)
}

// ---------------------------------------------------------------------------
// The client's document

type doc struct {
	Scenario       string    `json:"scenario"`
	Server         server    `json:"server"`
	Notifications  []message `json:"notifications"`
	ServerRequests []message `json:"serverRequests"`
	Lists          [][]tool  `json:"lists"`
	Calls          []call    `json:"calls"`
	Skipped        []skipped `json:"skipped"`
	Unlisted       []string  `json:"unlisted"`
	// Prompts, ResourceTemplates and PromptGets are the hostile scenario's
	// prompts/list, resources/templates/list and prompts/get of each prompt.
	Prompts           []map[string]any `json:"prompts"`
	ResourceTemplates []map[string]any `json:"resourceTemplates"`
	PromptGets        []call           `json:"promptGets"`
	ListChangedSeen   *bool            `json:"listChangedSeen"`
	Fatal             *rpcError        `json:"fatal"`
	ListError         *rpcError        `json:"listError"`

	raw      any    // the whole document
	stderr   string // the client's stderr (and a stdio server's)
	lingered error  // a process of the session outlived the client
}

// server is what initialize told the client.
type server struct {
	Info         map[string]any `json:"info"`
	Capabilities map[string]any `json:"capabilities"`
	Instructions *string        `json:"instructions"`
}

type message struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

// tool is one tool as the client received it.
type tool map[string]any

func (t tool) name() string        { s, _ := t["name"].(string); return s }
func (t tool) description() string { s, _ := t["description"].(string); return s }

type call struct {
	Name      string          `json:"name"`
	Arguments map[string]any  `json:"arguments"`
	Result    json.RawMessage `json:"result"`
	Error     *rpcError       `json:"error"`
	Task      bool            `json:"task"`
}

type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

type skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// ok reports whether the call succeeded: a result that is not a tool error.
func (c call) ok() bool {
	if c.Error != nil || c.Result == nil {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(c.Result, &r) == nil && !r.IsError
}

// tools is the last tools/list the client received, by name.
func (d *doc) tools() map[string]tool {
	m := map[string]tool{}
	if len(d.Lists) > 0 {
		for _, t := range d.Lists[len(d.Lists)-1] {
			m[t.name()] = t
		}
	}
	return m
}

// call returns the i-th call of the tool named name (0 is the first).
func (d *doc) call(t *testing.T, name string, i int) call {
	t.Helper()
	for _, c := range d.Calls {
		if c.Name == name {
			if i == 0 {
				return c
			}
			i--
		}
	}
	t.Fatalf("the client made no such call to %s", name)
	return call{}
}

// runClient runs client.mjs with a scenario against a target and returns
// what it observed.
func (h *harness) runClient(scenario string, target []string) (*doc, error) {
	return h.runScript("client.mjs", scenario, nil, target)
}

// runScript runs a client driver (client.mjs, client2.mjs) with a
// scenario, its own flags and a target.
func (h *harness) runScript(script, scenario string, flags, target []string) (*doc, error) {
	args := append([]string{nodeBin, script, scenario}, flags...)
	p, err := h.startProc("client "+scenario, nodeDir, nil, append(args, target...)...)
	if err != nil {
		return nil, err
	}
	var waitErr error
	select {
	case <-p.done:
		waitErr = p.err
	case <-h.ctx.Done():
		<-p.done
		return nil, fmt.Errorf("client %s did not finish within %v", scenario, testTimeout)
	}
	d := &doc{stderr: p.stderrText()}
	out := p.stdout.Bytes()
	if err := json.Unmarshal(out, d); err != nil {
		return nil, fmt.Errorf("client %s (%v): stdout is not its JSON document: %v\n%s", scenario, waitErr, err, out)
	}
	if err := json.Unmarshal(out, &d.raw); err != nil {
		return nil, err
	}
	if d.Fatal != nil {
		return nil, fmt.Errorf("client %s: %s (code %d)", scenario, d.Fatal.Message, d.Fatal.Code)
	}
	if errors.Is(waitErr, exec.ErrWaitDelay) {
		// The client exited, but its stderr stayed open: a process it started
		// (the stdio server, or the proxy and the server behind it), which
		// inherits that stderr, outlived the session.
		d.lingered = fmt.Errorf("client %s: %v seconds after the client exited, a process it started (proxy or server) still held its stderr: it outlived the session",
			scenario, p.cmd.WaitDelay.Seconds())
		return d, nil
	}
	if waitErr != nil {
		return nil, fmt.Errorf("client %s: %v", scenario, waitErr)
	}
	return d, nil
}

// client runs a client; the test fails when it fails, and goes on (but
// fails) when a process of the session outlived it.
func (h *harness) client(scenario string, target []string) *doc {
	h.t.Helper()
	d, err := h.runClient(scenario, target)
	if err != nil {
		h.t.Fatal(err)
	}
	if d.lingered != nil {
		h.t.Error(d.lingered)
	}
	return d
}

// clients runs two clients at once (a direct and a proxied run).
func (h *harness) clients(scenario string, a, b []string) (*doc, *doc) {
	h.t.Helper()
	var da, db *doc
	var ea, eb error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); da, ea = h.runClient(scenario, a) }()
	go func() { defer wg.Done(); db, eb = h.runClient(scenario, b) }()
	wg.Wait()
	if err := errors.Join(ea, eb); err != nil {
		h.t.Fatal(err)
	}
	for _, d := range []*doc{da, db} {
		if d.lingered != nil {
			h.t.Error(d.lingered)
		}
	}
	return da, db
}

// ---------------------------------------------------------------------------
// Events

type event struct {
	Schema   string         `json:"schema"`
	Time     string         `json:"time"`
	Source   string         `json:"source"`
	Server   string         `json:"server"`
	Kind     string         `json:"kind"`
	Severity string         `json:"severity"`
	Rule     string         `json:"rule"`
	Tool     string         `json:"tool"`
	Message  string         `json:"message"`
	Details  map[string]any `json:"details"`
}

// readEvents parses the event log: every line one event of the proxy for
// server.
func readEvents(t *testing.T, path, server string) []event {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("event log: %v", err)
	}
	var evs []event
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			t.Errorf("event log line %d is empty", i+1)
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Errorf("event log line %d is not JSON: %v\n%s", i+1, err, line)
			continue
		}
		if e.Schema != "mcpguard/event/v1" || e.Source != "proxy" || e.Server != server || e.Kind == "" || e.Time == "" {
			t.Errorf("event log line %d: want schema mcpguard/event/v1, source proxy, server %q, a kind and a time:\n%s", i+1, server, line)
		}
		evs = append(evs, e)
	}
	return evs
}

// findEvent returns the first event matching kind, rule and tool ("" matches
// anything).
func findEvent(evs []event, kind, rule, tool string) (event, bool) {
	for _, e := range evs {
		if (kind == "" || e.Kind == kind) && (rule == "" || e.Rule == rule) && (tool == "" || e.Tool == tool) {
			return e, true
		}
	}
	return event{}, false
}

func wantEvent(t *testing.T, evs []event, kind, rule, tool string) {
	t.Helper()
	if _, ok := findEvent(evs, kind, rule, tool); !ok {
		t.Errorf("no event with kind %q, rule %q, tool %q in the event log:\n%s", kind, rule, tool, eventSummary(evs))
	}
}

func eventSummary(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "  kind=%s rule=%s tool=%s\n", e.Kind, e.Rule, e.Tool)
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// Comparing documents

var (
	uuidRE  = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	portRE  = regexp.MustCompile(`"PORT": "\d+"`)
	clockRE = regexp.MustCompile(`\d{1,2}:\d{2}:\d{2}[\s\x{202F}]?[AP]M`)
	// server-everything's simulated logger: "Debug-level message",
	// "Alert level-message", ...
	randomLogRE = regexp.MustCompile(`^\w+[- ]level[- ]message`)
)

// normalize replaces what server-everything makes up anew in every session,
// so that a direct and a proxied session can be compared:
//   - UUIDs: Streamable HTTP session ids (random per session), which tool
//     results and log messages quote;
//   - members "taskId": random per task; "createdAt", "lastUpdatedAt": the
//     time a task was created and updated;
//   - clock times ("created at 8:06:12 AM"): the time a resource was read;
//   - the PORT variable in get-env's dump of the server's environment: over
//     HTTP each run has its own server on its own port;
//   - the level and text of the simulated logger's message, which
//     toggle-simulated-logging picks with Math.random;
//   - the order of notifications and of server requests: they come from
//     independent timers (roots sync 350 ms after initialization, task
//     progress every second) and, over HTTP, on different streams (the GET
//     stream and each POST's), so their interleaving varies from run to run.
//
// Everything else — tool lists, every call's result, every notification's
// content — must be identical.
func normalize(d *doc) any {
	v := normalizeValue(d.raw, "")
	m := v.(map[string]any)
	if ns, ok := m["notifications"].([]any); ok {
		for _, n := range ns {
			n := n.(map[string]any)
			p, _ := n["params"].(map[string]any)
			if n["method"] == "notifications/message" && p != nil {
				if s, _ := p["data"].(string); randomLogRE.MatchString(s) {
					n["params"] = map[string]any{"level": "<random>", "data": "<random>"}
				}
			}
		}
	}
	for _, k := range []string{"notifications", "serverRequests"} {
		if xs, ok := m[k].([]any); ok {
			sort.Slice(xs, func(i, j int) bool { return canonical(xs[i]) < canonical(xs[j]) })
		}
	}
	return m
}

func normalizeValue(v any, key string) any {
	switch key {
	case "taskId":
		return "<task-id>"
	case "createdAt", "lastUpdatedAt":
		return "<time>"
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeValue(e, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeValue(e, "")
		}
		return out
	case string:
		x = uuidRE.ReplaceAllString(x, "<uuid>")
		x = clockRE.ReplaceAllString(x, "<clock>")
		return portRE.ReplaceAllString(x, `"PORT": "<port>"`)
	}
	return v
}

func canonical(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func pretty(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// diff shows where two JSON values first differ, with context.
func diff(a, b any) string {
	al := strings.Split(pretty(a), "\n")
	bl := strings.Split(pretty(b), "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	lo := max(0, i-6)
	show := func(l []string) string {
		return strings.Join(l[lo:min(len(l), i+10)], "\n")
	}
	return fmt.Sprintf("first difference at line %d\n--- direct:\n%s\n--- through mcpguard proxy:\n%s", i+1, show(al), show(bl))
}

// ---------------------------------------------------------------------------
// server-everything

func TestEverythingStdio(t *testing.T) { testEverything(t, stdio) }
func TestEverythingHTTP(t *testing.T)  { testEverything(t, streamable) }

func testEverything(t *testing.T, tr transport) {
	h := newHarness(t)
	dir := t.TempDir()
	// Each run has its own server: server-everything keeps some state per
	// process, not per session (a session resource registered under the
	// same URI by a second session is removed from the first, which then
	// gets an extra notifications/resources/list_changed).
	d, p := h.clients("everything", direct(h.everything(tr)), h.proxy(h.everything(tr), guardFlags(dir, "everything")...))
	checkEverything(t, "direct", d)
	checkEverything(t, "through the proxy", p)
	if a, b := normalize(d), normalize(p); !reflect.DeepEqual(a, b) {
		t.Errorf("the client observed something else through the proxy than directly; %s", diff(a, b))
	}
	evs := readEvents(t, filepath.Join(dir, "events.jsonl"), "everything")
	for _, kind := range []string{"tool-withheld", "call-refused"} {
		if e, ok := findEvent(evs, kind, "", ""); ok {
			t.Errorf("event %s (rule %s, tool %s) for server-everything, which has nothing to withhold", kind, e.Rule, e.Tool)
		}
	}
}

// checkEverything: every tool server-everything lists was called and
// succeeded, except the ones the client cannot answer for a person.
func checkEverything(t *testing.T, run string, d *doc) {
	t.Helper()
	if len(d.Lists) != 1 || len(d.Lists[0]) < 10 {
		t.Fatalf("%s: want one tools/list of server-everything's tools, got %d lists of %v", run, len(d.Lists), names(d.Lists))
	}
	calls := map[string]call{}
	for _, c := range d.Calls {
		if _, seen := calls[c.Name]; !seen {
			calls[c.Name] = c
		}
	}
	skips := map[string]string{}
	for _, s := range d.Skipped {
		skips[s.Name] = s.Reason
	}
	for _, tl := range d.Lists[0] {
		n := tl.name()
		c, called := calls[n]
		switch {
		case called && !c.ok():
			t.Errorf("%s: call to %s failed: %s%s", run, n, errText(c.Error), c.Result)
		case !called && skips[n] == "":
			t.Errorf("%s: tool %s was listed but neither called nor skipped with a reason", run, n)
		}
	}
}

func names(lists [][]tool) [][]string {
	var out [][]string
	for _, l := range lists {
		var ns []string
		for _, t := range l {
			ns = append(ns, t.name())
		}
		out = append(out, ns)
	}
	return out
}

func errText(e *rpcError) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("error %d %q %v ", e.Code, e.Message, e.Data)
}

// ---------------------------------------------------------------------------
// The hostile server

// What the proxy must withhold from the hostile server, and why: "" is any
// rule that flags hidden instructions (decoded from tag characters, they are
// T001 and U001 at once).
var hostileWithheld = map[string][]string{
	"send_feedback": {"MCPG-T001"},
	"summarize":     {"MCPG-T001", "MCPG-U001"},
}

// The tools the proxy must forward unchanged.
var hostileClean = []string{"add", "executeCode", "getDiagnostics", "openFile", "get_fact", "trigger_rug_pull"}

const (
	wordCountVisible    = "Count the words in a text and return the count."
	instructionsVisible = "Test server for mcpguard's end-to-end tests."
)

func TestHostileStdio(t *testing.T) { testHostile(t, stdio) }
func TestHostileHTTP(t *testing.T)  { testHostile(t, streamable) }

func testHostile(t *testing.T, tr transport) {
	h := newHarness(t)
	// Every session gets a fresh server: the scenario ends with the rug
	// pull, which an HTTP server keeps for all its sessions.
	ref := h.client("hostile", direct(h.hostile(tr, "")))
	if len(ref.Unlisted) != 0 || len(ref.Lists) != 1 {
		t.Fatalf("direct: want every tool listed once, got %v (unlisted %v)", names(ref.Lists), ref.Unlisted)
	}
	for _, c := range ref.Calls {
		if !c.ok() {
			t.Fatalf("direct: call to %s failed: %s%s", c.Name, errText(c.Error), c.Result)
		}
	}
	if got := itemNames(ref.Prompts, "name"); got != "review_code,polish_email,triage_issue" || itemNames(ref.ResourceTemplates, "name") != "page,search" {
		t.Fatalf("direct: prompts %s, templates %s", got, itemNames(ref.ResourceTemplates, "name"))
	}
	for _, g := range ref.PromptGets {
		if g.Error != nil {
			t.Fatalf("direct: prompts/get %s failed: %s", g.Name, errText(g.Error))
		}
	}

	t.Run("enforce", func(t *testing.T) {
		h := newHarness(t)
		dir := t.TempDir()
		d := h.client("hostile", h.proxy(h.hostile(tr, ""), guardFlags(dir, "hostile")...))
		got, want := d.tools(), ref.tools()

		for n, rules := range hostileWithheld {
			if _, listed := got[n]; listed {
				t.Errorf("poisoned tool %s reached the client", n)
			}
			c := d.call(t, n, 0)
			checkRefused(t, c, rules...)
		}
		for _, n := range hostileClean {
			if !reflect.DeepEqual(got[n], want[n]) {
				t.Errorf("clean tool %s changed:\n got %s\nwant %s", n, canonical(got[n]), canonical(want[n]))
			}
		}
		if len(got) != len(want)-len(hostileWithheld) {
			t.Errorf("listed %v, want every tool but %v", names(d.Lists), keys(hostileWithheld))
		}

		// Hidden Unicode: none anywhere the client sees, the visible text kept.
		for _, tl := range d.Lists[0] {
			if hidden := hiddenIn(map[string]any(tl)); len(hidden) > 0 {
				t.Errorf("tool %s still carries hidden code points %U", tl.name(), hidden)
			}
		}
		if in := d.Server.Instructions; in == nil || *in != instructionsVisible {
			t.Errorf("initialize instructions = %s, want the visible text %q", canonical(in), instructionsVisible)
		}
		if wc, ok := got["word_count"]; !ok {
			t.Errorf("word_count (zero-width characters only) was withheld instead of sanitized")
		} else if wc.description() != wordCountVisible {
			t.Errorf("word_count description = %q, want the visible text %q", wc.description(), wordCountVisible)
		}

		// The lying readOnlyHint is gone; the tool is still there.
		if del, ok := got["delete_file"]; !ok {
			t.Errorf("delete_file was withheld; want it listed without readOnlyHint")
		} else if ann, _ := del["annotations"].(map[string]any); ann["readOnlyHint"] == true {
			t.Errorf("delete_file still claims readOnlyHint: true: %s", canonical(del))
		}

		// Every forwarded call answers as it does directly.
		for i, c := range d.Calls {
			if _, withheld := hostileWithheld[c.Name]; withheld {
				continue
			}
			want := enforcedResult(ref.Calls[i].Result)
			if c.Name == "openFile" && !strings.Contains(string(ref.Calls[i].Result), hiddenLine) {
				t.Errorf("openFile's result hides no line: %s", ref.Calls[i].Result)
			}
			if !c.ok() || string(c.Result) != want {
				t.Errorf("call to %s: got %s%s, want %s", c.Name, errText(c.Error), c.Result, want)
			}
		}

		// The poisoned prompt and template are left out, and the prompt
		// cannot be fetched; the clean ones reach the client unchanged.
		if got := itemNames(d.Prompts, "name"); got != "review_code,triage_issue" {
			t.Errorf("prompts listed: %s, want review_code,triage_issue", got)
		}
		if got := itemNames(d.ResourceTemplates, "name"); got != "page" {
			t.Errorf("resource templates listed: %s, want page", got)
		}
		if len(d.Prompts) > 0 && !reflect.DeepEqual(d.Prompts[0], ref.Prompts[0]) {
			t.Errorf("clean prompt changed; %s", diff(ref.Prompts[0], d.Prompts[0]))
		}
		for i, g := range d.PromptGets {
			switch g.Name {
			case "polish_email", "triage_issue":
				// Refused before the server (its listing), or its
				// messages judged on the way back.
				if g.Error == nil || g.Error.Code != codeWithheld || g.Error.Data["item_kind"] != "prompt" {
					t.Errorf("prompts/get %s: got %s%s, want code %d", g.Name, errText(g.Error), g.Result, codeWithheld)
				}
			default:
				if g.Error != nil || string(g.Result) != string(ref.PromptGets[i].Result) {
					t.Errorf("prompts/get %s: got %s%s, want %s", g.Name, errText(g.Error), g.Result, ref.PromptGets[i].Result)
				}
			}
		}

		evs := readEvents(t, filepath.Join(dir, "events.jsonl"), "hostile")
		wantItemWithheld(t, evs, "prompt", "polish_email")
		wantItemWithheld(t, evs, "prompt", "triage_issue")
		wantEvent(t, evs, "result-sanitized", "", "openFile")
		wantItemWithheld(t, evs, "resource_template", "search")
		wantEvent(t, evs, "tool-withheld", "MCPG-T001", "send_feedback")
		wantEvent(t, evs, "tool-withheld", "", "summarize")
		wantEvent(t, evs, "call-refused", "MCPG-T001", "send_feedback")
		wantEvent(t, evs, "call-refused", "", "summarize")
		wantEvent(t, evs, "", "MCPG-A001", "delete_file")
		wantEvent(t, evs, "annotation-dropped", "", "delete_file")
	})

	t.Run("monitor", func(t *testing.T) {
		h := newHarness(t)
		dir := t.TempDir()
		d := h.client("hostile", h.proxy(h.hostile(tr, ""), guardFlags(dir, "hostile", "--mode", "monitor")...))
		if !reflect.DeepEqual(d.Server, ref.Server) {
			t.Errorf("monitor mode changed initialize; %s", diff(ref.Server, d.Server))
		}
		if !reflect.DeepEqual(d.Lists, ref.Lists) {
			t.Errorf("monitor mode changed tools/list; %s", diff(ref.Lists, d.Lists))
		}
		if !reflect.DeepEqual(d.Calls, ref.Calls) {
			t.Errorf("monitor mode changed tool calls; %s", diff(ref.Calls, d.Calls))
		}
		if !reflect.DeepEqual(d.Prompts, ref.Prompts) || !reflect.DeepEqual(d.ResourceTemplates, ref.ResourceTemplates) || !reflect.DeepEqual(d.PromptGets, ref.PromptGets) {
			t.Errorf("monitor mode changed prompts or templates; %s %s", diff(ref.Prompts, d.Prompts), diff(ref.PromptGets, d.PromptGets))
		}
		evs := readEvents(t, filepath.Join(dir, "events.jsonl"), "hostile")
		wantEvent(t, evs, "", "MCPG-T001", "send_feedback")
		if e, ok := findEvent(evs, "call-refused", "", ""); ok {
			t.Errorf("monitor mode refused a call to %s", e.Tool)
		}
	})
}

// itemNames joins the member of each listed item.
func itemNames(items []map[string]any, member string) string {
	var out []string
	for _, it := range items {
		s, _ := it[member].(string)
		out = append(out, s)
	}
	return strings.Join(out, ",")
}

// wantItemWithheld asserts an item-withheld event for the item.
// hiddenLine are the escapes hostile-server.mjs's openFile hides a line
// of its result behind (CSI 1A, CSI 2K), as the client's JSON writes them.
const hiddenLine = `\u001b[1A\u001b[2K`

// enforcedResult is the result of a call to a clean tool as enforce mode
// forwards it: the server's (direct) without the escapes that hide a line
// from a terminal.
func enforcedResult(direct json.RawMessage) string {
	return strings.ReplaceAll(string(direct), hiddenLine, "")
}

func wantItemWithheld(t *testing.T, evs []event, kind, name string) {
	t.Helper()
	for _, e := range evs {
		if e.Kind == "item-withheld" && e.Details["item_kind"] == kind && e.Details["item"] == name {
			return
		}
	}
	t.Errorf("no item-withheld event for %s %s", kind, name)
}

// checkRefused asserts that a call was answered by the proxy as a call to a
// withheld tool, for one of rules.
func checkRefused(t *testing.T, c call, rules ...string) {
	t.Helper()
	if c.Error == nil {
		t.Errorf("call to withheld tool %s was not refused: %s", c.Name, c.Result)
		return
	}
	prefix := fmt.Sprintf("mcpguard withheld tool %q", c.Name)
	rule, _ := c.Error.Data["rule"].(string)
	if c.Error.Code != codeWithheld || !strings.HasPrefix(c.Error.Message, prefix) ||
		c.Error.Data["tool"] != c.Name || !contains(rules, rule) {
		t.Errorf("call to withheld tool %s: got %s, want code %d, a message starting %s, data.tool %q and data.rule one of %v",
			c.Name, errText(c.Error), codeWithheld, prefix, c.Name, rules)
	}
}

func contains(xs []string, x string) bool {
	for _, e := range xs {
		if e == x {
			return true
		}
	}
	return false
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// hiddenIn returns the invisible or reordering code points in every string
// and key of v.
func hiddenIn(v any) []rune {
	var out []rune
	check := func(s string) {
		for _, r := range s {
			if isHidden(r) {
				out = append(out, r)
			}
		}
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				check(k)
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			check(x)
		}
	}
	walk(v)
	return out
}

func isHidden(r rune) bool {
	switch {
	case r >= 0xE0000 && r <= 0xE007F, // tags
		r >= 0x200B && r <= 0x200F,                               // zero-width, LRM, RLM
		r >= 0x202A && r <= 0x202E,                               // bidi embeddings and overrides
		r >= 0x2060 && r <= 0x206F,                               // word joiner, invisible operators, isolates
		r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, // variation selectors
		r == 0xFEFF, r == 0x00AD, r == 0x034F, r == 0x180E:
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// IDE allowlist

func TestIDEAllowlist(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"name ide", []string{"--name", "ide"}},
		{"flag --ide", []string{"--name", "editor", "--ide"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			dir := t.TempDir()
			flags := append(append([]string(nil), tc.flags...),
				"--pins", filepath.Join(dir, "pins.json"), "--events", filepath.Join(dir, "events.jsonl"))
			d := h.client("ide", h.proxy(h.hostile(stdio, ""), flags...))
			if got := keys(d.tools()); !reflect.DeepEqual(got, []string{"executeCode", "getDiagnostics"}) {
				t.Errorf("tools reaching the client: %v, want only executeCode and getDiagnostics", got)
			}
			for _, n := range []string{"executeCode", "getDiagnostics"} {
				if c := d.call(t, n, 0); !c.ok() {
					t.Errorf("call to %s: %s%s", n, errText(c.Error), c.Result)
				}
			}
			checkRefused(t, d.call(t, "openFile", 0), "MCPG-I001")
			evs := readEvents(t, filepath.Join(dir, "events.jsonl"), tc.flags[1])
			wantEvent(t, evs, "tool-withheld", "MCPG-I001", "openFile")
			wantEvent(t, evs, "call-refused", "MCPG-I001", "openFile")
		})
	}
}

// ---------------------------------------------------------------------------
// Rug pull

const (
	factTrusted   = "Get a fact of the day."
	factRugPulled = "Get a fact of the day, freshly picked from the almanac."
)

func TestRugPullStdio(t *testing.T) { testRugPull(t, stdio) }
func TestRugPullHTTP(t *testing.T)  { testRugPull(t, streamable) }

func testRugPull(t *testing.T, tr transport) {
	h := newHarness(t)
	dir := t.TempDir()
	pins, events := filepath.Join(dir, "pins.json"), filepath.Join(dir, "events.jsonl")
	u := h.hostile(tr, filepath.Join(dir, "rug-pulled"))
	target := h.proxy(u, guardFlags(dir, "rugpull")...)

	// First session: trusted on first use, then the rug pull.
	d := h.client("rugpull", target)
	if len(d.Lists) != 2 {
		t.Fatalf("want two tools/list results, got %v", names(d.Lists))
	}
	first := map[string]tool{}
	for _, tl := range d.Lists[0] {
		first[tl.name()] = tl
	}
	if f, ok := first["get_fact"]; !ok || f.description() != factTrusted {
		t.Fatalf("first tools/list: want get_fact %q, got %s", factTrusted, canonical(first["get_fact"]))
	}
	if c := d.call(t, "get_fact", 0); !c.ok() {
		t.Errorf("get_fact before the rug pull: %s%s", errText(c.Error), c.Result)
	}
	if _, err := os.Stat(pins); err != nil {
		t.Errorf("no pin file after the first tools/list: %v", err)
	}
	if d.ListChangedSeen == nil || !*d.ListChangedSeen {
		t.Errorf("the client did not receive notifications/tools/list_changed after the rug pull")
	}
	if f, listed := d.tools()["get_fact"]; listed {
		t.Errorf("after the rug pull get_fact reached the client: %s", canonical(f))
	}
	for n := range first {
		if _, still := d.tools()[n]; !still && n != "get_fact" {
			t.Errorf("after the rug pull %s (unchanged) was withheld", n)
		}
	}
	checkRefused(t, d.call(t, "get_fact", 1), "MCPG-T003")

	evs := readEvents(t, events, "rugpull")
	wantEvent(t, evs, "pin-created", "", "")
	wantEvent(t, evs, "tools-list-changed", "", "")
	wantEvent(t, evs, "tool-withheld", "MCPG-T003", "get_fact")
	wantEvent(t, evs, "call-refused", "MCPG-T003", "get_fact")
	if t.Failed() {
		return
	}

	// Approve the new definition; a new session sees and calls it.
	approve := exec.CommandContext(h.ctx, mcpguardBin, "pins", "approve", "rugpull", "--pins", pins)
	if out, err := approve.CombinedOutput(); err != nil {
		t.Fatalf("mcpguard pins approve rugpull: %v\n%s", err, out)
	}
	if tr == stdio {
		target = h.proxy(u, guardFlags(dir, "rugpull")...) // a new proxy process, as a client starts one per session
	}
	d = h.client("list", target)
	if f, ok := d.tools()["get_fact"]; !ok || f.description() != factRugPulled {
		t.Errorf("after approval: want get_fact %q listed, got %s (tools %v)", factRugPulled, canonical(f), keys(d.tools()))
	}
	if c := d.call(t, "get_fact", 0); !c.ok() {
		t.Errorf("get_fact after approval: %s%s", errText(c.Error), c.Result)
	}
}
