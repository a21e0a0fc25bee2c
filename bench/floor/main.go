// Command floor is the baseline of the performance ratios (issue 18, SPEC
// §7): the least a Go program built from this go.mod can do to give a Rego
// verdict — import OPA, compile a one-rule policy, evaluate it once, print
// the result. bench/scan.sh runs it interleaved with mcpguard.
//
//	go build -o floor ./bench/floor && ./floor
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/open-policy-agent/opa/v1/rego"
)

const module = `package floor

allow if input.server.command == "npx"
`

func main() {
	ctx := context.Background()
	q, err := rego.New(rego.Query("data.floor.allow"), rego.Module("floor.rego", module)).PrepareForEval(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rs, err := q.Eval(ctx, rego.EvalInput(map[string]any{"server": map[string]any{"command": "npx"}}))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(rs.Allowed())
}
