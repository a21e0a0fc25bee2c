// Package fleetpolicy gets an organisation's mcpguard policy through OPA's
// own control plane: signed bundles downloaded, verified, persisted and
// activated by OPA's bundle plugin (configured in OPA's configuration
// format), decision logs through OPA's decision-log plugin, status through
// its status plugin. It re-implements none of them: it reads what the
// bundle plugin activated — Rego modules under mcpguard.custom, data, and
// an optional managed-settings document at data.mcpguard.managed_settings —
// and hands it to mcpguard's own engine, beside the shipped policies, which
// a bundle can never replace.
package fleetpolicy
