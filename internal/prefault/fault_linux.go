package prefault

import (
	"sync"
	"syscall"
	"time"
)

// slowFault is the cost of a first touch of a page above which populating
// ahead pays. Populating is not free: the binary's code alone is ~11,000
// pages, which the kernel maps at ~0.2 us each whether the command runs
// them or not, to save the few hundred to few thousand faults the command
// would have taken. In the 2-core VM this package was written on a fault
// cost 12.7 us and populating won everywhere; in a KVM guest where one
// costs 1.4 us it cost a one-file scan 2.7 ms of 10.4 (docs/performance.md).
// The threshold sits between the two.
const slowFault = 4 * time.Microsecond

// slowFaults reports whether page faults are slow enough here for
// populating ahead to pay (slowFault). The initialiser measures, and Start
// reuses its answer: measuring again took 70 us of a scan's critical path
// (unmapping the pages with a second thread running signals it).
var slowFaults = sync.OnceValue(func() bool { return faultCost() >= slowFault })

// faultCost measures a first touch of a fresh page: the least of a few, so
// that an interrupt or a preemption during one does not count. It returns
// zero where it cannot map the pages.
func faultCost() time.Duration {
	const pages = 3
	size := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, pages*size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return 0
	}
	defer syscall.Munmap(mem)
	least := time.Duration(1<<63 - 1)
	for i := range pages {
		start := time.Now()
		mem[i*size] = 1
		least = min(least, time.Since(start))
	}
	return least
}
