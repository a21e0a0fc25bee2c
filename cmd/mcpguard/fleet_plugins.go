//go:build opaplugins

package main

import (
	"github.com/mcpguard/mcpguard/fleetpolicy"
	"github.com/mcpguard/mcpguard/fleetpolicy/opaplugins"
)

// fleetStarter: this build (mcpguard-opa, -tags opaplugins) links OPA's
// plugins and runs --opa-config itself.
func fleetStarter() fleetpolicy.Starter { return opaplugins.StartControl }
