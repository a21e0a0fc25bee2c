// Package toolcheck analyses tool metadata: the result of an MCP server's
// tools/list, saved to a file, captured by the proxy or fetched by
// introspection. It finds hidden Unicode (tag characters, bidi controls,
// invisible and variation-selector smuggling, terminal escapes), hidden
// instructions and tool poisoning, shadowing of built-in and other servers'
// tools, annotations the tool's own description contradicts, oversized
// descriptions, invalid names and tools outside Claude Code's IDE allowlist
// (SPEC §6 U, A, T and I rules; docs/threats.md).
//
// Instructions are judged as intent (intent.go: one strong signal, such as
// an instruction aimed at another server's tool, is enough), on every
// string the model reads, after decoding hidden carriers and replaying
// what a terminal would hide (terminal.go); annotations are judged from
// the tool's structure (annotations.go: the action word by position and
// grammar, read with its object).
//
// A server's prompts, resource templates and resources (prompts.go:
// AnalyzeCatalog, AnalyzeList) are read by the same per-string rules,
// their findings naming the item.
//
// Every finding points at the JSON pointer and position of the offending
// string in the exact bytes the server sent. The package knows nothing of
// client configuration files: the proxy links it without the scanner.
//
// Its word sets, phrase matchers and name indexes are built on first use
// (sync.OnceValue), not at package initialisation: every command links the
// package, and most runs (a pre-commit scan) never analyse a tool.
package toolcheck
