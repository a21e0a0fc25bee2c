//go:build profile

package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/cobra"
)

// profileFlags are the hidden --cpuprofile, --memprofile and --trace
// flags that docs/performance.md uses to reproduce its profiles on the
// real binary, in a build with the profile tag (profile_off.go says why
// only there).
type profileFlags struct {
	cpu, mem, trace    string
	cpuFile, traceFile *os.File
}

func (p *profileFlags) register(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to FILE")
	f.StringVar(&p.mem, "memprofile", "", "write a heap profile at the end of the command to FILE")
	f.StringVar(&p.trace, "trace", "", "write an execution trace of the command to FILE (go tool trace)")
	_ = f.MarkHidden("cpuprofile")
	_ = f.MarkHidden("memprofile")
	_ = f.MarkHidden("trace")
}

func (p *profileFlags) start() error {
	if p.trace != "" {
		f, err := os.Create(p.trace)
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return fmt.Errorf("trace: %w", err)
		}
		p.traceFile = f
	}
	if p.cpu == "" {
		return nil
	}
	f, err := os.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("cpu profile: %w", err)
	}
	p.cpuFile = f
	return nil
}

func (p *profileFlags) stop() error {
	if p.traceFile != nil {
		trace.Stop()
		if err := p.traceFile.Close(); err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		p.traceFile = nil
	}
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		p.cpuFile = nil
	}
	if p.mem == "" {
		return nil
	}
	f, err := os.Create(p.mem)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer f.Close()
	runtime.GC() // the profile shows what is live, not what awaits collection
	if err := pprof.WriteHeapProfile(f); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}
