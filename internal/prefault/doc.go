// Package prefault faults in, ahead of use, the pages a short-lived
// mcpguard command will touch: its binary's code and data, and its heap.
//
// Every 4 KiB page of heap is a page fault the first time it is touched,
// and so is every first touch of a 64 KiB stretch of code and every first
// write to a page of initialised data. On bare metal a fault costs well
// under a microsecond; in a virtual machine (CI runners, cloud
// workstations, this project's 2-core VM) it cost 10-30 us, so a one-file
// scan, ~900 faults, spent a quarter of its time faulting, and a scan of a
// 200-server machine, which never collects and so touches fresh heap for
// everything it allocates, a third (docs/performance.md).
//
// The kernel can populate a range in one call instead (madvise
// MADV_POPULATE_READ and MADV_POPULATE_WRITE, Linux 5.14): it fills in the
// page tables as a read or a write would, without changing the memory, so
// it is safe whatever the runtime has placed there. The package asks it
// three times:
//
//   - Its initialiser populates the executable's code, and its initialised
//     data (a write's private copy of each page, which a short command
//     mostly makes anyway), where the page cache already holds them: a
//     first run after a build or a reboot reads no more from disk than it
//     would have. Package initialisers run in import-path order as their
//     imports allow, and this one imports only errors, runtime, sync,
//     syscall, time and unsafe so that it runs before OPA's, which fault in
//     most of the code a short command runs (cmd/mcpguard's tests check the
//     order). It is the one package initialiser of mcpguard: nothing later
//     than an initialiser can run before the others.
//   - The initialiser also starts a goroutine that populates the heap the
//     runtime has mapped so far, on the core the initialisers leave idle;
//     it ends by itself at the first page that is not mapped yet.
//   - Start, for a command that keeps allocating (scan), runs a goroutine
//     that populates the heap as the runtime maps more of it: where the
//     heap has not grown yet the kernel refuses (the range is not mapped,
//     or is reserved without access), and the goroutine waits and tries
//     again until it is stopped.
//
// Populating is not free either: the kernel maps every page of the code
// that the page cache holds, ~11,000, whether the command runs it or not.
// It pays where a fault costs several microseconds, as in the VM above
// (12.7 us), and loses where it costs little: in a KVM guest where a fault
// cost 1.4 us it added 2 ms to a 5 ms command. So the initialiser first
// measures what a fault costs here (a first touch of a few fresh pages),
// and none of the three does anything below slowFault.
//
// Pages it populates stay resident: the binary's (shared with the page
// cache) and the few MiB the runtime maps ahead of its allocations, which a
// long-running command's footprint must not pay, so the initialiser leaves
// daemon and proxy alone, and only scan calls Start. Elsewhere than on
// Linux the package does nothing, and with one CPU only the binary is
// populated.
package prefault
