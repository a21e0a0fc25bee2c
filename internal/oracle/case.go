package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Fixed absolute paths the oracle script mounts the case trees on.
const (
	ParentDir  = "/tmp/mcpguard-oracle"
	HomeDir    = ParentDir + "/home"
	ProjectDir = ParentDir + "/project"
	ManagedDir = "/etc/claude-code"
)

// Tree prefixes of the config sections of a case.
const (
	TreeManaged = "managed"
	TreeHome    = "home"
	TreeProject = "project"
	TreeParent  = "parent"
)

// Section names that are not files.
const (
	SectionEnv    = "env"
	SectionGit    = "git"
	SectionWant   = "want"
	SectionOrder  = "order"
	SectionOracle = "oracle"
)

// mcpguard scopes, statuses and reason codes a want line may use.
var (
	Scopes   = []string{"managed", "local", "project", "user", "plugin", "ide"}
	Statuses = []string{"active", "pending-approval", "blocked", "shadowed", "rejected", "disabled", "suppressed", "invalid"}
	Reasons  = []string{
		"ALLOWED", "MARKETPLACE_BLOCKED", "MARKETPLACE_NOT_ALLOWED", "DENIED_NAME", "DENIED_COMMAND", "DENIED_URL", "NOT_ALLOWLISTED", "EMPTY_ALLOWLIST",
		"EXCLUSIVE_MANAGED", "PLUGIN_ONLY", "RESERVED_NAME", "DUPLICATE_ENDPOINT",
	}
)

// A Want is one hand-written expectation: the mcpguard status of one server
// definition.
type Want struct {
	Scope   string
	Name    string
	Status  string
	Reasons []string
}

// A Finding is a "finding RULE [SCOPE NAME]" line of the want section: a
// finding mcpguard must raise that the CLI's diagnostics also show.
type Finding struct {
	Rule  string
	Scope string // empty when the line names no server
	Name  string
}

// A Case is one ground-truth case: config files, the expected mcpguard
// verdicts and the recorded answers of the real CLI.
type Case struct {
	// Comment is the prose before the first section.
	Comment []byte
	// Sections are all sections in file order; Format writes them back.
	Sections []File

	Env      []string // VAR=VALUE pairs passed to the oracle
	Git      []string // trees ("parent", "project") that are git work trees
	Want     []Want
	Findings []Finding
	Order    []string // expected `mcp list` order; nil without an order section
	Oracle   *Answers // nil without an oracle section
}

// LoadCase reads and parses a case file.
func LoadCase(path string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseCase(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseCase parses a case archive.
func ParseCase(data []byte) (*Case, error) {
	comment, files := parseArchive(data)
	c := &Case{Comment: comment, Sections: files}
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Name] {
			return nil, fmt.Errorf("section %q appears twice", f.Name)
		}
		seen[f.Name] = true
		var err error
		switch f.Name {
		case SectionEnv:
			c.Env, err = parseEnv(f.Data)
		case SectionGit:
			c.Git, err = parseGit(f.Data)
		case SectionWant:
			c.Want, c.Findings, err = parseWant(f.Data)
		case SectionOrder:
			c.Order = nonEmptyLines(f.Data)
			if c.Order == nil {
				c.Order = []string{}
			}
		case SectionOracle:
			c.Oracle, err = ParseAnswers(f.Data)
		default:
			_, _, err = splitConfigName(f.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("section %s: %w", f.Name, err)
		}
	}
	if !seen[SectionWant] {
		return nil, errors.New("no want section")
	}
	return c, nil
}

// Format returns the case file. For a case read by ParseCase it is the
// input, byte for byte, unless SetOracle changed the oracle section.
func (c *Case) Format() []byte {
	return formatArchive(c.Comment, c.Sections)
}

// SetOracle replaces the oracle section (appending one if there is none).
func (c *Case) SetOracle(a *Answers) {
	c.Oracle = a
	data := a.Format()
	for i := range c.Sections {
		if c.Sections[i].Name == SectionOracle {
			c.Sections[i].Data = data
			return
		}
	}
	c.Sections = append(c.Sections, File{Name: SectionOracle, Data: data})
}

// ConfigFiles returns the file sections (managed/..., home/..., project/...,
// parent/...) in file order.
func (c *Case) ConfigFiles() []File {
	var out []File
	for _, f := range c.Sections {
		if _, _, err := splitConfigName(f.Name); err == nil && !isSpecial(f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// HasParent reports whether the case needs files in the project's parent
// folder (parent/ sections or a git work tree there).
func (c *Case) HasParent() bool {
	if slices.Contains(c.Git, TreeParent) {
		return true
	}
	for _, f := range c.ConfigFiles() {
		if tree, _, _ := splitConfigName(f.Name); tree == TreeParent {
			return true
		}
	}
	return false
}

// Materialize writes the case's files under dir: dir/managed, dir/home,
// dir/project and, when the case has any, dir/parent. The first three always
// exist; parent is "" when the case has no parent files. A tree listed in the
// git section gets a minimal .git directory.
func (c *Case) Materialize(dir string) (managed, home, project, parent string, err error) {
	managed = filepath.Join(dir, TreeManaged)
	home = filepath.Join(dir, TreeHome)
	project = filepath.Join(dir, TreeProject)
	for _, d := range []string{managed, home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", "", "", "", err
		}
	}
	if c.HasParent() {
		parent = filepath.Join(dir, TreeParent)
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return "", "", "", "", err
		}
	}
	for _, f := range c.ConfigFiles() {
		tree, rel, _ := splitConfigName(f.Name)
		p := filepath.Join(dir, tree, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", "", "", "", err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return "", "", "", "", err
		}
	}
	for _, tree := range c.Git {
		if err := writeGitSkeleton(filepath.Join(dir, tree)); err != nil {
			return "", "", "", "", err
		}
	}
	return managed, home, project, parent, nil
}

// writeGitSkeleton makes root a git work tree with an empty repository.
func writeGitSkeleton(root string) error {
	g := filepath.Join(root, ".git")
	for _, d := range []string{"objects", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(g, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return err
	}
	cfg := "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	return os.WriteFile(filepath.Join(g, "config"), []byte(cfg), 0o644)
}

// ServerNames returns, sorted, every server name the case mentions: keys of
// any "mcpServers" or "managedMcpServers" object in any config file, at any
// depth (and of the objects in an "mcpServers" array, the plugin.json form),
// plus the names of the want and order sections.
// Files that are not valid JSON contribute the names before the error.
func (c *Case) ServerNames() []string {
	set := map[string]bool{}
	add := func(n string) { set[n] = true }
	for _, f := range c.ConfigFiles() {
		if strings.HasSuffix(f.Name, ".json") {
			collectServerNames(f.Data, add)
		}
	}
	for _, w := range c.Want {
		add(w.Name)
	}
	for _, n := range c.Order {
		add(n)
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func collectServerNames(data []byte, add func(string)) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(key string) error
	walk = func(key string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		servers := key == "mcpServers" || key == "managedMcpServers"
		for dec.More() {
			k := "" // elements of a plugin.json mcpServers array are server objects too
			if key == "mcpServers" {
				k = key
			}
			if d == '{' {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ = kt.(string)
				if servers {
					add(k)
				}
			}
			if err := walk(k); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	_ = walk("")
}

func isSpecial(name string) bool {
	switch name {
	case SectionEnv, SectionGit, SectionWant, SectionOrder, SectionOracle:
		return true
	}
	return false
}

// splitConfigName splits "home/.claude.json" into its tree and relative path.
func splitConfigName(name string) (tree, rel string, err error) {
	if isSpecial(name) {
		return "", "", nil
	}
	tree, rel, ok := strings.Cut(name, "/")
	switch tree {
	case TreeManaged, TreeHome, TreeProject, TreeParent:
	default:
		return "", "", fmt.Errorf("unknown section %q", name)
	}
	if !ok || rel == "" || path.Clean(rel) != rel || strings.HasPrefix(rel, "../") || rel == ".." || path.IsAbs(rel) {
		return "", "", fmt.Errorf("bad file name %q", name)
	}
	return tree, rel, nil
}

func nonEmptyLines(data []byte) []string {
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func parseEnv(data []byte) ([]string, error) {
	out := nonEmptyLines(data)
	for _, l := range out {
		name, _, ok := strings.Cut(l, "=")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("bad env line %q", l)
		}
	}
	return out, nil
}

func parseGit(data []byte) ([]string, error) {
	out := nonEmptyLines(data)
	for _, l := range out {
		if l != TreeParent && l != TreeProject {
			return nil, fmt.Errorf("git: %q is not parent or project", l)
		}
	}
	return out, nil
}

// parseWant parses the want section. Lines are
//
//	SCOPE NAME STATUS [REASON,...]
//	finding RULE [SCOPE NAME]
//
// NAME is written as a Go quoted string when it is empty or contains a space,
// a quote or a comma. Blank lines and lines starting with # are ignored.
func parseWant(data []byte) ([]Want, []Finding, error) {
	var wants []Want
	var finds []Finding
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields, err := splitWantLine(line)
		if err != nil {
			return nil, nil, err
		}
		if fields[0] == "finding" {
			if len(fields) != 2 && len(fields) != 4 {
				return nil, nil, fmt.Errorf("want: %q: want finding RULE [SCOPE NAME]", line)
			}
			f := Finding{Rule: fields[1]}
			if len(fields) == 4 {
				f.Scope, f.Name = fields[2], fields[3]
				if !slices.Contains(Scopes, f.Scope) {
					return nil, nil, fmt.Errorf("want: %q: unknown scope %q", line, f.Scope)
				}
			}
			if !strings.HasPrefix(f.Rule, "MCPG-") {
				return nil, nil, fmt.Errorf("want: %q: rule ids start with MCPG-", line)
			}
			finds = append(finds, f)
			continue
		}
		if len(fields) != 3 && len(fields) != 4 {
			return nil, nil, fmt.Errorf("want: %q: want SCOPE NAME STATUS [REASON,...]", line)
		}
		w := Want{Scope: fields[0], Name: fields[1], Status: fields[2]}
		if !slices.Contains(Scopes, w.Scope) {
			return nil, nil, fmt.Errorf("want: %q: unknown scope %q", line, w.Scope)
		}
		if !slices.Contains(Statuses, w.Status) {
			return nil, nil, fmt.Errorf("want: %q: unknown status %q", line, w.Status)
		}
		if len(fields) == 4 {
			w.Reasons = strings.Split(fields[3], ",")
			for _, r := range w.Reasons {
				if !slices.Contains(Reasons, r) {
					return nil, nil, fmt.Errorf("want: %q: unknown reason %q", line, r)
				}
			}
		}
		wants = append(wants, w)
	}
	return wants, finds, nil
}

// splitWantLine splits on spaces, reading Go quoted strings as one field.
func splitWantLine(line string) ([]string, error) {
	var out []string
	s := line
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("want: %q: %v", line, err)
			}
			v, _ := strconv.Unquote(q)
			out = append(out, v)
			s = s[len(q):]
			if s != "" && s[0] != ' ' && s[0] != '\t' {
				return nil, fmt.Errorf("want: %q: text after a quoted name", line)
			}
			continue
		}
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
}

// QuoteName writes a server name as a want-line field.
func QuoteName(name string) string {
	if name == "" || strings.ContainsAny(name, " \t\",") || !strconv.CanBackquote(name) {
		return strconv.Quote(name)
	}
	return name
}
