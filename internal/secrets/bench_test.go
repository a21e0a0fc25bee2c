package secrets

import "testing"

func BenchmarkNewDetector(b *testing.B) {
	for b.Loop() {
		NewDetector()
	}
}

// BenchmarkServerFacts is what a scan asks of the detector for a typical
// server of each kind (a generated machine's): its env values, its
// arguments and its URL, none of them a secret.
func BenchmarkServerFacts(b *testing.B) {
	d := NewDetector()
	args := []string{"-y", "@acme/server-12@1.2.12", "--root", "/srv/data/12"}
	b.ReportAllocs()
	for b.Loop() {
		d.Secret("LOG_LEVEL", "info")
		d.Secret("TOKEN", "${ACME_TOKEN_12}")
		d.Secret("Authorization", "Bearer ${ACME_TOKEN}")
		d.ScanText("npx")
		d.ScanArgs(args)
		d.ScanURL("https://mcp13.acme.example/mcp")
		d.ScanText("uvx")
		d.ScanArgs([]string{"acme-tool-14==0.14.0"})
	}
}
