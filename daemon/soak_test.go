//go:build linux

package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/internal/events"
)

// TestDaemonSoak runs a root daemon with --all-users for a bounded time
// (MCPGUARD_SOAK, default 20s) under everything at once: a user editing
// her configurations (atomic saves, in-place writes, broken files that are
// fixed, servers added and removed), another user flooding the API with
// event streams and silent connections, the event file's disk filling up
// and emptying again, and the event file rotated (logrotate's create, then
// copytruncate). Then: every event is in the files, whole, numbered
// without a gap or a repeat, the same as the API's; and the final report
// equals what a fresh daemon on the same machine reports.
func TestDaemonSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	length := 20 * time.Second
	if d, err := time.ParseDuration(os.Getenv("MCPGUARD_SOAK")); err == nil && d > 0 {
		length = d
	}
	h, accts := allUsersHarness(t, "ana", "eve")
	ana, eve := accts[0], accts[1]
	evDir := filepath.Join(h.root, "evfs")
	daemon.MountTmpfs(t, evDir, "4m")
	h.evs = filepath.Join(evDir, "events.jsonl")
	ana.write(t, ".cursor/mcp.json", `{"mcpServers": {"a0": {"command": "node", "args": ["0.js"]}}}`)
	h.start()
	h.waitFor(0, "server-added:a0")

	startFlood(t, eve, h.socket, 100, 100, length+time.Minute)

	start := time.Now()
	stop := start.Add(length)
	var wg sync.WaitGroup
	var rotated []string
	var sawFull bool
	var mu sync.Mutex
	errs := func(err error) {
		if err != nil {
			mu.Lock()
			t.Error(err)
			mu.Unlock()
		}
	}
	// The editor.
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(43, 1))
		files := []string{".cursor/mcp.json", ".codeium/windsurf/mcp_config.json", ".gemini/settings.json"}
		for i := 0; time.Now().Before(stop); i++ {
			rel := files[rng.IntN(len(files))]
			var servers []string
			for j := range rng.IntN(6) {
				servers = append(servers, fmt.Sprintf(`"s%d": {"command": "node", "args": ["%d.js", "--v%d"]}`, j, j, rng.IntN(3)))
			}
			data := `{"mcpServers": {` + strings.Join(servers, ", ") + `}}`
			switch rng.IntN(10) {
			case 0: // a half-written save, fixed at the next edit
				data = data[:len(data)/2]
			case 1: // written in place
				p := filepath.Join(ana.home, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
					errs(os.WriteFile(p, []byte(data), 0o644))
				}
				time.Sleep(time.Duration(20+rng.IntN(80)) * time.Millisecond)
				continue
			}
			_, err := ana.save(rel, data)
			errs(err)
			time.Sleep(time.Duration(20+rng.IntN(80)) * time.Millisecond)
		}
	}()
	// The disk and the rotations.
	wg.Add(1)
	go func() {
		defer wg.Done()
		at := func(frac float64) { time.Sleep(time.Until(start.Add(time.Duration(frac * float64(length))))) }
		at(0.2)
		filler, err := daemon.FillUp(evDir)
		errs(err)
		for until := start.Add(time.Duration(0.45 * float64(length))); time.Now().Before(until); time.Sleep(50 * time.Millisecond) {
			if st, err := h.client.Status(context.Background()); err == nil && degraded(st, "events-unwritable") {
				mu.Lock()
				sawFull = true
				mu.Unlock()
				break
			}
		}
		at(0.45)
		errs(os.Remove(filler))
		at(0.6)
		r1 := h.evs + ".1"
		errs(os.Rename(h.evs, r1))
		errs(os.WriteFile(h.evs, nil, 0o600))
		at(0.8)
		r2 := h.evs + ".2"
		data, err := os.ReadFile(h.evs)
		errs(err)
		errs(os.WriteFile(r2, data, 0o600))
		errs(os.Truncate(h.evs, 0))
		mu.Lock()
		rotated = append(rotated, r1, r2)
		mu.Unlock()
	}()
	wg.Wait()
	if !sawFull {
		t.Error("the disk was full and the status never said events-unwritable")
	}

	// A final, valid state, and the daemon settled on it.
	ana.write(t, ".cursor/mcp.json", `{"mcpServers": {"final": {"command": "node", "args": ["final.js"]}}}`)
	ana.write(t, ".codeium/windsurf/mcp_config.json", `{"mcpServers": {}}`)
	ana.write(t, ".gemini/settings.json", `{"mcpServers": {"g": {"command": "node", "args": ["g.js"]}}}`)
	fresh := &harness{t: t, root: h.root, home: h.home, managed: h.managed, cwd: h.cwd, extra: h.extra, ns: h.ns,
		state: filepath.Join(h.root, "fresh-state"), socket: filepath.Join(h.root, "fresh", "d.sock"), evs: filepath.Join(h.root, "fresh", "events.jsonl")}
	fresh.client = daemon.NewClient(fresh.socket)
	fresh.start()
	want := reportJSON(t, fresh.client)
	fresh.stop()
	deadline := time.Now().Add(30 * time.Second)
	for got := reportJSON(t, h.client); got != want; got = reportJSON(t, h.client) {
		if time.Now().After(deadline) {
			t.Fatalf("after the soak the daemon's report differs from a fresh daemon's:\n%s\nfresh:\n%s", got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Everything written.
	deadline = time.Now().Add(30 * time.Second)
	for {
		st, err := h.client.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !degraded(st, "events-unwritable") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the backlog is still not written: %+v", st.Degraded)
		}
		time.Sleep(100 * time.Millisecond)
	}
	api := h.eventsSince(0)
	h.stop()
	all := fileEvents(t, append(rotated, h.evs)...)
	checkComplete(t, all, 1)
	for _, e := range all {
		if e.Kind == "events-dropped" {
			t.Errorf("events were dropped from the file: %v", e.Details)
		}
	}
	bySeq := map[int64]events.Event{}
	for _, e := range all {
		bySeq[e.Seq] = e
	}
	for _, e := range api {
		if f, ok := bySeq[e.Seq]; !ok || f.Kind != e.Kind || f.Server != e.Server {
			t.Errorf("the API's event #%d (%s %s) is not in the files as such", e.Seq, e.Kind, e.Server)
		}
	}
	t.Logf("soak: %d events in %s", len(all), length)
}

// reportJSON is a daemon's report without its generation time.
func reportJSON(t *testing.T, c *daemon.Client) string {
	t.Helper()
	rep, err := c.Report(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep.GeneratedAt = ""
	data, _ := json.MarshalIndent(rep, "", " ")
	return string(data)
}
