package daemon

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

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

// UserSource says where the accounts come from. Zero values mean the
// defaults noted.
type UserSource struct {
	// Names, when set, are the only users watched (--users), each looked
	// up in the OS's user database.
	Names []string
	// Getent is the program that asks the OS's user database (NSS: files,
	// LDAP, SSSD, systemd-userdb, ...); "" finds getent on PATH, "-" means
	// none (macOS).
	Getent string
	// Passwd is read when getent cannot enumerate (default /etc/passwd).
	Passwd string
	// HomeRoots hold home directories (default /home and /Users): the
	// owner of each directory in them is a user, looked up by uid, even
	// when the user database does not enumerate its users (SSSD and most
	// directory services do not by default).
	HomeRoots []string
	// MinUID is the lowest uid of a person's account (default 1000; 500 on
	// macOS). Root is always a user.
	MinUID int
}

func (s UserSource) withDefaults() UserSource {
	if s.Getent == "" {
		s.Getent = "getent"
		if runtime.GOOS == "darwin" {
			s.Getent = "-"
		}
	}
	if s.Passwd == "" {
		s.Passwd = "/etc/passwd"
	}
	if s.HomeRoots == nil {
		s.HomeRoots = []string{"/home", "/Users"}
	}
	if s.MinUID <= 0 {
		s.MinUID = 1000
		if runtime.GOOS == "darwin" {
			s.MinUID = 500
		}
	}
	return s
}

// List returns the users: with Names, those; otherwise every account of
// the user database (getent passwd, else the password file) that is root
// or a person's (uid from MinUID, not nobody, a login shell, an existing
// home), plus the owners of the directories in HomeRoots. Sorted by name.
func (s UserSource) List() ([]User, error) {
	s = s.withDefaults()
	if len(s.Names) > 0 {
		return s.named()
	}
	var out []User
	seen, homes := map[string]bool{}, map[string]bool{}
	add := func(u User) {
		if seen[u.Name] {
			return
		}
		seen[u.Name], homes[u.Home] = true, true
		out = append(out, u)
	}
	entries, err := s.getent("passwd")
	if err != nil {
		data, rerr := os.ReadFile(s.Passwd)
		if rerr != nil && len(s.HomeRoots) == 0 {
			return nil, fmt.Errorf("read the user database: %w", rerr)
		}
		entries = data
	}
	for _, u := range parsePasswdMin(entries, s.MinUID) {
		add(u)
	}
	for _, root := range s.HomeRoots {
		list, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range list {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || name == "Shared" || name == "Guest" {
				continue
			}
			home := filepath.Join(root, name)
			fi, err := os.Stat(home)
			uid := -1
			if err == nil {
				uid = fileUID(fi)
			}
			if uid <= 0 || homes[home] {
				continue // root's, or unknown, or already watched
			}
			u := User{Name: name, UID: uid, Home: home}
			if rec, ok := s.lookup(strconv.Itoa(uid)); ok {
				u.Name = rec.Name
				if homes[rec.Home] {
					continue
				}
				if rec.Home != home {
					// The directory is theirs, their home is elsewhere:
					// watch the home the database names when it exists.
					if fi, err := os.Stat(rec.Home); err == nil && fi.IsDir() {
						add(User{Name: rec.Name, UID: uid, Home: filepath.Clean(rec.Home)})
						continue
					}
				}
			}
			add(u)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// named looks up each of Names.
func (s UserSource) named() ([]User, error) {
	var out []User
	seen := map[string]bool{}
	for _, name := range s.Names {
		if seen[name] {
			continue
		}
		seen[name] = true
		u, ok := s.lookup(name)
		if !ok {
			return nil, fmt.Errorf("user %q: not in the user database", name)
		}
		if !filepath.IsAbs(u.Home) || u.Home == "/" {
			return nil, fmt.Errorf("user %q: no home directory of its own (%q)", name, u.Home)
		}
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// lookup finds one account by name or uid: in the user database through
// getent, else through os/user.
func (s UserSource) lookup(key string) (User, bool) {
	if data, err := s.getent("passwd", key); err == nil {
		if us := parsePasswdAll(data); len(us) > 0 {
			return us[0].User, true
		}
	}
	var u *user.User
	var err error
	if _, nerr := strconv.Atoi(key); nerr == nil {
		u, err = user.LookupId(key)
	} else {
		u, err = user.Lookup(key)
	}
	if err != nil {
		return User{}, false
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return User{}, false
	}
	return User{Name: u.Username, UID: uid, Home: filepath.Clean(u.HomeDir)}, true
}

// getent runs getent with args, within ten seconds; its output is bounded.
func (s UserSource) getent(args ...string) ([]byte, error) {
	if s.Getent == "-" {
		return nil, errors.New("no getent here")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Getent, args...)
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &out, n: 64 << 20}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("getent %s: %w", strings.Join(args, " "), err)
	}
	return out.Bytes(), nil
}

// limitedBuffer keeps at most n bytes.
type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room < len(p) {
		if room > 0 {
			l.b.Write(p[:room])
		}
		return len(p), nil
	}
	return l.b.Write(p)
}

// parsePasswdMin reads passwd(5) lines (name:password:uid:gid:gecos:home:shell)
// and keeps root and the accounts from uid minUID that are not
// nobody, have a login shell and an existing home.
func parsePasswdMin(data []byte, minUID int) []User {
	var out []User
	for _, u := range parsePasswdAll(data) {
		if (u.UID != 0 && u.UID < minUID) || u.UID == 65534 || u.Home == "/" {
			continue // system accounts; nobody
		}
		if u.UID != 0 && (strings.HasSuffix(u.shell, "/nologin") || strings.HasSuffix(u.shell, "/false")) {
			continue
		}
		if fi, err := os.Stat(u.Home); err != nil || !fi.IsDir() {
			continue
		}
		out = append(out, u.User)
	}
	return out
}

type passwdEntry struct {
	User
	shell string
}

// parsePasswdAll reads every well-formed passwd(5) line, each name once.
func parsePasswdAll(data []byte) []passwdEntry {
	var out []passwdEntry
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
		if err != nil || uid < 0 || f[0] == "" {
			continue
		}
		home := f[5]
		if !filepath.IsAbs(home) || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		out = append(out, passwdEntry{User: User{Name: f[0], UID: uid, Home: filepath.Clean(home)}, shell: f[6]})
	}
	return out
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
// ones (the managed directory, system files) appear once, unowned. owners
// records whose scans found each other entry: a file error, a source, a
// finding of no server (a project outside the home is its user's too).
func mergeUsers(parts []userScan, key []byte, meta runner.Meta, managedDir string) inventory {
	hasher := newSecretHasher(key)
	rep := &reports.Report{Schema: reports.Schema, Tool: reports.Tool{Name: "mcpguard", Version: meta.Version},
		GeneratedAt: meta.GeneratedAt, Host: meta.Host, Policy: reports.PolicyInfo{Sources: []reports.PolicySource{}},
		Servers: []reports.Server{}, Findings: []reports.Finding{}, Errors: []reports.FileError{}, Sources: []reports.Source{}}
	own := &owners{Sources: map[string][]string{}, Errors: map[string][]string{}, Findings: map[string][]string{}}
	inv := inventory{report: rep, secrets: map[string]map[string]string{}, owners: own}
	seenServer, seenFinding, seenErr, seenSrc, seenPol := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, part := range parts {
		r := part.res.Report
		if i == 0 {
			rep.Policy.Revision = r.Policy.Revision
		}
		name := part.user.Name
		shared := machineWidePaths(r, managedDir)
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
			if f.ServerID == "" && !shared(f.Location.Path) {
				own.Findings[f.ID] = addOwner(own.Findings[f.ID], name)
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
			if !shared(e.Path) {
				own.Errors[e.Path] = addOwner(own.Errors[e.Path], name)
			}
			if k := e.Error(); !seenErr[k] {
				seenErr[k] = true
				rep.Errors = append(rep.Errors, e)
			}
		}
		for _, src := range r.Sources {
			k := sourceKey(src)
			if !shared(src.Path) {
				own.Sources[k] = addOwner(own.Sources[k], name)
			}
			if !seenSrc[k] {
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

// owners attributes the entries of an --all-users inventory that are not
// servers (a server says its own user): each maps an entry to the users
// whose scans found it; an entry it does not list is machine-wide.
type owners struct {
	// Sources are keyed by sourceKey, Errors by path, Findings (of no
	// server) by id.
	Sources  map[string][]string `json:"sources,omitempty"`
	Errors   map[string][]string `json:"errors,omitempty"`
	Findings map[string][]string `json:"findings,omitempty"`
}

func sourceKey(s reports.Source) string { return s.Path + "\x00" + s.Client + "\x00" + s.Kind }

func (o *owners) source(s reports.Source) ([]string, bool) {
	if o == nil {
		return nil, false
	}
	u, ok := o.Sources[sourceKey(s)]
	return u, ok
}

func (o *owners) errorUsers(path string) ([]string, bool) {
	if o == nil {
		return nil, false
	}
	u, ok := o.Errors[path]
	return u, ok
}

func (o *owners) finding(id string) ([]string, bool) {
	if o == nil {
		return nil, false
	}
	u, ok := o.Findings[id]
	return u, ok
}

func addOwner(list []string, user string) []string {
	if slices.Contains(list, user) {
		return list
	}
	return append(list, user)
}

// machineWidePaths returns whether a path of r is one every user shares:
// in the managed directory, or a managed or system scope source.
func machineWidePaths(r *reports.Report, managedDir string) func(string) bool {
	shared := map[string]bool{}
	for _, s := range r.Sources {
		if s.Scope == scanner.ScopeManaged || s.Scope == scanner.ScopeSystem {
			shared[s.Path] = true
		}
	}
	for _, s := range r.Servers {
		if s.Scope == scanner.ScopeManaged || s.Scope == scanner.ScopeSystem {
			shared[s.Source.Path] = true
		}
	}
	return func(p string) bool { return shared[p] || (managedDir != "" && under(p, managedDir)) }
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

// userCache keeps the user list between scans: it is made again when the
// password file or a home root changed (what the daemon watches, files and
// dirs) or after ttl (a directory service's accounts change unseen).
type userCache struct {
	src UserSource
	ttl time.Duration

	mu    sync.Mutex
	at    time.Time
	sig   string
	users []User
}

func newUserCache(src UserSource, ttl time.Duration) *userCache {
	return &userCache{src: src.withDefaults(), ttl: ttl}
}

func (c *userCache) files() []string { return []string{c.src.Passwd} }
func (c *userCache) dirs() []string  { return c.src.HomeRoots }

// signature changes when a file or directory the list comes from does.
func (c *userCache) signature() string {
	var b strings.Builder
	for _, p := range append(c.files(), c.dirs()...) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s %d %d %v;", p, fi.Size(), fi.ModTime().UnixNano(), signature(fi))
		} else {
			fmt.Fprintf(&b, "%s -;", p)
		}
	}
	return b.String()
}

// list returns the users, from the cache while it is fresh. A failure
// is not cached.
func (c *userCache) list() ([]User, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sig := c.signature()
	if c.users != nil && sig == c.sig && time.Since(c.at) < c.ttl {
		return c.users, nil
	}
	users, err := c.src.List()
	if err != nil {
		return nil, err
	}
	c.users, c.sig, c.at = users, sig, time.Now()
	return users, nil
}
