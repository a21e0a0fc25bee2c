package hugeheap

import (
	"bytes"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// modeFile says how the kernel uses transparent huge pages: the selected
// mode is in brackets ("always [madvise] never").
const modeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// Reserve maps about n bytes of Go heap now, advised for transparent huge
// pages, for a process about to allocate that much. It frees the range at
// once (one collection, run while the heap is still small) so that the
// allocations that follow are placed in it; the runtime never unmaps heap
// memory, so the advice holds for the process's life. It does nothing and
// reports false when n is under MinReserve or the kernel does not take
// advice (huge pages "never", or "always" where every mapping has them), or
// when mapping n bytes could be refused (see below).
func Reserve(n int) bool {
	if n < MinReserve || !advisable() {
		return false
	}
	// The range is only mapped, never used, but the kernel charges a
	// mapping to its commit limit: where it enforces one (overcommit mode
	// 2), or where the range would be a large part of the machine's
	// memory (mode 0 refuses one mapping larger than RAM and swap), a
	// refused mapping would end the process. Not worth it for a speed-up.
	n = min(n, MaxReserve)
	var si unix.Sysinfo_t
	if strictCommit() || unix.Sysinfo(&si) != nil || uint64(n) > uint64(si.Totalram)*uint64(si.Unit)/4 {
		return false
	}
	// The whole block is advised: a large allocation starts on a page
	// boundary, as madvise needs, and the kernel backs the 2 MiB-aligned
	// parts of an advised range with huge pages.
	block := uncleared(n)
	ok := unix.Madvise(block, unix.MADV_HUGEPAGE) == nil
	runtime.KeepAlive(block) // and no longer: the collection frees it
	runtime.GC()
	return ok
}

// strictCommit reports whether the kernel refuses mappings beyond its
// commit limit (vm.overcommit_memory 2), or whether that cannot be read.
func strictCommit() bool {
	b, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err != nil || len(bytes.TrimSpace(b)) != 1 || bytes.TrimSpace(b)[0] == '2'
}

// advisable reports whether the kernel backs advised mappings, and only
// those, with huge pages.
func advisable() bool {
	b, err := os.ReadFile(modeFile)
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
}
