package reports

import (
	"strconv"
	"strings"
)

// Introspection statuses (docs/report-schema.md "Introspection").
const (
	IntrospectionOK      = "ok"
	IntrospectionTimeout = "timeout"
	IntrospectionError   = "error"
	IntrospectionSkipped = "skipped"
)

// Introspection is what `scan --introspect` learned by starting a server
// and asking it what it offers. Every string in it went through the
// redactor; descriptions and titles are shown with hidden characters
// removed (the findings carry the escaped evidence).
type Introspection struct {
	// Status is ok, timeout, error or skipped.
	Status string `json:"status"`
	// Reason says why a server was skipped or what went wrong; empty when ok.
	Reason string `json:"reason,omitempty"`
	// ResourceMetadata is the OAuth protected-resource metadata URL of a
	// server that answered "authorization required".
	ResourceMetadata string `json:"resource_metadata,omitempty"`
	// ServerInfo is the server's name and version from initialize.
	ServerInfo *IntrospectedInfo `json:"server_info,omitempty"`
	// ProtocolVersion is the version both sides agreed on.
	ProtocolVersion string `json:"protocol_version,omitempty"`
	// Capabilities is the server's capabilities object as it sent it.
	Capabilities map[string]any `json:"capabilities,omitempty"`
	// Instructions are the server's instructions for the model.
	Instructions string `json:"instructions,omitempty"`
	// Tools, Prompts, Resources and ResourceTemplates are what the server
	// lists, in its order.
	Tools             []IntrospectedTool             `json:"tools"`
	Prompts           []IntrospectedPrompt           `json:"prompts,omitempty"`
	Resources         []IntrospectedResource         `json:"resources,omitempty"`
	ResourceTemplates []IntrospectedResourceTemplate `json:"resource_templates,omitempty"`
	// DurationMS is the time from start to the last answer.
	DurationMS int64 `json:"duration_ms"`
}

// IntrospectedInfo is an initialize result's serverInfo.
type IntrospectedInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// IntrospectedTool is one tool of a server's tools/list.
type IntrospectedTool struct {
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description,omitempty"`
	Annotations map[string]any `json:"annotations,omitempty"`
	InputSchema any            `json:"input_schema,omitempty"`
	// SHA256 is the tool's pin hash (mcpguard pins): equal definitions
	// have equal hashes across hosts and runs.
	SHA256 string `json:"sha256,omitempty"`
}

// IntrospectedPrompt is one prompt of prompts/list.
type IntrospectedPrompt struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// IntrospectedResource is one resource of resources/list.
type IntrospectedResource struct {
	Name        string `json:"name"`
	URI         string `json:"uri"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
}

// IntrospectedResourceTemplate is one template of resources/templates/list.
type IntrospectedResourceTemplate struct {
	Name        string `json:"name"`
	URITemplate string `json:"uri_template"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
}

// summaryCells are an introspection as the tables show it: the counts of
// tools, prompts and resources and the server's name and version when it
// answered ("" otherwise), and the reason with the OAuth metadata URL.
func (in *Introspection) summaryCells() (tools, prompts, resources, server, note string) {
	if in.Status == IntrospectionOK {
		tools, prompts, resources = strconv.Itoa(len(in.Tools)), strconv.Itoa(len(in.Prompts)), strconv.Itoa(len(in.Resources))
		if in.ServerInfo != nil {
			server = strings.TrimSpace(in.ServerInfo.Name + " " + in.ServerInfo.Version)
		}
	}
	note = in.Reason
	if in.ResourceMetadata != "" {
		note += " (" + in.ResourceMetadata + ")"
	}
	return tools, prompts, resources, server, note
}
