package prefault

import "unsafe"

// minForWrite is the least ForWrite populates: below sixteen pages, the
// call costs about what the faults it saves do.
const minForWrite = 64 << 10

// ForWrite populates for writing the pages that hold s's elements, for a
// caller that has just made a large slice and is about to fill all of it
// (a report's servers). Such a slice is fresh memory, and its allocation
// is what most often pushes the heap past the soft memory limit and
// starts a collection. While the collector marks, every store of a
// pointer first reads what it overwrites (the write barrier): the read of
// a page never touched maps the kernel's shared zero page, and the store
// then faults again to replace it, and with the process running on
// several CPUs each replacement is a TLB shootdown, an interrupt to every
// other CPU (in a virtual machine, an exit to the host for each). Filling
// an 11,000-server report spent most of its time there. Populated first,
// each page is mapped once, writable, in one call. The contents do not
// change, whatever the runtime has placed there.
func ForWrite[T any](s []T) {
	var zero T
	n := uintptr(len(s)) * unsafe.Sizeof(zero)
	if n < minForWrite {
		return
	}
	populateForWrite(uintptr(unsafe.Pointer(unsafe.SliceData(s))), n)
}
