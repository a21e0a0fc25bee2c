// Package scanner finds every MCP client configuration on a machine (or in the
// paths it is given), parses each into one Server model that keeps the source
// position of every entry, and resolves Claude Code's effective server set —
// which servers load, from which scope, which are pending, shadowed or
// suppressed — exactly as the real CLI does (docs/claude-code.md).
//
// The scanner never prints and never exits; Scan returns a Result that the
// reports package renders. Secret values (env and header values) stay in memory
// only: the Server fields that hold them are excluded from JSON.
package scanner
