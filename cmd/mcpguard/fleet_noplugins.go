//go:build !opaplugins

package main

import "github.com/mcpguard/mcpguard/fleetpolicy"

// fleetStarter: the default build does not link OPA's plugins, whose
// initialisation would cost every run — the pre-commit scan above all
// (docs/performance.md). --opa-config runs mcpguard-opa (opahelper.go).
func fleetStarter() fleetpolicy.Starter { return nil }
