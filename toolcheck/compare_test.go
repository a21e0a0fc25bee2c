package toolcheck

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCompareToolsMatchesReference holds Compare to the pairwise
// reference on the fixtures, the real lists and random servers whose tools
// name each other in every way tlContainsWord tells apart.
func TestCompareToolsMatchesReference(t *testing.T) {
	var reps []*Report
	for _, dir := range []string{filepath.Join("testdata", "tools"), filepath.Join("testdata", "tools", "real")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for k, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Analyze(data, Options{Path: f, Server: fmt.Sprint("s", k%5)})
			if err != nil {
				continue // the expectation files
			}
			reps = append(reps, rep)
		}
	}
	checkCompare(t, reps)

	rng := rand.New(rand.NewPCG(15, 16))
	names := []string{"send_message", "Send_Message", "listChats", "listchats", "read-file", "read_file", "readFile", "ReadFile",
		"a.b.c.d", "-lead_name", "trail_name-", "--both--", "......", "-.-.-.", "x-y-z-w", "y-z-w", "z-w", "get_v2", "getV2",
		"rеad_file", "send__message", "send message", "Bash", "bash_exec", "émile_tool", "ab-cd", "longer-ab-cd"}
	fill := []string{" ", "-", ".", "--", "_", ", ", "(", ")", "'", "x", "send", "message", "\n"}
	randomText := func() string {
		var b strings.Builder
		for k := rng.IntN(8); k >= 0; k-- {
			if rng.IntN(2) == 0 {
				b.WriteString(names[rng.IntN(len(names))])
			} else {
				b.WriteString(fill[rng.IntN(len(fill))])
			}
		}
		return b.String()
	}
	n := 300
	if testing.Short() {
		n = 30
	}
	refs := 0
	for round := 0; round < n; round++ {
		var reps []*Report
		for s := 0; s < 2+rng.IntN(3); s++ {
			var tools []string
			for k := rng.IntN(6); k >= 0; k-- {
				tools = append(tools, fmt.Sprintf(`{"name":%s,"description":%s,"inputSchema":{"type":"object","properties":{"p":{"type":"string","description":%s}}}}`,
					jstr(names[rng.IntN(len(names))]), jstr(randomText()), jstr(randomText())))
			}
			server := fmt.Sprint("srv", rng.IntN(3))
			if rng.IntN(4) == 0 {
				server = ""
			}
			rep, err := Analyze([]byte("["+strings.Join(tools, ",")+"]"), Options{Path: fmt.Sprint("r", s, ".json"), Server: server})
			if err != nil {
				t.Fatal(err)
			}
			reps = append(reps, rep)
		}
		refs += checkCompare(t, reps)
	}
	if refs < n/2 {
		t.Errorf("only %d cross-server references in %d rounds: the random servers name each other too little", refs, n)
	}
}

// checkCompare compares Compare with the reference and returns the
// number of cross-server references found.
func checkCompare(t *testing.T, reps []*Report) int {
	t.Helper()
	got, want := Compare(reps), refCompareTools(reps)
	refs := 0
	for _, f := range want {
		if f.Evidence["kind"] == "cross-server-reference" {
			refs++
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Compare differs from the reference:\n got %d: %s\nwant %d: %s", len(got), summary(got), len(want), summary(want))
	}
	return refs
}
