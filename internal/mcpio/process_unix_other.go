//go:build unix && !linux

package mcpio

import "syscall"

// setParentDeathSignal: only Linux has a parent-death signal; elsewhere a
// proxy killed with SIGKILL leaves the server to notice its closed stdin.
func setParentDeathSignal(*syscall.SysProcAttr) {}
