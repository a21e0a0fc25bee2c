package secrets

import "testing"

func BenchmarkNewDetector(b *testing.B) {
	for b.Loop() {
		NewDetector()
	}
}
