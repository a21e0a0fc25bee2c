package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/reports"
)

// StatusSchema identifies GET /v1/status documents.
const StatusSchema = "mcpguard/daemon-status/v1"

// Status is the daemon's GET /v1/status document (docs/daemon.md).
type Status struct {
	Schema        string `json:"schema"`
	Version       string `json:"version"`
	PID           int    `json:"pid"`
	StartedAt     string `json:"started_at"`
	UptimeSeconds int64  `json:"uptime_seconds"`
	LastScanAt    string `json:"last_scan_at"`
	// LastChangeAt is when the inventory last changed ("" since start).
	LastChangeAt string `json:"last_change_at"`
	Scans        int    `json:"scans"`
	// LastScan says what the last scan cost: a change re-evaluates only
	// the servers whose input it changed.
	LastScan ScanStats `json:"last_scan"`
	StateDir string    `json:"state_dir"`
	Socket   string    `json:"socket"`
	Events   string    `json:"events"`
	// EventSeq is the number of the last event.
	EventSeq int64       `json:"event_seq"`
	Watch    WatchStatus `json:"watch"`
	Policy   PolicyState `json:"policy"`
	Servers  int         `json:"servers"`
	// Findings counts findings by severity; Errors unreadable inputs.
	Findings reports.SeverityCount `json:"findings"`
	Errors   int                   `json:"errors"`
	// Users is the number of users watched with --all-users.
	Users int `json:"users,omitempty"`
	// Degraded lists what does not work as it should; empty when healthy.
	Degraded []Degraded `json:"degraded"`
	// Memory is what the daemon holds.
	Memory MemoryStatus `json:"memory"`
}

// MemoryStatus is the daemon's own memory. Once quiet after a scan
// (Options.ReleaseAfter), the daemon returns the memory the scan no longer
// uses to the OS.
type MemoryStatus struct {
	// HeldBytes is the memory the Go runtime holds from the OS (heap,
	// stacks and its own structures; not the binary's pages).
	HeldBytes uint64 `json:"held_bytes"`
	// HeapBytes is the part of it that heap objects use (live ones, and
	// dead ones the collector has not freed yet).
	HeapBytes uint64 `json:"heap_bytes"`
	// ReleasedAt is when unused memory was last returned ("" before the
	// first time, shortly after start).
	ReleasedAt string `json:"released_at"`
}

// memoryStatus reads the runtime's memory statistics (no collection; the
// world stops for a few microseconds). runtime/metrics would read them
// without that stop, but its package initialisation, which every mcpguard
// process runs whether or not it is the daemon, builds its descriptions
// table: 0.4-0.6 ms of each pre-commit scan (docs/performance.md).
func memoryStatus(released time.Time) MemoryStatus {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := MemoryStatus{HeldBytes: ms.Sys - ms.HeapReleased, HeapBytes: ms.HeapAlloc}
	if !released.IsZero() {
		m.ReleasedAt = released.UTC().Format(time.RFC3339Nano)
	}
	return m
}

// ScanStats describe one scan.
type ScanStats struct {
	DurationMS float64 `json:"duration_ms"`
	// Evaluated servers went through the policies; Reused ones kept the
	// result of an earlier scan because nothing they depend on changed.
	Evaluated uint64 `json:"evaluated"`
	Reused    uint64 `json:"reused"`
}

// WatchStatus says how changes are noticed.
type WatchStatus struct {
	// Mode is "fsnotify", or "poll" when the OS refused watches.
	Mode string `json:"mode"`
	// Directories is the number of watched directories; Paths the number
	// of files and folders the last scan looked at.
	Directories int `json:"directories"`
	Paths       int `json:"paths"`
	// Failed maps directories that could not be watched to why.
	Failed map[string]string `json:"failed,omitempty"`
	// ResyncSeconds is the interval of the safety-net resync.
	ResyncSeconds int `json:"resync_seconds"`
}

// PolicyState describes the policy in force.
type PolicyState struct {
	Sources  []reports.PolicySource `json:"sources"`
	Revision string                 `json:"revision"`
	// Paths are the --policy paths; RegoRevision fingerprints the Rego
	// policy in force.
	Paths        []string `json:"paths"`
	RegoRevision string   `json:"rego_revision,omitempty"`
	// Invalid maps a policy path to why its current version is refused
	// (the last good one stays in force).
	Invalid map[string]string `json:"invalid,omitempty"`
	// Bundles is where the organisation's OPA bundles stand (--opa-config):
	// the bundles in force with their revisions, and what failed last.
	Bundles *fleetpolicy.State `json:"bundles,omitempty"`
}

// Degraded is one thing that does not work as it should.
type Degraded struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// apiServer is the HTTP API on the unix socket.
type apiServer struct {
	srv    *http.Server
	path   string
	cancel context.CancelFunc
	served chan struct{}
}

type ctxKey struct{}

// peer is the process at the other end of a connection.
type peer struct {
	uid   int
	known bool
}

// serveAPI listens on the unix socket at path: created 0600 in a 0700
// directory (0666 in a 0755 one with AllUsers, where the peer's
// credentials decide what it sees).
func (d *daemon) serveAPI(path string) (*apiServer, error) {
	if d.opts.AllUsers && !peerCredentialsSupported {
		return nil, errors.New("--all-users needs peer credentials on the API socket, which this OS does not provide")
	}
	dir := filepath.Dir(path)
	dirMode, sockMode := os.FileMode(0o700), os.FileMode(0o600)
	if d.opts.AllUsers {
		dirMode, sockMode = 0o755, 0o666
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, dirMode); err != nil {
			return nil, fmt.Errorf("socket directory: %w", err)
		}
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("socket directory: %w", err)
	} else if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
		// Another user could replace the socket with their own.
		return nil, fmt.Errorf("socket directory %s is writable by other users (mode %04o)", dir, fi.Mode().Perm())
	}
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
			c.Close()
			return nil, fmt.Errorf("socket %s: another daemon is serving it", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove stale socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if err := os.Chmod(path, sockMode); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket mode: %w", err)
	}
	base, cancel := context.WithCancel(context.Background())
	a := &apiServer{path: path, cancel: cancel, served: make(chan struct{})}
	a.srv = &http.Server{
		Handler:           d.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			p, ok := peerOf(c)
			p.known = ok
			return context.WithValue(ctx, ctxKey{}, p)
		},
	}
	go func() {
		defer close(a.served)
		if err := a.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Error("API", "err", err)
		}
	}()
	return a, nil
}

// close stops serving within half a second (followers are cut off) and
// removes the socket.
func (a *apiServer) close() {
	a.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if err := a.srv.Shutdown(ctx); err != nil {
		a.srv.Close()
	}
	<-a.served
	os.Remove(a.path)
}

// view is what one peer may see: everything, or with AllUsers a non-root
// user's own servers and the machine-wide ones.
type view struct {
	all  bool
	user string
}

// viewFor decides what a peer sees; ok is false when it may see nothing.
func (d *daemon) viewFor(r *http.Request) (view, bool) {
	p, _ := r.Context().Value(ctxKey{}).(peer)
	if !p.known {
		// No peer credentials on this OS: the socket's mode (0600) is the
		// only gate, which serveAPI keeps for single-user daemons.
		return view{all: true}, !d.opts.AllUsers
	}
	if p.uid == 0 || p.uid == os.Geteuid() {
		return view{all: true}, true
	}
	if !d.opts.AllUsers {
		return view{}, false
	}
	u, err := user.LookupId(strconv.Itoa(p.uid))
	if err != nil {
		return view{}, false
	}
	return view{user: u.Username}, true
}

func (d *daemon) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /v1/report", func(w http.ResponseWriter, r *http.Request) {
		v, ok := d.viewFor(r)
		if !ok {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		d.mu.RLock()
		rep, homes := d.inv.report, d.homes
		d.mu.RUnlock()
		if !v.all {
			rep = filterReport(rep, v.user, homes)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = reports.WriteJSON(w, rep)
	})
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) {
		if _, ok := d.viewFor(r); !ok {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		writeJSON(w, d.status())
	})
	mux.HandleFunc("GET /v1/events", d.serveEvents)
	return mux
}

// serveEvents streams the events after ?since=N as JSON lines; with
// ?follow=1 it keeps the stream open and sends each event as it happens.
func (d *daemon) serveEvents(w http.ResponseWriter, r *http.Request) {
	v, ok := d.viewFor(r)
	if !ok {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	q := r.URL.Query()
	since, err := strconv.ParseInt(q.Get("since"), 10, 64)
	if q.Get("since") == "" {
		since, err = 0, nil
	}
	if err != nil || since < 0 {
		http.Error(w, "since: want a non-negative event number", http.StatusBadRequest)
		return
	}
	follow := q.Get("follow") == "1" || q.Get("follow") == "true"
	w.Header().Set("Content-Type", "application/x-ndjson")
	bw := bufio.NewWriter(w)
	flusher, _ := w.(http.Flusher)
	for {
		evs, notify := d.evlog.since(since)
		for _, e := range evs {
			since = e.Seq
			if !v.all && e.User != "" && e.User != v.user {
				continue
			}
			bw.Write(events.Marshal(e))
			bw.WriteByte('\n')
		}
		if err := bw.Flush(); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		if !follow {
			return
		}
		select {
		case <-notify:
		case <-r.Context().Done():
			return
		}
	}
}

// status assembles GET /v1/status.
func (d *daemon) status() Status {
	seq, werr := d.evlog.state()
	d.mu.RLock()
	defer d.mu.RUnlock()
	now := d.now()
	st := Status{
		Schema: StatusSchema, Version: d.opts.Version, PID: os.Getpid(),
		StartedAt: d.started.UTC().Format(time.RFC3339Nano), UptimeSeconds: int64(now.Sub(d.started).Seconds()),
		LastScanAt: d.lastScan.UTC().Format(time.RFC3339Nano), Scans: d.scans, LastScan: d.lastStats,
		StateDir: d.opts.StateDir, Socket: d.opts.Socket, Events: d.opts.Events, EventSeq: seq,
		Degraded: []Degraded{}, Users: len(d.homes), Memory: memoryStatus(d.released),
	}
	if !d.lastChg.IsZero() {
		st.LastChangeAt = d.lastChg.UTC().Format(time.RFC3339Nano)
	}
	if rep := d.inv.report; rep != nil {
		st.Servers, st.Findings, st.Errors = len(rep.Servers), rep.Summary.Findings, len(rep.Errors)
		st.Policy.Sources, st.Policy.Revision = rep.Policy.Sources, rep.Policy.Revision
	}
	st.Policy.Paths = append([]string{}, d.opts.Policies...)
	p := d.pub
	st.Policy.RegoRevision = p.regoRev
	st.Watch = WatchStatus{Mode: "fsnotify", Directories: p.watchDirs, Paths: p.watchPaths, ResyncSeconds: int(p.resync.Seconds())}
	if len(p.failed) > 0 {
		st.Watch.Failed = p.failed
	}
	switch {
	case p.noWatcher:
		st.Watch.Mode = "poll"
		st.Degraded = append(st.Degraded, Degraded{Kind: "no-watcher", Message: "file watching is unavailable; changes are found by polling every " + d.opts.Poll.String()})
	case p.limited:
		st.Watch.Mode = "poll"
		st.Degraded = append(st.Degraded, Degraded{Kind: "watch-limit",
			Message: "the OS watch limit is reached (raise fs.inotify.max_user_watches); changes are found by polling every " + d.opts.Poll.String()})
	case len(p.failed) > 0:
		st.Degraded = append(st.Degraded, Degraded{Kind: "unwatched", Message: fmt.Sprintf("%d directories cannot be watched; the resync covers them", len(p.failed))})
	}
	if len(p.invalid) > 0 {
		st.Policy.Invalid = p.invalid
		st.Degraded = append(st.Degraded, Degraded{Kind: "policy-invalid", Message: "a policy file is invalid; the last good policy stays in force"})
	}
	if d.fleet != nil {
		bs := d.fleet.State()
		st.Policy.Bundles = &bs
		switch {
		case len(bs.Active) == 0:
			st.Degraded = append(st.Degraded, Degraded{Kind: "no-bundle",
				Message: "no verified bundle yet: every server is unverified-policy (" + orDefault(bs.ErrorText(), "waiting for the bundle server") + ")"})
		case bs.Degraded:
			st.Degraded = append(st.Degraded, Degraded{Kind: "bundle-failed",
				Message: "the last bundle download or activation failed; bundles " + fleetpolicy.Revisions(bs.Active) + " stay in force: " + bs.ErrorText()})
		}
	}
	if werr != nil {
		st.Degraded = append(st.Degraded, Degraded{Kind: "events-unwritable", Message: werr.Error() + "; events are kept in memory and the file is retried"})
	}
	if d.saveErr != nil {
		st.Degraded = append(st.Degraded, Degraded{Kind: "state-unwritable", Message: d.saveErr.Error()})
	}
	return st
}

// filterReport keeps what user may see: their own servers and findings
// and the machine-wide ones, and no path under another user's home.
func filterReport(rep *reports.Report, user string, homes map[string]string) *reports.Report {
	others := func(path string) bool {
		for u, h := range homes {
			if u != user && under(path, h) {
				return true
			}
		}
		return false
	}
	out := *rep
	out.Servers, out.Findings, out.Errors, out.Sources = []reports.Server{}, []reports.Finding{}, []reports.FileError{}, []reports.Source{}
	visible := map[string]bool{}
	for _, s := range rep.Servers {
		if s.User == user || (s.User == "" && !others(s.Source.Path)) {
			out.Servers = append(out.Servers, s)
			visible[s.ID] = true
		}
	}
	for _, f := range rep.Findings {
		if visible[f.ServerID] || (f.ServerID == "" && !others(f.Location.Path)) {
			out.Findings = append(out.Findings, f)
		}
	}
	for _, e := range rep.Errors {
		if !others(e.Path) {
			out.Errors = append(out.Errors, e)
		}
	}
	for _, s := range rep.Sources {
		if !others(s.Path) {
			out.Sources = append(out.Sources, s)
		}
	}
	out.Summary = reports.Summarize(&out)
	return &out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
