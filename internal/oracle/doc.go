// Package oracle holds the ground-truth corpus of Claude Code scope and
// policy cases, and the tooling to record and replay it. It is test support:
// nothing in mcpguard's binary imports it.
//
// Each case is one txtar-style file in testdata/oracle/cases. The prose
// before the first section says what the case checks and which section of
// docs/claude-code.md it covers. The sections are:
//
//	-- env --                          VAR=VALUE lines passed to the CLI's environment
//	-- git --                          "parent" and/or "project": that tree is a git work tree
//	-- managed/<path> --               a file in the managed dir (/etc/claude-code)
//	-- home/<path> --                  a file in HOME (/tmp/mcpguard-oracle/home)
//	-- project/<path> --               a file in the project, the cwd (/tmp/mcpguard-oracle/project)
//	-- parent/<path> --                a file in the project's parent folder (/tmp/mcpguard-oracle)
//	-- want --                         hand-written mcpguard expectations
//	-- order --                        optional: the expected `mcp list` order, one name a line
//	-- oracle --                       the CLI's answers, written by the recorder only
//
// A want line is "SCOPE NAME STATUS [REASON,...]", one per server
// definition, with mcpguard's scopes, statuses and reason codes (SPEC §5);
// a name with a space, a comma or a quote is written as a Go quoted string.
// A line "finding RULE [SCOPE NAME]" names a finding the CLI's diagnostics
// also show. Blank lines and lines starting with # are ignored.
//
// The oracle section records `claude mcp list` (exit code, stdout without
// blank lines and with the live health detail after "✘ Failed to connect"
// cut, first stderr line) and, for every server name of the case,
// `claude mcp get NAME` (exit code, Scope and Status lines, first stderr line
// on failure). See Answers.Format for the exact layout.
//
// Consistent checks the want lines against the oracle answers with the
// mapping of docs/claude-code.md §9.5, without running anything. Record runs
// the real CLI through the shared claude-code-oracle script. The tests:
//
//	go test ./internal/oracle                          # TestCorpusConsistent
//	MCPGUARD_ORACLE=1 go test ./internal/oracle -run TestRecord          # compare with the CLI
//	MCPGUARD_ORACLE=1 go test ./internal/oracle -run TestRecord -update  # re-record
//
// MCPGUARD_ORACLE_SCRIPT overrides the script path (default
// ../../../shared/tools/claude-code-oracle from the package directory).
// Cases with parent files put them into /tmp/mcpguard-oracle itself, so they
// run serially under flock(/tmp/mcpguard-oracle.lock) and remove the files
// afterwards.
package oracle
