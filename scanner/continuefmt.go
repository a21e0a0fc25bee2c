package scanner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/mcpguard/mcpguard/internal/cfgfile"
	"github.com/mcpguard/mcpguard/internal/interp"
	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/reports"
)

// Continue keeps servers in a YAML list, mcpServers: [{name, command, args,
// env, type, url, requestOptions}], in ~/.continue/config.yaml and in block
// files .continue/mcpServers/*.yaml; the legacy ~/.continue/config.json has
// experimental.modelContextProtocolServers: [{transport: {...}}]
// (docs/clients.md §3.8; continuedev/continue packages/config-yaml).

var (
	// specContinue reads one YAML list entry; the name is a field, so the
	// pointer is the list index.
	specContinue = &entrySpec{client: ClientContinue, dialect: interp.Continue, urlKeys: urlHTTP,
		types: map[string]string{"stdio": TransportStdio, "sse": TransportSSE, "streamable-http": TransportHTTP}, extra: continueExtras}
	// specContinueLegacy reads one transport object of the legacy config.json.
	specContinueLegacy = &entrySpec{client: ClientContinue, dialect: interp.Continue, urlKeys: urlHTTP,
		types: map[string]string{"stdio": TransportStdio, "sse": TransportSSE, "websocket": TransportWS, "streamable-http": TransportHTTP}, extra: continueExtras}
)

// continueYAML handles config.yaml and .continue/mcpServers/*.yaml block files:
// a mcpServers list, or (block files) a single server at the top level.
func continueYAML(kind string) fileHandler {
	return func(sc *scan, path, scope, project string) {
		root := sc.readYAML(path, ClientContinue, kind, scope)
		if root == nil {
			return
		}
		if m := root.Member("mcpServers"); m != nil {
			sc.keep(sc.continueList(path, m, "/mcpServers", scope, project, specContinue)...)
			return
		}
		if kind == "mcp-block" && root.Get("name") != nil && (root.Get("command") != nil || root.Get("url") != nil) {
			sc.keep(sc.continueEntry(specContinue, path, "", root, "", scope, project))
		}
	}
}

// continueLegacyJSON handles ~/.continue/config.json.
func continueLegacyJSON(sc *scan, path, scope, project string) {
	root := sc.readJSON(path, ClientContinue, "config", scope, true)
	m := root.Get("experimental").Member("modelContextProtocolServers")
	if m == nil {
		return
	}
	sc.keep(sc.continueList(path, m, "/experimental/modelContextProtocolServers", scope, project, specContinueLegacy)...)
}

// continueList reads a list of servers; Continue rejects any other shape.
func (sc *scan) continueList(path string, m *jsonc.Member, pointer, scope, project string, spec *entrySpec) []*Server {
	if m.Value.Kind != jsonc.Array {
		sc.fileFindingEvidence("MCPG-C006", cfgfile.Loc(path, pointer, m.KeyPos),
			fmt.Sprintf("%q must be a list of servers, not %s; Continue loads nothing from it", m.Key, m.Value.Kind),
			map[string]any{"problem": "wrong type"}, m.Key)
		return nil
	}
	var out []*Server
	for i, e := range m.Value.Elems {
		p := pointer + "/" + strconv.Itoa(i)
		if spec == specContinueLegacy {
			// {transport: {type, command, args, env, url}, faviconUrl, timeout};
			// Continue names these servers by position.
			s := sc.continueEntry(spec, path, p, continueLegacyFlat(e), fmt.Sprintf("continue-mcp-server-%d", i+1), scope, project)
			s.HasArgs = e.Get("args") != nil
			s.detail("display_name", "MCP Server")
			out = append(out, s)
			continue
		}
		out = append(out, sc.continueEntry(spec, path, p, e, "", scope, project))
	}
	return out
}

// continueEntry reads one server object whose name is its "name" field (or
// the given name), lifting requestOptions.headers to the headers the generic
// parser reads.
func (sc *scan) continueEntry(spec *entrySpec, path, pointer string, v *jsonc.Value, name, scope, project string) *Server {
	if name == "" {
		if n := v.Get("name"); n.IsString() {
			name = n.Str
		}
	}
	if uses := v.Get("uses"); v.Kind == jsonc.Object && uses.IsString() {
		// A hub block reference: the server definition lives on the hub.
		if name == "" {
			name = uses.Str
		}
		s := &Server{Name: name, Client: spec.client, Scope: scope, Project: project, Transport: TransportOther,
			Source: cfgfile.Loc(path, pointer, v.Pos), Dialect: spec.dialect, HasArgs: v.Get("args") != nil, Status: reports.StatusActive}
		s.detail("uses", uses.Str)
		s.Decision = sc.judge(s)
		if !s.Decision.Allowed {
			s.Status = reports.StatusBlocked
		}
		return s
	}
	flat := v
	if ro := v.Get("requestOptions"); ro != nil && ro.Kind == jsonc.Object {
		if h := ro.Member("headers"); h != nil && v.Get("headers") == nil {
			flat = &jsonc.Value{Kind: jsonc.Object, Pos: v.Pos, End: v.End, Members: append(append([]jsonc.Member{}, v.Members...), *h)}
		}
	}
	s := sc.parseEntry(spec, path, pointer, name, v.Pos, flat, scope, project)
	s.HasArgs = v.Get("args") != nil
	if name == "" && s.Status != reports.StatusInvalid {
		sc.invalid(s, "entry has no name; Continue rejects it")
	}
	return s
}

// continueLegacyFlat merges a legacy entry's transport object with its
// top-level fields.
func continueLegacyFlat(e *jsonc.Value) *jsonc.Value {
	t := e.Get("transport")
	if e.Kind != jsonc.Object || t == nil || t.Kind != jsonc.Object {
		return e
	}
	flat := &jsonc.Value{Kind: jsonc.Object, Pos: e.Pos, End: e.End}
	flat.Members = append(flat.Members, t.Members...)
	for _, m := range e.Members {
		if m.Key != "transport" && t.Member(m.Key) == nil {
			flat.Members = append(flat.Members, m)
		}
	}
	return flat
}

// continueExtras records Continue's connection options that matter to a
// reviewer (TLS verification turned off, proxies).
func continueExtras(_ *scan, s *Server, f *fieldReader) {
	for _, k := range []string{"connectionTimeout", "timeout"} {
		if v := f.v.Get(k); v != nil && v.Kind == jsonc.Number {
			s.detail(k, numberDetail(v))
		}
	}
	ro := f.v.Member("requestOptions")
	if ro == nil {
		return
	}
	if ro.Value.Kind != jsonc.Object {
		f.problem("requestOptions: expected an object, got %s", ro.Value.Kind)
		return
	}
	if v := ro.Value.Get("verifySsl"); v != nil && v.Kind == jsonc.Bool {
		s.detail("verify_ssl", v.Bool)
	}
	if v := ro.Value.Get("proxy"); v.IsString() {
		s.detail("proxy", v.Str)
	}
	var keys []string
	for _, m := range ro.Value.Members {
		keys = append(keys, m.Key)
	}
	s.detail("request_options", keys)
}

// readYAML reads a YAML client file whose root must be a mapping.
func (sc *scan) readYAML(path, client, kind, scope string) *jsonc.Value {
	return sc.readConfig(path, client, kind, scope, func(data []byte) (*jsonc.Value, []reports.FileError) {
		root, perr := parseYAML(path, data)
		if perr != nil {
			return nil, []reports.FileError{*perr}
		}
		if root.Kind != jsonc.Object {
			return nil, []reports.FileError{{Path: path, Line: root.Pos.Line, Column: root.Pos.Col, Message: "must hold a YAML mapping, not " + yamlKindName(root.Kind)}}
		}
		return root, nil
	})
}

func yamlKindName(k jsonc.Kind) string {
	switch k {
	case jsonc.Array:
		return "a sequence"
	case jsonc.Object:
		return "a mapping"
	}
	return "a scalar"
}

// maxYAMLLocate bounds the documents whose error position is searched for.
const maxYAMLLocate = 1 << 20

// maxYAMLNodes bounds the values one document may expand to through aliases
// (a "billion laughs" file is an error, not a hang): 16 per byte of input plus
// 1024, at most maxYAMLNodes. Continue's YAML library refuses such files too
// (maxAliasCount).
const maxYAMLNodes = 1 << 20

func yamlBudget(size int) int {
	return min(16*size+1024, maxYAMLNodes)
}

// parseYAML parses the first document of a YAML file into the jsonc value
// model with positions. An empty document is an empty mapping. Duplicate keys
// are an error, as in the YAML library Continue uses.
func parseYAML(path string, data []byte) (root *jsonc.Value, ferr *reports.FileError) {
	if e := checkUTF8(path, data); e != nil {
		return nil, e
	}
	if at := yamlOverLimits(data); at >= 0 {
		p := jsonc.NewLineIndex(data).Pos(at)
		return nil, &reports.FileError{Path: path, Line: p.Line, Column: p.Col,
			Message: fmt.Sprintf("invalid YAML: more than %d lines and flow items; a Continue configuration holds a few hundred", maxYAMLItems)}
	}
	var doc yaml.Node
	if err := safeYAML(data, &doc); err != nil {
		msg := yamlMessage(err)
		fe := &reports.FileError{Path: path, Message: "invalid YAML: " + msg}
		if p, ok := yamlErrorPos(data, msg); ok {
			fe.Line, fe.Column = p.Line, p.Col
		} else if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
			fe.Line, _ = strconv.Atoi(m[1])
			fe.Column = 1
		}
		return nil, fe
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &jsonc.Value{Kind: jsonc.Object, Pos: jsonc.Pos{Line: 1, Col: 1}}, nil
	}
	c := &yamlConv{ix: jsonc.NewLineIndex(data), path: path, budget: yamlBudget(len(data)), limit: yamlBudget(len(data)), active: map[*yaml.Node]bool{}}
	v, err := c.value(doc.Content[0], 0)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// safeYAML runs the YAML parser, turning a panic into an error.
func safeYAML(data []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser failure: %v", r)
		}
	}()
	return yaml.Unmarshal(data, n)
}

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// yamlMessage strips the library's "yaml: line N: " prefix.
func yamlMessage(err error) string {
	s := err.Error()
	if m := yamlLineRE().FindStringIndex(s); m != nil {
		return s[m[1]:]
	}
	return strings.TrimPrefix(s, "yaml: ")
}

// yamlErrorPos finds where the YAML parser gave up. yaml.v3 reports at most a
// line, often the line of the enclosing block rather than the offending one,
// and never a column; the parser detects a problem when it reaches the
// offending character, so the shortest prefix of the document that fails with
// the same message ends at that character (found by bisection, prefixes cut on
// code-point boundaries). Only documents up to maxYAMLLocate bytes are
// searched.
func yamlErrorPos(data []byte, msg string) (jsonc.Pos, bool) {
	if len(data) == 0 || len(data) > maxYAMLLocate {
		return jsonc.Pos{}, false
	}
	same := func(n int) bool {
		var node yaml.Node
		err := safeYAML(data[:n], &node)
		return err != nil && yamlMessage(err) == msg
	}
	lo, hi := 0, len(data)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		for mid > lo+1 && !utf8.RuneStart(data[mid]) {
			mid--
		}
		if same(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	off := hi - 1
	for off > 0 && !utf8.RuneStart(data[off]) {
		off--
	}
	return jsonc.NewLineIndex(data).Pos(off), true
}

// yamlConv converts yaml.v3 nodes, expanding aliases within a budget.
type yamlConv struct {
	ix     *jsonc.LineIndex
	path   string
	budget int
	limit  int
	active map[*yaml.Node]bool // aliases being expanded, to refuse cycles
	outer  *yaml.Node          // the outermost alias being expanded
}

func (c *yamlConv) errAt(n *yaml.Node, format string, args ...any) *reports.FileError {
	p := c.pos(n.Line, n.Column)
	return &reports.FileError{Path: c.path, Line: p.Line, Column: p.Col, Message: "invalid YAML: " + fmt.Sprintf(format, args...)}
}

// pos is a node position kept inside the document: the parser places the
// implicit values it makes at the end of the input on a line past the last.
func (c *yamlConv) pos(line, col int) jsonc.Pos {
	switch {
	case line < 1:
		return jsonc.Pos{Line: 1, Col: 1}
	case line > c.ix.Lines():
		return c.ix.End()
	}
	return jsonc.Pos{Line: line, Col: max(col, 1)}
}

func (c *yamlConv) value(n *yaml.Node, depth int) (*jsonc.Value, *reports.FileError) {
	if depth > jsonc.DefaultMaxDepth {
		return nil, c.errAt(n, "nesting deeper than %d levels", jsonc.DefaultMaxDepth)
	}
	if c.budget--; c.budget < 0 {
		at := n
		if c.outer != nil {
			at = c.outer
		}
		return nil, c.errAt(at, "aliases expand to more than %d values", c.limit)
	}
	pos := c.pos(n.Line, n.Column)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return &jsonc.Value{Kind: jsonc.Null, Pos: pos}, nil
		}
		return c.value(n.Content[0], depth)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, c.errAt(n, "unknown anchor %q", n.Value)
		}
		if c.active[n.Alias] {
			return nil, c.errAt(n, "alias *%s refers to itself", n.Value)
		}
		if len(c.active) == 0 {
			c.outer = n
		}
		c.active[n.Alias] = true
		v, err := c.value(n.Alias, depth+1)
		delete(c.active, n.Alias)
		if len(c.active) == 0 && err == nil {
			c.outer = nil
		}
		return v, err
	case yaml.SequenceNode:
		arr := &jsonc.Value{Kind: jsonc.Array, Pos: pos}
		for _, e := range n.Content {
			v, err := c.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			arr.Elems = append(arr.Elems, v)
		}
		return arr, nil
	case yaml.MappingNode:
		obj := &jsonc.Value{Kind: jsonc.Object, Pos: pos}
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, kv := n.Content[i], n.Content[i+1]
			kn := k
			if kn.Kind == yaml.AliasNode && kn.Alias != nil {
				kn = kn.Alias
			}
			if kn.Kind != yaml.ScalarNode {
				return nil, c.errAt(k, "mapping keys must be scalars")
			}
			if seen[kn.Value] {
				return nil, c.errAt(k, "duplicate key %q", kn.Value)
			}
			seen[kn.Value] = true
			v, err := c.value(kv, depth+1)
			if err != nil {
				return nil, err
			}
			obj.Members = append(obj.Members, jsonc.Member{Key: kn.Value, KeyPos: c.pos(k.Line, k.Column), Value: v})
		}
		return obj, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return &jsonc.Value{Kind: jsonc.Number, Pos: pos, Str: n.Value}, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, c.errAt(n, "%v", err)
			}
			return &jsonc.Value{Kind: jsonc.Bool, Pos: pos, Bool: b}, nil
		case "!!null":
			return &jsonc.Value{Kind: jsonc.Null, Pos: pos}, nil
		}
		// Strings, and timestamps and other tags that YAML 1.2's core schema
		// (Continue's) reads as strings.
		return &jsonc.Value{Kind: jsonc.String, Pos: pos, Str: n.Value}, nil
	}
	return nil, c.errAt(n, "unsupported YAML node")
}

// maxYAMLItems bounds the lines and flow-collection items of a YAML file:
// yaml.v3 builds a node for each (at several microseconds apiece), and a
// Continue configuration holds a few hundred. Past it the file is refused
// before it is parsed.
const maxYAMLItems = 200_000

// yamlOverLimits counts lines and commas outside quotes and comments; it
// returns the offset where the count passes maxYAMLItems, or -1.
func yamlOverLimits(data []byte) int {
	n := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			for i++; i < len(data) && data[i] != c && data[i] != '\n'; i++ {
				if c == '"' && data[i] == '\\' {
					i++
				}
			}
		case '\n', ',':
			if n++; n > maxYAMLItems {
				return i
			}
		}
	}
	return -1
}
