// Package wrapargv is the command-line convention of `mcpguard wrap`: how a
// stdio server's argv is rewritten to run through `mcpguard proxy`, and how
// the original argv is read back from a wrapped one.
//
// A wrapped server runs
//
//	<mcpguard> proxy --name <client>/<scope>/<server> [--wrapped-without-args] -- <command> <args>...
//
// Everything after the first "--" is the server's original argv, verbatim.
// The flags before it belong to the proxy. --wrapped-without-args records
// that the original entry had no "args" member, so that `mcpguard unwrap`
// can remove the one wrap inserted; the proxy accepts and ignores it.
package wrapargv
