package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/internal/events"
	"github.com/mcpguard/mcpguard/internal/secrets"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/policy"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

// Options configure a daemon. Zero values mean the defaults noted.
type Options struct {
	// Home, ManagedDir, Project and ClaudeConfigDir select what is scanned,
	// as for `mcpguard scan` (runner, scanner.Options). Without --project,
	// the first project ~/.claude.json lists resolves user and managed
	// servers.
	Home            string
	ManagedDir      string
	Project         string
	ClaudeConfigDir string
	// Policies are --policy paths (.rego files or directories, JSON files
	// shaped like managed-settings.json). A policy that becomes invalid is
	// reported and the last good one stays in force.
	Policies []string
	// StateDir holds the inventory, the event sequence and the lock.
	StateDir string
	// Socket is the unix socket of the API; "" serves no API.
	Socket string
	// Events is the event file (JSON lines); "" keeps events in memory.
	Events string
	// AllUsers scans every user's home (Users) and attributes each server
	// to its user.
	AllUsers bool
	// UserNames, with AllUsers, are the only users watched (--users);
	// nil means every user UserSource finds.
	UserNames []string
	// Users lists the users for AllUsers; nil means UserSource's list
	// (UserNames), asked again when the password file or a home root
	// changes, and at each resync.
	Users func() ([]User, error)
	// GOOS selects OS-specific locations; "" means runtime.GOOS.
	GOOS string
	// LookupEnv is the environment clients start with.
	LookupEnv func(string) (string, bool)
	// Version and Host go into reports.
	Version string
	Host    reports.Host
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Print receives Rego print() output; nil discards it.
	Print io.Writer
	// Debounce is the quiet time after a change before a rescan (default
	// 50ms); MaxDelay bounds how long a continuous burst defers it
	// (default 500ms).
	Debounce, MaxDelay time.Duration
	// Resync is the interval of the safety-net resync (default 5m); Poll
	// replaces it when the OS refuses watches (default 10s).
	Resync, Poll time.Duration
	// ReleaseAfter is the quiet time after a scan before the daemon
	// returns the memory the scan no longer uses to the OS (default
	// 500ms): one collection per burst of changes, none while idle.
	ReleaseAfter time.Duration
	// Reload asks for the policy to be reloaded (SIGHUP).
	Reload <-chan struct{}
	// Ready, when set, is called once the daemon serves.
	Ready func()
	// OPAConfig is an OPA configuration (--opa-config): the organisation's
	// policy comes from its bundles, verified, persisted in StateDir and
	// activated by OPA's plugins; verdicts go to its decision log. Until a
	// bundle is in force every server is unverified-policy. OPAConfigPath
	// names it in events.
	OPAConfig     []byte
	OPAConfigPath string
	// StartFleet starts OPA's plugins for OPAConfig (opaplugins.StartControl
	// in a build that links them); required with OPAConfig.
	StartFleet fleetpolicy.Starter
	// APILimits bound what each local user can make the API hold.
	APILimits APILimits
	// ScanRetry is the delay before a failed scan is tried again (default
	// 1s), doubling up to a minute while it keeps failing.
	ScanRetry time.Duration
}

// daemon is one running daemon. The loop goroutine owns scanning and the
// fields below mu; API handlers read the snapshot under mu.
type daemon struct {
	opts Options
	log  *slog.Logger
	now  func() time.Time
	det  *secrets.Detector
	// users is the cache of the default user list, whose files the daemon
	// watches; nil when Options.Users was given.
	users   *userCache
	state   *stateDir
	fs      *cachingFS
	evlog   *eventLog
	limiter *apiLimiter

	regoPaths, jsonPaths []string
	engine               *policy.Engine
	regoRev              string
	// lastGood holds each JSON policy file's last valid contents.
	lastGood map[string][]byte
	// policyErrs holds the current problem of each invalid policy path.
	policyErrs map[string]string

	// fleet gets bundles through OPA's plugins (--opa-config); fleetPolicy
	// is the bundle content the engine was compiled with, nil before the
	// first verified bundle. fleetSeen is the bundle errors last reported;
	// logged the verdict last sent to the decision log, per server.
	fleet       fleetpolicy.Control
	fleetPolicy *fleetpolicy.Policy
	fleetSeen   string
	logged      map[string]string

	watcher *fsnotify.Watcher
	watches *watchSet
	plan    *watchPlan

	mu sync.RWMutex
	// pub is what the loop publishes for the API.
	pub      published
	inv      inventory
	homes    map[string]string // user -> home, with AllUsers
	uids     map[int]string    // uid -> user, with AllUsers
	started  time.Time
	lastScan time.Time
	lastChg  time.Time
	released time.Time // when memory was last returned to the OS
	scans    int
	// lastStats describe the last scan (Status.LastScan).
	lastStats ScanStats
	saveErr   error
	// scanErr is why the last scan failed (nil when it did not): the
	// inventory is the last good scan's, and the loop retries.
	scanErr      error
	scanFailedAt time.Time
}

// published is the loop's state as the API shows it, copied under mu.
type published struct {
	watchDirs, watchPaths int
	failed                map[string]string
	limited, noWatcher    bool
	resync                time.Duration
	regoRev               string
	invalid               map[string]string
}

// publish copies the loop's watch and policy state for the API.
func (d *daemon) publish() {
	p := published{noWatcher: d.watches == nil, resync: d.resyncInterval(), regoRev: d.regoRev, invalid: map[string]string{}}
	if d.plan != nil {
		p.watchPaths = len(d.plan.files) + len(d.plan.listed)
	}
	if d.watches != nil {
		p.watchDirs, p.limited = len(d.watches.current), d.watches.limited
		p.failed = make(map[string]string, len(d.watches.failed))
		for k, v := range d.watches.failed {
			p.failed[k] = v
		}
	}
	for k, v := range d.policyErrs {
		if k == "rego" {
			k = strings.Join(d.regoPaths, ", ")
		}
		if k == "bundle" {
			k = d.opts.OPAConfigPath
		}
		p.invalid[k] = v
	}
	d.mu.Lock()
	d.pub = p
	d.mu.Unlock()
}

// Run starts a daemon and serves until ctx ends, then stops cleanly: a
// daemon-stop event, the state saved, the socket removed. It returns an
// error when the daemon cannot start (another daemon holds the state
// directory, the policy does not compile, the socket cannot be created).
func Run(ctx context.Context, opts Options) error {
	d, err := start(ctx, opts)
	if err != nil {
		return err
	}
	return d.run(ctx)
}

func start(ctx context.Context, opts Options) (_ *daemon, err error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 50 * time.Millisecond
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = 500 * time.Millisecond
	}
	if opts.Resync <= 0 {
		opts.Resync = 5 * time.Minute
	}
	if opts.Poll <= 0 {
		opts.Poll = 10 * time.Second
	}
	if opts.ReleaseAfter <= 0 {
		opts.ReleaseAfter = 500 * time.Millisecond
	}
	var uc *userCache
	if opts.Users == nil {
		uc = newUserCache(UserSource{Names: opts.UserNames}, opts.Resync)
		opts.Users = uc.list
	}
	if opts.ScanRetry <= 0 {
		opts.ScanRetry = time.Second
	}
	if opts.StateDir == "" {
		return nil, errors.New("no state directory")
	}
	d := &daemon{opts: opts, log: opts.Logger, now: opts.Now, det: secrets.NewDetector(), fs: newCachingFS(), limiter: newAPILimiter(opts.APILimits, opts.Now),
		lastGood: map[string][]byte{}, policyErrs: map[string]string{}, logged: map[string]string{}, users: uc}
	d.regoPaths, d.jsonPaths = runner.SplitPolicies(opts.Policies)

	sd, err := openStateDir(opts.StateDir)
	if err != nil {
		return nil, err
	}
	d.state = sd
	defer func() {
		if err != nil {
			sd.close()
		}
	}()
	if len(opts.OPAConfig) > 0 {
		// Bundles persist in the state directory: a laptop that boots
		// offline enforces the last good one at once.
		if opts.StartFleet == nil {
			return nil, fmt.Errorf("%s: this build cannot start OPA's plugins", opts.OPAConfigPath)
		}
		src, ferr := opts.StartFleet(ctx, fleetpolicy.Options{Config: opts.OPAConfig, StateDir: opts.StateDir, ID: opts.Host.Hostname, Logger: opts.Logger, LookupEnv: opts.LookupEnv})
		if ferr != nil {
			return nil, fmt.Errorf("%s: %w", opts.OPAConfigPath, ferr)
		}
		d.fleet = src
		defer func() {
			if err != nil {
				d.stopFleet()
			}
		}()
		// A persisted bundle activates as the plugins start: wait for it
		// briefly, so that the first scan is judged by it.
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, _ = src.WaitActive(wctx)
		cancel()
		d.fleetPolicy = src.Policy()
	}
	// The policy must be valid to start: there is no last good one to
	// fall back on, and scanning without it would allow what it denies.
	if d.engine, err = policy.NewEngine(ctx, d.engineOptions()); err != nil {
		return nil, fmt.Errorf("load policy: %w", err)
	}
	d.regoRev = regoRevision(d.regoPaths)
	for _, p := range d.jsonPaths {
		data, problem := checkPolicyFile(p)
		if problem != "" {
			return nil, fmt.Errorf("load policy: %s", problem)
		}
		d.lastGood[p] = data
	}

	st, note, err := d.state.load(d.now())
	if err != nil {
		return nil, err
	}
	var seq int64
	var prev inventory
	if st != nil {
		seq, prev = st.Seq, inventory{report: st.Report, secrets: st.Secrets, owners: st.Owners}
	}
	if d.evlog, err = newEventLog(opts.Events, seq, d.det, d.now, d.log); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			d.evlog.close()
		}
	}()
	d.started = d.now()

	if d.watcher, err = fsnotify.NewWatcher(); err != nil {
		// No watcher at all (inotify instances exhausted): poll.
		d.log.Warn("file watching unavailable; resyncing by polling", "err", err, "interval", opts.Poll)
		d.watcher = nil
	} else {
		d.watches = newWatchSet(d.watcher)
	}

	inv, asked, err := d.scan(ctx)
	if err != nil {
		d.closeWatcher()
		return nil, err
	}
	startDetails := map[string]any{"servers": len(inv.report.Servers), "policy_revision": inv.report.Policy.Revision,
		"resumed": st != nil, "state_dir": opts.StateDir}
	if note != "" {
		startDetails["state_note"] = note
	}
	d.evlog.emit(events.Event{Kind: "daemon-start", Message: "daemon started", Details: startDetails})
	d.commit(prev, inv)
	d.updateWatches(asked)
	return d, nil
}

// run serves the API and watches until ctx ends.
func (d *daemon) run(ctx context.Context) error {
	defer d.state.close()
	defer d.closeWatcher()
	var api *apiServer
	if d.opts.Socket != "" {
		var err error
		if api, err = d.serveAPI(d.opts.Socket); err != nil {
			d.stop("the API socket could not be created: " + err.Error())
			return err
		}
	}
	d.logStart()
	if d.opts.Ready != nil {
		d.opts.Ready()
	}
	d.loop(ctx)
	d.stop("daemon stopped")
	if api != nil {
		api.close()
	}
	return nil
}

// logStart writes the one info line of a start: what runs, where, on what.
func (d *daemon) logStart() {
	d.mu.RLock()
	rep, users := d.inv.report, len(d.homes)
	d.mu.RUnlock()
	attrs := []any{"version", orDefault(d.opts.Version, "(devel)"), "socket", orDefault(d.opts.Socket, "(none)"), "state_dir", d.opts.StateDir,
		"events", orDefault(d.opts.Events, "(memory only)"), "servers", len(rep.Servers), "policy_revision", rep.Policy.Revision}
	if d.opts.AllUsers {
		attrs = append(attrs, "users", users)
	}
	d.log.Info("mcpguard daemon started", attrs...)
}

// stop records the end: a daemon-stop event and the state saved.
func (d *daemon) stop(msg string) {
	d.evlog.emit(events.Event{Kind: "daemon-stop", Message: msg, Details: map[string]any{"uptime_seconds": int(d.now().Sub(d.started).Seconds())}})
	d.stopFleet()
	d.mu.RLock()
	inv := d.inv
	d.mu.RUnlock()
	d.save(inv)
	d.evlog.close()
}

func (d *daemon) closeWatcher() {
	if d.watcher != nil {
		d.watcher.Close()
	}
}

// loop is the daemon's event loop: file events debounced into rescans,
// overflow into full rescans, the slow resync, policy reloads.
func (d *daemon) loop(ctx context.Context) {
	var evCh <-chan fsnotify.Event
	var errCh <-chan error
	if d.watcher != nil {
		evCh, errCh = d.watcher.Events, d.watcher.Errors
	}
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	var first, last time.Time
	pending, policyDirty := false, false
	resync := time.NewTimer(d.resyncInterval())
	defer resync.Stop()
	// A scan leaves garbage and heap grown for it: once the daemon is
	// quiet, it collects and returns what is free, so that it stays small
	// between changes (the runtime's own scavenger keeps about twice the
	// live heap). Armed after every scan, the first at start: the loop
	// scans only through rescan below.
	release := time.NewTimer(d.opts.ReleaseAfter)
	defer release.Stop()
	// A failed scan is tried again, ever later while it keeps failing.
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	var retryDelay time.Duration
	rescan := func() {
		if err := d.rescan(ctx); err != nil && ctx.Err() == nil {
			retryDelay = min(max(2*retryDelay, d.opts.ScanRetry), time.Minute)
			retry.Reset(retryDelay)
		} else {
			retryDelay = 0
			retry.Stop()
		}
		release.Reset(d.opts.ReleaseAfter)
	}
	schedule := func(now time.Time) {
		if !pending {
			first = now
		}
		pending, last = true, now
		deadline := last.Add(d.opts.Debounce)
		if limit := first.Add(d.opts.MaxDelay); deadline.After(limit) {
			deadline = limit
		}
		debounce.Reset(max(deadline.Sub(now), 0))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-evCh:
			if !ok {
				evCh = nil
				continue
			}
			name := filepath.Clean(ev.Name)
			if d.watches != nil {
				d.watches.observe(ev)
			}
			if ev.Op == fsnotify.Chmod && (d.plan == nil || !d.plan.files[name]) {
				// Spotlight and antivirus touch everything; a config file's
				// own mode matters (chmod 000 makes it unreadable).
				continue
			}
			if d.isPolicyPath(name) {
				policyDirty = true
				schedule(d.now())
				continue
			}
			if d.plan == nil || !d.plan.relevant(name) {
				continue
			}
			d.fs.invalidate(name)
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) || ev.Has(fsnotify.Create) {
				d.fs.invalidateUnder(name)
			}
			schedule(d.now())
		case err, ok := <-errCh:
			if !ok {
				errCh = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				d.log.Warn("file events overflowed; rescanning everything")
				d.fs.invalidateAll()
				schedule(d.now())
				continue
			}
			d.log.Warn("file watcher", "err", err)
		case <-debounce.C:
			pending = false
			if policyDirty {
				policyDirty = false
				d.reloadPolicy(ctx)
			}
			rescan()
		case <-resync.C:
			if changed := d.fs.changedOnDisk(); len(changed) > 0 {
				d.log.Info("resync found changes the watcher missed", "paths", len(changed))
				for _, p := range changed {
					d.fs.invalidateUnder(p)
				}
				rescan()
			} else if d.watches != nil && d.plan != nil {
				d.watches.readd(d.plan) // a watch may have gone with its directory
			}
			if d.policyChangedOnDisk() {
				d.reloadPolicy(ctx)
				rescan()
			}
			resync.Reset(d.resyncInterval())
		case <-d.fleetChanges():
			if d.reloadFleet(ctx) {
				rescan()
			}
		case <-d.opts.Reload:
			d.log.Info("reloading the policy (SIGHUP)")
			d.reloadPolicy(ctx)
			rescan()
		case <-retry.C:
			rescan()
		case <-release.C:
			debug.FreeOSMemory()
			d.mu.Lock()
			d.released = d.now()
			d.mu.Unlock()
		}
	}
}

// resyncInterval is the slow resync, or the poll interval when watches are
// unavailable.
func (d *daemon) resyncInterval() time.Duration {
	if d.watches == nil || d.watches.limited {
		return d.opts.Poll
	}
	return d.opts.Resync
}

// rescan runs the pipeline again and reports what changed. A scan that
// starts watching new directories (a client folder was created) checks
// them once more: a file written between the scan and the new watch would
// otherwise wait for the resync.
func (d *daemon) rescan(ctx context.Context) error {
	for range 3 {
		inv, asked, err := d.scan(ctx)
		if err != nil {
			if ctx.Err() == nil {
				d.scanFailed(err)
			}
			return err
		}
		d.scanWorks()
		d.mu.RLock()
		prev := d.inv
		d.mu.RUnlock()
		d.commit(prev, inv)
		if d.updateWatches(asked) == 0 {
			return nil
		}
		changed := d.fs.changedOnDisk()
		if len(changed) == 0 {
			return nil
		}
		for _, p := range changed {
			d.fs.invalidateUnder(p)
		}
	}
	return nil
}

// scanFailed records a failed scan: the inventory stays the last good
// scan's, and the status and a scan-failed event (one per run of failures)
// say so while the loop retries.
func (d *daemon) scanFailed(err error) {
	d.mu.Lock()
	first := d.scanErr == nil
	d.scanErr, d.scanFailedAt = err, d.now()
	d.mu.Unlock()
	if !first {
		d.log.Debug("the scan still fails", "err", err)
		return
	}
	d.log.Error("the scan failed; the inventory is kept and the scan retried", "err", err)
	d.evlog.emit(events.Event{Kind: "scan-failed", Severity: "error",
		Message: "the scan failed; the inventory is the last good scan's until a scan works again: " + err.Error(),
		Details: map[string]any{"error": err.Error()}})
}

// scanWorks clears a failure once a scan worked.
func (d *daemon) scanWorks() {
	d.mu.Lock()
	failed := d.scanErr != nil
	d.scanErr = nil
	d.mu.Unlock()
	if failed {
		d.log.Info("the scan works again")
	}
}

// commit turns the difference between prev and inv into events, makes inv
// current and persists it when it changed. inv is current before its
// events are emitted: a client that follows the events and asks for the
// report on one sees the state the event describes.
func (d *daemon) commit(prev, inv inventory) {
	inv = keepLastGood(prev, inv)
	d.logDecisions(context.Background(), inv.report)
	evs := diff(prev, inv, d.det)
	now := d.now()
	d.mu.Lock()
	d.inv = inv
	d.lastScan = now
	d.scans++
	if len(evs) > 0 {
		d.lastChg = now
	}
	d.mu.Unlock()
	d.evlog.emit(evs...)
	if len(evs) > 0 || prev.report == nil || !sameReport(prev.report, inv.report) {
		d.save(inv)
	}
}

func (d *daemon) save(inv inventory) {
	seq, _ := d.evlog.state()
	err := d.state.save(&state{Seq: seq, Report: inv.report, Secrets: inv.secrets, Owners: inv.owners})
	d.mu.Lock()
	d.saveErr = err
	d.mu.Unlock()
	if err != nil {
		d.log.Error("save state", "err", err)
	}
}

// sameReport compares two reports but for their generation time.
func sameReport(a, b *reports.Report) bool {
	x, y := *a, *b
	x.GeneratedAt, y.GeneratedAt = "", ""
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// scan runs the pipeline through the caching FS: for one home, or for
// every user's with AllUsers. It returns the inventory and the paths the
// scan asked about.
func (d *daemon) scan(ctx context.Context) (inventory, map[string]bool, error) {
	d.fs.beginScan()
	start, engine := time.Now(), d.engine
	before := engine.Evaluated()
	defer func() {
		evaluated := engine.Evaluated() - before
		st := ScanStats{DurationMS: float64(time.Since(start).Microseconds()) / 1000, Evaluated: evaluated}
		d.log.Debug("scanned", "ms", st.DurationMS, "evaluated", evaluated)
		d.mu.Lock()
		d.lastStats = st
		d.mu.Unlock()
	}()
	meta := runner.Meta{Version: d.opts.Version, GeneratedAt: d.now().UTC().Format(time.RFC3339), Host: d.opts.Host}
	base := scanner.Options{
		Home: d.opts.Home, ManagedDir: d.opts.ManagedDir, Project: d.opts.Project, ClaudeConfigDir: d.opts.ClaudeConfigDir,
		GOOS: d.opts.GOOS, LookupEnv: d.opts.LookupEnv, FS: d.fs,
	}
	run := func(sopts scanner.Options) (*runner.Result, error) {
		res, err := runner.Run(ctx, runner.Options{Scan: sopts, Policies: d.opts.Policies, Engine: d.engine, Print: d.opts.Print, Meta: meta, Secrets: d.det, Fleet: d.fleetPolicy})
		if err == nil {
			d.failClosed(res.Report)
		}
		return res, err
	}
	if !d.opts.AllUsers {
		res, err := run(base)
		if err != nil {
			return inventory{}, nil, err
		}
		inv := inventory{report: res.Report, secrets: map[string]map[string]string{}}
		hasher := newSecretHasher(d.state.key)
		for _, s := range res.Scan.Servers {
			inv.secrets[s.ID] = hasher.server(s)
		}
		return inv, d.fs.endScan(), nil
	}
	users, err := d.opts.Users()
	if err != nil {
		return inventory{}, nil, err
	}
	if d.users != nil {
		// A new account or home directory is a reason to scan again.
		for _, p := range d.users.files() {
			_, _ = d.fs.Stat(p)
		}
		for _, p := range d.users.dirs() {
			_, _ = d.fs.ReadDir(p)
		}
	}
	var parts []userScan
	homes, uids := map[string]string{}, map[int]string{}
	for _, u := range users {
		sopts := base
		sopts.Home, sopts.ClaudeConfigDir, sopts.Project = u.Home, "", ""
		res, err := run(sopts)
		if err != nil {
			return inventory{}, nil, err
		}
		parts = append(parts, userScan{user: u, res: res})
		homes[u.Name], uids[u.UID] = u.Home, u.Name
	}
	inv := mergeUsers(parts, d.state.key, meta, d.opts.ManagedDir)
	d.mu.Lock()
	d.homes, d.uids = homes, uids
	d.mu.Unlock()
	return inv, d.fs.endScan(), nil
}

// updateWatches points the watcher at what the last scan read, plus the
// policy files, and returns how many directories it started watching.
func (d *daemon) updateWatches(asked map[string]bool) int {
	extra := append([]string(nil), d.jsonPaths...)
	for _, p := range d.regoPaths {
		extra = append(extra, p)
		_ = filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				asked[path] = true // watch the directory for new policy files
			}
			return nil
		})
	}
	d.plan = planWatches(asked, extra)
	defer d.publish()
	if d.watches == nil {
		return 0
	}
	wasLimited := d.watches.limited
	added := d.watches.apply(d.plan)
	if d.watches.limited && !wasLimited {
		d.log.Warn("the OS watch limit is reached (fs.inotify.max_user_watches); resyncing by polling", "interval", d.opts.Poll)
	}
	return added
}

func (d *daemon) isPolicyPath(p string) bool {
	for _, q := range d.opts.Policies {
		q = filepath.Clean(q)
		if p == q || strings.HasPrefix(p, q+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// reloadPolicy compiles the Rego policy again and checks the JSON policy
// files. An invalid policy is a policy-invalid event and the last good one
// stays in force (its contents are served to the scan for JSON files): the
// daemon fails closed, never open.
func (d *daemon) reloadPolicy(ctx context.Context) {
	defer d.publish()
	rev := regoRevision(d.regoPaths)
	if len(d.regoPaths) > 0 && (rev != d.regoRev || d.policyErrs["rego"] != "") {
		eng, err := policy.NewEngine(ctx, d.engineOptions())
		switch {
		case err != nil:
			msg := err.Error()
			if d.policyErrs["rego"] != msg {
				d.evlog.emit(events.Event{Kind: "policy-invalid", Severity: "error", Path: strings.Join(d.regoPaths, ", "),
					Message: "the policy does not compile; the last good policy stays in force: " + msg,
					Details: map[string]any{"error": msg, "active_revision": d.regoRev}})
			}
			d.policyErrs["rego"] = msg
		default:
			delete(d.policyErrs, "rego")
			old := d.regoRev
			d.engine, d.regoRev = eng, rev
			d.evlog.emit(events.Event{Kind: "policy-changed", Message: "the Rego policy was reloaded",
				Details: map[string]any{"old_revision": old, "new_revision": rev, "sources": d.regoPaths}})
		}
	}
	for _, p := range d.jsonPaths {
		data, problem := checkPolicyFile(p)
		if problem != "" {
			if d.policyErrs[p] != problem {
				d.evlog.emit(events.Event{Kind: "policy-invalid", Severity: "error", Path: p,
					Message: "the policy file is invalid; its last good version stays in force: " + problem,
					Details: map[string]any{"error": problem}})
			}
			d.policyErrs[p] = problem
			d.fs.pin(p, d.lastGood[p])
			continue
		}
		delete(d.policyErrs, p)
		d.fs.unpin(p)
		d.lastGood[p] = data
		d.fs.invalidate(p)
	}
}

// policyChangedOnDisk reports whether a policy file changed without an
// event reaching the daemon (the resync's check).
func (d *daemon) policyChangedOnDisk() bool {
	if regoRevision(d.regoPaths) != d.regoRev {
		return true
	}
	for _, p := range d.jsonPaths {
		data, _ := os.ReadFile(p)
		if !bytes.Equal(data, d.lastGood[p]) && d.policyErrs[p] == "" {
			return true
		}
	}
	return false
}

// checkPolicyFile reads a JSON policy file; problem says why it cannot be
// used.
func checkPolicyFile(p string) (data []byte, problem string) {
	doc, broken, exists, errs := managed.LoadSettings(nil, p, managed.KindPolicyFile)
	switch {
	case !exists:
		return nil, p + ": no such policy file"
	case broken != nil:
		return nil, broken.Error.Error()
	case doc == nil && len(errs) > 0:
		return nil, errs[0].Error()
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, p + ": " + err.Error()
	}
	return data, ""
}

// regoRevision fingerprints the contents of the Rego policy files.
func regoRevision(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	var parts []string
	for _, root := range paths {
		_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				parts = append(parts, p, "error: "+err.Error())
				return nil
			}
			if !e.IsDir() && strings.HasSuffix(p, ".rego") {
				data, rerr := os.ReadFile(p)
				if rerr != nil {
					parts = append(parts, p, "error: "+rerr.Error())
					return nil
				}
				parts = append(parts, p, string(data))
			}
			return nil
		})
	}
	return reports.Fingerprint(parts...)
}
