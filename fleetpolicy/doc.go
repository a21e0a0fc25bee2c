// Package fleetpolicy is an organisation's mcpguard policy as OPA bundles
// deliver it: Policy (Rego modules under mcpguard.custom, data, and an
// optional managed-settings document at data.mcpguard.managed_settings),
// read from a bundle file with its signature verified (LoadFile) or kept
// current by a Control — OPA's own bundle, decision-log and status plugins,
// in package opaplugins. mcpguard's engine evaluates the policy beside the
// shipped policies, which a bundle can never replace.
//
// Control is an interface, and opaplugins a package of its own, because
// OPA's plugins (their OCI downloader, Prometheus metrics and telemetry)
// cost every process that links them their initialisation: the commands a
// developer runs on every commit must not (docs/performance.md).
package fleetpolicy
