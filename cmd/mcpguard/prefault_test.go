package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPrefaultInitialisesFirst: internal/prefault's initialiser faults in
// the binary before the package initialisers that run most of its code for
// the first time — OPA's above all. Initialisers run in import-path order as
// their imports allow, so an import added to internal/prefault can move it
// behind them; GODEBUG=inittrace=1 prints the order the runtime used.
func TestPrefaultInitialisesFirst(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("internal/prefault has an initialiser on Linux only")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "mcpguard")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("mcpguard version: %v\n%s", err, stderr.String())
	}
	// "init <package> @<start> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs"
	var order []string
	var allocated []int
	total := 0
	for line := range strings.Lines(stderr.String()) {
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		order, allocated, total = append(order, f[1]), append(allocated, n), total+n
	}
	prefault := slices.Index(order, "github.com/mcpguard/mcpguard/internal/prefault")
	if prefault < 0 {
		t.Fatalf("no initialiser of internal/prefault in the trace:\n%s", stderr.String())
	}
	// What an initialiser allocates stands for its work (deterministic,
	// unlike its clock time).
	before := 0
	for i := range prefault {
		before += allocated[i]
	}
	t.Logf("%d of %d initialisers run before internal/prefault's, allocating %d of %d bytes", prefault, len(order), before, total)
	if before > total/50 {
		t.Errorf("the %d initialisers before internal/prefault's allocate %d of %d bytes: it runs too late (%s)", prefault, before, total, strings.Join(order[:prefault], " "))
	}
	if ast := slices.Index(order, "github.com/open-policy-agent/opa/v1/ast"); ast < prefault {
		t.Errorf("OPA's ast initialises before internal/prefault")
	}
}
