// Package policy holds the types every mcpguard verdict is made of — findings,
// decisions, source locations, the rule catalog — and the OPA engine that
// evaluates the shipped and custom Rego policies against each server.
//
// Result types live here, upstream of the scanner and the renderers, so that
// reports depend on policy and never the reverse (SPEC §3).
package policy
