//go:build !unix

package mcpio

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(*exec.Cmd) {}

// signalGroup has no process groups to signal: SIGTERM cannot be delivered on
// Windows, so the server is killed.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil && sig == syscall.SIGKILL {
		_ = cmd.Process.Kill()
	}
}

// groupAlive: without process groups, nothing of the server is left once
// it has exited.
func groupAlive(*exec.Cmd) bool { return false }
