package main

import (
	"context"
	"os"
	"runtime/pprof"

	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/runner"
	"github.com/mcpguard/mcpguard/scanner"
)

func main() {
	f, _ := os.Create(os.Args[2])
	pprof.StartCPUProfile(f)
	res, err := runner.Run(context.Background(), runner.Options{Scan: scanner.Options{Paths: []string{os.Args[1]}, WorkDir: "/tmp"}})
	if err != nil {
		panic(err)
	}
	reports.Render(os.Stdout, reports.FormatJSON, res.Report, reports.Options{})
	pprof.StopCPUProfile()
	m, _ := os.Create(os.Args[2] + ".mem")
	pprof.WriteHeapProfile(m)
}
