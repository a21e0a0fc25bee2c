// Package wrap rewrites MCP client configuration files so that each stdio
// server runs through `mcpguard proxy` (`mcpguard wrap`), and back
// (`mcpguard unwrap`).
//
// A rewrite changes two byte spans per server entry — the "command" string
// and the "args" array, or an "args" member it inserts after "command" — and
// keeps every other byte of the file: comments, trailing commas, indentation,
// CRLF line ends, escapes, key order. The wrapped entry carries everything
// needed to undo it (internal/wrapargv): the original command token verbatim
// after "--", the original array's contents after it, and a flag when the
// entry had no "args". Unwrapping a wrapped file gives back the original
// bytes.
//
// A Plan is computed first (NewPlan: scan, select, rewrite in memory,
// self-check) and written by Commit: a backup of each file
// (<file>.mcpguard.bak), then a temporary file in the same directory renamed
// over it, after checking that nobody changed the file meanwhile.
package wrap
