// Package hugeheap lets a short-lived command that is about to build a
// large heap have it backed by transparent huge pages.
//
// A Go heap is first touched one 4 KiB page at a time, and each first
// touch is a page fault. On bare metal that is cheap; in a virtual machine
// (CI runners, cloud workstations) it is an order of magnitude dearer, and
// a fleet merge that builds a large heap spends most of its time faulting
// it in (docs/performance.md has the figures). Linux
// backs memory with 2 MiB pages, one fault each, where a mapping asks for
// them (transparent_hugepage "madvise", the usual setting), and the Go
// runtime asks for none since Go 1.21.1.
//
// Reserve makes the runtime map the expected heap at once and advises the
// kernel to back that range with huge pages. Only commands whose heap is
// large and short-lived should: huge pages keep sparse memory resident,
// which a daemon's footprint must not pay.
package hugeheap
