// Command daemonbench measures mcpguard daemon against the targets of SPEC
// §7 on a synthetic machine of about 200 servers in 30 files
// (internal/benchdata): the time from a file change to its event (p50,
// p99 over EDITS real edits), CPU used while idle, resident memory, and the
// events and final state after a burst of rapid writes.
//
//	go build -o /tmp/mcpguard ./cmd/mcpguard
//	go -C bench run ./daemonbench /tmp/mcpguard
//	IDLE=0 EDITS=30 BURST=1 go -C bench run ./daemonbench /tmp/mcpguard   # the edits only
//
// bench/daemon.sh does both.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpguard/mcpguard/daemon"
	"github.com/mcpguard/mcpguard/internal/benchdata"
	"github.com/mcpguard/mcpguard/internal/events"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: daemonbench MCPGUARD_BINARY")
		return 2
	}
	// IDLE=0 skips the idle and resident-memory waits (bench/ab.sh times
	// the edits only).
	idle := 5 * time.Second
	if os.Getenv("IDLE") == "0" {
		idle = 0
	}
	if err := bench(args[0], envInt("EDITS", 100), envInt("BURST", 10000), idle); err != nil {
		fmt.Fprintln(os.Stderr, "daemonbench:", err)
		return 1
	}
	return 0
}

func envInt(k string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(k)); err == nil && v > 0 {
		return v
	}
	return def
}

func bench(bin string, edits, burst int, idleWait time.Duration) error {
	root, err := os.MkdirTemp("", "mgb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	home, managedDir, _, err := benchdata.WriteMachine(filepath.Join(root, "m"), 200)
	if err != nil {
		return err
	}
	socket := filepath.Join(root, "d.sock")
	cmd := exec.Command(bin, "daemon", "--home", home, "--managed-dir", managedDir, "--state-dir", filepath.Join(root, "state"),
		"--socket", socket, "--events", filepath.Join(root, "events.jsonl"))
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.Dir = root // a directory of its own: what the daemon sees must not depend on where the bench runs
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	c := daemon.NewClient(socket)
	var st *daemon.Status
	for deadline := time.Now().Add(30 * time.Second); ; {
		if st, err = c.Status(context.Background()); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("daemon not serving: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid := cmd.Process.Pid
	fmt.Printf("machine: %d servers, %d watched directories for %d paths\n", st.Servers, st.Watch.Directories, st.Watch.Paths)

	// Idle: no polling loop, so no CPU at all but the Go runtime's own.
	time.Sleep(idleWait / 5)
	cpu0 := cpuTicks(pid)
	time.Sleep(idleWait)
	idle := cpuTicks(pid) - cpu0
	atStart := memKB(pid)

	// Change -> event latency over real edits of one file.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan events.Event, 1024)
	go c.Events(ctx, st.EventSeq, true, func(e events.Event, _ []byte) error { got <- e; return nil })
	file := filepath.Join(home, ".cursor", "mcp.json")
	orig, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	version := regexp.MustCompile(`"acme-tool-(\d+)==0\.(\d+)\.0"`)
	if !version.Match(orig) {
		return fmt.Errorf("%s holds no uvx server to edit", file)
	}
	var lat []time.Duration
	cpuEdits := cpuTicks(pid)
	for i := 0; i < edits; i++ {
		data := version.ReplaceAll(orig, []byte(fmt.Sprintf(`"acme-tool-$1==0.$2.%d"`, i+1)))
		t0 := time.Now()
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
		if err := waitKind(got, "server-changed", 10*time.Second); err != nil {
			return fmt.Errorf("edit %d: %w", i, err)
		}
		lat = append(lat, time.Since(t0))
		drain(got, 100*time.Millisecond)
	}
	cpuEdits = cpuTicks(pid) - cpuEdits
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p50, p99 := lat[len(lat)/2], lat[(len(lat)*99+99)/100-1]
	stEdit, err := c.Status(context.Background())
	if err != nil {
		return err
	}

	// A burst of writes: bounded events, the right final state.
	st0, _ := c.Status(context.Background())
	for i := 0; i < burst; i++ {
		data := version.ReplaceAll(orig, []byte(fmt.Sprintf(`"acme-tool-$1==0.$2.%d"`, 100000+i)))
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
	}
	want := fmt.Sprintf(".%d\"", 100000+burst-1)
	final := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		rep, err := c.Report(context.Background())
		if err != nil {
			return err
		}
		for _, s := range rep.Servers {
			if strings.Contains(strings.Join(s.Args, " "), strings.Trim(want, `."`)) {
				final = true
			}
		}
		if final {
			break
		}
	}
	st1, _ := c.Status(context.Background())
	// Resident memory once the daemon is idle again after all that work:
	// what a laptop keeps paying for.
	time.Sleep(idleWait)
	after := memKB(pid)

	fmt.Printf("%-40s %12s %12s\n", "measure", "value", "target")
	fmt.Printf("%-40s %10.1fms %12s\n", "change -> event p50", ms(p50), "")
	fmt.Printf("%-40s %10.1fms %10s (%.2fx)\n", "change -> event p99", ms(p99), "<= 150ms", ms(p99)/150)
	fmt.Printf("%-40s %10d %12s\n", "CPU ticks in 5s idle (1 tick = 10ms)", idle, "0")
	fmt.Printf("%-40s %10.1fms %12s\n", "CPU per edit", float64(cpuEdits)*10/float64(edits), "")
	fmt.Printf("%-40s %10.1fms %12s\n", "last scan after an edit", stEdit.LastScan.DurationMS, "")
	fmt.Printf("%-40s %5d of %-4d %12s\n", "servers evaluated again after an edit", stEdit.LastScan.Evaluated, stEdit.Servers, "")
	mib := func(kb int) float64 { return float64(kb) / 1024 }
	fmt.Printf("%-40s %8.1f MiB %10s (%.2fx)\n", "RSS after start", mib(atStart.rss), "<= 40 MiB", mib(atStart.rss)/40)
	fmt.Printf("%-40s %8.1f MiB %12s\n", "  of which anonymous (heap, stacks)", mib(atStart.anon), "")
	fmt.Printf("%-40s %8.1f MiB %10s (%.2fx)\n", "RSS idle after the edits and burst", mib(after.rss), "<= 40 MiB", mib(after.rss)/40)
	fmt.Printf("%-40s %8.1f MiB %12s\n", "  of which anonymous (heap, stacks)", mib(after.anon), "")
	fmt.Printf("%-40s %8.1f MiB %12s\n", "peak RSS (during the edits and burst)", mib(after.hwm), "")
	fmt.Printf("%-40s %12d %12s\n", fmt.Sprintf("events for %d rapid writes", burst), st1.EventSeq-st0.EventSeq, "bounded")
	fmt.Printf("%-40s %12v %12s\n", "final state after the burst", final, "true")
	if !final {
		return fmt.Errorf("the daemon did not reach the last write's state")
	}
	return nil
}

func waitKind(ch <-chan events.Event, kind string, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case e := <-ch:
			if e.Kind == kind {
				return nil
			}
		case <-t.C:
			return fmt.Errorf("no %s event within %s", kind, timeout)
		}
	}
}

func drain(ch <-chan events.Event, quiet time.Duration) {
	for {
		select {
		case <-ch:
		case <-time.After(quiet):
			return
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// cpuTicks returns utime+stime of pid in clock ticks (/proc/PID/stat).
func cpuTicks(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// mem is a process's resident memory from /proc/PID/status, in KiB: all
// of it (VmRSS), its peak (VmHWM), and the anonymous part (the heap and
// stacks; the rest is the binary's pages, shared with every other process
// that maps it).
type mem struct{ rss, hwm, anon int }

func memKB(pid int) mem {
	var m mem
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			v, _ := strconv.Atoi(f[1])
			switch f[0] {
			case "VmRSS:":
				m.rss = v
			case "VmHWM:":
				m.hwm = v
			case "RssAnon:":
				m.anon = v
			}
		}
	}
	return m
}
