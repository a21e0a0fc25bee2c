//go:build linux

package mcpio

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// becomeSubreaper makes the orphaned descendants of this process's
// children its own children instead of init's. It fails only on kernels
// before 3.4, where they stay out of reach as elsewhere.
func becomeSubreaper() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	state           string
	ppid, pgid, sid int
	start           uint64 // clock ticks after boot
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return procStat{}, false
	}
	// After the command: state ppid pgrp session ... starttime (field 22).
	var st procStat
	st.state = f[0]
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgid, _ = strconv.Atoi(f[2])
	st.sid, _ = strconv.Atoi(f[3])
	st.start, _ = strconv.ParseUint(f[19], 10, 64)
	return st, true
}

// orphansOf returns a func listing this process's children that are the
// server's orphaned descendants: started no earlier than the server, in
// another session than this process's (a child this process started
// itself shares its session; one that left it is what the server's
// group did not hold), and not the server itself.
func orphansOf(server int) func() []int {
	self := os.Getpid()
	me, _ := readStat(self)
	srv, ok := readStat(server)
	if !ok {
		return nil
	}
	return func() []int {
		d, err := os.Open("/proc")
		if err != nil {
			return nil
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		var out []int
		for _, n := range names {
			pid, err := strconv.Atoi(n)
			if err != nil || pid == server || pid == self {
				continue
			}
			st, ok := readStat(pid)
			if !ok || st.ppid != self || st.sid == me.sid || st.start < srv.start || st.state == "Z" {
				continue
			}
			out = append(out, pid)
		}
		return out
	}
}

// endOrphans ends the reparented descendants and their groups: SIGTERM,
// SIGKILL after grace, and reaps them (they are this process's children
// now). What they started in turn is reparented as they die, so it goes
// round until none is left (a few rounds at most).
func endOrphans(list func() []int, grace time.Duration) {
	for round := 0; round < 8; round++ {
		pids := list()
		if len(pids) == 0 {
			return
		}
		signalAll(pids, syscall.SIGTERM)
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) && anyAlive(pids) {
			time.Sleep(10 * time.Millisecond)
		}
		if anyAlive(pids) {
			signalAll(pids, syscall.SIGKILL)
		}
		for _, pid := range pids {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
	}
}

func signalAll(pids []int, sig syscall.Signal) {
	for _, pid := range pids {
		if st, ok := readStat(pid); ok && st.pgid > 1 {
			_ = syscall.Kill(-st.pgid, sig) // its group: what it started
		}
		_ = syscall.Kill(pid, sig)
	}
}

// anyAlive reports whether any of pids has not yet exited (a zombie has).
func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if st, ok := readStat(pid); ok && st.state != "Z" {
			return true
		}
	}
	return false
}
