// Package prefault faults in a short-lived command's growing Go heap on a
// goroutine of its own, ahead of the goroutines that allocate.
//
// Every 4 KiB page of heap is a page fault the first time it is touched. On
// bare metal that costs well under a microsecond; in a virtual machine (CI
// runners, cloud workstations, this project's 2-core VM) it cost 10-14 us,
// so a scan of a 200-server machine, which never collects and so touches
// fresh heap for everything it allocates, spent a third of its CPU time
// faulting (docs/performance.md). A scan keeps both cores busy only part of
// the time: the faults can be taken on the idle one.
//
// Start runs a goroutine that asks the kernel to populate the heap's pages
// from the first heap object's address upwards (madvise
// MADV_POPULATE_WRITE, Linux 5.14): the kernel fills in the page tables as
// a write would, without reading or writing the memory, so it is safe to
// run beside the allocator whatever the runtime has placed there. Where the
// heap has not grown yet the kernel refuses (the range is not mapped, or is
// reserved without access), and the goroutine waits and tries again.
//
// It is for commands that build a heap and exit: pages it populates stay
// resident, up to the few MiB the runtime maps ahead of its allocations,
// which a daemon's footprint must not pay. Elsewhere than on Linux, and
// with one CPU, Start does nothing.
package prefault
