package scanner

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
)

// What a server's id is made of (docs/report-schema.md#ids): the same
// definition has the same id in scan, the daemon, status, fleet reports and
// baselines, whatever directory mcpguard runs in.
//
//	id = "s-" + Fingerprint(client, scope, project, file, pointer)
//
// project is the anchored project root for project- and local-scope
// servers ("" otherwise); file is the definition's file relative to its
// scope's anchor: the project root for project scope ("./.mcp.json"),
// otherwise the deepest anchor that holds it — a plugin's root
// ("plugin:NAME@MARKETPLACE/"), the managed directory ("managed:/"), the
// home ("~/"), and in path mode the one git repository the named files are
// in ("repo:/") — or its absolute path.

// anchor is a directory that ids name the files under it relative to.
type anchor struct {
	dir    string // absolute and clean
	prefix string // what stands for it: "~/", "managed:/", "repo:/", "plugin:ID/"
}

// setAnchors records the anchors known before any file is read: the home,
// the managed directory and, in path mode, the repository of the named
// paths. Plugins add theirs when they are read (addPluginAnchors).
func (sc *scan) setAnchors() {
	if sc.opts.Home != "" {
		sc.anchors = append(sc.anchors, anchor{filepath.Clean(sc.opts.Home), "~/"})
	}
	if sc.opts.ManagedDir != "" {
		sc.anchors = append(sc.anchors, anchor{filepath.Clean(sc.opts.ManagedDir), "managed:/"})
	}
	if root := sc.namedRepository(sc.opts.Paths); root != "" {
		sc.anchors = append(sc.anchors, anchor{root, "repo:/"})
	}
	sc.sortAnchors()
}

// addPluginAnchors makes each installed plugin's root an anchor, so that a
// plugin server keeps its id when the plugin is updated to a new version
// directory. It runs while the Claude Code files are loaded, before any
// server or finding of a plugin is made.
func (sc *scan) addPluginAnchors(plugins []*installedPlugin) {
	for _, pl := range plugins {
		for _, r := range pl.records {
			if filepath.IsAbs(r.root) {
				sc.anchors = append(sc.anchors, anchor{filepath.Clean(r.root), "plugin:" + pl.id + "/"})
			}
		}
	}
	sc.sortAnchors()
}

func (sc *scan) sortAnchors() {
	sort.SliceStable(sc.anchors, func(i, j int) bool { return len(sc.anchors[i].dir) > len(sc.anchors[j].dir) }) // deepest first
}

// namedRepository is the root of the git repository that holds the named
// paths (in path mode, the files to scan) (the nearest directory with a .git entry), when
// exactly one does: a fresh clone anywhere, a CI checkout and a laptop
// then give the same ids, which a committed baseline depends on. Named
// paths in no repository do not count; paths in several repositories
// anchor none (their files would have the same relative names).
func (sc *scan) namedRepository(paths []string) string {
	root := ""
	for _, raw := range paths {
		r := repositoryRoot(sc, absPath(raw))
		switch {
		case r == "":
		case root == "":
			root = r
		case r != root:
			return ""
		}
	}
	return root
}

// repositoryRoot is the nearest directory at or above p that holds a .git
// entry (a directory, or the file of a worktree or submodule), or "".
func repositoryRoot(sc *scan, p string) string {
	for dir := p; ; {
		if _, err := sc.fs.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// serverID is the stable fingerprint of a server definition (see the top
// of this file).
func (sc *scan) serverID(s *Server) string {
	project, file := "", sc.stablePath(s.Source.Path)
	if s.Scope == ScopeProject || s.Scope == ScopeLocal {
		project = sc.stablePath(s.Project)
	}
	if s.Scope == ScopeProject && s.Project != "" {
		if rel, ok := under(s.Source.Path, s.Project); ok {
			file = "./" + rel
		}
	}
	return reports.PrefixedFingerprint("s-", s.Client, s.Scope, project, file, s.Source.Pointer)
}

// stablePath is p relative to the deepest anchor that holds it, or p in
// slash form when none does.
func (sc *scan) stablePath(p string) string {
	if p == "" {
		return ""
	}
	// Every server id takes two paths that a whole file's, or a project's,
	// servers share.
	if v, ok := sc.stable.Load(p); ok {
		return v.(string)
	}
	v := filepath.ToSlash(p)
	for _, a := range sc.anchors {
		if rel, ok := under(p, a.dir); ok {
			v = a.prefix + rel
			break
		}
	}
	sc.stable.Store(p, v)
	return v
}

// under reports whether p is dir or below it, and p's slash path relative
// to dir ("" for dir itself).
func under(p, dir string) (string, bool) {
	if p == dir {
		return "", true
	}
	sep := string(filepath.Separator)
	if strings.HasSuffix(dir, sep) {
		sep = ""
	}
	if rest, ok := strings.CutPrefix(p, dir+sep); ok {
		return filepath.ToSlash(rest), true
	}
	return "", false
}

// stableText rewrites the absolute paths a message quotes as stablePath does,
// so that ids built from messages do not depend on where the anchors are.
func (sc *scan) stableText(s string) string {
	for _, a := range sc.anchors {
		if strings.Contains(s, a.dir) {
			s = strings.ReplaceAll(s, a.dir+string(filepath.Separator), a.prefix)
		}
	}
	return s
}
