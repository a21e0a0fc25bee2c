// Command floor is the baseline of the performance ratios (issue 18, SPEC
// §7): the least a Go program built from this go.mod can do to give a Rego
// verdict — import OPA, compile a one-rule policy, evaluate it once, print
// the result. bench/scan.sh runs it interleaved with mcpguard.
//
// With -evals N it evaluates the prepared query N times more and prints
// the median nanoseconds of one evaluation: the "one naive prepared eval"
// that the marginal cost of a server is compared with.
//
//	go -C bench build -o "$PWD/floor" ./floor && ./floor
//	./floor -evals 20000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/open-policy-agent/opa/v1/rego"
)

const module = `package floor

allow if input.server.command == "npx"
`

func main() {
	evals := flag.Int("evals", 0, "evaluate this many more times and print the median ns of one evaluation")
	flag.Parse()
	ctx := context.Background()
	q, err := rego.New(rego.Query("data.floor.allow"), rego.Module("floor.rego", module)).PrepareForEval(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	input := map[string]any{"server": map[string]any{"command": "npx"}}
	rs, err := q.Eval(ctx, rego.EvalInput(input))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if *evals <= 0 {
		fmt.Println(rs.Allowed())
		return
	}
	// Batches of 100, so that the clock's resolution does not matter.
	var per []float64
	for range max(*evals/100, 1) {
		t := time.Now()
		for range 100 {
			if _, err := q.Eval(ctx, rego.EvalInput(input)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		per = append(per, float64(time.Since(t).Nanoseconds())/100)
	}
	slices.Sort(per)
	fmt.Printf("%.0f\n", per[len(per)/2])
}
