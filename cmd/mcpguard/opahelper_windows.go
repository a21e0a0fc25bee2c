//go:build windows

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// execOPAHelper runs the helper as a child with this process's streams and
// exits with its status (Windows cannot replace a process).
func execOPAHelper(ctx context.Context, helper string, args []string, s streams) error {
	cmd := exec.CommandContext(ctx, helper, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.in, s.out, s.err
	cmd.Env = append(os.Environ(), opaHelperEnv+"=1")
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return &exitCodeError{code: exitOK} // done: the command itself must not run
	case errors.As(err, &exit):
		return &exitCodeError{code: exit.ExitCode()}
	default:
		return &exitCodeError{code: exitError, err: fmt.Errorf("--opa-config: start %s: %w", helper, err)}
	}
}
