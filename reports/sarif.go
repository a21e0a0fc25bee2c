package reports

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// SARIF 2.1.0 as hand-written structs (no SARIF dependency): only the parts
// mcpguard fills. Field order follows the specification's examples; every
// array that consumers iterate is written as [] rather than null.

const (
	sarifSchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	sarifVersion   = "2.1.0"
	// sarifSrcRoot is the uriBaseId of paths under the working directory
	// (the repository in CI); run.originalUriBaseIds says where it was.
	sarifSrcRoot = "%SRCROOT%"
	// sarifFingerprintKey names the stable finding id in partialFingerprints.
	sarifFingerprintKey = "mcpguardFindingId/v1"
	informationURI      = "https://github.com/mcpguard/mcpguard"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	Invocations        []sarifInvocation                `json:"invocations,omitempty"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult                    `json:"results"`
	ColumnKind         string                           `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     sarifText          `json:"shortDescription"`
	FullDescription      sarifText          `json:"fullDescription"`
	Help                 sarifMultiformat   `json:"help"`
	HelpURI              string             `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
	Properties           sarifRuleProps     `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifMultiformat struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags []string `json:"tags"`
	// SecuritySeverity is GitHub code scanning's 0-10 score: it ranks alerts
	// of rules tagged "security" as critical, high, medium or low.
	SecuritySeverity string `json:"security-severity,omitempty"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions"`
	Properties          sarifResultProps   `json:"properties"`
}

type sarifResultProps struct {
	Category   string         `json:"category,omitempty"`
	ServerID   string         `json:"serverId,omitempty"`
	ServerName string         `json:"serverName,omitempty"`
	Client     string         `json:"client,omitempty"`
	Scope      string         `json:"scope,omitempty"`
	Project    string         `json:"project,omitempty"`
	Evidence   map[string]any `json:"evidence,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogicalLocation struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
}

type sarifSuppression struct {
	Kind          string         `json:"kind"`
	State         string         `json:"state"`
	Justification string         `json:"justification"`
	Location      *sarifLocation `json:"location,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                   `json:"executionSuccessful"`
	ExitCode                   int                    `json:"exitCode"`
	ExitCodeDescription        string                 `json:"exitCodeDescription,omitempty"`
	ToolExecutionNotifications []sarifNotification    `json:"toolExecutionNotifications"`
	WorkingDirectory           *sarifArtifactLocation `json:"workingDirectory,omitempty"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run: every
// catalog rule and every custom rule that reported something in
// tool.driver.rules, one result per finding (suppressed ones carry
// suppressions[]), and, when opts.Invocation is set, the exit code the
// command decided and the errors[] entries as tool execution notifications.
//
// Texts meant for people (messages, justifications) show control and bidi
// characters as escapes, as every other renderer does; properties.evidence
// keeps the report's data as it is.
func WriteSARIF(w io.Writer, r *Report, opts Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(buildSARIF(r, opts))
}

func buildSARIF(r *Report, opts Options) *sarifLog {
	version := strings.TrimPrefix(r.Tool.Version, "v")
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "mcpguard",
			Version:        version,
			InformationURI: informationURI,
			Rules:          []sarifRule{},
		}},
		Results:    make([]sarifResult, 0, len(r.Findings)),
		ColumnKind: "unicodeCodePoints",
	}
	if semver().MatchString(version) {
		run.Tool.Driver.SemanticVersion = version
	}
	if opts.WorkDir != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{
			sarifSrcRoot: {URI: dirURI(opts.WorkDir)},
		}
	}

	index := map[string]int{}
	addRule := func(rule Rule) {
		index[rule.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(rule))
	}
	for _, rule := range Catalog() {
		addRule(rule)
	}
	var custom []Rule
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if _, ok := index[f.Rule]; ok || seen[f.Rule] {
			continue
		}
		seen[f.Rule] = true
		custom = append(custom, Rule{ID: f.Rule, Severity: f.Severity, Category: f.Category, Title: "custom rule " + f.Rule})
	}
	sort.Slice(custom, func(i, j int) bool { return custom[i].ID < custom[j].ID })
	for _, rule := range custom {
		addRule(rule)
	}

	servers := make(map[string]*Server, len(r.Servers))
	for i := range r.Servers {
		servers[r.Servers[i].ID] = &r.Servers[i]
	}
	for _, f := range r.Findings {
		res := sarifResult{
			RuleID:              f.Rule,
			RuleIndex:           index[f.Rule],
			Level:               sarifLevel(f.Severity),
			Message:             sarifText{Text: oneLine(f.Message)},
			PartialFingerprints: map[string]string{sarifFingerprintKey: f.ID},
			Suppressions:        []sarifSuppression{},
			Properties:          sarifResultProps{Category: f.Category, ServerID: f.ServerID, Evidence: f.Evidence},
		}
		if loc := sarifLocationOf(opts.WorkDir, f.Location.Path, f.Location.Line, f.Location.Column, f.Location.Pointer); loc != nil {
			res.Locations = []sarifLocation{*loc}
		}
		if s := servers[f.ServerID]; s != nil {
			res.Properties.ServerName, res.Properties.Client = s.Name, s.Client
			res.Properties.Scope, res.Properties.Project = s.Scope, s.Project
		}
		if s := f.Suppressed; s != nil {
			res.Suppressions = append(res.Suppressions, sarifSuppression{
				Kind:          "external",
				State:         "accepted",
				Justification: oneLine(s.Justification),
				Location:      sarifLocationOf(opts.WorkDir, s.Path, s.Line, s.Column, ""),
			})
		}
		run.Results = append(run.Results, res)
	}

	if inv := opts.Invocation; inv != nil {
		si := sarifInvocation{
			// A run that could not read every input did not succeed, even
			// though it reports on the rest; findings are a success.
			ExecutionSuccessful:        inv.ExitCode != 2,
			ExitCode:                   inv.ExitCode,
			ExitCodeDescription:        inv.ExitCodeDescription,
			ToolExecutionNotifications: []sarifNotification{},
		}
		if opts.WorkDir != "" {
			si.WorkingDirectory = &sarifArtifactLocation{URI: dirURI(opts.WorkDir)}
		}
		for _, e := range r.Errors {
			n := sarifNotification{Level: "error", Message: sarifText{Text: oneLine(e.Message)}}
			if loc := sarifLocationOf(opts.WorkDir, e.Path, e.Line, e.Column, ""); loc != nil {
				n.Locations = []sarifLocation{*loc}
			}
			si.ToolExecutionNotifications = append(si.ToolExecutionNotifications, n)
		}
		for _, nt := range inv.Notifications {
			n := sarifNotification{Level: sarifNotificationLevel(nt.Level), Message: sarifText{Text: oneLine(nt.Message)}}
			if loc := sarifLocationOf(opts.WorkDir, nt.Path, nt.Line, nt.Column, ""); loc != nil {
				n.Locations = []sarifLocation{*loc}
			}
			si.ToolExecutionNotifications = append(si.ToolExecutionNotifications, n)
		}
		run.Invocations = []sarifInvocation{si}
	}
	return &sarifLog{Schema: sarifSchemaURI, Version: sarifVersion, Runs: []sarifRun{run}}
}

// semver is Semantic Versioning 2.0.0 (with the leading v already removed),
// compiled for the first SARIF log rather than at every start.
var semver = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
})

func sarifRuleFor(rule Rule) sarifRule {
	h := helpFor(rule)
	sr := sarifRule{
		ID:               rule.ID,
		Name:             h.Name,
		ShortDescription: sarifText{Text: rule.Title},
		FullDescription:  sarifText{Text: h.Description},
		Help: sarifMultiformat{
			Text:     h.Fix,
			Markdown: "**Fix:** " + markdownText(h.Fix),
		},
		DefaultConfiguration: sarifConfiguration{Level: sarifLevel(rule.Severity)},
		Properties: sarifRuleProps{
			Tags:             []string{"security"},
			SecuritySeverity: securitySeverity(rule.Severity),
		},
	}
	if rule.Category != "" {
		sr.Properties.Tags = append(sr.Properties.Tags, rule.Category)
	}
	if _, ok := LookupRule(rule.ID); ok {
		sr.HelpURI = rule.HelpURI()
		sr.Help.Markdown += "\n\n[Documentation](" + sr.HelpURI + ")"
	}
	return sr
}

func sarifLevel(s Severity) string {
	switch s {
	case SeverityError, SeverityWarning, SeverityNote:
		return string(s)
	}
	return "warning"
}

func sarifNotificationLevel(s string) string {
	switch s {
	case "error", "warning", "note":
		return s
	}
	return "note"
}

// securitySeverity maps severities onto GitHub's scale: error is high,
// warning medium, note low.
func securitySeverity(s Severity) string {
	switch s {
	case SeverityError:
		return "8.0"
	case SeverityWarning:
		return "5.0"
	case SeverityNote:
		return "2.0"
	}
	return ""
}

// sarifLocationOf builds a location; nil without a path.
func sarifLocationOf(workDir, path string, line, col int, pointer string) *sarifLocation {
	if path == "" {
		return nil
	}
	loc := &sarifLocation{PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: artifactLocation(workDir, path)}}
	if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
		if col > 0 {
			loc.PhysicalLocation.Region.StartColumn = col
		}
	}
	if pointer != "" {
		loc.LogicalLocations = []sarifLogicalLocation{{Name: lastPointerToken(pointer), FullyQualifiedName: pointer}}
	}
	return loc
}

// artifactLocation writes a path under the working directory as a relative
// URI against %SRCROOT% (what code-scanning services resolve against the
// checkout), and any other absolute path as a file:// URI.
func artifactLocation(workDir, p string) sarifArtifactLocation {
	if rel, ok := relPath(workDir, p); ok {
		return sarifArtifactLocation{URI: relativeURI(rel), URIBaseID: sarifSrcRoot}
	}
	if !filepath.IsAbs(p) {
		return sarifArtifactLocation{URI: relativeURI(filepath.ToSlash(p)), URIBaseID: sarifSrcRoot}
	}
	return sarifArtifactLocation{URI: fileURI(p)}
}

// relativeURI percent-encodes a slash-separated relative path as a URI
// reference. A colon in the first segment would read as a scheme, so such a
// path gets a "./" prefix.
func relativeURI(rel string) string {
	s := (&url.URL{Path: rel}).EscapedPath()
	if first, _, _ := strings.Cut(s, "/"); strings.Contains(first, ":") {
		s = "./" + s
	}
	return s
}

// fileURI is the file:// URI of an absolute path (file:///C:/x on Windows).
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// dirURI is the file:// URI of a directory, with the trailing slash SARIF
// requires of a base URI.
func dirURI(dir string) string {
	u := fileURI(dir)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// lastPointerToken returns the unescaped last reference token of an RFC 6901
// JSON pointer.
func lastPointerToken(ptr string) string {
	tok := ptr[strings.LastIndexByte(ptr, '/')+1:]
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}
