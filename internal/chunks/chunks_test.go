package chunks

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// TestRunCoversEveryItemOnce checks that the chunks tile [0, n) exactly.
func TestRunCoversEveryItemOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, Size - 1, Size, Size + 1, 10*Size + 3} {
		seen := make([]atomic.Int32, n)
		Run(n, func() func(c, lo, hi int) {
			return func(c, lo, hi int) {
				if lo != c*Size || hi > n || hi <= lo {
					t.Errorf("n=%d: chunk %d is [%d, %d)", n, c, lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			}
		})
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("n=%d: item %d ran %d times", n, i, got)
			}
		}
	}
}

// TestEachCoversEveryItemOnce checks that Each tiles [0, n) on one
// processor and on several, below MinItems and from it, and spreads the
// work only from MinItems on several processors.
func TestEachCoversEveryItemOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, MinItems - 1, MinItems, 3*MinItems + 5} {
			seen := make([]atomic.Int32, n)
			var calls atomic.Int32
			Each(n, func(lo, hi int) {
				calls.Add(1)
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if got := seen[i].Load(); got != 1 {
					t.Fatalf("GOMAXPROCS %d, n=%d: item %d ran %d times", procs, n, i, got)
				}
			}
			if spread := calls.Load() > 1; spread != (procs > 1 && n >= MinItems) {
				t.Errorf("GOMAXPROCS %d, n=%d: %d calls", procs, n, calls.Load())
			}
		}
	}
}

// TestRunPanics checks that a worker's panic reaches the caller, as
// a panic of a sequential loop would, instead of killing the process.
func TestRunPanics(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer func() {
		if r := recover(); r != "boom" {
			t.Errorf("recovered %v, want boom", r)
		}
	}()
	Run(10*Size, func() func(c, lo, hi int) {
		return func(c, _, _ int) {
			if c == 7 {
				panic("boom")
			}
		}
	})
	t.Error("no panic")
}
