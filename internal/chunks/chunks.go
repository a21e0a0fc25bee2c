package chunks

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Lists of at least MinBytes and two chunks of Size items are worth
// processing in parallel; smaller ones are not worth the goroutines.
const (
	Size     = 16
	MinBytes = 64 << 10
)

// MinItems is the number of items from which Each spreads a list over the
// processors when each item costs microseconds (a scan's servers, its
// findings): below it, starting goroutines costs more than they save.
const MinItems = 256

// Many reports whether n such items are worth spreading: at least
// MinItems, and more than one processor.
func Many(n int) bool { return n >= MinItems && runtime.GOMAXPROCS(0) > 1 }

// Each calls do for ranges [lo, hi) that tile [0, n): on every processor
// (Run) when Many(n), else once for the whole list on the calling
// goroutine.
func Each(n int, do func(lo, hi int)) {
	if !Many(n) {
		do(0, n)
		return
	}
	Run(n, func() func(c, lo, hi int) { return func(_, lo, hi int) { do(lo, hi) } })
}

// Count returns the number of chunks of Size that n items make.
func Count(n int) int { return (n + Size - 1) / Size }

// Worth reports whether a document of size bytes with n items is worth
// splitting among the available processors.
func Worth(size, n int) bool {
	return size >= MinBytes && min(runtime.GOMAXPROCS(0), Count(n)) >= 2
}

// Run splits [0, n) into chunks of Size and runs them on GOMAXPROCS workers.
// newWorker is called once per worker, on the caller's goroutine, for the
// worker's state; its function is given the chunk index and bounds. A panic
// in a worker is re-raised on the caller's goroutine once every worker has
// stopped, as a sequential loop would raise it, so that no goroutine dies
// with the process.
func Run(n int, newWorker func() func(c, lo, hi int)) {
	count := Count(n)
	workers := min(runtime.GOMAXPROCS(0), count)
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var panicked any
	for range workers {
		run := newWorker()
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { panicked = r })
				}
			}()
			for {
				c := int(next.Add(1) - 1)
				if c >= count {
					return
				}
				run(c, c*Size, min(n, (c+1)*Size))
			}
		})
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
