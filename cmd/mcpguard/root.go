package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"
)

// Exit codes (SPEC §4).
const (
	exitOK       = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitError    = 2 // usage error, unreadable or malformed input, invalid policy
)

// exitCodeError carries a process exit code from a command to run.
type exitCodeError struct {
	code int
	err  error // nil when the command already reported everything
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitCodeError) Unwrap() error { return e.err }

// streams are the process's standard streams, injected for tests.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// run builds the command tree, executes it and maps the outcome to an exit
// code. It is the only place that decides exit codes.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := defaultEnv()
	ctx, interrupts := newInterrupts(context.Background())
	defer interrupts.stop()
	env.interrupts = interrupts
	defer tuneGC(args)()
	return runContext(ctx, args, streams{in: stdin, out: stdout, err: stderr}, env)
}

func runContext(ctx context.Context, args []string, s streams, env environment) int {
	root := newRootCmd(s, env, subcommand(args))
	var prof profileFlags
	prof.register(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags().Lookup("opa-config")
		helper := f != nil && f.Changed && env.startFleet == nil
		if helper || !armsOnDemand(cmd) {
			env.interrupts.arm()
		}
		if helper {
			// This build does not link OPA's plugins: the helper does the
			// whole run, in this process's place.
			return runOPAHelper(ctx, env, args, s)
		}
		return prof.start()
	}
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if perr := prof.stop(); perr != nil && err == nil {
		err = &exitCodeError{code: exitError, err: perr}
	}
	var ec *exitCodeError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ec):
		if ec.err != nil {
			fmt.Fprintf(s.err, "mcpguard: %v\n", ec.err)
		}
		return ec.code
	default:
		// Flag and argument errors from cobra, and anything unexpected.
		fmt.Fprintf(s.err, "mcpguard: %v\n", err)
		return exitError
	}
}

// subcommand returns the command when it is the first argument, as
// everyone writes it ("mcpguard scan ..."); otherwise "" (no guess is made:
// a flag before the command may take the next argument as its value).
func subcommand(args []string) string {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return ""
	}
	return args[0]
}

// tuneGC trades memory for time in short-lived commands: loading the
// policies and evaluating them allocate heavily, and a collector running
// beside them on a small machine would take a core from the scan for
// memory the process is about to give back by exiting. The heap stays
// bounded by a soft limit (shortCommandMemoryLimit). Long-running commands
// keep Go's defaults, and so does report: a fleet merge's live heap is its
// reports, well over the limit, and a collector held at the limit would
// run without pause.
//
// The returned function stops watching the heap (the command is done;
// tests run commands in one process).
func tuneGC(args []string) (stop func()) {
	if len(args) > 0 && (args[0] == "proxy" || args[0] == "daemon" || args[0] == "report") {
		return func() {}
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(shortCommandMemoryLimit)
	return collectFreelyPast(shortCommandMemoryLimit / 2)
}

// collectFreelyPast gives the collector back Go's defaults (GOGC=100, no
// limit) once a collection leaves more than live bytes live. Under the
// soft limit, a heap that is mostly live would be collected again each
// time it grows a little; past half the limit, collecting when the heap
// has doubled costs what any Go program pays, in memory twice what it
// holds.
// A collection is seen by a cleanup on an object it frees, made again
// after each, until stop.
func collectFreelyPast(live uint64) (stop func()) {
	var stopped atomic.Bool
	// Read right after a collection, the heap allocated is what it left
	// live and little more.
	stats := new(runtime.MemStats)
	var watch func()
	watch = func() {
		// 32 bytes: a smaller object without pointers can share a block
		// with others, and its cleanup might never run.
		runtime.AddCleanup(new([32]byte), func(struct{}) {
			if stopped.Load() {
				return
			}
			runtime.ReadMemStats(stats)
			if stats.HeapAlloc > live {
				debug.SetGCPercent(100)
				debug.SetMemoryLimit(math.MaxInt64)
				return
			}
			watch()
		}, struct{}{})
	}
	watch()
	return func() { stopped.Store(true) }
}

// shortCommandMemoryLimit is the heap a short command grows to before it
// collects. A pre-commit scan never reaches it; a large or hostile input is
// collected as it goes rather than held until the end. It is what the
// resident-memory budget allows (150 MB for a 10,000-server scan, issue
// 18): 128 MiB keeps the 11,000-server machine under that and lets it
// evaluate without a collection in the middle, when both cores are busy;
// a lower limit makes large scans collect while they evaluate
// (docs/performance.md).
const shortCommandMemoryLimit = 128 << 20

const rootLong = `mcpguard finds every MCP server configuration on a machine, evaluates it
against Claude Code's enterprise allow/deny semantics and organisation rules,
and reports what Claude Code does not.

Exit codes:
  0  nothing at or above --fail-on
  1  findings at or above --fail-on
  2  usage error, unreadable or malformed input, invalid policy`

// newRootCmd makes the command tree for a run whose first argument is name
// ("" or anything else for all of it).
func newRootCmd(s streams, env environment, name string) *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpguard",
		Short:         "Govern MCP server configurations",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       env.about, // --version
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitCodeError{code: exitError, err: err}
	})
	cmds := commands()
	for _, c := range cmds {
		if c.name == name {
			// The command the run runs, alone: a run pays for making one
			// command and its flags, not all of them.
			root.AddCommand(c.make(env))
			return root
		}
	}
	// The root's help, a completion script, a misspelt name (cobra
	// suggests): every command.
	for _, c := range cmds {
		root.AddCommand(c.make(env))
	}
	return root
}

// commands are mcpguard's commands by name, in the order help lists them
// (TestCommandNames holds each name to its command's).
func commands() []struct {
	name string
	make func(environment) *cobra.Command
} {
	return []struct {
		name string
		make func(environment) *cobra.Command
	}{
		{"scan", newScanCmd}, {"policy", newPolicyCmd}, {"version", newVersionCmd}, {"tools", newToolsCmd},
		{"pins", newPinsCmd}, {"wrap", newWrapCmd}, {"unwrap", newUnwrapCmd}, {"proxy", newProxyCmd},
		{"daemon", newDaemonCmd}, {"status", newStatusCmd}, {"report", newReportCmd},
	}
}
