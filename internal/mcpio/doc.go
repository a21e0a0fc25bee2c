// Package mcpio speaks the framing layer of MCP over stdio that the proxy
// and introspection share: newline-delimited JSON-RPC frames of any length,
// the top-level envelope of a message read without decoding its payload,
// and the server process itself — started in its own process group, shut
// down as the MCP specification prescribes (close stdin, SIGTERM, SIGKILL).
package mcpio
