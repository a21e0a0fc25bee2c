package main

import (
	"sync"
	"sync/atomic"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/hugeheap"
	"github.com/mcpguard/mcpguard/reports"
)

// largeScanBytes is how much configuration a scan reads before it has its
// heap mapped with huge pages: below it, as in a one-file scan, the demo
// or a 200-server machine (25 KB), the reservation's collection costs more
// than the page faults it saves; from a machine of about 1,000 servers
// (120 KB) on it saves more (docs/performance.md, "Mechanisms kept for
// speed").
const largeScanBytes = 64 << 10

// largeScanHeap is the heap a large scan has mapped with huge pages: most
// of what its soft memory limit (shortCommandMemoryLimit) lets it grow to.
const largeScanHeap = shortCommandMemoryLimit * 3 / 4

// largeScanFS is the machine's file system for a scan command: once the
// configuration files read reach largeScanBytes, the scan is about to
// build a heap of tens of MiB, and hugeheap.Reserve maps it before the
// files are parsed. The daemon, whose resident size is a budget, reads
// through cfgfile.OS.
type largeScanFS struct {
	cfgfile.OS
	reserve func() // hugeheap.Reserve(largeScanHeap); tests count calls
	read    atomic.Int64
	once    sync.Once
}

func newLargeScanFS() *largeScanFS {
	return &largeScanFS{reserve: func() { hugeheap.Reserve(largeScanHeap) }}
}

func (f *largeScanFS) ReadFile(path string) ([]byte, bool, *reports.FileError) {
	data, exists, ferr := f.OS.ReadFile(path)
	f.count(len(data))
	return data, exists, ferr
}

func (f *largeScanFS) ReadFileOwned(path string, uid int) ([]byte, bool, *reports.FileError) {
	data, exists, ferr := f.OS.ReadFileOwned(path, uid)
	f.count(len(data))
	return data, exists, ferr
}

func (f *largeScanFS) count(n int) {
	if f.read.Add(int64(n)) >= largeScanBytes {
		f.once.Do(f.reserve)
	}
}
