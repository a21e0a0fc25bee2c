package introspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpguard/mcpguard/internal/jsonc"
	"github.com/mcpguard/mcpguard/pins"
	"github.com/mcpguard/mcpguard/reports"
	"github.com/mcpguard/mcpguard/scanner"
	"github.com/mcpguard/mcpguard/toolcheck"
	mcpunicode "github.com/mcpguard/mcpguard/unicode"
)

// DocumentPath names the introspection document in the analysis; finding
// evidence points into it with introspection_pointer.
const DocumentPath = "introspection"

// outcome turns what one server answered into its report entry and
// findings.
func (o *Options) outcome(s *scanner.Server, t *target, l *listing, err error, took time.Duration) Outcome {
	out := Outcome{ServerID: s.ID}
	in := &reports.Introspection{Status: reports.IntrospectionOK, Tools: []reports.IntrospectedTool{}, DurationMS: took.Milliseconds()}
	out.Introspection = in
	if err != nil {
		in.Status = reports.IntrospectionError
		var to errTimeout
		var auth *errAuthRequired
		switch {
		case errors.As(err, &to):
			in.Status = reports.IntrospectionTimeout
		case errors.As(err, &auth):
			in.ResourceMetadata = o.Secrets.RedactURL(auth.metadata)
		}
		in.Reason = o.Secrets.RedactText(safeText(err.Error(), 300))
		return out
	}
	doc, err := document(l)
	if err != nil {
		in.Status, in.Reason = reports.IntrospectionError, err.Error()
		return out
	}
	cat, err := toolcheck.AnalyzeCatalog(doc, toolcheck.Options{Path: DocumentPath, Server: s.Name, ServerID: s.ID,
		IDE: s.Scope == scanner.ScopeIDE, Policy: o.Tools})
	var rep *toolcheck.Report
	if err == nil {
		rep = cat.Tools
	}
	if err != nil {
		in.Status, in.Reason = reports.IntrospectionError, "the tools/list result cannot be analysed: "+safeText(err.Error(), 200)
		return out
	}
	o.describe(in, l, rep)
	if len(l.problems) > 0 {
		in.Reason = o.Secrets.RedactText(safeText(strings.Join(l.problems, "; "), 300))
	}
	// The findings of the prompts, resources and templates too: their
	// strings reach the model as the tools' do.
	for _, f := range cat.Findings {
		out.Findings = append(out.Findings, relocate(f, s))
	}
	if o.Pins != nil {
		fs, fe := o.pin(s, t, l, rep)
		out.Findings = append(out.Findings, fs...)
		if fe != nil {
			out.Errors = append(out.Errors, *fe)
		}
	}
	return out
}

// document joins a server's answers into the one JSON document the
// analysis reads: {"initialize": result, "tools": [...], "prompts": [...],
// "resources": [...], "resourceTemplates": [...]}, every element exactly
// the bytes the server sent.
// Pages of one listing are concatenated.
func document(l *listing) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"initialize":`)
	b.Write(l.initialize)
	for _, part := range []struct {
		member string
		pages  [][]byte
		list   string // the method, for errors
	}{{"tools", l.tools, "tools/list"}, {"prompts", l.prompts, "prompts/list"}, {"resources", l.resources, "resources/list"},
		{"resourceTemplates", l.templates, "resources/templates/list"}} {
		if part.member == "resourceTemplates" && len(part.pages) == 0 {
			continue // the document of a server without templates stays as it was
		}
		fmt.Fprintf(&b, `,%q:[`, part.member)
		n := 0
		for _, page := range part.pages {
			v, _, err := jsonc.Parse(page, jsonc.Options{})
			if err != nil {
				return nil, fmt.Errorf("the %s result is not JSON: %v", part.list, err)
			}
			// Every array under a member whose name folds to the list's
			// ("Prompts"): a client on Go's encoding/json reads it as the
			// list, so it is analysed as one.
			arrays := 0
			if v.Kind == jsonc.Object {
				for _, m := range v.Members {
					if !strings.EqualFold(m.Key, part.member) || m.Value.Kind != jsonc.Array {
						continue
					}
					arrays++
					for _, e := range m.Value.Elems {
						if n > 0 {
							b.WriteByte(',')
						}
						b.Write(page[e.Pos.Offset:e.End])
						n++
					}
				}
			}
			if arrays == 0 && part.member == "tools" {
				return nil, fmt.Errorf("the tools/list result has no tools array")
			}
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// relocate places a tool finding at the server's entry in its
// configuration — where a person acts on it — and keeps the JSON pointer
// into the introspection document in the evidence. Its id, computed over
// that pointer and the server id, stays stable across runs.
func relocate(f reports.Finding, s *scanner.Server) reports.Finding {
	ev := make(map[string]any, len(f.Evidence)+3)
	for k, v := range f.Evidence {
		ev[k] = v
	}
	if f.Location.Path == DocumentPath {
		ev["introspection_pointer"] = f.Location.Pointer
	}
	ev["server"] = s.Name
	ev["source"] = "introspection"
	f.Evidence = ev
	f.Location = s.Source
	return f
}

// describe fills the report entry: what the server said about itself and
// what it offers, hidden characters removed and secrets redacted.
func (o *Options) describe(in *reports.Introspection, l *listing, rep *toolcheck.Report) {
	type info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	var init struct {
		ProtocolVersion string         `json:"protocolVersion"`
		Capabilities    map[string]any `json:"capabilities"`
		ServerInfo      *info          `json:"serverInfo"`
		Instructions    string         `json:"instructions"`
		Meta            struct {
			// server/discover (2026-07-28) names the server here.
			ServerInfo *info `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(l.initialize, &init)
	if init.ServerInfo == nil {
		init.ServerInfo = init.Meta.ServerInfo
	}
	if init.ProtocolVersion == "" {
		init.ProtocolVersion = l.version
	}
	in.ProtocolVersion = o.text(init.ProtocolVersion)
	if init.ServerInfo != nil {
		in.ServerInfo = &reports.IntrospectedInfo{Name: o.text(init.ServerInfo.Name), Version: o.text(init.ServerInfo.Version)}
	}
	if init.Capabilities != nil {
		in.Capabilities, _ = o.clean(init.Capabilities).(map[string]any)
	}
	in.Instructions = o.text(init.Instructions)
	hashes := map[string]string{}
	for _, p := range pins.PinTools(rep, false) {
		hashes[p.Name] = p.SHA256
	}
	for _, t := range rep.Tools {
		it := reports.IntrospectedTool{Name: o.text(t.Name), SHA256: hashes[t.Name]}
		if v := t.Value.Get("title"); v.IsString() {
			it.Title = o.text(v.Str)
		}
		if v := t.Value.Get("description"); v.IsString() {
			it.Description = o.text(v.Str)
		}
		if v := t.Value.Get("annotations"); v != nil && v.Kind == jsonc.Object {
			it.Annotations, _ = o.clean(v.Interface()).(map[string]any)
		}
		if v := t.Value.Get("inputSchema"); v != nil {
			it.InputSchema = o.clean(v.Interface())
		}
		in.Tools = append(in.Tools, it)
	}
	for _, m := range []struct {
		member string
		add    func(v *jsonc.Value)
	}{
		{"prompts", func(v *jsonc.Value) {
			in.Prompts = append(in.Prompts, reports.IntrospectedPrompt{Name: o.str(v, "name"), Title: o.str(v, "title"), Description: o.str(v, "description")})
		}},
		{"resources", func(v *jsonc.Value) {
			in.Resources = append(in.Resources, reports.IntrospectedResource{Name: o.str(v, "name"), URI: o.Secrets.RedactURL(o.str(v, "uri")),
				Description: o.str(v, "description"), MIMEType: o.str(v, "mimeType")})
		}},
		{"resourceTemplates", func(v *jsonc.Value) {
			in.ResourceTemplates = append(in.ResourceTemplates, reports.IntrospectedResourceTemplate{Name: o.str(v, "name"),
				URITemplate: o.Secrets.RedactURL(o.str(v, "uriTemplate")), Description: o.str(v, "description"), MIMEType: o.str(v, "mimeType")})
		}},
	} {
		if arr := rep.Root.Get(m.member); arr != nil {
			for _, v := range arr.Elems {
				if v.Kind == jsonc.Object {
					m.add(v)
				}
			}
		}
	}
}

// text makes a string from a server fit for the report.
func (o *Options) text(s string) string { return o.Secrets.RedactText(mcpunicode.Sanitize(s)) }

func (o *Options) str(v *jsonc.Value, key string) string {
	if m := v.Get(key); m.IsString() {
		return o.text(m.Str)
	}
	return ""
}

// clean applies text to every string (keys included) of a decoded value.
func (o *Options) clean(v any) any {
	switch x := v.(type) {
	case string:
		return o.text(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = o.clean(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[o.text(k)] = o.clean(e)
		}
		return out
	}
	return v
}

// pin records the listing in the pin store, as the proxy does, and
// reports MCPG-T003 for what changed since the approved pin.
func (o *Options) pin(s *scanner.Server, t *target, l *listing, rep *toolcheck.Report) ([]reports.Finding, *reports.FileError) {
	launch := pins.Launch{Transport: t.transport}
	if t.transport == scanner.TransportStdio {
		launch.Command, launch.Args = t.argv[0], t.argv[1:]
	} else {
		launch.URL = t.url
	}
	lp := pins.PinLaunch(launch, o.Pins.Key(), o.Secrets)
	initHash, _ := pins.PinInitialize(l.initialize)
	cur := pins.NewPin(s.PinName(), &lp, initHash, pins.PinTools(rep, true))
	obs, err := o.Pins.Observe(cur)
	if err != nil {
		return nil, &reports.FileError{Path: o.Pins.Path(), Message: "pins: " + err.Error()}
	}
	if obs.First || obs.Diff.Empty() {
		return nil, nil
	}
	var out []reports.Finding
	for _, f := range obs.Diff.Findings(reports.Location{Path: DocumentPath}, rep.Location, s.ID) {
		f = relocate(f, s)
		f.Message += "; review it, then run: mcpguard pins approve " + pins.ShellWord(s.PinName())
		out = append(out, f)
	}
	return out, nil
}
