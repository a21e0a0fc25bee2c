package reports

// Component types: what kind of thing a server of the inventory is. A
// Claude Desktop extension (.mcpb) and a Claude Code plugin server are
// installed as packages of their own, with a version and an author, rather
// than written into a client's configuration file.
const (
	ComponentServer    = "mcp-server"
	ComponentExtension = "claude-desktop-extension"
	ComponentPlugin    = "claude-code-plugin"
)

// ComponentType returns the component type of a server, from its scope (so
// that reports written before the type existed read the same).
func ComponentType(s *Server) string {
	switch s.Scope {
	case "extension":
		return ComponentExtension
	case "plugin":
		return ComponentPlugin
	}
	return ComponentServer
}

// ExtensionInfo is what a Claude Desktop extension's manifest says about
// the package (details.extension): its id, name, version and author.
type ExtensionInfo struct {
	ID, Name, Version, Author string
}

// Extension returns the package facts of an extension server; ok is false
// for any other server.
func Extension(s *Server) (ExtensionInfo, bool) {
	if s.Scope != "extension" {
		return ExtensionInfo{}, false
	}
	d, _ := s.Details["extension"].(map[string]any)
	str := func(k string) string {
		v, _ := d[k].(string)
		return v
	}
	info := ExtensionInfo{ID: str("extension_id"), Name: str("display_name"), Version: str("version"), Author: str("author")}
	if info.Name == "" {
		info.Name = str("name")
	}
	if info.ID == "" {
		info.ID = s.Name
	}
	if info.Name == "" {
		info.Name = info.ID
	}
	return info, true
}
