// Package ignorefile parses mcpguard's ignore file (.mcpguardignore): the
// findings a project has reviewed and accepts, each with a mandatory reason.
//
// One entry per line:
//
//	# comment
//	f-0123456789abcdef                 # reason (one finding, by its stable id)
//	f-0123456789abcdef  .mcp.json      # reason (the same, only in that file)
//	MCPG-C002           .cursor/*.json # reason (a rule, in files matching a glob)
//	MCPG-C005                          # reason (a rule, everywhere)
//
// The target is a finding id (f- and 16 lowercase hex digits) or a rule id
// (a catalog id MCPG-..., or a custom rule's id). The optional path is a
// slash-separated glob: '*', '?' and '[...]' match within one path segment
// and a '**' segment matches any number of segments. A glob with a slash is
// matched against the path relative to the ignore file's directory (a leading
// slash only anchors it there, as in .gitignore); a glob without a slash is
// matched against the file name in any directory. The reason follows a '#'
// that starts a word and must not be empty. Everything else is an error
// naming path:line:col, so a typo can never silently widen or narrow what is
// ignored. docs/ci.md documents the format for users.
package ignorefile
