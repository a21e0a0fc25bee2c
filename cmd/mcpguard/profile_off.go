//go:build !profile

package main

import "github.com/spf13/cobra"

// profileFlags has no flags in the default build. Linking runtime/pprof
// keeps the runtime's heap-profile sampling on in every process that
// links it: a bucket table of 1.4 MiB mapped at the first sample, a stack
// walk every 512 KiB allocated, memory the daemon (which must stay under
// 40 MB resident) would hold for nothing; only `go build -tags profile` has
// --cpuprofile and --memprofile (profile.go).
type profileFlags struct{}

func (*profileFlags) register(*cobra.Command) {}
func (*profileFlags) start() error            { return nil }
func (*profileFlags) stop() error             { return nil }
