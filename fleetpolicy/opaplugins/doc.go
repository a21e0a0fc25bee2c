// Package opaplugins keeps an organisation's policy current through OPA's
// own control plane: signed bundles downloaded, verified, persisted and
// activated by OPA's bundle plugin (configured in OPA's configuration
// format), decision logs through OPA's decision-log plugin, status through
// its status plugin. It re-implements none of them: it reads what the
// bundle plugin activated and hands it on as a fleetpolicy.Policy.
//
// Only the mcpguard-opa build links this package (cmd/mcpguard with the
// opaplugins build tag); the default build runs it for --opa-config.
package opaplugins
