package reports

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// CycloneDX renders the MCP inventory as a CycloneDX 1.6 BOM: a remote
// server is a service with its endpoint; a server launched from a package
// (npx, uvx, pipx, docker) is a component with its package URL, and the
// version when it is pinned; any other local server is an application
// component named by its program. Client, scope, status, verdict and where
// it is configured are mcpguard:* properties. Secrets never appear: the
// command lines and URLs are the report's, redacted.

// The BOM is written from mcpguard's own types: the CycloneDX 1.6 JSON
// objects it uses, field for field as github.com/CycloneDX/cyclonedx-go
// declares them (so the output is what that library wrote before). Linking
// the library made every command, the pre-commit scan included, initialise
// it and the encoding/gob it imports for a format few runs write
// (docs/performance.md). The tests validate every
// BOM against the official schema and decode it with cyclonedx-go.

type cdxBOM struct {
	JSONSchema   string          `json:"$schema,omitempty"`
	BOMFormat    string          `json:"bomFormat"`
	SpecVersion  string          `json:"specVersion"`
	SerialNumber string          `json:"serialNumber,omitempty"`
	Version      int             `json:"version"`
	Metadata     *cdxMetadata    `json:"metadata,omitempty"`
	Components   *[]cdxComponent `json:"components,omitempty"`
	Services     *[]cdxService   `json:"services,omitempty"`
}

type cdxMetadata struct {
	Timestamp  string         `json:"timestamp,omitempty"`
	Tools      *cdxTools      `json:"tools,omitempty"`
	Component  *cdxComponent  `json:"component,omitempty"`
	Properties *[]cdxProperty `json:"properties,omitempty"`
}

// cdxTools is the tools object of CycloneDX 1.5 and later.
type cdxTools struct {
	Components *[]cdxComponent `json:"components,omitempty"`
}

type cdxComponent struct {
	BOMRef      string         `json:"bom-ref,omitempty"`
	Type        string         `json:"type"`
	Group       string         `json:"group,omitempty"`
	Name        string         `json:"name"`
	Version     string         `json:"version,omitempty"`
	Description string         `json:"description,omitempty"`
	PackageURL  string         `json:"purl,omitempty"`
	Properties  *[]cdxProperty `json:"properties,omitempty"`
}

type cdxService struct {
	BOMRef               string         `json:"bom-ref,omitempty"`
	Name                 string         `json:"name"`
	Endpoints            *[]string      `json:"endpoints,omitempty"`
	Authenticated        *bool          `json:"authenticated,omitempty"`
	CrossesTrustBoundary *bool          `json:"x-trust-boundary,omitempty"`
	Properties           *[]cdxProperty `json:"properties,omitempty"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Component types of CycloneDX.
const (
	cdxApplication = "application"
	cdxContainer   = "container"
	cdxDevice      = "device"
)

// WriteCycloneDX writes one machine's report as a BOM.
func WriteCycloneDX(w io.Writer, r *Report) error {
	rows := make([]FleetServer, len(r.Servers))
	for i, s := range r.Servers {
		if s.User == "" {
			s.User = r.Host.User
		}
		rows[i] = FleetServer{Server: &s, Host: r.Host.Hostname}
	}
	meta := &cdxComponent{Type: cdxDevice, Name: nonEmpty(r.Host.Hostname, "unknown-host"), BOMRef: "host"}
	props := []cdxProperty{{Name: "mcpguard:os", Value: r.Host.OS}, {Name: "mcpguard:user", Value: r.Host.User},
		{Name: "mcpguard:policy-revision", Value: r.Policy.Revision}}
	return writeBOM(w, r.Tool.Version, r.GeneratedAt, meta, props, rows, false)
}

func writeFleetCycloneDX(w io.Writer, f *Fleet) error {
	meta := &cdxComponent{Type: cdxApplication, Name: "mcp-fleet", BOMRef: "fleet",
		Description: fmt.Sprintf("MCP servers of %d hosts", len(f.Hosts))}
	props := []cdxProperty{{Name: "mcpguard:hosts", Value: strconv.Itoa(len(f.Hosts))}}
	return writeBOM(w, f.Tool.Version, f.GeneratedAt, meta, props, f.Servers, true)
}

func writeBOM(w io.Writer, version, at string, meta *cdxComponent, props []cdxProperty, servers []FleetServer, fleet bool) error {
	bom := &cdxBOM{
		JSONSchema:  "http://cyclonedx.org/schema/bom-1.6.schema.json",
		BOMFormat:   "CycloneDX",
		SpecVersion: "1.6",
		Version:     1,
	}
	tools := []cdxComponent{{Type: cdxApplication, Name: "mcpguard", Version: version}}
	metaProps := nonEmptyProps(props)
	bom.Metadata = &cdxMetadata{Timestamp: at, Tools: &cdxTools{Components: &tools}, Component: meta, Properties: &metaProps}
	var components []cdxComponent
	var services []cdxService
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", at, meta.Name)
	for _, s := range servers {
		ref := s.ID
		if fleet {
			ref = s.Host + "/" + s.ID
		}
		fmt.Fprintf(h, "%s\x00", ref)
		props := serverProperties(&s, fleet)
		if s.URL != "" && s.Transport != "stdio" {
			endpoints := []string{s.URL}
			svc := cdxService{BOMRef: ref, Name: s.Name, Endpoints: &endpoints, Properties: &props}
			if auth := hasAuthHeader(s.HeaderKeys); auth {
				svc.Authenticated = &auth
			}
			crosses := !loopbackURL(s.URL)
			svc.CrossesTrustBoundary = &crosses
			services = append(services, svc)
			continue
		}
		c := cdxComponent{BOMRef: ref, Type: cdxApplication, Name: nonEmpty(s.Name, "server"), Properties: &props}
		if ext, ok := Extension(s.Server); ok {
			// The extension is the package, identified by its id (the
			// directory Claude Desktop installed it in), never by what its
			// author writes in the manifest: two extensions that copy each
			// other's display name, author and version stay two
			// components. Those fields are properties.
			c.Name, c.Version = ext.ID, ext.Version
			c.PackageURL = "pkg:generic/" + url.PathEscape(ext.ID)
			if ext.Version != "" {
				c.PackageURL += "@" + url.PathEscape(ext.Version)
			}
			props = append(props, cdxProperty{Name: "mcpguard:extension:display-name", Value: ext.Name})
			if ext.Author != "" {
				props = append(props, cdxProperty{Name: "mcpguard:extension:author", Value: ext.Author})
			}
			c.Description = "Claude Desktop extension " + strconv.Quote(ext.Name)
			if s.Command != "" {
				c.Description += " run by " + path.Base(strings.ReplaceAll(s.Command, `\`, "/"))
			}
		} else if p, ok := launchedPackage(s.Command, s.Args); ok {
			c.Name, c.Version, c.PackageURL = p.name, p.version, p.purl()
			if p.group != "" {
				c.Group = p.group
			}
			if p.kind == "docker" {
				c.Type = cdxContainer
			}
			c.Description = "MCP server " + strconv.Quote(s.Name)
		} else if s.Command != "" {
			c.Description = "MCP server " + strconv.Quote(s.Name) + " run by " + path.Base(strings.ReplaceAll(s.Command, `\`, "/"))
		}
		components = append(components, c)
	}
	if len(components) > 0 {
		bom.Components = &components
	}
	if len(services) > 0 {
		bom.Services = &services
	}
	sum := h.Sum(nil)
	// A name-based UUID (version 5 layout) of the inventory: the same report
	// gives the same serial number.
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	bom.SerialNumber = fmt.Sprintf("urn:uuid:%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(bom)
}

func serverProperties(s *FleetServer, fleet bool) []cdxProperty {
	props := []cdxProperty{
		{Name: "mcpguard:server-id", Value: s.ID},
		{Name: "mcpguard:server-name", Value: s.Name},
		{Name: "mcpguard:client", Value: s.Client},
		{Name: "mcpguard:scope", Value: s.Scope},
		{Name: "mcpguard:component-type", Value: ComponentType(s.Server)},
		{Name: "mcpguard:transport", Value: s.Transport},
		{Name: "mcpguard:status", Value: string(s.Status)},
		{Name: "mcpguard:allowed", Value: strconv.FormatBool(s.Decision.Allowed)},
		{Name: "mcpguard:decision", Value: strings.Join(s.Decision.Reasons, "; ")},
		{Name: "mcpguard:findings", Value: strconv.Itoa(len(s.FindingIDs))},
		{Name: "mcpguard:project", Value: s.Project},
		{Name: "mcpguard:source", Value: s.Source.String()},
		{Name: "mcpguard:user", Value: s.User},
	}
	if fleet {
		props = append(props, cdxProperty{Name: "mcpguard:host", Value: s.Host})
	}
	if s.Transport == "stdio" {
		props = append(props, cdxProperty{Name: "mcpguard:command", Value: strings.Join(append([]string{s.Command}, s.Args...), " ")})
	}
	return nonEmptyProps(props)
}

func nonEmptyProps(in []cdxProperty) []cdxProperty {
	out := in[:0]
	for _, p := range in {
		if p.Value != "" {
			out = append(out, p)
		}
	}
	return out
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func hasAuthHeader(keys []string) bool {
	for _, k := range keys {
		switch strings.ToLower(k) {
		case "authorization", "proxy-authorization", "x-api-key", "api-key", "cookie":
			return true
		}
	}
	return false
}

func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// pkgRef is a package a launcher runs.
type pkgRef struct {
	kind, group, name, version, repo string
}

// purl is the package URL (github.com/package-url/purl-spec) of p.
func (p pkgRef) purl() string {
	// The purl spec percent-encodes '@' outside the version separator
	// (pkg:npm/%40scope/name), and ':' and '+' (pkg:docker/x@sha256%3A...).
	seg := func(s string) string {
		return strings.NewReplacer("@", "%40", "+", "%2B", ":", "%3A").Replace(url.PathEscape(s))
	}
	var b strings.Builder
	b.WriteString("pkg:" + p.kind + "/")
	if p.group != "" {
		for _, part := range strings.Split(p.group, "/") {
			b.WriteString(seg(part) + "/")
		}
	}
	b.WriteString(seg(p.name))
	if p.version != "" {
		b.WriteString("@" + seg(p.version))
	}
	if p.repo != "" {
		b.WriteString("?repository_url=" + url.QueryEscape(p.repo))
	}
	return b.String()
}

// launchedPackage reads the package a launcher command line runs: npx,
// bunx and pnpx (npm), uvx and pipx run (PyPI), docker and podman run
// (container images). The version is set only when it is pinned.
func launchedPackage(command string, args []string) (pkgRef, bool) {
	prog := strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(command, `\`, "/"))), ".exe")
	prog = strings.TrimSuffix(prog, ".cmd")
	switch prog {
	case "npx", "bunx", "pnpx":
		spec := operand(args, map[string]bool{"-p": true, "--package": true, "-c": true, "--call": true}, []string{"-p", "--package"})
		return npmPackage(spec)
	case "uvx":
		spec := operand(args, map[string]bool{"--from": true, "--with": true, "--python": true, "-p": true, "--index": true, "--index-url": true}, []string{"--from"})
		return pypiPackage(spec)
	case "pipx":
		if len(args) == 0 || args[0] != "run" {
			return pkgRef{}, false
		}
		spec := operand(args[1:], map[string]bool{"--spec": true, "--python": true, "--pip-args": true, "--index-url": true}, []string{"--spec"})
		return pypiPackage(spec)
	case "docker", "podman":
		for i, a := range args {
			if a == "run" {
				return imagePackage(operand(args[i+1:], dockerValueFlags, nil))
			}
		}
	}
	return pkgRef{}, false
}

// operand returns the value of the first of named flags present, else the
// first positional argument, skipping flags and the values of valued.
func operand(args []string, valued map[string]bool, named []string) string {
	for i, a := range args {
		for _, n := range named {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if strings.HasPrefix(a, n+"=") {
				return strings.TrimPrefix(a, n+"=")
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		}
		if strings.HasPrefix(a, "-") {
			if valued[a] {
				i++
			}
			continue
		}
		return a
	}
	return ""
}

var dockerValueFlags = map[string]bool{
	"-e": true, "--env": true, "--env-file": true, "-v": true, "--volume": true, "--mount": true, "--name": true,
	"-p": true, "--publish": true, "--network": true, "--net": true, "--entrypoint": true, "-w": true, "--workdir": true,
	"-u": true, "--user": true, "--platform": true, "-l": true, "--label": true, "--add-host": true, "--cap-add": true,
	"--cap-drop": true, "--memory": true, "-m": true, "--cpus": true, "--pull": true, "--hostname": true, "-h": true,
	"--device": true, "--security-opt": true, "--tmpfs": true, "--ulimit": true, "--dns": true, "--log-driver": true,
	"--runtime": true, "--pid": true, "--ipc": true, "--restart": true, "--stop-signal": true, "--label-file": true,
}

func npmPackage(spec string) (pkgRef, bool) {
	if spec == "" || strings.ContainsAny(spec, " /\\") && !strings.HasPrefix(spec, "@") || strings.HasPrefix(spec, ".") {
		return pkgRef{}, false
	}
	p := pkgRef{kind: "npm"}
	name := spec
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		name, p.version = spec[:i], spec[i+1:]
	}
	if strings.HasPrefix(name, "@") {
		scope, rest, ok := strings.Cut(name, "/")
		if !ok || rest == "" {
			return pkgRef{}, false
		}
		p.group, name = scope, rest
	}
	p.name = name
	if !pinnedVersion(p.version) {
		p.version = ""
	}
	return p, p.name != ""
}

func pypiPackage(spec string) (pkgRef, bool) {
	if spec == "" || strings.ContainsAny(spec, " /\\:") {
		return pkgRef{}, false
	}
	p := pkgRef{kind: "pypi"}
	name := spec
	if i := strings.Index(spec, "=="); i > 0 {
		name, p.version = spec[:i], spec[i+2:]
	} else if i := strings.LastIndexByte(spec, '@'); i > 0 {
		name, p.version = spec[:i], spec[i+1:]
	}
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i] // extras
	}
	// purl's pypi type: lower case, '_' as '-'.
	p.name = strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	if !pinnedVersion(p.version) {
		p.version = ""
	}
	return p, p.name != "" && !strings.ContainsAny(p.name, "<>=!~")
}

func imagePackage(ref string) (pkgRef, bool) {
	if ref == "" || strings.ContainsAny(ref, " \\") {
		return pkgRef{}, false
	}
	p := pkgRef{kind: "docker"}
	if i := strings.Index(ref, "@"); i > 0 {
		ref, p.version = ref[:i], ref[i+1:] // a digest
	} else if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		ref, p.version = ref[:i], ref[i+1:]
		if p.version == "latest" {
			p.version = ""
		}
	}
	parts := strings.Split(ref, "/")
	if len(parts) > 1 && (strings.ContainsAny(parts[0], ".:") || parts[0] == "localhost") {
		p.repo, parts = parts[0], parts[1:]
	}
	p.name = parts[len(parts)-1]
	p.group = strings.Join(parts[:len(parts)-1], "/")
	return p, p.name != ""
}

// pinnedVersion reports an exact version (not a tag or range such as
// latest, ^1.2 or >=1).
func pinnedVersion(v string) bool {
	if v == "" || v == "latest" || v == "next" {
		return false
	}
	return !strings.ContainsAny(v, "^~<>=*| xX") && v[0] >= '0' && v[0] <= '9'
}
