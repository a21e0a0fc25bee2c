// Package jsonc parses JSON, and JSON with comments and trailing commas (JSONC),
// into a tree that keeps the source position of every value and key.
//
// mcpguard needs more than encoding/json offers: the line and column of every
// server entry (reports and SARIF point at them), object members in source order
// (Claude Code lists servers in JavaScript property order), exact key matching
// (encoding/json matches struct fields case-insensitively), JavaScript's
// duplicate-key rule (the last value wins, at the position of the first key),
// and a positioned error instead of a panic on hostile input.
package jsonc
