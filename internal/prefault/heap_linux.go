package prefault

import (
	"errors"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// step is how much one call populates: small enough that stop waits for
// little (16 pages, ~150 us in a VM), large enough that the calls cost
// nothing beside the faults.
const step = 64 << 10

// reach bounds how far above its start the goroutine populates: twice the
// soft memory limit of a short command (cmd/mcpguard's tuneGC), past which
// the runtime reuses what it collects instead of growing.
const reach = 256 << 20

// Waits between tries where the heap has not grown yet: short while the
// heap grows, longer once it has stopped.
const (
	minWait = 100 * time.Microsecond
	maxWait = 500 * time.Microsecond
)

// Start begins populating the heap from the address of a new heap object
// upwards, on a goroutine of its own; stop ends it and returns once the
// goroutine has. It does nothing with fewer than two CPUs for Go to run
// on (the faults would only change thread), where faults are cheap
// (slowFault) or where the kernel does not populate on advice.
func Start() (stop func()) {
	if runtime.GOMAXPROCS(0) < 2 || !slowFaults() {
		return func() {}
	}
	return start()
}

// start is Start past its checks.
func start() (stop func()) {
	from := heapAddr() &^ (step - 1)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		populate(from, from+reach, quit)
	}()
	return sync.OnceFunc(func() {
		close(quit)
		<-done
	})
}

// heapAddr returns the address of a new heap object. It escapes through
// the function's result, so the compiler keeps it on the heap.
//
//go:noinline
func heapAddr() uintptr {
	p := new([64]byte)
	return uintptr(unsafe.Pointer(p))
}

// populate faults in [next, end) step by step until quit is closed, waiting
// where the heap has not been mapped yet. The first step, on the page of a
// live heap object, tells whether the kernel populates on advice at all
// (EINVAL before Linux 5.14); above it, the runtime's heap reservation is
// mapped without access (EINVAL) or not mapped (ENOMEM) until the heap
// grows into it.
func populate(next, end uintptr, quit <-chan struct{}) {
	if advise(next, step, madvPopulateWrite) != nil {
		return
	}
	next += step
	wait := minWait
	var timer *time.Timer
	for next < end {
		select {
		case <-quit:
			return
		default:
		}
		err := advise(next, step, madvPopulateWrite)
		switch {
		case err == nil:
			next += step
			wait = minWait
			continue
		case errors.Is(err, syscall.EINTR), errors.Is(err, syscall.EAGAIN):
			continue
		case !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOMEM) && !errors.Is(err, syscall.EFAULT):
			return
		}
		if timer == nil {
			timer = time.NewTimer(wait)
			defer timer.Stop()
		} else {
			timer.Reset(wait)
		}
		select {
		case <-quit:
			return
		case <-timer.C:
		}
		wait = min(2*wait, maxWait)
	}
}

// Linux's madvise advice values for populating a range (5.14).
const (
	madvPopulateRead  = 22
	madvPopulateWrite = 23
)

// advise asks the kernel to populate n bytes at addr as a read or a write
// would (advice), without touching them. The range is memory the Go
// runtime owns, so it is passed as an address, never as a slice the
// compiler could see.
func advise(addr, n, advice uintptr) error {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, n, advice)
	if errno != 0 {
		return errno
	}
	return nil
}

// populateForWrite populates the pages of [addr, addr+n) as writes would.
// An error (a kernel before 5.14, a sandbox that refuses the advice)
// leaves the faults to the writes.
func populateForWrite(addr, n uintptr) {
	page := uintptr(syscall.Getpagesize())
	lo, hi := addr&^(page-1), (addr+n+page-1)&^(page-1)
	_ = advise(lo, hi-lo, madvPopulateWrite)
}
