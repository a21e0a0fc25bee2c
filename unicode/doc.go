// Package unicode finds, decodes and removes hidden or deceptive Unicode in
// MCP tool metadata and other text a model reads: tag characters (ASCII
// smuggling), bidi controls, zero-width and other invisible characters,
// variation-selector byte encodings, control characters and terminal
// escape sequences, confusables and compatibility tricks, private-use,
// unassigned and invalid code points (rules MCPG-U001..U007 of SPEC §6,
// classes of docs/threats.md §1).
//
// Import it as mcpunicode; inside the package the standard library is
// stdunicode.
//
// # Two views
//
// The output view ([Sanitize], [SanitizeJSON]) is what mcpguard forwards or
// prints: the original text with hostile code points and whole escape
// sequences removed and nothing else changed. It never normalizes. The
// analysis view ([Analysis], [Skeleton]) is for matching heuristics only:
// NFKC, case folding, default-ignorables removed, exotic spaces mapped to
// U+0020. Decisions depend on context, not on the code point alone: an RLM
// next to Arabic, a ZWNJ inside a Persian word, a ZWJ between emoji, FE0F
// after an emoji, one ideographic variation selector after a CJK ideograph,
// Mongolian free variation selectors and Korean jamo fillers stay.
//
// # Decode before stripping
//
// Tag characters, runs of variation selectors and two-symbol binary runs of
// invisible characters carry data. Their findings hold the plaintext in
// Evidence["decoded"] (see [Finding.Decoded]) so that the hidden-instruction
// heuristics can scan it too.
//
// # JSON
//
// [IsCleanJSON] is the allocation-free fast path for raw JSON bytes (JSON
// carries hidden characters as \uXXXX escapes in pure ASCII). [ScanJSON]
// reports every string value and object key with its RFC 6901 pointer and
// flags duplicate keys; [SanitizeJSON] rewrites only the affected strings
// and keys and returns the input unchanged otherwise; [Scanner.ScanSanitizeJSON]
// does both in one walk.
//
// # Tables
//
// Go 1.26's unicode tables are Unicode 15.0, so this package generates its
// own from the Unicode 17.0.0 data (tables.go, [Version]) with
// internal/gen; the build never reads the data files. The hot path is one
// bit test per BMP code point (an 8 KB bitset) and a binary search over
// sorted ranges for flagged and supplementary code points; properties
// needed for context (bidi class, emoji properties, scripts, TR39 data) are
// looked up only around flagged code points. Full case folding, for the
// analysis view, comes from fold_tables.go, which internal/genfold writes
// from golang.org/x/text/cases (Unicode 15.0 folding, as before; the
// package no longer links x/text/cases at run time).
//
// All functions are safe for concurrent use; a [Scanner] is a plain value.
// No input makes them panic: malformed JSON is a [*SyntaxError], deep
// nesting [ErrTooDeep].
package unicode

//go:generate go run ./internal/gen/main.go -data ../../shared/data/unicode -o tables.go
