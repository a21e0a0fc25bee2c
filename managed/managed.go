package managed

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// Document kinds: where a settings document comes from.
const (
	KindManaged       = "managed-settings" // managed-settings.json
	KindManagedDropIn = "managed-drop-in"  // managed-settings.d/*.json
	KindRemote        = "remote-settings"  // ~/.claude/remote-settings.json
	KindUser          = "user-settings"    // ~/.claude/settings.json
	KindProject       = "project-settings" // <project>/.claude/settings.json
	KindLocal         = "local-settings"   // <project>/.claude/settings.local.json
	KindPolicyFile    = "policy-file"      // --policy FILE.json
	KindManagedMCP    = "managed-mcp"      // managed-mcp.json
)

// DefaultDir returns Claude Code's managed directory for an operating system
// (docs/claude-code.md §1.1).
func DefaultDir(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// Document is one settings document that parsed as a JSON object.
type Document struct {
	Path string
	Kind string
	Root *jsonc.Value
}

// IsManaged reports whether the document is an administrator's (managed
// settings, drop-in or remote settings).
func (d *Document) IsManaged() bool {
	return d.Kind == KindManaged || d.Kind == KindManagedDropIn || d.Kind == KindRemote
}

// Get returns the member key of the document, or nil.
func (d *Document) Get(key string) *jsonc.Member {
	if d == nil {
		return nil
	}
	return d.Root.Member(key)
}

// Loc returns the location of a member's value in the document.
func (d *Document) Loc(m *jsonc.Member) reports.Location {
	if m == nil {
		return reports.Location{Path: d.Path}
	}
	return cfgfile.Loc(d.Path, jsonc.Pointer(m.Key), m.KeyPos)
}

// Broken is a managed settings document that is not a JSON object. Claude Code
// refuses to run at all while one exists (§2.5).
type Broken struct {
	Path  string
	Error reports.FileError
}

// MCPFile is managed-mcp.json. Its mere existence gives it exclusive control
// over file-defined servers, even when it does not parse (§4.3).
type MCPFile struct {
	Path  string
	Root  *jsonc.Value       // nil when the file did not parse
	Error *reports.FileError // why it did not parse or could not be read
}

// Dir is everything read from the managed directory.
type Dir struct {
	Path      string
	Documents []*Document // managed-settings.json first, then drop-ins in name order
	Broken    []Broken
	MCP       *MCPFile // nil when managed-mcp.json does not exist
	// Ignored lists files in the directory that Claude Code does not read
	// (drop-ins with other extensions or a leading dot).
	Ignored []string
	Errors  []reports.FileError
}

// LoadDir reads the managed directory through fsys (nil: the machine's). A
// missing directory is not an error.
func LoadDir(fsys cfgfile.FS, dir string) *Dir {
	if fsys == nil {
		fsys = cfgfile.OS{}
	}
	d := &Dir{Path: dir}
	if dir == "" {
		return d
	}
	d.loadSettings(fsys, filepath.Join(dir, "managed-settings.json"), KindManaged)
	dropDir := filepath.Join(dir, "managed-settings.d")
	entries, err := fsys.ReadDir(dropDir)
	if err != nil && !os.IsNotExist(err) {
		if fi, serr := fsys.Stat(dropDir); serr == nil && !fi.IsDir() {
			d.Errors = append(d.Errors, reports.FileError{Path: dropDir, Message: "is not a directory; Claude Code reads no drop-ins from it"})
		} else {
			d.Errors = append(d.Errors, reports.FileError{Path: dropDir, Message: "cannot list drop-ins: " + err.Error()})
		}
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names) // Claude Code reads drop-ins in sorted name order (§4.1)
	for _, name := range names {
		p := filepath.Join(dropDir, name)
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			d.Ignored = append(d.Ignored, p)
			continue
		}
		d.loadSettings(fsys, p, KindManagedDropIn)
	}
	mcpPath := filepath.Join(dir, "managed-mcp.json")
	data, exists, ferr := fsys.ReadFile(mcpPath)
	if exists {
		d.MCP = &MCPFile{Path: mcpPath, Error: ferr}
		if ferr == nil {
			root, errs := cfgfile.ParseJSON(mcpPath, data, false)
			if root != nil && root.Kind != jsonc.Object {
				errs = append(errs, reports.FileError{Path: mcpPath, Line: root.Pos.Line, Column: root.Pos.Col,
					Message: "managed-mcp.json must hold a JSON object, not " + root.Kind.String()})
				root = nil
			}
			d.MCP.Root = root
			for i := range errs {
				if d.MCP.Error == nil && root == nil {
					d.MCP.Error = &errs[i]
				}
			}
			d.Errors = append(d.Errors, errs...)
		} else {
			d.Errors = append(d.Errors, *ferr)
		}
	}
	return d
}

func (d *Dir) loadSettings(fsys cfgfile.FS, path, kind string) {
	doc, broken, exists, errs := LoadSettings(fsys, path, kind)
	if !exists {
		return
	}
	d.Errors = append(d.Errors, errs...)
	if broken != nil {
		d.Broken = append(d.Broken, *broken)
		return
	}
	if doc != nil {
		d.Documents = append(d.Documents, doc)
	}
}

// LoadSettings reads one settings document through fsys (nil: the
// machine's). A document that exists but is not a JSON object (invalid
// JSON, an array, unreadable) comes back as broken.
func LoadSettings(fsys cfgfile.FS, path, kind string) (doc *Document, broken *Broken, exists bool, errs []reports.FileError) {
	if fsys == nil {
		fsys = cfgfile.OS{}
	}
	data, exists, ferr := fsys.ReadFile(path)
	if !exists {
		return nil, nil, false, nil
	}
	if ferr != nil {
		return nil, &Broken{Path: path, Error: *ferr}, true, []reports.FileError{*ferr}
	}
	if len(data) == 0 {
		// Observed: Claude Code reads a zero-byte settings document as {}.
		return &Document{Path: path, Kind: kind, Root: &jsonc.Value{Kind: jsonc.Object, Pos: jsonc.Pos{Line: 1, Col: 1}}}, nil, true, nil
	}
	root, errs := cfgfile.ParseJSON(path, data, false)
	if root == nil {
		return nil, &Broken{Path: path, Error: errs[len(errs)-1]}, true, errs
	}
	if root.Kind != jsonc.Object {
		fe := reports.FileError{Path: path, Line: root.Pos.Line, Column: root.Pos.Col,
			Message: "settings document must be a JSON object, not " + root.Kind.String()}
		return nil, &Broken{Path: path, Error: fe}, true, append(errs, fe)
	}
	return &Document{Path: path, Kind: kind, Root: root}, nil, true, errs
}
