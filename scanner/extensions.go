package scanner

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/managed"
	"github.com/mcpguard/mcpguard/reports"
)

// Claude Desktop extensions (MCP Bundles, .mcpb; formerly DXT). Claude
// Desktop unpacks each installed bundle into
// <data dir>/Claude Extensions/<id>/ (manifest.json at its root), keeps the
// user's switch and settings in <data dir>/Claude Extensions Settings/<id>.json
// ({"isEnabled": bool, "userConfig": {...}}) and its install record in
// <data dir>/extensions-installations.json ({"extensions": {id: {version,
// source, signatureInfo: {status}, ...}}}). docs/clients.md names the sources.

// desktopDataDirs are Claude Desktop's data directories relative to the home
// directory, with the OS each layout belongs to (Node's process.platform).
var desktopDataDirs = []struct{ rel, platform string }{
	{"Library/Application Support/Claude", "darwin"},
	{"AppData/Roaming/Claude", "win32"},
	{"AppData/Local/Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming/Claude", "win32"},
	{".config/Claude", "linux"},
}

// extensionLocations are the manifests of installed extensions in every
// layout.
func extensionLocations() []location {
	var out []location
	for _, d := range desktopDataDirs {
		out = append(out, location{rel: d.rel + "/Claude Extensions/*/manifest.json", client: ClientClaudeDesktop, handler: desktopExtension})
	}
	return out
}

// DeclaredTools is the tool list an extension's manifest declares: the
// manifest itself, an object with a "tools" array, which tool analysis
// reads like a tools/list result (findings point into the manifest).
type DeclaredTools struct {
	Path string
	// IDPath is the form of Path finding ids are computed from ("~/..."
	// for an installed extension), so that the same finding has the same
	// id on every machine and after a move, as the scan's own findings.
	IDPath string
	Data   []byte
	// NoTools is set when the manifest has no "tools" member: it is
	// analysed as a list of no tools (hidden Unicode anywhere in it).
	NoTools bool
}

// manifestDoc is a parsed extension manifest.
type manifestDoc struct {
	path string
	data []byte
	root *jsonc.Value
}

// readManifest reads and parses an installed extension's manifest.json.
func (sc *scan) readManifest(path string) *manifestDoc {
	data, exists, ferr := sc.fs.ReadFile(path)
	if !exists {
		return nil
	}
	src := reports.Source{Path: path, Client: ClientClaudeDesktop, Kind: "extension-manifest", Scope: ScopeExtension}
	if ferr != nil {
		sc.fileError(*ferr)
		src.Error = ferr.Message
		sc.source(src)
		return nil
	}
	root := sc.parseManifest(path, data)
	if root == nil {
		src.Error = "unparseable"
	}
	sc.source(src)
	if root == nil {
		return nil
	}
	return &manifestDoc{path: path, data: data, root: root}
}

// parseManifest parses manifest bytes, recording errors; nil when they are
// not a JSON object.
func (sc *scan) parseManifest(path string, data []byte) *jsonc.Value {
	root, errs := cfgfile.ParseJSON(path, data, false)
	sc.fileError(errs...)
	sc.duplicateKeys(path, root)
	if root != nil && root.Kind != jsonc.Object {
		sc.fileError(reports.FileError{Path: path, Line: root.Pos.Line, Column: root.Pos.Col, Message: "an extension manifest must hold a JSON object, not " + root.Kind.String()})
		return nil
	}
	return root
}

// desktopPolicy is Claude Desktop's enterprise configuration as far as it
// governs extensions.
type desktopPolicy struct {
	path   string // where it was read; "" when none was found
	values map[string]bool
	err    string // why it could not be read
}

// Enterprise keys (and their older DXT names, read as aliases).
var desktopPolicyKeys = map[string]string{
	"isDesktopExtensionEnabled":           "isDxtEnabled",
	"isDesktopExtensionDirectoryEnabled":  "isDxtDirectoryEnabled",
	"isDesktopExtensionSignatureRequired": "isDxtSignatureRequired",
}

// isPolicyAlias says whether key is the older name of an enterprise key.
func isPolicyAlias(key string) bool {
	for _, a := range desktopPolicyKeys {
		if a == key {
			return true
		}
	}
	return false
}

// get returns a key's value, the canonical key winning over its alias.
func (p *desktopPolicy) get(key string) (value, set bool, spelled string) {
	if p == nil {
		return false, false, ""
	}
	if v, ok := p.values[key]; ok {
		return v, true, key
	}
	if alias := desktopPolicyKeys[key]; alias != "" {
		if v, ok := p.values[alias]; ok {
			return v, true, alias
		}
	}
	return false, false, ""
}

// desktopPolicyFile returns the enterprise configuration file for the
// scan's OS: the managed preferences of com.anthropic.claudefordesktop on
// macOS (the user's own, /Library/Managed Preferences/<user>/, before the
// device's), /etc/claude-desktop/enterprise.json on Linux (read by the
// community Linux builds); "" on Windows, where it is a registry key
// (HKLM\SOFTWARE\Policies\Claude) that no file holds.
func (sc *scan) desktopPolicyFile() string {
	if sc.opts.DesktopPolicyFile != "" {
		return sc.opts.DesktopPolicyFile
	}
	switch sc.opts.GOOS {
	case "darwin":
		const domain = "com.anthropic.claudefordesktop.plist"
		if sc.opts.Home != "" {
			user := filepath.Join("/Library/Managed Preferences", filepath.Base(sc.opts.Home), domain)
			if _, err := sc.fs.Stat(user); err == nil {
				return user
			}
		}
		return filepath.Join("/Library/Managed Preferences", domain)
	case "windows":
		return ""
	default:
		return "/etc/claude-desktop/enterprise.json"
	}
}

// loadDesktopPolicy reads the enterprise configuration once per scan.
func (sc *scan) loadDesktopPolicy() *desktopPolicy {
	if sc.desktop != nil {
		return sc.desktop
	}
	p := &desktopPolicy{values: map[string]bool{}}
	sc.desktop = p
	path := sc.desktopPolicyFile()
	if path == "" {
		p.err = "Claude Desktop's enterprise settings are in the registry (HKLM\\SOFTWARE\\Policies\\Claude), which mcpguard does not read"
		return p
	}
	data, exists, ferr := sc.fs.ReadFile(path)
	if !exists {
		return p
	}
	p.path = path
	src := reports.PolicySource{Path: path, Kind: "claude-desktop-enterprise", Active: true}
	if ferr != nil {
		sc.fileError(*ferr)
		p.err, src.Active, src.Error = ferr.Message, false, ferr.Message
		sc.res.Policy.Sources = append(sc.res.Policy.Sources, src)
		return p
	}
	var err error
	// wrongType records a known key whose value is not a boolean: Claude
	// Desktop's reading of it is unknown, so the policy is too.
	wrongType := func(key, kind string, line, col int) {
		if _, known := desktopPolicyKeys[key]; !known && !isPolicyAlias(key) {
			return
		}
		msg := fmt.Sprintf("%s must be a boolean, not %s; the extension policy is unknown", key, kind)
		sc.fileError(reports.FileError{Path: path, Line: line, Column: col, Message: "Claude Desktop enterprise settings: " + msg})
		if p.err == "" {
			p.err = msg
		}
	}
	if strings.HasSuffix(path, ".plist") {
		var vals map[string]plistValue
		vals, err = plistTop(data)
		var pe *plistError
		if errors.As(err, &pe) {
			sc.fileError(reports.FileError{Path: path, Line: pe.line, Column: pe.col, Message: "Claude Desktop enterprise settings: " + pe.msg})
			p.err, src.Active, src.Error = pe.msg, false, pe.msg
			err = nil
		}
		for k, v := range vals {
			if v.kind == "bool" {
				p.values[k] = v.b
			} else {
				wrongType(k, v.kind, v.line, v.col)
			}
		}
	} else {
		root, errs := cfgfile.ParseJSON(path, data, false)
		sc.fileError(errs...)
		switch {
		case root == nil:
			err = fmt.Errorf("not valid JSON")
		case root.Kind != jsonc.Object:
			err = fmt.Errorf("must hold a JSON object, not %s", root.Kind)
		default:
			for _, m := range root.Members {
				if m.Value.Kind == jsonc.Bool {
					p.values[m.Key] = m.Value.Bool
				} else {
					wrongType(m.Key, m.Value.Kind.String(), m.Value.Pos.Line, m.Value.Pos.Col)
				}
			}
		}
	}
	if err != nil {
		p.err, src.Active, src.Error = err.Error(), false, err.Error()
		sc.fileError(reports.FileError{Path: path, Message: "Claude Desktop enterprise settings: " + err.Error()})
	}
	sc.res.Policy.Sources = append(sc.res.Policy.Sources, src)
	sc.source(reports.Source{Path: path, Client: ClientClaudeDesktop, Kind: "enterprise-settings", Scope: ScopeSystem, Error: src.Error})
	return p
}

// plistValue is one value of the top-level dictionary of a property list:
// a boolean, or the kind of another value, and where it is (XML form only).
type plistValue struct {
	kind      string // "bool", or the element name: "string", "integer", "dict", ...
	b         bool
	line, col int
}

// plistTop reads the top-level dictionary of a property list: the XML form
// (MDM profiles, `plutil -convert xml1`), parsed as XML (comments, entity
// and character references, CDATA; nested dictionaries are values, never
// keys of the top one), or the binary one macOS keeps managed preferences
// in. The last of duplicate keys wins.
func plistTop(data []byte) (map[string]plistValue, error) {
	if strings.HasPrefix(string(data), "bplist") {
		bools, err := bplistBools(data)
		out := map[string]plistValue{}
		for k, v := range bools {
			out[k] = plistValue{kind: "bool", b: v}
		}
		return out, err
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	fail := func(msg string) error {
		line, col := d.InputPos()
		return &plistError{line: line, col: col, msg: msg}
	}
	// next returns the next start or end element, skipping comments,
	// processing instructions, the DOCTYPE and white space.
	next := func() (xml.Token, error) {
		for {
			tok, err := d.Token()
			if err != nil {
				if err == io.EOF {
					return nil, fail("unexpected end of the property list")
				}
				return nil, fail(err.Error())
			}
			switch t := tok.(type) {
			case xml.StartElement, xml.EndElement:
				return t, nil
			case xml.CharData:
				if len(bytes.TrimSpace(t)) != 0 {
					return nil, fail("text outside an element")
				}
			}
		}
	}
	tok, err := next()
	if err != nil {
		return nil, err
	}
	if st, ok := tok.(xml.StartElement); !ok || st.Name.Local != "plist" {
		return nil, fail("not a property list")
	}
	if tok, err = next(); err != nil {
		return nil, err
	}
	if st, ok := tok.(xml.StartElement); !ok || st.Name.Local != "dict" {
		return nil, fail("the property list does not hold a dictionary")
	}
	out := map[string]plistValue{}
	for {
		tok, err := next()
		if err != nil {
			return nil, err
		}
		if _, ok := tok.(xml.EndElement); ok {
			return out, nil // </dict>; what follows is not read
		}
		st := tok.(xml.StartElement)
		if st.Name.Local != "key" {
			return nil, fail("expected <key> in the dictionary, found <" + st.Name.Local + ">")
		}
		var key strings.Builder
		for {
			t, err := d.Token()
			if err != nil {
				return nil, fail(err.Error())
			}
			if cd, ok := t.(xml.CharData); ok {
				key.Write(cd)
				continue
			}
			if _, ok := t.(xml.Comment); ok {
				continue
			}
			if _, ok := t.(xml.EndElement); ok {
				break
			}
			return nil, fail("unexpected markup in a <key>")
		}
		if tok, err = next(); err != nil {
			return nil, err
		}
		vs, ok := tok.(xml.StartElement)
		if !ok {
			return nil, fail("key " + strconv.Quote(key.String()) + " has no value")
		}
		line, col := d.InputPos()
		v := plistValue{kind: vs.Name.Local, line: line, col: col}
		switch vs.Name.Local {
		case "true", "false":
			v.kind, v.b = "bool", vs.Name.Local == "true"
		}
		if err := d.Skip(); err != nil {
			return nil, fail(err.Error())
		}
		out[key.String()] = v
	}
}

// plistError is a property list syntax error at line:col.
type plistError struct {
	line, col int
	msg       string
}

func (e *plistError) Error() string { return e.msg }

// installRecords reads extensions-installations.json of a data directory
// once: the install record of each extension id.
func (sc *scan) installRecords(dataDir string) *jsonc.Value {
	if v, ok := sc.desktopInstalls[dataDir]; ok {
		return v
	}
	root := sc.readJSON(filepath.Join(dataDir, "extensions-installations.json"), ClientClaudeDesktop, "extension-installations", ScopeExtension, false)
	if sc.desktopInstalls == nil {
		sc.desktopInstalls = map[string]*jsonc.Value{}
	}
	v := root.Get("extensions") // nil when absent or malformed
	sc.desktopInstalls[dataDir] = v
	return v
}

// desktopExtension handles one installed extension's manifest.json.
func desktopExtension(sc *scan, path, _, _ string) {
	extDir := filepath.Dir(path)
	id := filepath.Base(extDir)
	dataDir := filepath.Dir(filepath.Dir(extDir))
	m := sc.readManifest(path)
	if m == nil {
		return
	}
	platform := "linux"
	slash := filepath.ToSlash(dataDir)
	for _, d := range desktopDataDirs {
		if strings.HasSuffix(slash, "/"+d.rel) {
			platform = d.platform
		}
	}
	settingsPath := filepath.Join(dataDir, "Claude Extensions Settings", id+".json")
	settings := sc.readJSON(settingsPath, ClientClaudeDesktop, "extension-settings", ScopeExtension, false)
	rec := sc.installRecords(dataDir).Get(id)
	s := sc.extensionServer(m, id, extDir, platform, settings)
	s.detail("extension_settings", settingsPath)
	if rec != nil && rec.Kind == jsonc.Object {
		inst := map[string]any{}
		for _, k := range []string{"version", "source", "installedAt", "hash"} {
			if v := rec.Get(k); v.IsString() {
				inst[k] = v.Str
			}
		}
		if v := rec.Get("signatureInfo").Get("status"); v.IsString() {
			inst["signature"] = v.Str
		}
		s.detail("installation", inst)
	} else {
		s.detail("installation", map[string]any{"recorded": false})
	}
	if s.Status == "" {
		enabled := settings.Get("isEnabled")
		switch {
		case enabled != nil && enabled.Kind == jsonc.Bool && enabled.Bool:
			s.Status = reports.StatusActive
			s.Decision = sc.judge(s)
		case enabled != nil && enabled.Kind == jsonc.Bool:
			s.detail("disabled_by", "isEnabled: false")
			sc.clientStatus(s, reports.StatusDisabled, reports.ReasonClientDisabled)
		default:
			// Inferred: Claude Desktop writes the settings file with
			// isEnabled when an extension is installed; without it the
			// extension stays off.
			s.detail("disabled_by", "no isEnabled in the extension's settings")
			sc.clientStatus(s, reports.StatusDisabled, reports.ReasonClientDisabled)
		}
	}
	sc.extensionPolicy(s, rec)
	sc.keep(s)
}

// extensionPolicy applies the organisation's extension policy: extensions
// turned off (isDesktopExtensionEnabled: false) or a signature required
// (isDesktopExtensionSignatureRequired: true) of an extension whose install
// record does not say "signed".
func (sc *scan) extensionPolicy(s *Server, rec *jsonc.Value) {
	pol := sc.loadDesktopPolicy()
	info := map[string]any{}
	if pol.path != "" {
		info["path"] = pol.path
	}
	if pol.err != "" {
		info["unknown"] = pol.err
	}
	for _, k := range []string{"isDesktopExtensionEnabled", "isDesktopExtensionDirectoryEnabled", "isDesktopExtensionSignatureRequired"} {
		if v, ok, spelled := pol.get(k); ok {
			info[spelled] = v
		}
	}
	if len(info) > 0 {
		s.detail("extension_policy", info)
	}
	if s.Status == reports.StatusInvalid {
		return
	}
	status := ""
	if v := rec.Get("signatureInfo").Get("status"); v.IsString() {
		status = v.Str
	}
	reason, key := extensionBlockReason(pol, status)
	if reason == "" {
		return
	}
	s.detail("client_policy", fmt.Sprintf("%s: %v", key, reason == reports.ReasonExtensionUnsigned))
	sc.clientStatus(s, reports.StatusBlocked, reason)
	s.judged = true
	if reason == reports.ReasonExtensionsDisabled {
		sc.finding(s, "MCPG-P001", fmt.Sprintf("Claude Desktop does not run extension %q: the organisation turned extensions off (%s: false in %s)", s.Name, key, pol.path),
			map[string]any{"key": key, "policy": pol.path})
		return
	}
	if status == "" {
		status = "not recorded"
	}
	sc.finding(s, "MCPG-P001", fmt.Sprintf("Claude Desktop does not run extension %q: the organisation requires signed extensions (%s) and its signature is %s", s.Name, key, status),
		map[string]any{"key": key, "policy": pol.path, "signature": status})
}

// extensionServer builds the server an extension's manifest declares, as
// Claude Desktop would start it: platform_overrides for the layout's OS,
// then ${__dirname}, ${HOME}, ${DESKTOP}, ${DOCUMENTS}, ${DOWNLOADS},
// ${pathSeparator}, ${/} and ${user_config.KEY} substituted (the mcpb
// reference implementation, getMcpConfigForManifest). A sensitive
// user_config value is never read: its reference stays as written.
// extDir is "" for a bundle that is not installed: ${__dirname} then stays
// too. settings is the extension's settings file (nil for none).
func (sc *scan) extensionServer(m *manifestDoc, id, extDir, platform string, settings *jsonc.Value) *Server {
	root := m.root
	name := id
	s := &Server{Name: name, Client: ClientClaudeDesktop, Scope: ScopeExtension, Transport: TransportStdio, Dialect: interp.None}
	s.Source = cfgfile.Loc(m.path, "", root.Pos)
	details := map[string]any{"extension_id": id}
	for _, k := range []string{"name", "display_name", "version", "manifest_version", "dxt_version"} {
		if v := root.Get(k); v.IsString() {
			details[k] = v.Str
		}
	}
	if a := root.Get("author"); a.IsString() {
		details["author"] = a.Str
	} else if n := a.Get("name"); n.IsString() {
		details["author"] = n.Str
	}
	server := root.Member("server")
	if t := memberValue(server).Get("type"); t.IsString() {
		details["server_type"] = t.Str
	}
	s.detail("extension", details)
	switch tools := root.Member("tools"); {
	case tools != nil && tools.Value.Kind == jsonc.Array:
		s.DeclaredTools = &DeclaredTools{Path: m.path, IDPath: sc.stablePath(m.path), Data: m.data}
	case tools == nil:
		// "tools" is optional (the server answers tools/list at run
		// time): the rest of the manifest is still analysed, for hidden
		// Unicode in its names, descriptions and arguments.
		s.DeclaredTools = &DeclaredTools{Path: m.path, IDPath: sc.stablePath(m.path), Data: m.data, NoTools: true}
	}
	cfgMember := memberValue(server).Member("mcp_config")
	if cfgMember == nil || cfgMember.Value.Kind != jsonc.Object {
		s.Source = cfgfile.Loc(m.path, "/server", root.Pos)
		if server != nil {
			s.Source = cfgfile.Loc(m.path, "/server", server.KeyPos)
		}
		sc.invalid(s, "the manifest has no server.mcp_config object; Claude Desktop starts nothing")
		return s
	}
	cfg := cfgMember.Value
	s.Source = cfgfile.Loc(m.path, "/server/mcp_config", cfgMember.KeyPos)
	if why := entryTooLarge(cfg); why != "" {
		return sc.refuseEntry(s, why)
	}
	command, args, env, envKeys := cfg.Get("command"), cfg.Get("args"), cfg.Get("env"), []string(nil)
	if o := cfg.Get("platform_overrides").Get(platform); o != nil && o.Kind == jsonc.Object {
		// Each of command, args and env replaces the base one when the
		// override sets it to something JavaScript holds true (an empty
		// array or object does; "", null and false do not).
		truthy := func(v *jsonc.Value) bool {
			switch {
			case v == nil, v.Kind == jsonc.Null, v.Kind == jsonc.Bool && !v.Bool, v.Kind == jsonc.String && v.Str == "":
				return false
			case v.Kind == jsonc.Number:
				f, err := strconv.ParseFloat(v.Str, 64)
				return err == nil && f != 0
			}
			return true
		}
		if c := o.Get("command"); truthy(c) {
			command = c
		}
		if a := o.Get("args"); truthy(a) {
			args = a
		}
		if e := o.Get("env"); truthy(e) {
			env = e
		}
		s.detail("platform_override", platform)
	}
	if !command.IsString() || command.Str == "" {
		sc.invalid(s, "server.mcp_config has no command")
		return s
	}
	vars := sc.extensionVars(root.Get("user_config"), settings, extDir, platform, s)
	s.Command = substituteString(command.Str, vars)
	if args != nil && args.Kind == jsonc.Array {
		s.HasArgs = true
		for _, a := range args.Elems {
			if !a.IsString() {
				continue
			}
			s.Args = append(s.Args, substituteArg(a.Str, vars)...)
		}
	}
	if env != nil && env.Kind == jsonc.Object {
		s.Env = map[string]string{}
		for _, e := range env.Members {
			if !e.Value.IsString() {
				continue
			}
			s.Env[e.Key] = substituteString(e.Value.Str, vars)
			envKeys = append(envKeys, e.Key)
		}
	}
	s.EnvKeys = envKeys
	if missing := vars.missingRequired; len(missing) > 0 && extDir == "" {
		// A bundle not installed yet: Claude Desktop asks for these at
		// install time.
		s.detail("required_settings", missing)
	} else if len(missing) > 0 {
		sc.invalid(s, fmt.Sprintf("required setting %s has no value; Claude Desktop starts nothing until it is set", strings.Join(quotedList(missing), ", ")))
	}
	seeThrough(s)
	return s
}

func quotedList(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// extensionVariables are the substitutions of one extension.
type extensionVariables struct {
	scalars map[string]string   // "__dirname", "HOME", "user_config.units", ...
	lists   map[string][]string // user_config values with several entries
	// missingRequired are required user_config keys without a value.
	missingRequired []string
}

// extensionVars builds the substitutions: the system directories of the
// layout's OS, then each user_config key's default overridden by the
// user's setting. A sensitive key gets no value here, so its reference is
// left as written and its value never leaves the settings file.
func (sc *scan) extensionVars(userConfig, settings *jsonc.Value, extDir, platform string, s *Server) *extensionVariables {
	sep := "/"
	if platform == "win32" {
		sep = `\`
	}
	home := sc.opts.Home
	join := func(dir string) string {
		if home == "" {
			return ""
		}
		return strings.TrimSuffix(home, sep) + sep + dir
	}
	v := &extensionVariables{scalars: map[string]string{"pathSeparator": sep, "/": sep}, lists: map[string][]string{}}
	if extDir != "" {
		v.scalars["__dirname"] = extDir
	}
	if home != "" {
		v.scalars["HOME"] = home
		v.scalars["DESKTOP"] = join("Desktop")
		v.scalars["DOCUMENTS"] = join("Documents")
		v.scalars["DOWNLOADS"] = join("Downloads")
	}
	system := &extensionVariables{scalars: map[string]string{}, lists: map[string][]string{}}
	for k, val := range v.scalars {
		if k != "__dirname" {
			system.scalars[k] = val
		}
	}
	values := settings.Get("userConfig")
	var sensitive, fromSettings []string
	if userConfig == nil || userConfig.Kind != jsonc.Object {
		return v
	}
	for _, f := range userConfig.Members {
		key := "user_config." + f.Key
		secret := f.Value.Get("sensitive")
		isSecret := secret != nil && secret.Kind == jsonc.Bool && secret.Bool
		req := f.Value.Get("required")
		required := req != nil && req.Kind == jsonc.Bool && req.Bool
		set := values.Get(f.Key)
		if isSecret {
			sensitive = append(sensitive, f.Key)
			// Only whether a value is there, never the value.
			if required && emptyConfigValue(set) {
				v.missingRequired = append(v.missingRequired, f.Key)
			}
			continue
		}
		val := set
		if set != nil {
			fromSettings = append(fromSettings, f.Key)
		} else {
			val = f.Value.Get("default")
		}
		if required && emptyConfigValue(val) {
			v.missingRequired = append(v.missingRequired, f.Key)
		}
		switch {
		case val == nil:
		case val.Kind == jsonc.Array:
			var list []string
			for _, e := range val.Elems {
				list = append(list, configString(e, system))
			}
			v.lists[key] = list
		default:
			v.scalars[key] = configString(val, system)
		}
	}
	if len(sensitive) > 0 {
		s.detail("sensitive_settings", sensitive)
	}
	if len(fromSettings) > 0 {
		s.detail("user_settings", fromSettings)
	}
	return v
}

// configString renders a user_config value as Claude Desktop substitutes
// it (booleans as "true"/"false", numbers as written); the system
// directories in a default are expanded (inferred: the manifest
// specification says defaults support them).
func configString(v *jsonc.Value, system *extensionVariables) string {
	switch v.Kind {
	case jsonc.String:
		return substituteString(v.Str, system)
	case jsonc.Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case jsonc.Number:
		return v.Str
	case jsonc.Null:
		return "null"
	}
	return ""
}

func emptyConfigValue(v *jsonc.Value) bool {
	if v == nil || v.Kind == jsonc.Null || (v.Kind == jsonc.String && v.Str == "") {
		return true
	}
	if v.Kind == jsonc.Array {
		return len(v.Elems) == 0 || slices.ContainsFunc(v.Elems, emptyConfigValue)
	}
	return false
}

var extensionRef = regexp.MustCompile(`\$\{([^}]+)\}`)

// substituteString replaces every ${NAME} with a scalar value; a reference
// to a list or to nothing known stays as written (the reference
// implementation leaves it and warns).
func substituteString(s string, v *extensionVariables) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return extensionRef.ReplaceAllStringFunc(s, func(ref string) string {
		if val, ok := v.scalars[ref[2:len(ref)-1]]; ok {
			return val
		}
		return ref
	})
}

// substituteArg expands one argument: exactly "${user_config.KEY}" of a
// list value becomes one argument per entry.
func substituteArg(a string, v *extensionVariables) []string {
	if strings.HasPrefix(a, "${user_config.") && strings.HasSuffix(a, "}") && strings.Count(a, "${") == 1 {
		key := a[2 : len(a)-1]
		if list, ok := v.lists[key]; ok {
			return list
		}
		if val, ok := v.scalars[key]; !ok || val == "" {
			// The reference implementation keeps an argument whose value
			// is missing or empty as written.
			return []string{a}
		}
	}
	return []string{substituteString(a, v)}
}

// intendedExtensionPolicy is the Claude Desktop extension policy of
// intended policy documents (--policy JSON files, a what-if proposal): the
// enterprise keys they set, later documents winning; nil when none sets
// one, and the extensions keep the verdict of the machine's own policy.
func intendedExtensionPolicy(docs []*managed.Document) *desktopPolicy {
	pol := &desktopPolicy{values: map[string]bool{}}
	for _, d := range docs {
		for canonical, alias := range desktopPolicyKeys {
			for _, k := range []string{canonical, alias} {
				if m := d.Get(k); m != nil && m.Value.Kind == jsonc.Bool {
					pol.values[k] = m.Value.Bool
					pol.path = d.Path
				}
			}
		}
	}
	if len(pol.values) == 0 {
		return nil
	}
	return pol
}

// extensionBlockReason is why an extension policy keeps an extension from
// running ("" when it does not): extensions off, or a signature required
// and the install record not signed.
func extensionBlockReason(pol *desktopPolicy, signature string) (reason, key string) {
	if on, ok, k := pol.get("isDesktopExtensionEnabled"); ok && !on {
		return reports.ReasonExtensionsDisabled, k
	}
	if req, ok, k := pol.get("isDesktopExtensionSignatureRequired"); ok && req && signature != "signed" {
		return reports.ReasonExtensionUnsigned, k
	}
	return "", ""
}

// signatureOf is the signature status of an extension's install record.
func signatureOf(details map[string]any) string {
	inst, _ := details["installation"].(map[string]any)
	sig, _ := inst["signature"].(string)
	return sig
}

// intendedExtensionVerdict is an extension's decision under an intended
// extension policy and the change it would make: "block" when Claude
// Desktop runs or may run it today and the policy would refuse it,
// "unblock" when the machine's policy blocks it today and this one would
// not. d is nil when the decision stays; ok is false when nothing changes.
func intendedExtensionVerdict(pol *desktopPolicy, status reports.Status, now reports.Decision, details map[string]any) (d *reports.Decision, change string, ok bool) {
	reason, _ := extensionBlockReason(pol, signatureOf(details))
	blockedToday := status == reports.StatusBlocked &&
		(slices.Contains(now.Reasons, reports.ReasonExtensionsDisabled) || slices.Contains(now.Reasons, reports.ReasonExtensionUnsigned))
	switch {
	case reason != "":
		if blockedToday {
			return &reports.Decision{Reasons: []string{reason}}, "", true
		}
		return &reports.Decision{Reasons: []string{reason}}, "block", true
	case blockedToday:
		return &reports.Decision{Allowed: true, Reasons: []string{reports.ReasonAllowed}}, "unblock", true
	}
	return nil, "", false
}

// intendedExtensions judges the extensions under the intended policy's
// extension keys (--policy JSON files), after the lists have: the decision
// becomes the intended policy's and details.intended_change says what it
// would change, as for Claude Code servers; statuses stay what Claude
// Desktop does.
func (sc *scan) intendedExtensions() {
	pol := intendedExtensionPolicy(sc.policyFiles)
	if pol == nil {
		return
	}
	for _, s := range sc.res.Servers {
		if s.Client != ClientClaudeDesktop || s.Scope != ScopeExtension || s.Status == reports.StatusInvalid {
			continue
		}
		d, change, ok := intendedExtensionVerdict(pol, s.Status, s.Decision, s.Details)
		if !ok {
			continue
		}
		if d != nil {
			s.Decision = *d
		}
		if change != "" {
			s.detail("intended_change", change)
		}
	}
}
