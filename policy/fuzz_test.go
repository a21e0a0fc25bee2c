package policy

import (
	"context"
	"maps"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/regoir"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/open-policy-agent/opa/v1/ast"
)

// byteSource turns fuzz bytes into choices; it yields zeros once exhausted.
type byteSource struct{ data []byte }

func (b *byteSource) byte() byte {
	if len(b.data) == 0 {
		return 0
	}
	c := b.data[0]
	b.data = b.data[1:]
	return c
}

func (b *byteSource) intn(n int) int { return int(b.byte()) % n }

func (b *byteSource) bool() bool { return b.byte()&1 == 1 }

// raw takes up to 12 bytes of text straight from the input.
func (b *byteSource) raw() string {
	n := b.intn(13)
	if n > len(b.data) {
		n = len(b.data)
	}
	s := strings.ToValidUTF8(string(b.data[:n]), "?")
	b.data = b.data[n:]
	return s
}

// pick returns a word of vocab, or now and then raw input text.
func (b *byteSource) pick(vocab []string) string {
	i := b.intn(len(vocab) + 1)
	if i == len(vocab) {
		return b.raw()
	}
	return vocab[i]
}

func (b *byteSource) list(vocab []string, max int) []string {
	out := make([]string, b.intn(max+1))
	for i := range out {
		out[i] = b.pick(vocab)
	}
	return out
}

var (
	fuzzNames = []string{"docs", "tool", "my.tool", "a b", "", "__proto__", "plugin:p:s", "claude.ai Slack", "corp", "ide"}
	fuzzArgv  = []string{"npx", "-y", "-p", "--package", "--package=pkg", "pkg", "pkg@1.2.3", "@s/pkg", "@s/pkg@latest", "pkg@^1",
		"bunx", "pnpm", "yarn", "npm", "dlx", "exec", "x", "--", "--registry",
		"uvx", "uv", "tool", "run", "pipx", "--from", "--from=pkg==1", "--spec", "pkg==1.0", "pkg@latest", "--python", "3.12",
		"docker", "podman", "container", "-e", "KEY=v", "-v", "/a:/b", "img", "img:latest", "img@sha256:00", "localhost:5000/img",
		"bash", "sh", "-c", "-lc", "-ec", "cmd", "/c", "/C", "/k", "/d", "powershell", "pwsh", "-Command", "-EncodedCommand", "-e",
		"curl https://x.test | sh", "iwr https://x.test | iex", "bash <(curl -s x)", "a|b", "a && b", "",
		"node", "server.js", "/opt/approved/srv", "./local", "C:\\srv\\x", "${VAR}", "${A:-${B}}", "file:x", "git+https://x",
	}
	fuzzURLs = []string{"https://mcp.acme.example/mcp", "http://mcp.acme.example/", "ws://127.0.0.1:1/", "https://evil.test/.acme.example/",
		"http://localhost:3000/", "https://h.invalid/${B}", "", "not a url", "https://user:pw@h.test/?token=x", "wss://x.test/"}
	fuzzPatterns = []string{"*", "https://*.acme.example/*", "https://mcp.acme.example*", "*.acme.example", "evil.test/*",
		"*://mcp.acme.example/*", "https://*", "https://mcp.acme.example", "https://*acme.example/*", "http://localhost:*/*", ""}
	fuzzEnv   = []string{"NODE_OPTIONS", "node_options", "PATH", "LD_PRELOAD", "LOG_LEVEL", "API_TOKEN", "PYTHONPATH", ""}
	fuzzKinds = []string{"managed-settings", "managed-drop-in", "policy-file", "user-settings", "project-settings", "local-settings", ""}
)

// fuzzEntry builds one policy entry (expanded) as scanner.entryInputs does.
func fuzzEntry(b *byteSource, allow bool) map[string]any {
	src := map[string]any{"path": "/etc/claude-code/managed-settings.json", "pointer": "/allowedMcpServers/0", "line": b.intn(4), "column": 5, "kind": b.pick(fuzzKinds)}
	switch b.intn(3) {
	case 0:
		return map[string]any{"key": "serverName", "name": b.pick(fuzzNames), "source": src}
	case 1:
		cmd := b.list(fuzzArgv, 4)
		if len(cmd) == 0 {
			cmd = []string{"npx"}
		}
		return map[string]any{"key": "serverCommand", "command": strs(cmd), "raw": strings.Join(cmd, " "), "source": src}
	}
	u := b.pick(fuzzPatterns)
	m := map[string]any{"key": "serverUrl", "url": u, "raw": u, "unsafe": false, "source": src}
	if allow && b.intn(4) == 0 {
		m["unsafe"], m["unsafe_reason"] = true, "a value changes the URL's structure"
	}
	return m
}

// fuzzList returns nil (an undefined list) or an indexed list; entries are
// drawn from small vocabularies, so duplicate names, command lines and
// patterns are common.
func fuzzList(b *byteSource, allow, nullable bool) any {
	if nullable && b.intn(3) == 0 {
		return nil
	}
	entries := make([]any, b.intn(6))
	for i := range entries {
		entries[i] = fuzzEntry(b, allow)
		if i > 0 && b.intn(4) == 0 {
			entries[i] = entries[i-1] // an exact duplicate
		}
	}
	return IndexList(entries)
}

func fuzzContext(b *byteSource) map[string]any {
	allow := fuzzList(b, true, true)
	allowOrg := allow
	if b.bool() {
		allowOrg = fuzzList(b, true, true)
	}
	deny := fuzzList(b, false, false)
	denyOrg := deny
	if b.bool() {
		denyOrg = fuzzList(b, false, false)
	}
	counts := func() map[string]any {
		return map[string]any{"serverName": b.intn(3), "serverCommand": b.intn(3), "serverUrl": b.intn(3)}
	}
	loc := map[string]any{"path": "/x.json", "pointer": "/allowedMcpServers", "line": 2, "column": 3}
	var docs, issues, broken []any
	for range b.intn(4) {
		kind := b.pick(fuzzKinds)
		d := map[string]any{"path": "/d.json", "kind": kind, "managed": b.bool(), "allow_defined": b.bool(), "allow_counts": counts(),
			"allow_source": loc, "deny_defined": b.bool(), "deny_counts": counts()}
		if b.bool() {
			d["enabled_plugins"] = map[string]any{b.pick(fuzzNames): b.bool(), "p@m": b.bool()}
			d["enabled_plugins_source"] = loc
		}
		docs = append(docs, d)
	}
	for range b.intn(3) {
		issues = append(issues, map[string]any{"path": "/x.json", "pointer": "/deniedMcpServers/0", "line": 1, "column": 1,
			"list": "deniedMcpServers", "message": b.raw(), "effect": []string{"fail-open", "fail-closed", "x"}[b.intn(3)], "kind": b.pick(fuzzKinds)})
	}
	for range b.intn(2) {
		broken = append(broken, map[string]any{"path": "/b.json", "line": 1, "column": 1, "message": b.raw()})
	}
	var mcp any
	if b.bool() {
		mcp = map[string]any{"path": "/etc/claude-code/managed-mcp.json", "parsed": b.bool(), "servers_object": b.bool(), "line": 1, "column": 2, "error": b.raw()}
	}
	managedOnly := map[string]any{"on": b.bool()}
	if b.bool() {
		managedOnly["source"] = loc
	}
	return map[string]any{"os": []string{"linux", "darwin", "windows"}[b.intn(3)], "project": "/p", "claude": map[string]any{
		"allow": allow, "deny": deny, "allow_org": allowOrg, "deny_org": denyOrg, "managed_only": managedOnly,
		"documents": nonNilList(docs), "issues": nonNilList(issues), "broken": nonNilList(broken),
		"managed_mcp": mcp, "strict_plugin_only": b.bool(),
	}}
}

// fuzzProgram derives facts.program as scanner.program does, looking through cmd /c.
func fuzzProgram(argv []string) (string, []string) {
	name := func(p string) string {
		p = strings.ToLower(p[strings.LastIndexAny(p, `/\`)+1:])
		for _, s := range []string{".exe", ".cmd", ".ps1", ".bat"} {
			p = strings.TrimSuffix(p, s)
		}
		return p
	}
	if len(argv) >= 2 && name(argv[0]) == "cmd" && (strings.EqualFold(argv[1], "/c") || strings.EqualFold(argv[1], "/k")) {
		argv = argv[2:]
	}
	if len(argv) == 0 {
		return "", nil
	}
	return name(argv[0]), argv[1:]
}

func fuzzServer(b *byteSource) map[string]any {
	transport := []string{"stdio", "http", "sse", "ws"}[b.intn(4)]
	labels := []string{"user", "project", "local", "enterprise", "managed", "dynamic", "plugin", ""}
	clients := []string{"claude-code", "cursor", "vscode", "claude-desktop"}
	client := clients[b.intn(len(clients))]
	s := map[string]any{"name": b.pick(fuzzNames), "client": client, "scope": "user", "project": "", "type": transport,
		"transport": transport, "env_keys": strs(b.list(fuzzEnv, 4)), "header_keys": strs(b.list([]string{"Authorization", "X-Key"}, 2)),
		"status":   []string{"active", "pending-approval", "blocked", "disabled"}[b.intn(4)],
		"enforced": client == "claude-code" || b.intn(8) == 0,
		"source":   map[string]any{"path": "/home/dev/.claude.json", "pointer": "/mcpServers/x", "line": 3, "column": 5}}
	claude := map[string]any{"label": labels[b.intn(len(labels))], "has_var": b.bool(), "builtin": b.intn(6) == 0}
	var secrets []any
	for range b.intn(3) {
		secrets = append(secrets, map[string]any{"field": []string{"env", "headers", "args", "url"}[b.intn(4)],
			"key": b.pick(append([]string{""}, fuzzEnv...)), "index": b.intn(4) - 1, "kind": "generic-api-key"})
	}
	facts := map[string]any{"secrets": nonNilList(secrets), "url": map[string]any{"parsed": false}, "env_var_keys": strs(b.list(fuzzEnv, 3)),
		"program": "", "program_args": []any{}}
	if transport == "stdio" {
		argv := b.list(fuzzArgv, 8)
		if len(argv) == 0 {
			argv = []string{b.pick(fuzzArgv)}
		}
		s["command"], s["args"], s["url"] = argv[0], strs(argv[1:]), ""
		claude["argv"], claude["url"], claude["urls"] = strs(argv), "", []any{""}
		keys := []any{ArgvKey(argv)}
		if b.intn(4) == 0 { // a second form, or the same one twice
			keys = append(keys, ArgvKey(append([]string{argv[0]}, b.list(fuzzArgv, 3)...)))
		}
		if b.intn(8) == 0 {
			keys = append(keys, keys[0])
		}
		claude["argv_keys"] = keys
		prog, args := fuzzProgram(argv)
		if b.intn(4) == 0 { // facts that disagree with the command line
			prog, args = path.Base(b.pick(fuzzArgv)), b.list(fuzzArgv, 4)
		}
		facts["program"], facts["program_args"] = prog, strs(args)
	} else {
		u := b.pick(fuzzURLs)
		s["command"], s["args"], s["url"] = "", []any{}, u
		urls := []any{u}
		if b.intn(4) == 0 {
			urls = append(urls, b.pick(fuzzURLs))
		}
		claude["argv"], claude["argv_keys"], claude["url"], claude["urls"] = []any{""}, []any{`[""]`}, u, urls
		facts["url"] = map[string]any{"parsed": b.bool(), "scheme": []string{"http", "https", "ws", "wss", ""}[b.intn(5)],
			"host": b.pick([]string{"localhost", "mcp.acme.example", "127.0.0.1", "::1", ""}), "port": "", "loopback": b.bool()}
	}
	s["claude"], s["facts"] = claude, facts
	return s
}

var (
	fuzzEngineOnce sync.Once
	fuzzEngine     *Engine
	fuzzEngineErr  error
)

var verdictReasons = []string{reports.ReasonDeniedName, reports.ReasonDeniedCommand, reports.ReasonDeniedURL}

// FuzzEvalServer evaluates random but well-typed servers in random policy
// contexts: the policies must never fail (a conflict or type error would fail
// the server closed with POLICY_ERROR) and always reach a decision.
func FuzzEvalServer(f *testing.F) {
	f.Add([]byte("docs"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte(strings.Repeat("\x05\x03\x07\x01", 40)))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzEngineOnce.Do(func() { fuzzEngine, fuzzEngineErr = NewEngine(context.Background(), EngineOptions{}) })
		if fuzzEngineErr != nil {
			t.Fatal(fuzzEngineErr)
		}
		b := &byteSource{data: data}
		pc, err := NewValue(fuzzContext(b))
		if err != nil {
			t.Fatal(err)
		}
		sv, err := NewValue(fuzzServer(b))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := fuzzEngine.EvalContext(ctx, pc); err != nil {
			t.Fatalf("EvalContext: %v", err)
		}
		res, err := fuzzEngine.EvalServer(ctx, sv, pc)
		if err != nil {
			t.Fatalf("EvalServer: %v", err)
		}
		d := res.Decision
		if len(d.Reasons) == 0 {
			t.Fatalf("decision without a reason: %+v", d)
		}
		rules := map[string]bool{}
		for _, f := range res.Findings {
			rules[f.Rule] = true
			if f.Severity == "" {
				t.Errorf("finding %s has no severity", f.Rule)
			}
		}
		switch {
		case d.Allowed:
			if !slices.Equal(d.Reasons, []string{reports.ReasonAllowed}) || res.Admission == "" {
				t.Fatalf("allowed with reasons %v, admission %q", d.Reasons, res.Admission)
			}
		case slices.Contains(verdictReasons, d.Reasons[0]):
			for _, r := range d.Reasons {
				if !slices.Contains(verdictReasons, r) {
					t.Fatalf("deny reasons %v", d.Reasons)
				}
			}
			if !rules["MCPG-P001"] || rules["MCPG-P002"] || res.Admission != "" {
				t.Fatalf("denied %v without P001 (findings %v, admission %q)", d.Reasons, rules, res.Admission)
			}
		default:
			if len(d.Reasons) != 1 || d.Reasons[0] != reports.ReasonEmptyAllowlist && d.Reasons[0] != reports.ReasonNotAllowlisted {
				t.Fatalf("blocked with reasons %v", d.Reasons)
			}
			if !rules["MCPG-P002"] || res.Admission != "" {
				t.Fatalf("blocked %v without P002 (findings %v, admission %q)", d.Reasons, rules, res.Admission)
			}
		}
	})
}

// FuzzPlanMatchesTopdown evaluates random servers, well-typed or with a
// field of any JSON type in its place, in random policy contexts, through
// the shipped plan and through topdown: the same result, or both fail.
func FuzzPlanMatchesTopdown(f *testing.F) {
	f.Add([]byte("docs"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte(strings.Repeat("\x05\x03\x07\x01", 40)))
	f.Add([]byte(strings.Repeat("\xff\x81\x02", 50)))
	planned, ref := planAndTopdown(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		planMatchesTopdown(t, planned, ref, data, "")
	})
}

// TestPlanMatchesTopdownGenerated is FuzzPlanMatchesTopdown over inputs
// generated from a fixed seed, so that every `go test` (CI included)
// holds the plan to topdown on a few hundred servers and contexts, not
// only on the fuzz corpus. It also checks that the inputs reach every
// kind of decision: a generator that stopped doing so would test little.
func TestPlanMatchesTopdownGenerated(t *testing.T) {
	planned, ref := planAndTopdown(t)
	rng := rand.New(rand.NewPCG(47, 2026))
	reasons := map[string]int{}
	rules := map[string]int{}
	for i := range 600 {
		data := make([]byte, 8+rng.IntN(200))
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		// Every other input launches its server through a program the
		// hygiene rules look at, as real command lines do.
		var launcher string
		if i%2 == 1 {
			launcher = fuzzLaunchers[rng.IntN(len(fuzzLaunchers))]
		}
		if res := planMatchesTopdown(t, planned, ref, data, launcher); res != nil && len(res.Decision.Reasons) > 0 {
			reasons[res.Decision.Reasons[0]]++
			for _, f := range res.Findings {
				rules[f.Rule]++
			}
		}
		if t.Failed() {
			t.Fatalf("input %d (launcher %q): %q", i, launcher, data)
		}
	}
	t.Logf("decisions: %v; findings: %v", reasons, rules)
	for _, r := range []string{reports.ReasonAllowed, reports.ReasonNotAllowlisted, reports.ReasonDeniedName,
		reports.ReasonDeniedCommand, reports.ReasonDeniedURL, reports.ReasonEmptyAllowlist} {
		if reasons[r] == 0 {
			t.Errorf("no generated server was decided %s", r)
		}
	}
	// The shipped rules the generator must reach: secrets, launchers,
	// transports and the Claude Code verdict's findings.
	for _, r := range []string{"MCPG-C001", "MCPG-C002", "MCPG-C003", "MCPG-C005", "MCPG-P001", "MCPG-P002"} {
		if rules[r] == 0 {
			t.Errorf("no generated server has a %s finding", r)
		}
	}
}

// fuzzLaunchers are the programs whose arguments the hygiene rules read.
var fuzzLaunchers = []string{"npx", "bunx", "pnpm", "yarn", "npm", "uvx", "uv", "pipx", "docker", "podman",
	"bash", "sh", "cmd", "powershell", "pwsh", "node"}

// planAndTopdown are an engine that evaluates through the shipped plan
// and one that evaluates with topdown (EngineOptions.Topdown).
func planAndTopdown(t testing.TB) (planned, ref *Engine) {
	t.Helper()
	ctx := context.Background()
	planned, err := NewEngine(ctx, EngineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err = NewEngine(ctx, EngineOptions{Topdown: true})
	if err != nil {
		t.Fatal(err)
	}
	if planned.plan == nil || ref.plan != nil {
		t.Fatal("the engines do not differ in how they evaluate")
	}
	return planned, ref
}

// planMatchesTopdown evaluates the server and the context data makes
// through both engines, and fails t unless both give the same results or
// both fail. A launcher, when given, is put first on a stdio server's
// command line. It returns the plan's server result.
func planMatchesTopdown(t *testing.T, planned, ref *Engine, data []byte, launcher string) *ServerResult {
	t.Helper()
	odd := []any{nil, true, 7, -1.5, "", "x", []any{}, []any{1, "a", nil}, map[string]any{}, map[string]any{"a": []any{"b"}}}
	ctx := context.Background()
	b := &byteSource{data: data}
	pc, err := NewValue(fuzzContext(b))
	if err != nil {
		t.Fatal(err)
	}
	server := fuzzServer(b)
	if launcher != "" && server["transport"] == "stdio" {
		launch(server, launcher)
	}
	for _, obj := range []map[string]any{server, server["claude"].(map[string]any), server["facts"].(map[string]any)} {
		if b.bool() {
			keys := slices.Sorted(maps.Keys(obj))
			obj[keys[b.intn(len(keys))]] = odd[b.intn(len(odd))]
		}
	}
	sv, err := NewValue(server)
	if err != nil {
		t.Fatal(err)
	}
	// The plan reads the server as records, as the scanner makes it.
	got, gotErr := planned.EvalServer(ctx, asRecords(sv), pc)
	want, wantErr := ref.EvalServer(ctx, sv, pc)
	if (gotErr != nil) != (wantErr != nil) {
		t.Errorf("plan error %v, topdown error %v", gotErr, wantErr)
	} else if !reflect.DeepEqual(got, want) {
		t.Errorf("plan %+v\ntopdown %+v", got, want)
	}
	gotCtx, gotErr := planned.EvalContext(ctx, pc)
	wantCtx, wantErr := ref.EvalContext(ctx, pc)
	if (gotErr != nil) != (wantErr != nil) {
		t.Errorf("context: plan error %v, topdown error %v", gotErr, wantErr)
	} else if !reflect.DeepEqual(gotCtx, wantCtx) {
		t.Errorf("context: plan %+v\ntopdown %+v", gotCtx, wantCtx)
	}
	return got
}

// launch rewrites a stdio server of fuzzServer's to start through
// launcher, keeping its arguments: the command, Claude Code's view of the
// command line and the facts agree.
func launch(server map[string]any, launcher string) {
	args := []string{}
	for _, a := range server["args"].([]any) {
		args = append(args, a.(string))
	}
	argv := append([]string{launcher}, args...)
	claude, facts := server["claude"].(map[string]any), server["facts"].(map[string]any)
	server["command"] = launcher
	claude["argv"], claude["argv_keys"] = strs(argv), []any{ArgvKey(argv)}
	prog, progArgs := fuzzProgram(argv)
	facts["program"], facts["program_args"] = prog, strs(progArgs)
}

// asRecords is v with its objects made records, outside arrays, keyed by
// the terms Object keys them with (keyTerm).
func asRecords(v Value) Value { return Value{v: records(v.v)} }

func records(v ast.Value) ast.Value {
	o, ok := v.(ast.Object)
	if !ok {
		return v
	}
	r := &regoir.Record{}
	r.Grow(o.Len())
	o.Foreach(func(k, v *ast.Term) {
		if s, ok := k.Value.(ast.String); ok {
			k = keyTerm(string(s))
		}
		r.Add(k, ast.NewTerm(records(v.Value)))
	})
	return r
}
