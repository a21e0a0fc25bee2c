package urlmatch

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpguard/mcpguard/internal/interp"
)

// testdata/oracle_urls.txt records experiments run against the real Claude
// Code CLI (docs/claude-code.md §12.1). One experiment per line, fields
// separated by tabs; a field that starts with a double quote is a Go string
// literal (for tabs, spaces and other awkward characters):
//
//	mode  pattern  server-url  listed  [VAR=VALUE ...]
//
// mode is one of
//
//	allow       managed allowedMcpServers: [{serverUrl: pattern}]
//	allow+name  the same plus a serverName entry for every server of the run
//	deny        managed deniedMcpServers: [{serverUrl: pattern}], no allowlist
//
// listed is "yes" or "no": whether `claude mcp list` listed an http (or, for
// ws:// and wss:// URLs, ws) server with that url in ~/.claude.json. The
// VAR=VALUE pairs are the environment Claude Code ran with; "@VAR=VALUE" is
// set only in the env block of ~/.claude/settings.json, and "!VAR=VALUE" is
// set in the process environment but is a credential variable that Claude
// Code reads as empty when it expands policy entries.
//
// TestOracleRecorded checks Match and UnsafeAllowEntry against every line, in
// every CI run. TestOracleLive re-runs the experiments against the real CLI
// when MCPGUARD_ORACLE names tools/claude-code-oracle; with -update it
// rewrites the listed column (lines whose listed column is "?" are new
// experiments to run; -oracle.new runs only those).

var (
	updateOracle = flag.Bool("update", false, "rewrite testdata/oracle_urls.txt from the live oracle")
	oracleNew    = flag.Bool("oracle.new", false, "TestOracleLive: run only the experiments whose listed column is ?")
)

const oracleFile = "testdata/oracle_urls.txt"

type oracleCase struct {
	line    int
	mode    string
	pattern string
	url     string
	listed  string // "yes", "no" or "?"
	env     []string
	comment string // trailing "# ..." text, kept on rewrite
}

// lookup is the policy environment of the case: the process environment,
// with credential variables blanked when blank is true, falling back (for
// deny entries only, when fallback is true) to the env block of
// ~/.claude/settings.json.
func (c oracleCase) lookup(fallback, blank bool) func(string) (string, bool) {
	proc, user := map[string]string{}, map[string]string{}
	for _, kv := range c.env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "@"):
			user[k[1:]] = v
		case strings.HasPrefix(k, "!"):
			proc[k[1:]] = v
			if blank {
				proc[k[1:]] = ""
			}
		default:
			proc[k] = v
		}
	}
	return func(name string) (string, bool) {
		if v, ok := proc[name]; ok {
			return v, true
		}
		if fallback {
			v, ok := user[name]
			return v, ok
		}
		return "", false
	}
}

// serverLookup is the environment server configs are expanded with: the
// process environment (credential variables included), overridden by the env
// block of ~/.claude/settings.json (docs/claude-code.md §3.3).
func (c oracleCase) serverLookup() func(string) (string, bool) {
	proc, user := map[string]string{}, map[string]string{}
	for _, kv := range c.env {
		k, v, _ := strings.Cut(strings.TrimPrefix(kv, "!"), "=")
		if name, ok := strings.CutPrefix(k, "@"); ok {
			user[name] = v
		} else {
			proc[k] = v
		}
	}
	return func(name string) (string, bool) {
		if v, ok := user[name]; ok {
			return v, true
		}
		v, ok := proc[name]
		return v, ok
	}
}

// predict is what mcpguard says `claude mcp list` does for the case.
func (c oracleCase) predict() bool {
	url, _ := interp.ExpandClaude(c.url, c.serverLookup())
	switch c.mode {
	case "deny":
		// Deny entries are never skipped; they are expanded with and without
		// credential blanking, and either form blocks.
		return !Match(ExpandEntry(c.pattern, c.lookup(true, true)), url) &&
			!Match(ExpandEntry(c.pattern, c.lookup(true, false)), url)
	default: // allow, allow+name: name entries are ignored once A has a serverUrl entry
		look := c.lookup(false, true)
		if unsafe, _ := UnsafeAllowEntry(c.pattern, look); unsafe {
			return false
		}
		return Match(ExpandEntry(c.pattern, look), url)
	}
}

// short abbreviates long strings in messages.
func short(s string) string {
	if len(s) > 120 {
		return s[:100] + "…(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return s
}

func quoteField(s string) string {
	if s == "" || strings.ContainsAny(s, "\t\n\r\"\\") || s != strings.TrimSpace(s) || strings.HasPrefix(s, "#") {
		return strconv.Quote(s)
	}
	return s
}

func unquoteField(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		return strconv.Unquote(s)
	}
	return s, nil
}

func readOracleFile(t *testing.T) (lines []string, cases []oracleCase) {
	t.Helper()
	f, err := os.Open(oracleFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		lines = append(lines, line)
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		body, comment, _ := strings.Cut(line, "\t#")
		fields := strings.Split(body, "\t")
		if len(fields) < 4 {
			t.Fatalf("%s:%d: want at least 4 tab-separated fields, got %d", oracleFile, n, len(fields))
		}
		for i := range fields {
			if fields[i], err = unquoteField(fields[i]); err != nil {
				t.Fatalf("%s:%d: field %d: %v", oracleFile, n, i+1, err)
			}
		}
		c := oracleCase{line: n, mode: fields[0], pattern: fields[1], url: fields[2], listed: fields[3], env: fields[4:], comment: strings.TrimSpace(comment)}
		switch c.mode {
		case "allow", "allow+name", "deny":
		default:
			t.Fatalf("%s:%d: unknown mode %q", oracleFile, n, c.mode)
		}
		switch c.listed {
		case "yes", "no", "?":
		default:
			t.Fatalf("%s:%d: listed must be yes, no or ?, got %q", oracleFile, n, c.listed)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, cases
}

// TestOracleRecorded replays the recorded ground truth without the CLI.
func TestOracleRecorded(t *testing.T) {
	_, cases := readOracleFile(t)
	if len(cases) == 0 {
		t.Fatal("no recorded oracle cases")
	}
	for _, c := range cases {
		if c.listed == "?" {
			t.Errorf("%s:%d: experiment not run yet (run TestOracleLive with -update)", oracleFile, c.line)
			continue
		}
		if got := c.predict(); got != (c.listed == "yes") {
			t.Errorf("%s:%d: %s %q · %q %v: mcpguard says listed=%v, Claude Code said %s",
				oracleFile, c.line, c.mode, short(c.pattern), short(c.url), c.env, got, c.listed)
		}
	}
}

// oracleRun is one CLI run: one policy entry (and environment), many servers.
type oracleRun struct {
	mode, pattern string
	env           []string
	cases         []int // indexes into the case list
}

// TestOracleLive runs the recorded experiments against the real Claude Code.
// It needs MCPGUARD_ORACLE=/path/to/tools/claude-code-oracle (root, unshare).
func TestOracleLive(t *testing.T) {
	script := os.Getenv("MCPGUARD_ORACLE")
	if script == "" {
		t.Skip("MCPGUARD_ORACLE is not set")
	}
	lines, cases := readOracleFile(t)
	runs := map[string]*oracleRun{}
	var keys []string
	for i, c := range cases {
		if *oracleNew && c.listed != "?" {
			continue
		}
		key := c.mode + "\x00" + c.pattern + "\x00" + strings.Join(c.env, "\x00")
		r, ok := runs[key]
		if !ok {
			r = &oracleRun{mode: c.mode, pattern: c.pattern, env: c.env}
			runs[key] = r
			keys = append(keys, key)
		}
		r.cases = append(r.cases, i)
	}
	observed := make([]string, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, key := range keys {
		r := runs[key]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			listed, err := runOracle(t, script, r, cases)
			if err != nil {
				t.Errorf("oracle run for %s %q: %v", r.mode, short(r.pattern), err)
				return
			}
			for j, i := range r.cases {
				observed[i] = map[bool]string{true: "yes", false: "no"}[listed[j]]
			}
		}()
	}
	wg.Wait()
	changed := false
	for i, c := range cases {
		if observed[i] == "" {
			continue
		}
		if observed[i] != c.listed {
			changed = true
			if !*updateOracle {
				t.Errorf("%s:%d: %s %q · %q: recorded %s, Claude Code now says %s", oracleFile, c.line, c.mode, short(c.pattern), short(c.url), c.listed, observed[i])
			}
			fields := []string{c.mode, quoteField(c.pattern), quoteField(c.url), observed[i]}
			for _, kv := range c.env {
				fields = append(fields, quoteField(kv))
			}
			line := strings.Join(fields, "\t")
			if c.comment != "" {
				line += "\t# " + strings.TrimPrefix(c.comment, "# ")
			}
			lines[c.line-1] = line
		}
		if got := c.predict(); observed[i] != "" && got != (observed[i] == "yes") {
			t.Errorf("%s:%d: mcpguard disagrees with Claude Code: %s %q · %q %v: CLI %s", oracleFile, c.line, c.mode, short(c.pattern), short(c.url), c.env, observed[i])
		}
	}
	if changed && *updateOracle {
		if err := os.WriteFile(oracleFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runOracle prepares the three directories for one run, calls the oracle with
// `mcp list` and reports, per case, whether its server was listed.
func runOracle(t *testing.T, script string, r *oracleRun, cases []oracleCase) ([]bool, error) {
	dir := t.TempDir()
	for _, d := range []string{"managed", "home/.claude", "project"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	servers := map[string]any{}
	var entries []map[string]any
	entries = append(entries, map[string]any{"serverUrl": r.pattern})
	for j, i := range r.cases {
		typ := "http"
		if u := strings.ToLower(strings.TrimSpace(cases[i].url)); strings.HasPrefix(u, "ws:") || strings.HasPrefix(u, "wss:") {
			typ = "ws"
		}
		name := "s" + strconv.Itoa(j)
		servers[name] = map[string]any{"type": typ, "url": cases[i].url}
		if r.mode == "allow+name" {
			entries = append(entries, map[string]any{"serverName": name})
		}
	}
	policy := map[string]any{}
	if r.mode == "deny" {
		policy["deniedMcpServers"] = entries
	} else {
		policy["allowedMcpServers"] = entries
	}
	write := func(name string, v any) error {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	if err := write("managed/managed-settings.json", policy); err != nil {
		return nil, err
	}
	home := map[string]any{
		"mcpServers": servers,
		"projects": map[string]any{
			"/tmp/mcpguard-oracle/project": map[string]any{"hasTrustDialogAccepted": true},
		},
	}
	if err := write("home/.claude.json", home); err != nil {
		return nil, err
	}
	args := []string{filepath.Join(dir, "managed"), filepath.Join(dir, "home"), filepath.Join(dir, "project")}
	userEnv := map[string]string{}
	for _, kv := range r.env {
		switch {
		case strings.HasPrefix(kv, "@"):
			k, v, _ := strings.Cut(kv[1:], "=")
			userEnv[k] = v
		case strings.HasPrefix(kv, "!"):
			args = append(args, kv[1:])
		default:
			args = append(args, kv)
		}
	}
	if len(userEnv) > 0 {
		if err := write("home/.claude/settings.json", map[string]any{"env": userEnv}); err != nil {
			return nil, err
		}
	}
	args = append(args, "--", "mcp", "list")
	out, err := exec.Command(script, args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, out)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		name, rest, ok := strings.Cut(line, ": ")
		if ok && strings.HasPrefix(name, "s") && strings.Contains(rest, " - ") {
			listed[name] = true
		}
	}
	res := make([]bool, len(r.cases))
	for j := range r.cases {
		res[j] = listed["s"+strconv.Itoa(j)]
	}
	if testing.Verbose() {
		names := make([]string, 0, len(listed))
		for n := range listed {
			names = append(names, n)
		}
		sort.Strings(names)
		t.Logf("%s %q %v: listed %v", r.mode, short(r.pattern), r.env, names)
	}
	return res, nil
}
