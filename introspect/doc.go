// Package introspect starts configured MCP servers as their clients would,
// asks them what they offer (initialize, tools/list, prompts/list,
// resources/list) and analyses the answers with the same tool checks and
// pins as the proxy. It is opt-in (`mcpguard scan --introspect`): a server
// is code, so it never starts one that policy blocks, that a user has not
// approved, or that comes from files the scan was merely pointed at, unless
// asked to; every server runs bounded in time and output and is shut down
// with its whole process group.
package introspect
