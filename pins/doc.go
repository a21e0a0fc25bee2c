// Package pins pins tool definitions on first use and reports what changed
// since (MCPG-T003, rug pulls): canonical JSON hashes of each tool, keyed
// hashes of a server's launch surface that hold no secret, the serverInfo
// and instructions of initialize, and a pin store on disk that several
// proxies and `mcpguard pins` share under a file lock (docs/pins.md).
package pins
