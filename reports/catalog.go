package reports

import "strings"

// Rule describes one rule of the catalog (SPEC §6): what every renderer and
// docs/rules.md say about it.
type Rule struct {
	ID       string
	Severity Severity
	Category string
	Title    string
	// Name is a PascalCase name (SARIF reportingDescriptor.name).
	Name string
	// Description says what the rule finds; Fix how to resolve it.
	Description string
	Fix         string
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
	{ID: "MCPG-P001", Severity: SeverityError, Category: CategoryPolicy, Title: "server denied by policy",
		Name:        "ServerDeniedByPolicy",
		Description: "A deny-list entry (serverName, serverCommand or serverUrl in deniedMcpServers) or a custom deny rule matches the server, so Claude Code refuses to load it; other clients do not enforce the policy themselves.",
		Fix:         "Remove the server from the configuration. If it should run, change the organisation's policy (managed settings or the custom rule), not the client file."},
	{ID: "MCPG-P002", Severity: SeverityError, Category: CategoryPolicy, Title: "server not on the allowlist",
		Name:        "ServerNotAllowlisted",
		Description: "An allowlist (allowedMcpServers) exists and no entry admits the server, or the allowlist is empty.",
		Fix:         "Ask the policy owners for an allowlist entry that matches the server exactly (serverCommand for stdio servers, serverUrl for remote ones), or remove the server."},
	{ID: "MCPG-P003", Severity: SeverityError, Category: CategoryPolicy, Title: "managed policy file invalid: the client ignores it or fails",
		Name:        "ManagedPolicyInvalid",
		Description: "A managed policy file is present but invalid, so the client silently ignores it (fails open) or refuses to start.",
		Fix:         "Fix the managed file at the reported position so that it parses and validates; until then the policy it holds is not enforced."},
	{ID: "MCPG-P004", Severity: SeverityWarning, Category: CategoryPolicy, Title: "server admitted by name only",
		Name:        "AdmittedByNameOnly",
		Description: "A stdio server is admitted by a serverName entry while the allowlist has no serverCommand entries: any command can be given an allowlisted name.",
		Fix:         "Add serverCommand entries (the exact argv) for the stdio servers you allow; once one exists, name entries no longer admit stdio servers."},
	{ID: "MCPG-P005", Severity: SeverityWarning, Category: CategoryPolicy, Title: "serverUrl pattern broader than it looks",
		Name:        "BroadServerUrlPattern",
		Description: "A serverUrl pattern whose host wildcard can be satisfied through the path, query, port or userinfo, so it admits URLs on other hosts.",
		Fix:         "Anchor the pattern: spell out the scheme and host, end the host with '/', and keep wildcards out of the host part (the evidence shows a URL it admits)."},
	{ID: "MCPG-P006", Severity: SeverityWarning, Category: CategoryPolicy, Title: "allowlist can be widened by a non-managed settings file",
		Name:        "AllowlistWidenedBySettings",
		Description: "The allowlist is not restricted to managed settings (no allowManagedMcpServersOnly), so a user, project or local settings file can widen it.",
		Fix:         "Set allowManagedMcpServersOnly: true in the managed settings."},
	{ID: "MCPG-P007", Severity: SeverityWarning, Category: CategoryPolicy, Title: "allowlisted command with an injectable env",
		Name:        "InjectableEnvOnAllowlistedCommand",
		Description: "An allowlisted command runs with an env variable that loads code (NODE_OPTIONS, LD_PRELOAD, PYTHONPATH, ...), which serverCommand matching does not look at.",
		Fix:         "Remove the variable from the server's env, or deny servers that set it."},
	{ID: "MCPG-P008", Severity: SeverityWarning, Category: CategoryPolicy, Title: "wrapping changes Claude Code's verdict",
		Name:        "WrapperChangesClaudeVerdict",
		Description: "The server runs through mcpguard proxy, and Claude Code matches serverCommand entries against the wrapper's command line, not the wrapped one: an allowlist that admits the wrapped command refuses the wrapper (warning), or a deny entry for the wrapped command no longer matches and Claude Code loads a denied server (error).",
		Fix:         "For a refused wrapper, add a serverCommand entry that spells the whole wrapper command line (the message gives it) or unwrap the server; for an evaded deny, remove the server or deny the wrapped command line too."},
	{ID: "MCPG-C001", Severity: SeverityError, Category: CategoryConfig, Title: "plaintext secret in a server entry",
		Name:        "PlaintextSecret",
		Description: "A credential is written in plain text in the env, headers, args or url of a server entry.",
		Fix:         "Move the value out of the file: reference it (${VAR}, an env file outside the repository, a secret store), then rotate the exposed credential."},
	{ID: "MCPG-C002", Severity: SeverityWarning, Category: CategoryConfig, Title: "unpinned package launcher",
		Name:        "UnpinnedPackageLauncher",
		Description: "A package launcher without a pinned version (npx -y pkg, uvx pkg, pipx run pkg, a :latest image) fetches whatever is newest on every start.",
		Fix:         "Pin an exact version (pkg@1.2.3, pkg==1.2.3) or an image digest (image@sha256:...)."},
	{ID: "MCPG-C003", Severity: SeverityWarning, Category: CategoryConfig, Title: "cleartext transport to a non-loopback host",
		Name:        "CleartextTransport",
		Description: "Plain http:// or ws:// to a host that is not this machine: traffic and credentials cross the network unencrypted.",
		Fix:         "Use https:// or wss://, or reach the server over loopback."},
	{ID: "MCPG-C004", Severity: SeverityError, Category: CategoryConfig, Title: "download-and-execute or shell pipeline in the command",
		Name:        "DownloadAndExecute",
		Description: "The command downloads code and executes it (curl ... | sh) or runs a shell pipeline (bash -c).",
		Fix:         "Install a pinned, reviewed release of the server and start its executable directly."},
	{ID: "MCPG-C005", Severity: SeverityNote, Category: CategoryConfig, Title: "deprecated SSE transport",
		Name:        "DeprecatedSSETransport",
		Description: "The server uses the deprecated HTTP+SSE transport.",
		Fix:         "Switch to Streamable HTTP (type \"http\") when the server supports it."},
	{ID: "MCPG-C006", Severity: SeverityWarning, Category: CategoryConfig, Title: "inert or invalid entry",
		Name:        "InertOrInvalidEntry",
		Description: "An entry the client ignores or rejects: mcpServers inside settings.json, a remote entry without type, a reserved name, ...",
		Fix:         "Move the entry to the file the client reads, or correct it as the message says."},
	{ID: "MCPG-C007", Severity: SeverityWarning, Category: CategoryConfig, Title: "variable reference with no value and no default",
		Name:        "UnresolvedVariable",
		Description: "A ${VAR} reference with no value and no default: the client keeps the literal text or fails to start the server.",
		Fix:         "Set the variable where the client runs, or give it a default (${VAR:-value})."},
	{ID: "MCPG-C008", Severity: SeverityWarning, Category: CategoryConfig, Title: "key written twice in one object",
		Name:        "DuplicateKey",
		Description: "A key is written more than once in one object of a JSON configuration file. The client keeps the last value, while a person reading the file or a diff of it sees the first: {\"a\": {\"command\": \"safe\"}, \"a\": {\"command\": \"evil\"}} runs evil.",
		Fix:         "Keep one occurrence of the key, with the value that is meant."},
	{ID: "MCPG-U001", Severity: SeverityError, Category: CategoryUnicode, Title: "Unicode tag characters (hidden ASCII)",
		Name:        "UnicodeTagCharacters",
		Description: "Unicode tag characters hide ASCII text from people while models read it; evidence.decoded holds the hidden text.",
		Fix:         "Remove the characters and treat the source as hostile until the hidden text is explained."},
	{ID: "MCPG-U002", Severity: SeverityError, Category: CategoryUnicode, Title: "bidi override, embedding or isolate controls",
		Name:        "BidiControls",
		Description: "Bidi override, embedding or isolate controls make text display in a different order than it is read.",
		Fix:         "Remove the controls; right-to-left text needs no overrides."},
	{ID: "MCPG-U003", Severity: SeverityWarning, Category: CategoryUnicode, Title: "zero-width or other invisible characters",
		Name:        "InvisibleCharacters",
		Description: "Zero-width or other invisible characters outside legitimate use (emoji sequences, Persian ZWNJ).",
		Fix:         "Remove the invisible characters."},
	{ID: "MCPG-U004", Severity: SeverityError, Category: CategoryUnicode, Title: "data encoded in variation selectors",
		Name:        "VariationSelectorData",
		Description: "Data encoded in variation selectors; evidence.decoded holds it.",
		Fix:         "Remove the variation selectors and treat the source as hostile."},
	{ID: "MCPG-U005", Severity: SeverityError, Category: CategoryUnicode, Title: "ANSI escape sequences or control characters",
		Name:        "ControlCharacters",
		Description: "ANSI escape sequences or other control characters, which can rewrite what a terminal shows.",
		Fix:         "Remove the control characters."},
	{ID: "MCPG-U006", Severity: SeverityWarning, Category: CategoryUnicode, Title: "confusable or mixed-script identifier",
		Name:        "ConfusableIdentifier",
		Description: "A confusable or mixed-script identifier (Unicode TR39 skeleton): it looks like a different name.",
		Fix:         "Use a single-script name, and check that the server is the one you meant."},
	{ID: "MCPG-U007", Severity: SeverityNote, Category: CategoryUnicode, Title: "private-use or unassigned code points",
		Name:        "PrivateUseOrUnassigned",
		Description: "Private-use or unassigned code points, which render unpredictably and can carry data.",
		Fix:         "Remove the code points."},
	{ID: "MCPG-A001", Severity: SeverityError, Category: CategoryAnnotations, Title: "readOnlyHint on a tool that writes, deletes, executes or sends",
		Name:        "ReadOnlyHintOnWritingTool",
		Description: "readOnlyHint: true on a tool that writes, deletes, executes or sends; clients may run it without asking.",
		Fix:         "Fix the annotation in the server (readOnlyHint: false), or do not use the server."},
	{ID: "MCPG-A002", Severity: SeverityError, Category: CategoryAnnotations, Title: "destructiveHint false on a tool that deletes or overwrites",
		Name:        "NonDestructiveHintOnDestructiveTool",
		Description: "destructiveHint: false on a tool that deletes, drops or overwrites.",
		Fix:         "Fix the annotation in the server (destructiveHint: true), or do not use the server."},
	{ID: "MCPG-A003", Severity: SeverityWarning, Category: CategoryAnnotations, Title: "openWorldHint false on a tool that reaches the network",
		Name:        "ClosedWorldHintOnNetworkTool",
		Description: "openWorldHint: false on a tool that fetches URLs or sends messages.",
		Fix:         "Fix the annotation in the server (openWorldHint: true), or do not use the server."},
	{ID: "MCPG-A004", Severity: SeverityWarning, Category: CategoryAnnotations, Title: "idempotentHint on a tool that creates, appends or sends",
		Name:        "IdempotentHintOnCreatingTool",
		Description: "idempotentHint: true on a tool that creates, appends or sends.",
		Fix:         "Fix the annotation in the server (idempotentHint: false), or do not use the server."},
	{ID: "MCPG-A005", Severity: SeverityWarning, Category: CategoryAnnotations, Title: "title safer than the name, or contradictory annotations",
		Name:        "MisleadingToolAnnotations",
		Description: "The tool's title sounds safer than its name, or its annotations contradict each other.",
		Fix:         "Make the title and annotations describe what the tool does, or do not use the server."},
	{ID: "MCPG-T001", Severity: SeverityError, Category: CategoryTool, Title: "hidden instructions in a tool description or schema",
		Name:        "HiddenInstructions",
		Description: "Instructions aimed at the model in a tool description or schema (<IMPORTANT> blocks, \"do not tell the user\", reading ~/.ssh, ...).",
		Fix:         "Do not use the server; report the tool to its maintainers."},
	{ID: "MCPG-T002", Severity: SeverityWarning, Category: CategoryTool, Title: "tool name shadows a built-in or another server's tool",
		Name:        "ToolNameShadowing",
		Description: "A tool name shadows a built-in tool or another server's tool, so calls can reach the wrong server.",
		Fix:         "Rename or disable the tool, or remove one of the servers."},
	{ID: "MCPG-T003", Severity: SeverityError, Category: CategoryTool, Title: "tool definition changed since it was pinned",
		Name:        "ToolDefinitionChanged",
		Description: "The tool definition changed since it was pinned (a rug pull, or an unreviewed update).",
		Fix:         "Review the change; pin the new definition only if it is expected."},
	{ID: "MCPG-T004", Severity: SeverityWarning, Category: CategoryTool, Title: "description over 2 KB or whitespace padding",
		Name:        "OversizedOrPaddedDescription",
		Description: "A description over 2 KB (Claude Code truncates it) or padded with whitespace to push text out of view.",
		Fix:         "Shorten the description and remove the padding."},
	{ID: "MCPG-T005", Severity: SeverityWarning, Category: CategoryTool, Title: "tool name outside [A-Za-z0-9_.-]{1,128}, or a twin of another tool's name",
		Name:        "InvalidToolName",
		Description: "A tool name outside [A-Za-z0-9_.-]{1,128}, or one that reads as another tool's name after NFKC, case folding and the UTS #39 confusable skeleton.",
		Fix:         "Rename the tool."},
	{ID: "MCPG-I001", Severity: SeverityError, Category: CategoryIDE, Title: "IDE server offers a tool outside the IDE allowlist",
		Name:        "IDEToolOutsideAllowlist",
		Description: "An IDE server offers a tool outside Claude Code's IDE allowlist (executeCode, getDiagnostics).",
		Fix:         "Disable the extra tool in the IDE extension, or run the IDE server through mcpguard proxy --ide."},
}

// ruleIndex is id's position in the catalog, or -1. It compares ids in
// place: ranging over the catalog by value copied every entry it passed
// (seven strings each), and a scan looks a rule up for every finding.
func ruleIndex(id string) int {
	for i := range catalog {
		if catalog[i].ID == id {
			return i
		}
	}
	return -1
}

// RuleClass returns the severity and category of rule id, as LookupRule
// would, without copying its entry or describing a custom rule: what a
// finding records of its rule.
func RuleClass(id string) (Severity, string) {
	if i := ruleIndex(id); i >= 0 {
		return catalog[i].Severity, catalog[i].Category
	}
	return "", CategoryCustom
}

// Catalog returns the shipped rules in documentation order.
func Catalog() []Rule { return catalog[:] }

// LookupRule returns the catalog entry for id. Unknown ids (custom Rego
// rules) get ok == false and a Rule that says so.
func LookupRule(id string) (Rule, bool) {
	if i := ruleIndex(id); i >= 0 {
		return catalog[i], true
	}
	return Rule{ID: id, Category: CategoryCustom, Name: id,
		Description: "Reported by a custom policy rule (--policy).",
		Fix:         "See the policy that defines " + id + "."}, false
}
