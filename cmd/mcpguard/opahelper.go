package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// opaHelperName is the build of mcpguard that links OPA's plugins:
//
//	go build -tags opaplugins -o mcpguard-opa ./cmd/mcpguard
//
// The default build leaves them out: Go runs every linked package's
// initialisation on every start, and theirs (an OCI client, Prometheus
// metrics, telemetry) would slow every pre-commit scan (docs/performance.md). A command given --opa-config runs the helper in
// its place with the same arguments.
const opaHelperName = "mcpguard-opa"

// opaHelperEnv marks a process started as the helper, so that a helper
// built without the plugins fails instead of starting itself again.
const opaHelperEnv = "MCPGUARD_OPA_HELPER"

// runOPAHelper runs mcpguard-opa with args in this process's place; it
// returns only when that cannot be done, or (where a process cannot be
// replaced) with the helper's exit status.
func runOPAHelper(ctx context.Context, env environment, args []string, s streams) error {
	if _, again := env.lookupEnv(opaHelperEnv); again {
		return &exitCodeError{code: exitError, err: fmt.Errorf("--opa-config: %s was started as %s but does not link OPA's plugins: build it with -tags opaplugins", executableName(env), opaHelperName)}
	}
	helper, err := findOPAHelper(env)
	if err != nil {
		return &exitCodeError{code: exitError, err: err}
	}
	return execOPAHelper(ctx, helper, args, s)
}

// findOPAHelper looks for mcpguard-opa beside the running binary, then on
// PATH.
func findOPAHelper(env environment) (string, error) {
	name := opaHelperName
	if env.goos == "windows" {
		name += ".exe"
	}
	var beside string
	if exe, err := env.executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		beside = filepath.Join(filepath.Dir(exe), name)
		if p, err := exec.LookPath(beside); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("--opa-config needs %s, the build of mcpguard with OPA's plugins, beside %s or on PATH "+
		"(go build -tags opaplugins -o %s ./cmd/mcpguard; docs/fleet.md)", opaHelperName, executableName(env), beside)
}

func executableName(env environment) string {
	if exe, err := env.executable(); err == nil {
		return exe
	}
	return "mcpguard"
}
