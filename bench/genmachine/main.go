// Command genmachine writes a synthetic machine for bench/scan.sh: a home with
// about N MCP servers in 30 files, a managed directory and a project.
//
//	go -C bench run ./genmachine DIR [N]
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/mcpguard/mcpguard/internal/benchdata"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: genmachine DIR [N]")
		return 2
	}
	n := 200
	if len(args) == 2 {
		v, err := strconv.Atoi(args[1])
		if err != nil || v < 20 {
			fmt.Fprintln(os.Stderr, "genmachine: N must be a number >= 20")
			return 2
		}
		n = v
	}
	home, managedDir, project, err := benchdata.WriteMachine(args[0], n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genmachine:", err)
		return 1
	}
	fmt.Printf("--home %s --managed-dir %s --project %s\n", home, managedDir, project)
	return 0
}
