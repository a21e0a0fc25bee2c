package prefault

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mcpguard/mcpguard/internal/hugeheap"
)

// TestStartFaultsInHeapGrowth: heap the runtime maps after Start is made
// resident by the goroutine, so that the thread that then writes to it
// takes (almost) none of its page faults. It calls start, Start past its
// checks, so that it runs where faults are cheap too. Without Start, the
// same writes fault once per page, which is what makes the test able to
// fail.
func TestStartFaultsInHeapGrowth(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("Start does nothing with one CPU")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory faults as the heap is written")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const size = 16 << 20
	pages := size / unix.Getpagesize()

	without := hugeheap.Uncleared(size)
	faultsWithout := writeFaults(t, without)
	if faultsWithout < pages/2 {
		t.Skipf("writing %d fresh pages took %d faults: the kernel backs the heap with huge pages here, so there is nothing to measure", pages, faultsWithout)
	}

	stop := start()
	defer stop()
	with := hugeheap.Uncleared(size)
	deadline := time.Now().Add(10 * time.Second)
	for resident(t, with) < pages {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s, %d of %d pages of new heap are resident", resident(t, with), pages)
		}
		time.Sleep(time.Millisecond)
	}
	faultsWith := writeFaults(t, with)
	t.Logf("%d pages: %d faults without Start, %d with", pages, faultsWithout, faultsWith)
	if faultsWith > pages/20 {
		t.Errorf("writing %d populated pages took %d faults (%d without Start)", pages, faultsWith, faultsWithout)
	}
	runtime.KeepAlive(without)
	runtime.KeepAlive(with)
}

// TestPopulateStops: the goroutine returns at the end of its span and as
// soon as it is told to, including while it waits for the heap to grow.
func TestPopulateStops(t *testing.T) {
	block := hugeheap.Uncleared(4 * step)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
	from := (base + step - 1) &^ (step - 1)
	span := block[from-base : from-base+2*step]
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); populate(from, from+2*step, quit) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("populate did not return at the end of its span")
	}
	if got := resident(t, span); got != 2*step/unix.Getpagesize() {
		t.Errorf("%d pages of the span are resident, want all %d", got, 2*step/unix.Getpagesize())
	}
	runtime.KeepAlive(block)

	// Above the heap the runtime has mapped, populate waits for it to grow,
	// and stops when told.
	done = make(chan struct{})
	go func() { defer close(done); populate(from, from+reach, quit) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("populate returned before the end of its span without being told to")
	default:
	}
	close(quit)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("populate did not stop when told")
	}

	stop := start()
	stop()
	stop() // a second call is harmless
}

// writeFaults writes a byte on each page of b and returns how many page
// faults this thread took doing so.
func writeFaults(t *testing.T, b []byte) int {
	t.Helper()
	before := threadFaults(t)
	for i := 0; i < len(b); i += unix.Getpagesize() {
		b[i] = 1
	}
	return int(threadFaults(t) - before)
}

func threadFaults(t *testing.T) int64 {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		t.Skipf("no per-thread rusage: %v", err)
	}
	return int64(ru.Minflt) // int32 on 32-bit systems
}

// resident counts the pages of b in memory.
func resident(t *testing.T, b []byte) int {
	t.Helper()
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	n := cachedPages(t, span{start, start + uintptr(len(b))})
	runtime.KeepAlive(b)
	return n
}

// TestStartFollowsFaultCost: Start runs its goroutine where faults are slow
// (and there are two CPUs) and none where they are cheap: on a machine
// where populating ahead costs more than the faults it saves, it must not
// run.
func TestStartFollowsFaultCost(t *testing.T) {
	before := runtime.NumGoroutine()
	stop := Start()
	during := runtime.NumGoroutine()
	stop()
	slow := runtime.GOMAXPROCS(0) >= 2 && slowFaults()
	t.Logf("faults slow here: %v; goroutines %d before Start, %d during", slow, before, during)
	if slow && during <= before {
		t.Errorf("faults are slow here and Start started nothing (%d goroutines, %d before)", during, before)
	}
	if !slow && during > before {
		t.Errorf("faults are cheap here and Start started a goroutine (%d goroutines, %d before)", during, before)
	}
}

// TestForWrite: a large fresh block is resident after ForWrite, and
// writing it then takes (almost) no faults, where writing a block that
// was not populated takes one a page (which makes the test able to fail);
// what the block held stays. A small block is left alone.
func TestForWrite(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory faults as the heap is written")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const size = 4 << 20
	page := unix.Getpagesize()
	pages := size / page

	without := hugeheap.Uncleared(size)
	if faults := writeFaults(t, without); faults < pages/2 {
		t.Skipf("writing %d fresh pages took %d faults: the kernel backs the heap with huge pages here", pages, faults)
	}

	with := hugeheap.Uncleared(size)
	with[page+1], with[size-1] = 7, 9 // the first page is touched already (Uncleared)
	ForWrite(with)
	if got := resident(t, with); got != pages {
		t.Fatalf("%d of %d pages resident after ForWrite", got, pages)
	}
	if with[page+1] != 7 || with[size-1] != 9 || with[2*page] != 0 {
		t.Error("ForWrite changed the block's contents")
	}
	if faults := writeFaults(t, with); faults > pages/20 {
		t.Errorf("writing %d populated pages took %d faults", pages, faults)
	}

	small := hugeheap.Uncleared(minForWrite - 1)
	before := resident(t, small)
	ForWrite(small)
	if got := resident(t, small); got != before {
		t.Errorf("%d pages of a block under minForWrite resident after ForWrite, %d before", got, before)
	}
	ForWrite([]int(nil)) // nothing to populate
	runtime.KeepAlive(without)
}
