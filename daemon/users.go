package daemon

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// User is an account whose home the daemon watches with --all-users.
type User struct {
	Name string
	UID  int
	Home string
}

// Users lists the accounts of this machine that can hold MCP
// configurations: from the password database on Linux and other Unixes
// (root and uids from 1000 whose shell allows logging in and whose home
// exists), from /Users on macOS.
func Users() ([]User, error) {
	if runtime.GOOS == "darwin" {
		return darwinUsers("/Users")
	}
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return nil, fmt.Errorf("read the password database: %w", err)
	}
	return parsePasswd(data), nil
}

// parsePasswd reads passwd(5) lines: name:password:uid:gid:gecos:home:shell.
func parsePasswd(data []byte) []User {
	var out []User
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '+' || line[0] == '-' {
			continue // comments and NIS compat entries
		}
		f := strings.Split(line, ":")
		if len(f) < 7 {
			continue
		}
		uid, err := strconv.Atoi(f[2])
		if err != nil || (uid != 0 && uid < 1000) || uid == 65534 {
			continue // system accounts; nobody
		}
		home, shell := f[5], f[6]
		if !filepath.IsAbs(home) || home == "/" || seen[f[0]] {
			continue
		}
		if uid != 0 && (strings.HasSuffix(shell, "/nologin") || strings.HasSuffix(shell, "/false")) {
			continue
		}
		if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
			continue
		}
		seen[f[0]] = true
		out = append(out, User{Name: f[0], UID: uid, Home: filepath.Clean(home)})
	}
	return out
}

// darwinUsers lists the home folders under dir, owned by their user.
func darwinUsers(dir string) ([]User, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	var out []User
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "Shared" || e.Name() == "Guest" {
			continue
		}
		home := filepath.Join(dir, e.Name())
		fi, err := os.Stat(home)
		if err != nil {
			continue
		}
		out = append(out, User{Name: e.Name(), UID: fileUID(fi), Home: home})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// userScan is one user's scan with --all-users.
type userScan struct {
	user User
	res  *runner.Result
}

// mergeUsers makes one inventory of several users' scans. A server or
// finding from a user's own files (home, projects, plugins) belongs to that
// user: its id is made unique per user (the same ~/.cursor/mcp.json of two
// users must not share an id) and the server says whose it is. Machine-wide
// ones (the managed directory, system files) appear once, unowned.
func mergeUsers(parts []userScan, key []byte, meta runner.Meta, managedDir string) inventory {
	hasher := newSecretHasher(key)
	rep := &reports.Report{Schema: reports.Schema, Tool: reports.Tool{Name: "mcpguard", Version: meta.Version},
		GeneratedAt: meta.GeneratedAt, Host: meta.Host, Policy: reports.PolicyInfo{Sources: []reports.PolicySource{}},
		Servers: []reports.Server{}, Findings: []reports.Finding{}, Errors: []reports.FileError{}, Sources: []reports.Source{}}
	inv := inventory{report: rep, secrets: map[string]map[string]string{}}
	seenServer, seenFinding, seenErr, seenSrc, seenPol := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, part := range parts {
		r := part.res.Report
		if i == 0 {
			rep.Policy.Revision = r.Policy.Revision
		}
		owned := map[string]string{} // old server id -> new
		raw := map[string]*scanner.Server{}
		for _, s := range part.res.Scan.Servers {
			raw[s.ID] = s
		}
		for _, s := range r.Servers {
			old := s.ID
			if !machineWide(s.Scope, s.Source.Path, managedDir) {
				s.ID = "s-" + reports.Fingerprint(old, "user", part.user.Name)
				s.User = part.user.Name
				owned[old] = s.ID
			}
			if seenServer[s.ID] {
				continue
			}
			seenServer[s.ID] = true
			if rs := raw[old]; rs != nil {
				inv.secrets[s.ID] = hasher.server(rs)
			}
			rep.Servers = append(rep.Servers, s)
		}
		fixed := map[string]string{} // old finding id -> new
		for _, f := range r.Findings {
			old := f.ID
			if nid, ok := owned[f.ServerID]; ok {
				f.ServerID = nid
				f.ID = "f-" + reports.Fingerprint(old, "user", part.user.Name)
			} else if f.ServerID == "" && under(f.Location.Path, part.user.Home) {
				f.ID = "f-" + reports.Fingerprint(old, "user", part.user.Name)
			}
			fixed[old] = f.ID
			if seenFinding[f.ID] {
				continue
			}
			seenFinding[f.ID] = true
			rep.Findings = append(rep.Findings, f)
		}
		for j := range rep.Servers {
			s := &rep.Servers[j]
			if s.User != part.user.Name {
				continue
			}
			ids := make([]string, len(s.FindingIDs))
			for k, id := range s.FindingIDs {
				ids[k] = fixed[id]
			}
			s.FindingIDs = ids
		}
		for _, e := range r.Errors {
			if k := e.Error(); !seenErr[k] {
				seenErr[k] = true
				rep.Errors = append(rep.Errors, e)
			}
		}
		for _, src := range r.Sources {
			if k := src.Path + "\x00" + src.Client + "\x00" + src.Kind; !seenSrc[k] {
				seenSrc[k] = true
				rep.Sources = append(rep.Sources, src)
			}
		}
		for _, ps := range r.Policy.Sources {
			if !seenPol[ps.Path] {
				seenPol[ps.Path] = true
				rep.Policy.Sources = append(rep.Policy.Sources, ps)
			}
		}
	}
	rep.Summary = reports.Summarize(rep)
	return inv
}

// machineWide reports a server that every user shares: from the managed
// directory or a system file.
func machineWide(scope, path, managedDir string) bool {
	return scope == scanner.ScopeManaged || scope == scanner.ScopeSystem || (managedDir != "" && under(path, managedDir))
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool {
	if dir == "" || path == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
