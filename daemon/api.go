package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
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
	// API is what the API holds and refused.
	API APIStatus `json:"api"`
	// User is the user this status was made for, when it is not root or
	// the daemon's own user: the counts are that user's.
	User string `json:"user,omitempty"`
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
// without that stop, but every mcpguard process, the pre-commit scan
// included, would then run its package initialisation, which builds a
// table of descriptions; the architecture test keeps it out of the binary
// (docs/performance.md).
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
	// Evaluated is how many server evaluations the scan ran (every
	// server, and a wrapped one for each command line it is judged on).
	Evaluated uint64 `json:"evaluated"`
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
// directory of the daemon's own (0666 in a 0755 one with AllUsers, where the
// peer's credentials decide what it sees), with per-user limits.
func (d *daemon) serveAPI(path string) (*apiServer, error) {
	if d.opts.AllUsers && !peerCredentialsSupported {
		return nil, errors.New("--all-users needs peer credentials on the API socket, which this OS does not provide")
	}
	dir := filepath.Dir(path)
	dirMode, sockMode := os.FileMode(0o700), os.FileMode(0o600)
	if d.opts.AllUsers {
		dirMode, sockMode = 0o755, 0o666
	}
	// Another user who could write to the directory could put a socket of
	// their own in the daemon's place.
	if err := ownedDir(dir, dirMode); err != nil {
		return nil, fmt.Errorf("socket directory: %w", err)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, &UnsafePathError{Path: path, Problem: "is " + fileKind(fi.Mode()) + ", not a socket", Fix: "remove it, or give another --socket"}
		}
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
	lim := d.limiter
	base, cancel := context.WithCancel(context.Background())
	a := &apiServer{path: path, cancel: cancel, served: make(chan struct{})}
	a.srv = &http.Server{
		Handler:           d.handler(),
		ReadHeaderTimeout: lim.lim.HeaderTimeout,
		IdleTimeout:       lim.lim.IdleTimeout,
		MaxHeaderBytes:    lim.lim.MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			var p peer
			if lc, ok := c.(*limitedConn); ok {
				p = lc.peer
			}
			return context.WithValue(ctx, ctxKey{}, p)
		},
		ErrorLog: log.New(io.Discard, "", 0), // a peer's TLS-less garbage is not the daemon's problem
	}
	go func() {
		defer close(a.served)
		if err := a.srv.Serve(&limitListener{Listener: ln, lim: lim}); err != nil && !errors.Is(err, http.ErrServerClosed) {
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
// user's own servers and the machine-wide ones (user "" for a peer that is
// none of the watched users: the machine-wide ones only).
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
	d.mu.RLock()
	name, ok := d.uids[p.uid]
	d.mu.RUnlock()
	if !ok {
		if u, err := user.LookupId(strconv.Itoa(p.uid)); err == nil {
			name = u.Username
		}
	}
	return view{user: name}, true
}

// peerOfRequest returns the peer of the request's connection.
func peerOfRequest(r *http.Request) peer {
	p, _ := r.Context().Value(ctxKey{}).(peer)
	return p
}

func (d *daemon) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /v1/report", func(w http.ResponseWriter, r *http.Request) {
		v, ok := d.viewFor(r)
		if !ok {
			http.Error(w, "forbidden: only root and the daemon's own user may use this daemon's API", http.StatusForbidden)
			return
		}
		rep := d.reportFor(v)
		w.Header().Set("Content-Type", "application/json")
		_ = reports.WriteJSON(w, rep)
	})
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) {
		v, ok := d.viewFor(r)
		if !ok {
			http.Error(w, "forbidden: only root and the daemon's own user may use this daemon's API", http.StatusForbidden)
			return
		}
		writeJSON(w, d.status(v))
	})
	mux.HandleFunc("GET /v1/events", d.serveEvents)
	write := d.limiter.lim.WriteTimeout
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
			http.Error(w, "the API takes no request body", http.StatusRequestEntityTooLarge)
			return
		}
		// A peer that does not read its answer gives the connection up.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(write))
		mux.ServeHTTP(w, r)
	})
}

// reportFor is the current report as v may see it.
func (d *daemon) reportFor(v view) *reports.Report {
	d.mu.RLock()
	rep, homes, own := d.inv.report, d.homes, d.inv.owners
	d.mu.RUnlock()
	if v.all {
		return rep
	}
	return filterReport(rep, v.user, homes, own)
}

// serveEvents streams the events after ?since=N as JSON lines; with
// ?follow=1 it keeps the stream open and sends each event as it happens.
func (d *daemon) serveEvents(w http.ResponseWriter, r *http.Request) {
	v, ok := d.viewFor(r)
	if !ok {
		http.Error(w, "forbidden: only root and the daemon's own user may use this daemon's API", http.StatusForbidden)
		return
	}
	q := r.URL.Query()
	since, err := strconv.ParseInt(q.Get("since"), 10, 64)
	if q.Get("since") == "" {
		since, err = 0, nil
	}
	if err != nil || since < 0 || since > maxSeq {
		http.Error(w, "since: want a non-negative event number", http.StatusBadRequest)
		return
	}
	follow := q.Get("follow") == "1" || q.Get("follow") == "true"
	if follow {
		p := peerOfRequest(r)
		if ok, why := d.limiter.acquireStream(p); !ok {
			http.Error(w, "mcpguard daemon: "+why, http.StatusTooManyRequests)
			return
		}
		defer d.limiter.releaseStream(p)
	}
	d.mu.RLock()
	homes := d.homes
	d.mu.RUnlock()
	visible := func(e *events.Event) bool { return v.all || eventVisible(e, v.user, homes) }
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	bw := bufio.NewWriter(w)
	for {
		evs, oldest, notify := d.evlog.since(since)
		if since+1 < oldest && d.opts.Events != "" {
			// Older than memory: from the file, a line at a time.
			_ = streamFile(d.opts.Events, since, oldest, func(e *events.Event, line []byte) error {
				switch {
				case !visible(e):
				case !v.all && e.Kind == "scan-failed":
					bw.Write(events.Marshal(*viewEvent(e)))
					bw.WriteByte('\n')
				default:
					bw.Write(line)
					bw.WriteByte('\n')
				}
				return nil
			})
		}
		for i := range evs {
			e := &evs[i]
			since = e.Seq
			if !visible(e) {
				continue
			}
			if !v.all {
				e = viewEvent(e)
			}
			bw.Write(events.Marshal(*e))
			bw.WriteByte('\n')
		}
		if err := bw.Flush(); err != nil {
			return
		}
		_ = rc.Flush()
		if !follow {
			return
		}
		// A follower that stops reading is cut off at its next event.
		_ = rc.SetWriteDeadline(time.Time{})
		select {
		case <-notify:
		case <-r.Context().Done():
			return
		}
		_ = rc.SetWriteDeadline(time.Now().Add(d.limiter.lim.WriteTimeout))
	}
}

// eventVisible reports whether user may see e: their own events and the
// machine's, never one about a path in another user's home.
func eventVisible(e *events.Event, user string, homes map[string]string) bool {
	if e.User != "" {
		return e.User == user && !underOtherHome(e.Path, user, homes) && !underOtherHome(e.Project, user, homes)
	}
	return !underOtherHome(e.Path, user, homes) && !underOtherHome(e.Project, user, homes)
}

// viewEvent is e as a user who is not root sees it: a failed scan's error
// may name any user's files.
func viewEvent(e *events.Event) *events.Event {
	if e.Kind != "scan-failed" {
		return e
	}
	c := *e
	c.Message, c.Details = "the daemon's scan failed; the inventory is kept and the scan retried", nil
	return &c
}

// underOtherHome reports a path inside the home of a user other than user.
func underOtherHome(path, user string, homes map[string]string) bool {
	if path == "" {
		return false
	}
	for u, h := range homes {
		if u != user && under(path, h) {
			return true
		}
	}
	return false
}

// status assembles GET /v1/status for v: a user who is not root sees the
// counts of their own inventory, and nothing about other users' files.
func (d *daemon) status(v view) Status {
	seq, werr := d.evlog.state()
	queued, dropped := d.evlog.backlog()
	api, apiDegraded := d.limiter.status()
	var rep *reports.Report
	if !v.all {
		rep = d.reportFor(v)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if v.all {
		rep = d.inv.report
	}
	now := d.now()
	st := Status{
		Schema: StatusSchema, Version: d.opts.Version, PID: os.Getpid(),
		StartedAt: d.started.UTC().Format(time.RFC3339Nano), UptimeSeconds: int64(now.Sub(d.started).Seconds()),
		LastScanAt: d.lastScan.UTC().Format(time.RFC3339Nano), Scans: d.scans, LastScan: d.lastStats,
		StateDir: d.opts.StateDir, Socket: d.opts.Socket, Events: d.opts.Events, EventSeq: seq,
		Degraded: []Degraded{}, Users: len(d.homes), Memory: memoryStatus(d.released), API: api,
	}
	if !v.all {
		st.User = orDefault(v.user, "(none)")
	}
	if !d.lastChg.IsZero() {
		st.LastChangeAt = d.lastChg.UTC().Format(time.RFC3339Nano)
	}
	if rep != nil {
		st.Servers, st.Findings, st.Errors = len(rep.Servers), rep.Summary.Findings, len(rep.Errors)
		st.Policy.Sources, st.Policy.Revision = rep.Policy.Sources, rep.Policy.Revision
	}
	st.Policy.Paths = append([]string{}, d.opts.Policies...)
	p := d.pub
	st.Policy.RegoRevision = p.regoRev
	st.Watch = WatchStatus{Mode: "fsnotify", Directories: p.watchDirs, Paths: p.watchPaths, ResyncSeconds: int(p.resync.Seconds())}
	failed := p.failed
	if !v.all {
		failed = map[string]string{}
		for dir, why := range p.failed {
			if !underOtherHome(dir, v.user, d.homes) {
				failed[dir] = why
			}
		}
	}
	if len(failed) > 0 {
		st.Watch.Failed = failed
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
	if d.scanErr != nil {
		msg := fmt.Sprintf("the last scan failed at %s (%v); the inventory is from the scan of %s; retrying", d.scanFailedAt.UTC().Format(time.RFC3339), d.scanErr, d.lastScan.UTC().Format(time.RFC3339))
		if !v.all {
			msg = "the last scan failed; the inventory is from the scan of " + d.lastScan.UTC().Format(time.RFC3339) + "; retrying"
		}
		st.Degraded = append(st.Degraded, Degraded{Kind: "scan-failed", Message: msg})
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
	if werr != nil || queued > 0 || dropped > 0 {
		msg := "the event file takes writes again; the backlog is being written"
		if werr != nil {
			msg = werr.Error()
		}
		msg += fmt.Sprintf("; %d events are queued in memory and written in order once the file takes them", queued)
		if dropped > 0 {
			msg += fmt.Sprintf(", %d more beyond the queue's bound will be missing from it (an events-dropped event will say which)", dropped)
		}
		st.Degraded = append(st.Degraded, Degraded{Kind: "events-unwritable", Message: msg})
	}
	if d.saveErr != nil {
		st.Degraded = append(st.Degraded, Degraded{Kind: "state-unwritable", Message: d.saveErr.Error()})
	}
	if apiDegraded != nil {
		if !v.all {
			apiDegraded.Message = "the API refused connections or event streams over its per-user limits"
		}
		st.Degraded = append(st.Degraded, *apiDegraded)
	}
	if !v.all {
		st.API.RefusedUIDs, st.API.LastRefused = nil, ""
	}
	return st
}

// filterReport keeps what user may see: their own servers, findings,
// errors and sources (as their own scan found them, owners says which) and
// the machine-wide ones, and nothing in another user's home.
func filterReport(rep *reports.Report, user string, homes map[string]string, own *owners) *reports.Report {
	hidden := func(path string) bool { return underOtherHome(path, user, homes) }
	mine := func(users []string, ok bool) bool { return !ok || slices.Contains(users, user) }
	out := *rep
	out.Servers, out.Findings, out.Errors, out.Sources = []reports.Server{}, []reports.Finding{}, []reports.FileError{}, []reports.Source{}
	visible := map[string]bool{}
	for _, s := range rep.Servers {
		if (s.User == user || s.User == "") && !hidden(s.Source.Path) && !hidden(s.Project) {
			out.Servers = append(out.Servers, s)
			visible[s.ID] = true
		}
	}
	for _, f := range rep.Findings {
		if f.ServerID != "" && visible[f.ServerID] || f.ServerID == "" && mine(own.finding(f.ID)) && !hidden(f.Location.Path) {
			out.Findings = append(out.Findings, f)
		}
	}
	for _, e := range rep.Errors {
		if mine(own.errorUsers(e.Path)) && !hidden(e.Path) {
			out.Errors = append(out.Errors, e)
		}
	}
	for _, s := range rep.Sources {
		if mine(own.source(s)) && !hidden(s.Path) {
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
