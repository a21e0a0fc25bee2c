package prefault

import (
	"runtime"
	"syscall"
	"unsafe"
)

// init runs before the package initialisers of OPA and the rest, which
// fault in most of what a short command touches (the package's doc).
func init() {
	if !wanted(commandLine()) || !slowFaults() {
		return
	}
	Binary()
	if runtime.GOMAXPROCS(0) >= 2 {
		// Ends by itself at the first page the runtime has not mapped:
		// nothing to stop.
		go populateMapped(heapAddr() &^ (step - 1))
	}
}

// wanted reports whether a process run with this command line (argv
// separated by NUL bytes, as /proc/self/cmdline gives it) should fault its
// pages in ahead: every mcpguard command but the long-running ones, whose
// resident size is a budget (cmd/mcpguard's tuneGC leaves them alone for
// the same reason). A line that starts with a flag, or that cannot be
// read, leaves the command unknown: no.
func wanted(cmdline []byte) bool {
	_, rest, ok := cut(cmdline, 0)
	if !ok {
		return false
	}
	command, _, _ := cut(rest, 0)
	switch {
	case len(command) > 0 && command[0] == '-':
		return false
	case string(command) == "daemon", string(command) == "proxy":
		return false
	}
	return true
}

// commandLine reads the start of the process's command line: enough for
// the program and the command that follows it.
func commandLine() []byte {
	var buf [512]byte
	n := readFile("/proc/self/cmdline", buf[:])
	return buf[:n]
}

// Binary populates the executable's code and initialised data where the
// page cache holds them, and returns how many pages it populated. It stops
// at the first refusal: a kernel before 5.14, or a sandbox that forbids
// the advice.
func Binary() (pages int) {
	text, data, ok := segments(textAddr())
	if !ok {
		return 0
	}
	n, ok := populateResident(text, madvPopulateRead)
	pages += n
	if ok && data.hi > data.lo {
		n, _ = populateResident(data, madvPopulateWrite)
		pages += n
	}
	return pages
}

// populateMapped populates the heap from next upwards until the first
// range the runtime has not mapped yet (or reach above next).
func populateMapped(next uintptr) {
	end := next + reach
	for next < end && advise(next, step, madvPopulateWrite) == nil {
		next += step
	}
}

// textAddr returns an address in the executable's code: its caller's.
func textAddr() uintptr {
	var pc [1]uintptr
	runtime.Callers(1, pc[:])
	return pc[0]
}

// span is a range of addresses [lo, hi).
type span struct{ lo, hi uintptr }

// segments finds in /proc/self/maps the mapping that holds pc (the code)
// and the writable private mapping of the same file that follows it (the
// initialised data). Matching the file by device and inode rather than by
// path keeps working when the binary has been replaced on disk since it
// started.
func segments(pc uintptr) (text, data span, ok bool) {
	var file mapping
	found := false
	eachMapping(func(m mapping) bool {
		switch {
		case !found && m.lo <= pc && pc < m.hi:
			text, file, found = span{m.lo, m.hi}, m, true
		case found && m.sameFile(file) && m.perms == [4]byte{'r', 'w', '-', 'p'}:
			data = span{m.lo, m.hi}
			return false
		case found && !m.sameFile(file):
			return false
		}
		return true
	})
	return text, data, found
}

// populateResident populates with advice the pages of s that the page
// cache already holds (mincore), 4 MiB at a time so that mincore's answer
// fits on the stack: a first run after a build or a reboot reads no more
// of the binary from disk than it would have. It returns the pages
// populated, and false once the kernel refuses.
func populateResident(s span, advice uintptr) (pages int, ok bool) {
	page := uintptr(syscall.Getpagesize())
	var vec [1024]byte
	for lo := s.lo &^ (page - 1); lo < s.hi; lo += uintptr(len(vec)) * page {
		hi := min(lo+uintptr(len(vec))*page, s.hi)
		n := (hi - lo + page - 1) / page
		if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
			return pages, false
		}
		for i := uintptr(0); i < n; {
			if vec[i]&1 == 0 {
				i++
				continue
			}
			j := i
			for j < n && vec[j]&1 != 0 {
				j++
			}
			if advise(lo+i*page, (j-i)*page, advice) != nil {
				return pages, false
			}
			pages += int(j - i)
			i = j
		}
	}
	return pages, true
}
