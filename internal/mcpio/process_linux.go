//go:build linux

package mcpio

import "syscall"

// setParentDeathSignal makes the kernel kill the server when the proxy dies
// without shutting it down (SIGKILL from an impatient client): the server
// is in its own process group, so it would otherwise live on, orphaned.
// The signal follows the OS thread that started the Child; the Go runtime
// does not end such threads while the process runs, since proxy code never
// locks one.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
