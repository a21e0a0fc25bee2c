//go:build !windows

package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// execOPAHelper replaces this process with the helper: same pid, same
// standard streams, signals and exit status go straight to it, and no
// parent is left waiting.
func execOPAHelper(_ context.Context, helper string, args []string, _ streams) error {
	env := append(os.Environ(), opaHelperEnv+"=1")
	err := syscall.Exec(helper, append([]string{helper}, args...), env)
	return &exitCodeError{code: exitError, err: fmt.Errorf("--opa-config: start %s: %w", helper, err)}
}
