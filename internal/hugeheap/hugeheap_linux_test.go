package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestReserveBacksLaterAllocations: small objects allocated after Reserve
// live in a mapping the kernel was advised to back with huge pages (its
// VmFlags say "hg"). Without the advice, or with the reserved block still
// live when they are allocated, they do not.
func TestReserveBacksLaterAllocations(t *testing.T) {
	if !advisable() {
		t.Skipf("%s is not in madvise mode: Reserve does nothing here", modeFile)
	}
	if before := advisedAt(t, uintptr(unsafe.Pointer(new([64]byte)))); before {
		t.Fatal("the heap is advised before Reserve: the test cannot tell")
	}
	start := time.Now()
	if !Reserve(64 << 20) {
		t.Fatal("Reserve(64 MiB) did nothing")
	}
	t.Logf("Reserve(64 MiB) took %v", time.Since(start))
	type node struct {
		next *node
		pad  [7]uintptr
	}
	// Objects of 64 bytes, 32 MiB of them: a sample of their addresses.
	var head *node
	var sample []uintptr
	for i := range (32 << 20) / 64 {
		head = &node{next: head}
		if i%1024 == 0 {
			sample = append(sample, uintptr(unsafe.Pointer(head)))
		}
	}
	advised := 0
	for _, p := range sample {
		if advisedAt(t, p) {
			advised++
		}
	}
	// Objects fill the holes of the heap mapped before first.
	if advised < len(sample)*3/4 {
		t.Errorf("%d of %d sampled objects allocated after Reserve are in a mapping advised for huge pages", advised, len(sample))
	}
	if Reserve(MinReserve - 1) {
		t.Error("Reserve acted under MinReserve")
	}
}

// advisedAt reports whether the mapping holding p has VM_HUGEPAGE set.
func advisedAt(t *testing.T, p uintptr) bool {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= p && p < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line+" ", " hg ")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping holds %#x", p)
	return false
}

// TestUnclearedTouchesNothing: a block that starts in a gap the heap freed
// and runs on into memory never used is not cleared (make clears the
// whole of such a block, faulting in every page of it), so reserving costs
// no resident memory.
func TestUnclearedTouchesNothing(t *testing.T) {
	const size = 64 << 20
	gap := make([]byte, 1<<20) // at the heap's end: freed, it is where the next block starts
	gap[0] = 1
	gap = nil
	runtime.GC()
	before := rss(t)
	block := uncleared(size)
	after := rss(t)
	runtime.KeepAlive(block)
	if grown := after - before; grown > 8<<20 {
		t.Errorf("allocating %d MiB made %d MiB resident: the block was cleared", size>>20, grown>>20)
	}
}

// rss is the process's resident memory in bytes.
func rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skipf("no smaps_rollup: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb int64
		if n, _ := fmt.Sscanf(line, "Rss: %d kB", &kb); n == 1 {
			return kb << 10
		}
	}
	t.Fatal("no Rss in smaps_rollup")
	return 0
}
