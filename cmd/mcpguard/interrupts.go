package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
)

// interrupts cancels a command's context on SIGINT or SIGTERM from the
// moment the command arms it. Until then the signals keep their default
// action and end the process at once, which is what a command that only
// reads and prints should do; a command with something to finish or undo
// when stopped (a file it writes, servers it starts, OPA's plugins, a
// daemon's state) arms it before it starts.
//
// Arming is not free: the runtime's first signal.Notify starts a thread for
// signal masks and hands off to it twice, and Stop twice more, a cost a
// one-file scan (the pre-commit hook's whole job) need not pay
// (docs/performance.md). So commands arm by default, and the two that often
// do neither, scan and version, are marked to arm only when they need to
// (armsOnDemand).
type interrupts struct {
	cancel context.CancelFunc
	once   sync.Once
	// signals and stopped exist once armed.
	signals chan os.Signal
	stopped chan struct{}
}

// newInterrupts returns a context that the returned interrupts cancel, once
// armed, on the first SIGINT or SIGTERM.
func newInterrupts(parent context.Context) (context.Context, *interrupts) {
	ctx, cancel := context.WithCancel(parent)
	return ctx, &interrupts{cancel: cancel}
}

// arm installs the handlers. It may be called more than once; on a nil
// interrupts (a test's environment) it does nothing.
func (in *interrupts) arm() {
	if in == nil {
		return
	}
	in.once.Do(func() {
		in.signals, in.stopped = make(chan os.Signal, 1), make(chan struct{})
		signal.Notify(in.signals, os.Interrupt, syscall.SIGTERM)
		go func() {
			select {
			case <-in.signals:
				in.cancel()
			case <-in.stopped:
			}
		}()
	})
}

// stop removes the handlers, if armed, and cancels the context; arm does
// nothing after it.
func (in *interrupts) stop() {
	in.once.Do(func() {}) // not armed: never will be
	if in.signals != nil {
		signal.Stop(in.signals)
		close(in.stopped)
	}
	in.cancel()
}

// armsOnDemandAnnotation marks a command that arms the interrupts itself,
// when what it was asked to do needs them, instead of before it runs.
const armsOnDemandAnnotation = "mcpguard/interrupts"

func armsOnDemand(cmd *cobra.Command) bool {
	return cmd.Annotations[armsOnDemandAnnotation] == "on-demand"
}

// onDemand is the annotation of such a command.
func onDemand() map[string]string {
	return map[string]string{armsOnDemandAnnotation: "on-demand"}
}
