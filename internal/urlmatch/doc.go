// Package urlmatch reproduces Claude Code's enterprise serverUrl matching
// (docs/claude-code.md §8) and the checks around it: the unsafe-expansion
// rule for allow entries (§3.4) and the weaknesses that MCPG-P005 and
// MCPG-P003 report (§11).
//
// # Parsing
//
// Claude Code parses both the pattern and the server URL with the JavaScript
// URL class. It runs on Bun, whose URL parser is WebKit's implementation of
// the WHATWG URL Standard, so Go's net/url cannot be used (§8.3). [Parse] is a
// WHATWG basic URL parser without a base URL: C0/space trimming, tab and
// newline removal, "\" as "/" in special schemes, slash skipping, userinfo,
// percent-decoding and UTS #46 (golang.org/x/net/idna, nontransitional,
// CheckHyphens and STD3 rules off, as "domain to ASCII" with beStrict false),
// IPv4 in all its shorthand forms, IPv6 with canonical serialisation, default
// port removal, the percent-encode sets (including "^" in paths and "'" in
// special queries) and "."/".." segments including their "%2e" forms. Two
// WebKit behaviours are reproduced: a host that needs IDNA processing fails
// when its ASCII form exceeds 2048 characters (ASCII hosts have no limit),
// and that limit also bounds the otherwise quadratic Punycode work.
//
// # Matching
//
// [Match] follows Claude Code 2.1.329's matcher exactly, including its
// placeholder tokens, the ":*" port fallback, its guard for "xn--*" labels and
// the segment-by-segment fallback for patterns that do not parse. [Compile]
// prepares a pattern for matching many URLs; [Pattern.MatchURL] avoids
// re-parsing a server URL. [Glob] is the anchored "*"-only wildcard match both
// use; it runs in linear-times-pieces time, never exponential.
//
// # Policy helpers
//
//   - [ExpandEntry] expands ${VAR} references in a serverUrl entry the way
//     Claude Code does (tabs and newlines are dropped first).
//   - [UnsafeAllowEntry] decides whether an allow entry is skipped because a
//     variable value would restructure the URL.
//   - [NeverMatches] finds entries that match nothing (fail-closed in
//     allowlists, fail-open in denylists: MCPG-P003).
//   - [Weaknesses] classifies patterns that admit more than they appear to
//     (MCPG-P005), each with a server URL that proves it; [LegacyMatch] is the
//     regex matcher of older clients used for the legacy-bypass finding.
//
// # Ground truth
//
// testdata/oracle_urls.txt records experiments run against the real CLI with
// tools/claude-code-oracle; TestOracleRecorded replays them in every test run
// and TestOracleLive (MCPGUARD_ORACLE=path) re-runs them. Where the CLI
// disagreed with docs/claude-code.md, this package follows the CLI.
//
// All functions are safe for concurrent use, never panic on hostile input,
// and do work bounded by the input size.
package urlmatch
