package unicode

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"
)

// The benchmarks run on ~100 KB tools/list results (testdata/bench). SPEC
// §7 asks for >= 1 GB/s on clean JSON and >= 200 MB/s with findings; the
// machine is shared, so compare against the baselines of the same run
// (BenchmarkBaseline*) rather than absolute numbers. TestThroughputRatios
// prints the ratios.

func benchInputs(b *testing.B) map[string][]byte {
	clean := readBench(b, benchClean)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, clean, "", "  "); err != nil {
		b.Fatal(err)
	}
	return map[string][]byte{
		"clean":        clean,
		"clean-pretty": pretty.Bytes(), // indented, as saved by tools and fixtures
		"mixed":        readBench(b, benchMixed),
		"hostile":      readBench(b, benchHostile),
	}
}

func BenchmarkIsCleanJSON(b *testing.B) {
	for _, name := range []string{"clean", "clean-pretty", "mixed"} {
		data := benchInputs(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				IsCleanJSON(data)
			}
		})
	}
}

// BenchmarkScanClean is ScanJSON (full validating walk, duplicate-key check
// and Unicode scan) on documents without findings.
func BenchmarkScanClean(b *testing.B) {
	for _, name := range []string{"clean", "clean-pretty", "mixed"} {
		data := benchInputs(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if fs, err := ScanJSON(data); err != nil || len(fs) != 0 {
					b.Fatal(err, len(fs))
				}
			}
		})
	}
}

// BenchmarkScanHostile is ScanJSON on a document where every fourth tool
// hides a payload (tags, ANSI, bidi, variation selectors, homoglyphs),
// written with Python-style \u escapes.
func BenchmarkScanHostile(b *testing.B) {
	data := readBench(b, benchHostile)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if fs, err := ScanJSON(data); err != nil || len(fs) == 0 {
			b.Fatal(err, len(fs))
		}
	}
}

func BenchmarkSanitizeJSON(b *testing.B) {
	for _, name := range []string{"clean", "mixed", "hostile"} {
		data := benchInputs(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := SanitizeJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSanitizeString(b *testing.B) {
	var v struct {
		Result struct {
			Tools []struct{ Description string }
		}
	}
	if err := json.Unmarshal(readBench(b, benchMixed), &v); err != nil {
		b.Fatal(err)
	}
	var total int
	for _, t := range v.Result.Tools {
		total += len(t.Description)
	}
	b.SetBytes(int64(total))
	for b.Loop() {
		for _, t := range v.Result.Tools {
			Sanitize(t.Description)
		}
	}
}

// Baselines on the same bytes.

func BenchmarkBaselineJSONValid(b *testing.B) {
	for _, name := range []string{"clean", "clean-pretty", "mixed", "hostile"} {
		data := benchInputs(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				json.Valid(data)
			}
		})
	}
}

func BenchmarkBaselineUTF8Valid(b *testing.B) {
	for _, name := range []string{"clean", "mixed"} {
		data := benchInputs(b)[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				utf8.Valid(data)
			}
		})
	}
}

// TestThroughputRatios measures the main operations and the baselines in
// one process and logs MB/s and the ratio to json.Valid on the same bytes.
// It runs only with MCPGUARD_BENCH_RATIOS=1 (go test -run
// ThroughputRatios -v) and fails only when MCPGUARD_BENCH_ASSERT=1 as well,
// because shared CI machines are too noisy for hard limits.
//
// Throughput is computed from the process CPU time (getrusage), not wall
// time, and each operation keeps its best of several interleaved rounds:
// on a shared, overloaded machine wall-clock benchmarks vary tenfold while
// CPU time stays comparable between the operation and its baseline.
func TestThroughputRatios(t *testing.T) {
	if os.Getenv("MCPGUARD_BENCH_RATIOS") != "1" {
		t.Skip("set MCPGUARD_BENCH_RATIOS=1 to measure throughput")
	}
	var pretty bytes.Buffer
	clean := readBench(t, benchClean)
	if err := json.Indent(&pretty, clean, "", "  "); err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{
		"clean": clean, "clean-pretty": pretty.Bytes(),
		"mixed": readBench(t, benchMixed), "hostile": readBench(t, benchHostile),
	}
	type op struct {
		name, input string
		f           func([]byte)
		min         float64 // MB/s asserted with MCPGUARD_BENCH_ASSERT=1
	}
	ops := []op{
		{"json.Valid", "clean", func(b []byte) { json.Valid(b) }, 0},
		{"json.Valid", "clean-pretty", func(b []byte) { json.Valid(b) }, 0},
		{"json.Valid", "mixed", func(b []byte) { json.Valid(b) }, 0},
		{"json.Valid", "hostile", func(b []byte) { json.Valid(b) }, 0},
		{"utf8.Valid", "clean", func(b []byte) { utf8.Valid(b) }, 0},
		{"IsCleanJSON", "clean", func(b []byte) { IsCleanJSON(b) }, 5000},
		{"IsCleanJSON", "clean-pretty", func(b []byte) { IsCleanJSON(b) }, 3000},
		{"ScanJSON", "clean", func(b []byte) { _, _ = ScanJSON(b) }, 1000},
		{"ScanJSON", "clean-pretty", func(b []byte) { _, _ = ScanJSON(b) }, 1000},
		{"ScanJSON", "mixed", func(b []byte) { _, _ = ScanJSON(b) }, 200},
		{"ScanJSON", "hostile", func(b []byte) { _, _ = ScanJSON(b) }, 200},
		{"SanitizeJSON", "clean", func(b []byte) { _, _, _ = SanitizeJSON(b) }, 5000},
		{"SanitizeJSON", "mixed", func(b []byte) { _, _, _ = SanitizeJSON(b) }, 200},
		{"SanitizeJSON", "hostile", func(b []byte) { _, _, _ = SanitizeJSON(b) }, 200},
	}
	best := make([]float64, len(ops)) // MB/s
	for round := 0; round < 5; round++ {
		for k, o := range ops {
			data := inputs[o.input]
			n := 20
			for {
				start := cpuTime()
				for range n {
					o.f(data)
				}
				d := cpuTime() - start
				if d < 0.05 {
					n *= 2
					continue
				}
				best[k] = max(best[k], float64(len(data))*float64(n)/d/1e6)
				break
			}
		}
	}
	base := map[string]float64{}
	for k, o := range ops {
		if o.name == "json.Valid" {
			base[o.input] = best[k]
		}
	}
	for k, o := range ops {
		t.Logf("%-13s %-13s %8.0f MB/s  %6.2fx json.Valid", o.name, o.input, best[k], best[k]/base[o.input])
		if os.Getenv("MCPGUARD_BENCH_ASSERT") == "1" && best[k] < o.min {
			t.Errorf("%s %s: %.0f MB/s, want >= %.0f", o.name, o.input, best[k], o.min)
		}
	}
}
