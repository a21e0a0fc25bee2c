package policy

import "strings"

// Rule describes one rule of the catalog (SPEC §6).
type Rule struct {
	ID       string
	Severity Severity
	Category string
	Title    string
}

// HelpURI returns the documentation anchor of a rule in docs/rules.md.
func (r Rule) HelpURI() string {
	return "https://github.com/mcpguard/mcpguard/blob/main/docs/rules.md#" + strings.ToLower(r.ID)
}

// Rule categories.
const (
	CategoryPolicy      = "policy"
	CategoryConfig      = "config"
	CategoryUnicode     = "unicode"
	CategoryAnnotations = "annotations"
	CategoryTool        = "tool"
	CategoryIDE         = "ide"
	CategoryCustom      = "custom"
)

// catalog is the fixed list of shipped rules, in documentation order.
var catalog = [...]Rule{
	{"MCPG-P001", SeverityError, CategoryPolicy, "server denied by policy"},
	{"MCPG-P002", SeverityError, CategoryPolicy, "server not on the allowlist"},
	{"MCPG-P003", SeverityError, CategoryPolicy, "managed policy file invalid: the client ignores it or fails"},
	{"MCPG-P004", SeverityWarning, CategoryPolicy, "server admitted by name only"},
	{"MCPG-P005", SeverityWarning, CategoryPolicy, "serverUrl pattern broader than it looks"},
	{"MCPG-P006", SeverityWarning, CategoryPolicy, "allowlist can be widened by a non-managed settings file"},
	{"MCPG-P007", SeverityWarning, CategoryPolicy, "allowlisted command with an injectable env"},
	{"MCPG-C001", SeverityError, CategoryConfig, "plaintext secret in a server entry"},
	{"MCPG-C002", SeverityWarning, CategoryConfig, "unpinned package launcher"},
	{"MCPG-C003", SeverityWarning, CategoryConfig, "cleartext transport to a non-loopback host"},
	{"MCPG-C004", SeverityError, CategoryConfig, "download-and-execute or shell pipeline in the command"},
	{"MCPG-C005", SeverityNote, CategoryConfig, "deprecated SSE transport"},
	{"MCPG-C006", SeverityWarning, CategoryConfig, "inert or invalid entry"},
	{"MCPG-C007", SeverityWarning, CategoryConfig, "variable reference with no value and no default"},
	{"MCPG-U001", SeverityError, CategoryUnicode, "Unicode tag characters (hidden ASCII)"},
	{"MCPG-U002", SeverityError, CategoryUnicode, "bidi override, embedding or isolate controls"},
	{"MCPG-U003", SeverityWarning, CategoryUnicode, "zero-width or other invisible characters"},
	{"MCPG-U004", SeverityError, CategoryUnicode, "data encoded in variation selectors"},
	{"MCPG-U005", SeverityError, CategoryUnicode, "ANSI escape sequences or control characters"},
	{"MCPG-U006", SeverityWarning, CategoryUnicode, "confusable or mixed-script identifier"},
	{"MCPG-U007", SeverityNote, CategoryUnicode, "private-use or unassigned code points"},
	{"MCPG-A001", SeverityError, CategoryAnnotations, "readOnlyHint on a tool that writes, deletes, executes or sends"},
	{"MCPG-A002", SeverityError, CategoryAnnotations, "destructiveHint false on a tool that deletes or overwrites"},
	{"MCPG-A003", SeverityWarning, CategoryAnnotations, "openWorldHint false on a tool that reaches the network"},
	{"MCPG-A004", SeverityWarning, CategoryAnnotations, "idempotentHint on a tool that creates, appends or sends"},
	{"MCPG-A005", SeverityWarning, CategoryAnnotations, "title safer than the name, or contradictory annotations"},
	{"MCPG-T001", SeverityError, CategoryTool, "hidden instructions in a tool description or schema"},
	{"MCPG-T002", SeverityWarning, CategoryTool, "tool name shadows a built-in or another server's tool"},
	{"MCPG-T003", SeverityError, CategoryTool, "tool definition changed since it was pinned"},
	{"MCPG-T004", SeverityWarning, CategoryTool, "description over 2 KB or whitespace padding"},
	{"MCPG-T005", SeverityWarning, CategoryTool, "tool name outside [A-Za-z0-9_.-]{1,128}"},
	{"MCPG-I001", SeverityError, CategoryIDE, "IDE server offers a tool outside the IDE allowlist"},
}

// Catalog returns the shipped rules in documentation order.
func Catalog() []Rule { return catalog[:] }

// LookupRule returns the catalog entry for id. Unknown ids (custom Rego rules)
// get ok == false and a zero Rule.
func LookupRule(id string) (Rule, bool) {
	for _, r := range catalog {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}
