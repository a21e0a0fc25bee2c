// Package runner owns the pipeline every command shares: discover and parse
// the configurations, resolve Claude Code's view, evaluate the policy,
// analyse, apply the accepted findings (baseline, ignore file) and build the
// mcpguard/report/v1 value. Options in, a report out: runner prints
// nothing, reads no flags and never exits. The CLI, the daemon, `report`
// and introspection all call it, never package main.
package runner
