package wrap

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpguard/mcpguard/internal/wrapargv"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// ruleWrapVerdict is the rule the scanner raises when a wrapper changes
// Claude Code's verdict.
const ruleWrapVerdict = "MCPG-P008"

// selection decides which servers a run touches and collects what the scan
// says about them.
type selection struct {
	opts  Options
	files []string // explicit file paths, absolute
	dirs  []string // explicit directories, absolute
	// sources are the supported configuration files the scan read.
	sources map[string]bool
	// refuse holds servers that must not be wrapped, with the reason.
	refuse   map[*scanner.Server]string
	warnings []reports.Finding
	// repos remembers tracked's answers for the files previewed: the
	// repository of a committed file, "" for one that is not.
	repos map[string]string
}

func newSelection(opts Options, p *Plan) (*selection, error) {
	sel := &selection{opts: opts, sources: map[string]bool{}, refuse: map[*scanner.Server]string{}}
	for _, raw := range opts.Paths {
		abs, err := filepath.Abs(raw)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			p.Errors = append(p.Errors, reports.FileError{Path: raw, Message: describe(err)})
			continue
		}
		if fi.IsDir() {
			sel.dirs = append(sel.dirs, abs)
		} else {
			sel.files = append(sel.files, abs)
		}
	}
	return sel, nil
}

// projectFiles are the files a directory given on the command line stands for.
var projectFiles = []string{".mcp.json", filepath.Join(".cursor", "mcp.json"), filepath.Join(".vscode", "mcp.json")}

// pathMatches reports whether a configuration file is selected by the paths.
func (sel *selection) pathMatches(path string) bool {
	if len(sel.opts.Paths) == 0 {
		return true
	}
	forms := []string{filepath.Clean(path)}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		forms = append(forms, r)
	}
	same := func(a string) bool {
		if slices.Contains(forms, a) {
			return true
		}
		r, err := filepath.EvalSymlinks(a)
		return err == nil && slices.Contains(forms, r)
	}
	for _, f := range sel.files {
		if same(f) {
			return true
		}
	}
	for _, d := range sel.dirs {
		for _, rel := range projectFiles {
			if same(filepath.Join(d, rel)) {
				return true
			}
		}
	}
	return false
}

// clientSelected applies --client.
func (sel *selection) clientSelected(client string) bool {
	return len(sel.opts.Clients) == 0 || slices.Contains(sel.opts.Clients, client)
}

// wants reports whether the run touches server s: a user, local or project
// entry of a supported file, selected by the paths, --client and --server.
func (sel *selection) wants(s *scanner.Server) bool {
	if _, ok := fileDialect(s.Client, s.Source.Path); !ok || s.Source.Pointer == "" {
		return false
	}
	switch s.Scope {
	case scanner.ScopeUser, scanner.ScopeLocal, scanner.ScopeProject:
	default:
		return false
	}
	if !sel.clientSelected(s.Client) || len(sel.opts.Servers) > 0 && !slices.Contains(sel.opts.Servers, s.Name) {
		return false
	}
	return sel.pathMatches(s.Source.Path)
}

// preview is scanner.Options.WrapPreview: the wrapper argv prefix wrap would
// write for s.
func (sel *selection) preview(s *scanner.Server) []string {
	if !sel.wants(s) {
		return nil
	}
	exe, name := sel.opts.Executable, s.ProxyName()
	// A committed file is left alone, or gets the machine-independent
	// wrapper (planFile): the verdict is judged on what it will hold.
	if sel.repos == nil {
		sel.repos = map[string]string{}
	}
	repo, ok := sel.repos[s.Source.Path]
	if !ok {
		if real, err := filepath.EvalSymlinks(s.Source.Path); err == nil {
			if r, yes, _ := tracked(real); yes {
				repo = r
			}
		}
		sel.repos[s.Source.Path] = repo
	}
	switch {
	case repo != "" && !sel.opts.IncludeTracked:
		return nil
	case repo != "":
		exe, name = bareCommand, committedProxyName(s, repo)
	}
	out := append([]string{exe}, wrapargv.ProxyArgs(name, !s.HasArgs)...)
	return append(out, wrapargv.Separator)
}

// scan finds the selected servers: a whole-machine scan (Claude Code's user
// and local servers, every client's per-user files, the known projects) plus,
// for explicit paths, a scan of those paths. In wrap mode every server the run
// would wrap is judged as wrapped (scanner.Options.WrapPreview).
func (sel *selection) scan(ctx context.Context) ([]*scanner.Server, []reports.FileError, error) {
	o := sel.opts
	base := scanner.Options{Home: o.Home, ManagedDir: o.ManagedDir, ClaudeConfigDir: o.ClaudeConfigDir, Project: o.Project,
		LookupEnv: o.LookupEnv, GOOS: o.GOOS, Policy: o.Policy}
	if o.Mode == ModeWrap && o.Policy != nil {
		base.WrapPreview = sel.preview
	}
	res, err := scanner.Scan(ctx, base)
	if err != nil {
		return nil, nil, err
	}
	results := []*scanner.Result{res}
	if paths := append(append([]string{}, sel.files...), sel.dirs...); len(paths) > 0 {
		po := base
		po.Paths = paths
		res, err := scanner.Scan(ctx, po)
		if err != nil {
			return nil, nil, err
		}
		results = append(results, res)
	}
	var servers []*scanner.Server
	var errs []reports.FileError
	seen := map[string]bool{}
	seenFinding := map[string]bool{}
	for _, res := range results {
		byID := map[string][]reports.Finding{}
		for _, f := range res.Findings {
			if f.Rule == ruleWrapVerdict {
				byID[f.ServerID] = append(byID[f.ServerID], f)
			}
		}
		for _, s := range res.Servers {
			key := s.Source.Path + "\x00" + s.Source.Pointer
			if seen[key] || !sel.wants(s) {
				continue
			}
			seen[key] = true
			servers = append(servers, s)
			_, wrapped := s.Details["wrapped_by"]
			for _, f := range byID[s.ID] {
				if !wrapped && f.Evidence["case"] == "deny-evaded" {
					sel.refuse[s] = "a serverCommand deny entry matches its command line and would not match the wrapper, so Claude Code would load a denied server (MCPG-P008)"
					continue
				}
				if !seenFinding[f.ID] {
					seenFinding[f.ID] = true
					sel.warnings = append(sel.warnings, f)
				}
			}
		}
		for _, src := range res.Sources {
			if _, ok := fileDialect(src.Client, src.Path); !ok || !sel.clientSelected(src.Client) || !sel.pathMatches(src.Path) {
				continue
			}
			if src.Kind != "claude-json" && src.Kind != "mcp-config" {
				continue
			}
			sel.sources[filepath.Clean(src.Path)] = true
			if src.Error == "" {
				continue
			}
			for _, e := range res.Errors {
				if e.Path == src.Path && !seen["err\x00"+e.Error()] {
					seen["err\x00"+e.Error()] = true
					errs = append(errs, e)
				}
			}
		}
	}
	return servers, errs, nil
}

// unmatched returns the files given on the command line that are no
// configuration file of a supported client.
func (sel *selection) unmatched() []string {
	var out []string
	for _, f := range sel.files {
		found := false
		for src := range sel.sources {
			if sel.sameFile(src, f) {
				found = true
				break
			}
		}
		if !found {
			out = append(out, f)
		}
	}
	return out
}

func (sel *selection) sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
