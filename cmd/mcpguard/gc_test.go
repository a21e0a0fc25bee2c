package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestCollectFreelyPast: the collector keeps a short command's settings
// while collections leave less than the threshold live, and gets Go's
// defaults back once one leaves more; a stopped watch changes nothing.
func TestCollectFreelyPast(t *testing.T) {
	percent, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(1<<40)
	defer func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}()
	collect := func() {
		// A cleanup runs on its own goroutine after the collection.
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	stopped := collectFreelyPast(0)
	stopped()
	for range 3 {
		collect()
	}
	if got := readMetric("/gc/gomemlimit:bytes"); got != 1<<40 {
		t.Fatalf("a stopped watch set the limit to %d", got)
	}

	collect()
	stop := collectFreelyPast(readMetric("/gc/heap/live:bytes") + 32<<20)
	defer stop()
	small := make([]byte, 8<<20)
	for range 3 {
		collect()
	}
	if got := readMetric("/gc/gomemlimit:bytes"); got != 1<<40 {
		t.Fatalf("8 MiB more live, under the threshold: limit %d", got)
	}
	big := make([]byte, 64<<20)
	for deadline := time.Now().Add(10 * time.Second); readMetric("/gc/gomemlimit:bytes") != math.MaxInt64; {
		if time.Now().After(deadline) {
			t.Fatal("72 MiB more live, over the threshold: the limit stayed")
		}
		collect()
	}
	if got := readMetric("/gc/gogc:percent"); got != 100 {
		t.Errorf("GOGC %d, want 100", got)
	}
	runtime.KeepAlive(small)
	runtime.KeepAlive(big)
}
