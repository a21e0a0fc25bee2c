package scanner

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Lists of at least parallelMinBytes and two chunks of parallelChunk tools
// are analysed and pinned in parallel; smaller ones are not worth the
// goroutines.
const (
	parallelChunk    = 16
	parallelMinBytes = 64 << 10
)

func chunksOf(n int) int { return (n + parallelChunk - 1) / parallelChunk }

// worthParallel reports whether a document of size bytes with n tools is
// worth splitting among the available processors.
func worthParallel(size, n int) bool {
	return size >= parallelMinBytes && min(runtime.GOMAXPROCS(0), chunksOf(n)) >= 2
}

// inChunks splits [0, n) into chunks of parallelChunk and runs them on
// GOMAXPROCS workers. newWorker is called once per worker, on the caller's
// goroutine, for the worker's state; its function is given the chunk
// index and bounds. A panic in a worker is re-raised on the caller's
// goroutine once every worker has stopped, as a sequential loop would
// raise it, so that no goroutine dies with the process.
func inChunks(n int, newWorker func() func(c, lo, hi int)) {
	chunks := chunksOf(n)
	workers := min(runtime.GOMAXPROCS(0), chunks)
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
				if c >= chunks {
					return
				}
				run(c, c*parallelChunk, min(n, (c+1)*parallelChunk))
			}
		})
	}
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}
