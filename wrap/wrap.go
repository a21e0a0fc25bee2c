package wrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/internal/wrapargv"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
)

// clientFiles are the configuration files wrap rewrites, per client: the
// files' base names and whether the client reads them as JSONC.
var clientFiles = []struct {
	client string
	bases  []string
	jsonc  bool
}{
	{scanner.ClientClaudeCode, []string{".claude.json", ".claude-custom-oauth.json", ".config.json", ".mcp.json"}, false},
	{scanner.ClientClaudeDesktop, []string{"claude_desktop_config.json"}, false},
	{scanner.ClientCursor, []string{"mcp.json"}, true},
	{scanner.ClientVSCode, []string{"mcp.json"}, true},
	{scanner.ClientWindsurf, []string{"mcp_config.json"}, true},
}

// Clients returns the ids of the clients whose files wrap rewrites.
func Clients() []string {
	out := make([]string, len(clientFiles))
	for i, c := range clientFiles {
		out[i] = c.client
	}
	return out
}

// bareCommand is the wrapper's command in a committed file: mcpguard as
// PATH finds it on every clone, not this machine's path to it.
const bareCommand = "mcpguard"

// fileDialect says whether wrap rewrites a client's file and how it parses it.
func fileDialect(client, path string) (jsoncMode, ok bool) {
	for _, c := range clientFiles {
		if c.client == client && slices.Contains(c.bases, filepath.Base(path)) {
			return c.jsonc, true
		}
	}
	return false, false
}

// Options configure a wrap or unwrap run. The command layer fills in the
// defaults (SPEC §4): the home directory, the managed directory, the project.
type Options struct {
	Mode Mode
	// Paths restricts the run to these files, or to the project files
	// (.mcp.json, .cursor/mcp.json, .vscode/mcp.json) of these directories.
	// Empty means every supported file on the machine.
	Paths []string
	// Home, ManagedDir, ClaudeConfigDir, Project, LookupEnv and GOOS
	// are passed to the scan that finds the servers (scanner.Options).
	Home, ManagedDir, ClaudeConfigDir, Project string
	LookupEnv                                  func(string) (string, bool)
	GOOS                                       string
	// Policy judges Claude Code servers, so that the plan can say when a
	// wrapper changes what Claude Code admits (MCPG-P008). Nil skips that.
	Policy *policy.Engine
	// Clients and Servers, when set, select clients (ids from Clients) and
	// server names.
	Clients, Servers []string
	// Executable is the absolute path of the mcpguard binary the wrappers run
	// (wrap only).
	Executable string
	// BackupDir is where Commit keeps each file's backup (backup.go): the
	// state directory's "backups". Commit refuses to write without one.
	BackupDir string
	// IncludeTracked lets wrap rewrite files git tracks; their wrappers run
	// the bare command "mcpguard" (found on PATH) and name project servers
	// relative to the repository, so that nothing of this machine is
	// committed. Without it such files are left alone.
	IncludeTracked bool
}

// Plan is what a run changes, file by file, computed before anything is
// written.
type Plan struct {
	Mode       Mode
	Executable string
	BackupDir  string
	Files      []*File
	// Warnings are MCPG-P008 findings about the selected servers as they will
	// be after the run: Claude Code refusing a wrapper its allowlist does not
	// list, or a wrapper hiding a server from a deny entry.
	Warnings []reports.Finding
	// Errors are inputs that cannot be rewritten: unreadable or malformed
	// files, paths that name nothing wrap supports.
	Errors []reports.FileError

	det *secrets.Detector
}

// File is the plan for one configuration file.
type File struct {
	Path   string
	Client string
	// Entries says what happens to each selected server of the file.
	Entries []FileEntry
	// Before and After are the file's content now and after the run.
	Before, After []byte
	// Backup is the redacted copy of Before that Commit wrote to the
	// backup directory; Previous the backup the file had before the run.
	Backup   string
	Previous *Backup
	// Tracked says why the file counts as committed to git ("" when it
	// does not): wrap leaves it alone without IncludeTracked, and writes a
	// machine-independent wrapper with it.
	Tracked string
	// Written is true once the new content replaced the file.
	Written bool
	// Err is why the file was not (or cannot be) rewritten.
	Err *reports.FileError

	real  string // the file the path resolves to (a symlink is followed)
	info  fs.FileInfo
	jsonc bool
}

// FileEntry is the outcome for one server of a file.
type FileEntry struct {
	EntryResult
	Client, Scope, Project string
}

// Changed reports whether the run changes the file.
func (f *File) Changed() bool { return f.Err == nil && !bytes.Equal(f.Before, f.After) }

// NewPlan scans the machine (or the paths), selects the stdio servers of the
// supported clients and computes every file's new content. It writes nothing.
// The error is for invalid options or a cancelled context; problems with
// files are in Plan.Errors and File.Err.
func NewPlan(ctx context.Context, opts Options) (*Plan, error) {
	for _, c := range opts.Clients {
		if !slices.Contains(Clients(), c) {
			return nil, fmt.Errorf("unknown client %q (wrap supports %s)", c, strings.Join(Clients(), ", "))
		}
	}
	if opts.Mode == ModeWrap {
		if !filepath.IsAbs(opts.Executable) {
			return nil, fmt.Errorf("the mcpguard executable must be an absolute path, not %q", opts.Executable)
		}
		if !wrapargv.IsMcpguard(opts.Executable) {
			return nil, fmt.Errorf("the executable %s is not named mcpguard: scanners and unwrap recognise a wrapper by that name", opts.Executable)
		}
	}
	p := &Plan{Mode: opts.Mode, Executable: opts.Executable, BackupDir: opts.BackupDir, det: secrets.NewDetector()}
	sel, err := newSelection(opts, p)
	if err != nil {
		return nil, err
	}
	servers, errs, err := sel.scan(ctx)
	if err != nil {
		return nil, err
	}
	p.Errors = append(p.Errors, errs...)
	byPath := map[string][]*scanner.Server{}
	for _, s := range servers {
		if byPath[s.Source.Path] == nil {
			p.Files = append(p.Files, &File{Path: s.Source.Path, Client: s.Client})
		}
		byPath[s.Source.Path] = append(byPath[s.Source.Path], s)
	}
	for _, f := range p.Files {
		p.planFile(f, byPath[f.Path], sel)
	}
	for _, path := range sel.unmatched() {
		p.Errors = append(p.Errors, reports.FileError{Path: path, Message: "not a configuration file of a client wrap supports (" + strings.Join(Clients(), ", ") + ")"})
	}
	if p.Mode == ModeWrap {
		p.Warnings = sel.warnings
		for i := range p.Warnings {
			w := &p.Warnings[i]
			w.Message, w.Location.Pointer = p.det.RedactText(w.Message), p.det.RedactText(w.Location.Pointer)
		}
	}
	return p, nil
}

// planFile reads one file and computes its new content.
func (p *Plan) planFile(f *File, servers []*scanner.Server, sel *selection) {
	jsoncMode, _ := fileDialect(f.Client, f.Path)
	f.jsonc = jsoncMode
	fail := func(e reports.FileError) {
		e.Path = f.Path
		f.Err = &e
	}
	real, err := filepath.EvalSymlinks(f.Path)
	if err != nil {
		fail(reports.FileError{Message: describe(err)})
		return
	}
	f.real = real
	if f.info, err = os.Stat(real); err != nil {
		fail(reports.FileError{Message: describe(err)})
		return
	}
	if f.Before, err = readFile(real); err != nil {
		fail(reports.FileError{Message: describe(err)})
		return
	}
	f.Previous = existingBackup(p.BackupDir, real)
	executable := p.Executable
	repo := ""
	if p.Mode == ModeWrap {
		var isTracked bool
		if repo, isTracked, f.Tracked = tracked(real); !isTracked {
			f.Tracked = ""
		} else {
			executable = bareCommand
		}
	}
	var entries []Entry
	var pre []FileEntry
	meta := map[string]*scanner.Server{}
	for _, s := range servers {
		e := Entry{Pointer: s.Source.Pointer, Name: s.Name, ProxyName: s.ProxyName()}
		if f.Tracked != "" {
			e.ProxyName = committedProxyName(s, repo)
		}
		meta[e.Pointer] = s
		why := sel.refuse[s]
		if f.Tracked != "" && !sel.opts.IncludeTracked {
			why = "committed to git (" + f.Tracked + "): a wrapper would commit this machine's mcpguard path; pass --include-tracked to write one that runs mcpguard from PATH"
		}
		if why != "" {
			pre = append(pre, FileEntry{EntryResult: EntryResult{Entry: e, Action: ActionSkipped, Reason: why, Line: s.Source.Line, Column: s.Source.Column},
				Client: s.Client, Scope: s.Scope, Project: s.Project})
			continue
		}
		entries = append(entries, e)
	}
	after, results, _, err := Rewrite(f.Before, p.Mode, entries, RewriteOptions{JSONC: jsoncMode, Executable: executable})
	if err != nil {
		var fe *reports.FileError
		if errors.As(err, &fe) {
			fail(*fe)
		} else {
			fail(reports.FileError{Message: err.Error()})
		}
		f.After = f.Before
		return
	}
	f.After = after
	for _, r := range results {
		s := meta[r.Pointer]
		f.Entries = append(f.Entries, FileEntry{EntryResult: r, Client: s.Client, Scope: s.Scope, Project: s.Project})
	}
	f.Entries = append(f.Entries, pre...)
	slices.SortStableFunc(f.Entries, func(a, b FileEntry) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}

// describe turns an OS error into a short message without repeating the path.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Diff renders the plan's changes as one unified diff, secrets hidden as in
// every report.
func (p *Plan) Diff() string {
	var b strings.Builder
	for _, f := range p.Files {
		b.WriteString(p.fileDiff(f))
	}
	return b.String()
}

// fileDiff is one file's part of Diff ("" when it does not change).
func (p *Plan) fileDiff(f *File) string {
	if !f.Changed() {
		return ""
	}
	return UnifiedDiff(f.Path, f.Path, redactDocument(p.det, f.Before, f.jsonc), redactDocument(p.det, f.After, f.jsonc))
}

// committedProxyName is the proxy name of a server in a committed file:
// ProxyName without this machine's project path — a project server is
// named by its folder relative to the repository ("@." for the root).
func committedProxyName(s *scanner.Server, repo string) string {
	name := s.ProxyName()
	if s.Scope != scanner.ScopeProject {
		return name
	}
	base, dir, ok := strings.Cut(name, "@")
	if !ok {
		return name
	}
	rel, err := filepath.Rel(repo, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return base
	}
	return base + "@" + filepath.ToSlash(rel)
}

// Failed reports whether any input could not be read or rewritten.
func (p *Plan) Failed() bool {
	if len(p.Errors) > 0 {
		return true
	}
	for _, f := range p.Files {
		if f.Err != nil {
			return true
		}
	}
	return false
}

// Commit writes every changed file: first the backup of its current content
// (backup.go), then the new content, atomically. A file that changed on
// disk since the plan read it is left alone (ErrChanged). Errors are recorded
// per file; Commit goes on with the other files.
func (p *Plan) Commit() {
	for _, f := range p.Files {
		if !f.Changed() {
			continue
		}
		if err := f.commit(p.BackupDir, p.det); err != nil {
			f.Err = &reports.FileError{Path: f.Path, Message: err.Error()}
		}
	}
}

func (f *File) commit(dir string, det *secrets.Detector) error {
	cur, err := readFile(f.real)
	if err != nil {
		return errors.New(describe(err))
	}
	if !bytes.Equal(cur, f.Before) {
		return ErrChanged
	}
	if f.Backup, err = writeBackup(dir, f.real, redactDocument(det, f.Before, f.jsonc)); err != nil {
		return err
	}
	if err := replaceFile(f.real, f.Before, f.After, f.info); err != nil {
		return err
	}
	f.Written = true
	return nil
}
