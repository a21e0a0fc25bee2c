package toolcheck

import (
	"bytes"
	"encoding/json"
)

// The attack cases' servers may list prompts, resource templates and
// resources beside their tools (issue 44 part 3).

// attackServer is one server of an attack case: its lists as a capture
// document holds them.
type attackServer struct {
	Name              string          `json:"name"`
	Tools             json.RawMessage `json:"tools"`
	Prompts           json.RawMessage `json:"prompts"`
	ResourceTemplates json.RawMessage `json:"resourceTemplates"`
	Resources         json.RawMessage `json:"resources"`
}

// document returns the server's lists as one capture document.
func (s attackServer) document() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, m := range []struct {
		key string
		raw json.RawMessage
	}{{"tools", s.Tools}, {"prompts", s.Prompts}, {"resourceTemplates", s.ResourceTemplates}, {"resources", s.Resources}} {
		if m.raw == nil {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + m.key + `":`)
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// key names the expected item as analyzeGroup keys its findings.
func (e attackExpect) key() string {
	switch {
	case e.Prompt != "":
		return itemKey(KindPrompt, e.Prompt)
	case e.ResourceTemplate != "":
		return itemKey(KindResourceTemplate, e.ResourceTemplate)
	case e.Resource != "":
		return itemKey(KindResource, e.Resource)
	}
	return e.Tool
}

// itemKey keys an item other than a tool: no tool name holds a space.
func itemKey(kind ItemKind, name string) string { return string(kind) + " " + name }
