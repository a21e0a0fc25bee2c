package introspect

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/scanner"
)

// target is how a server is reached: the command line, environment and
// directory of a stdio server, or the URL and headers of a remote one.
// Values may hold secrets: a target never leaves memory.
type target struct {
	transport string // scanner.TransportStdio, TransportHTTP or TransportSSE
	argv      []string
	env       map[string]string // added to the base environment
	dir       string
	url       string
	headers   map[string]string
	// packageRunner marks a command that may first download a package
	// (npx, uvx, docker run, ...): it gets the longer start allowance.
	packageRunner bool
	// sseFallback: the client retries a refused Streamable HTTP initialize
	// over the legacy HTTP+SSE transport, as the editors do.
	sseFallback bool
}

// key identifies the target: servers configured identically in several
// clients are started once.
func (t *target) key() string {
	var b strings.Builder
	w := func(s string) { b.WriteString(s); b.WriteByte(0) }
	w(t.transport)
	w(strconv.FormatBool(t.sseFallback))
	w(t.url)
	w(t.dir)
	for _, a := range t.argv {
		w(a)
	}
	for _, m := range []map[string]string{t.env, t.headers} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte(1)
		for _, k := range keys {
			w(k)
			w(m[k])
		}
	}
	return b.String()
}

// place says where the scan runs: what editor variables and relative
// working directories resolve to.
type place struct {
	home      string
	dir       string // the scan's project directory
	lookupEnv func(string) (string, bool)
}

// targetOf builds how s's client would start it, or says why it cannot be
// started faithfully.
func targetOf(s *scanner.Server, pl place) (*target, error) {
	t := &target{transport: s.Transport}
	project := s.Project
	if project == "" {
		project = pl.dir
	}
	if s.Client == scanner.ClientClaudeCode && s.Expanded != nil {
		// Claude Code's own expansion, done by the scanner (docs/claude-code.md §3).
		e := s.Expanded
		switch s.Transport {
		case scanner.TransportStdio:
			t.argv = append([]string{e.Command}, e.Args...)
			t.env = map[string]string{}
			for k, v := range e.ClientEnv {
				t.env[k] = v
			}
			if project != "" {
				t.env["CLAUDE_PROJECT_DIR"] = project
			}
			for k, v := range e.ServerEnv() {
				t.env[k] = v
			}
		default:
			t.url = e.URL
			t.headers = e.Headers
		}
	} else {
		x := expander{d: s.Dialect, client: s.Client, project: project, home: pl.home, lookup: pl.lookupEnv}
		switch s.Transport {
		case scanner.TransportStdio:
			for _, a := range s.Argv() {
				t.argv = append(t.argv, x.expand(a))
			}
			t.env = map[string]string{}
			for _, k := range s.EnvKeys {
				if v, ok := s.Env[k]; ok {
					t.env[k] = x.expand(v)
				}
			}
		default:
			t.url = x.expand(s.URL)
			if len(s.Headers) > 0 {
				t.headers = map[string]string{}
				for _, k := range s.HeaderKeys {
					t.headers[k] = x.expand(s.Headers[k])
				}
			}
		}
		if x.err != nil {
			return nil, x.err
		}
	}
	switch s.Transport {
	case scanner.TransportStdio:
		if len(t.argv) == 0 || t.argv[0] == "" {
			return nil, fmt.Errorf("no command")
		}
		t.dir = project
		if s.Cwd != "" {
			t.dir = s.Cwd
			if !filepath.IsAbs(t.dir) && project != "" {
				t.dir = filepath.Join(project, t.dir)
			}
		}
		t.packageRunner = isPackageRunner(t.argv)
	case scanner.TransportHTTP, scanner.TransportSSE:
		u, err := url.Parse(t.url)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("url is not an http or https URL")
		}
		// Claude Code, told "type": "http", does not fall back.
		t.sseFallback = s.Transport == scanner.TransportHTTP && s.Client != scanner.ClientClaudeCode
	default:
		return nil, fmt.Errorf("transport %q is not supported for introspection", s.Transport)
	}
	return t, nil
}

// packageRunners start a package they may first have to download.
var packageRunners = map[string]bool{
	"npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true, "uv": true,
	"docker": true, "podman": true, "deno": true, "pnpm": true, "yarn": true, "bun": true,
}

func isPackageRunner(argv []string) bool {
	// Either separator: a Windows config may use both.
	base := strings.ToLower(argv[0][strings.LastIndexAny(argv[0], `/\`)+1:])
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".cmd")
	return packageRunners[base]
}

// expander resolves the variable references of an editor's dialect the way
// the editor does before starting a server. A reference only the editor
// can answer (a prompted input, a secret store, the open file) makes the
// server one mcpguard cannot start faithfully.
type expander struct {
	d             interp.Dialect
	client        string
	project, home string
	lookup        func(string) (string, bool)
	err           error
}

func (x *expander) expand(s string) string {
	refs := interp.Refs(x.d, s)
	if len(refs) == 0 || x.err != nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		b.WriteString(s[last:r.Start])
		last = r.End
		switch r.Kind {
		case interp.KindEnv:
			v, _ := x.lookup(r.Name) // editors expand an unset variable to ""
			b.WriteString(v)
		case interp.KindPredefined:
			v, ok := x.predefined(r.Name)
			if !ok {
				x.err = fmt.Errorf("%s is set by %s when it starts the server; mcpguard cannot know it", r.Text, x.client)
				return s
			}
			b.WriteString(v)
		default:
			x.err = fmt.Errorf("%s is supplied by %s (%s); mcpguard cannot know it", r.Text, x.client, r.Kind)
			return s
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

func (x *expander) predefined(name string) (string, bool) {
	switch name {
	case "workspaceFolder", "workspaceRoot", "cwd":
		return x.project, x.project != ""
	case "workspaceFolderBasename":
		return filepath.Base(x.project), x.project != ""
	case "userHome":
		return x.home, x.home != ""
	case "pathSeparator", "/":
		return string(filepath.Separator), true
	}
	return "", false
}
