// Package schematest validates documents against mcpguard's JSON Schemas in
// tests. It is test support: the validator's package initialisation costs
// milliseconds, which the mcpguard binary must not pay.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Resource is a schema that another one refers to.
type Resource struct {
	ID     string
	Schema []byte
}

// Validator checks documents against one schema.
type Validator struct{ schema *jsonschema.Schema }

// New compiles a schema given as JSON, identified by id; resources are
// the other schemas it refers to, by their ids (URLs).
func New(id string, schema []byte, resources ...Resource) (*Validator, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, r := range append([]Resource{{ID: id, Schema: schema}}, resources...) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Schema))
		if err != nil {
			return nil, fmt.Errorf("load schema %s: %w", r.ID, err)
		}
		if err := c.AddResource(r.ID, doc); err != nil {
			return nil, fmt.Errorf("load schema %s: %w", r.ID, err)
		}
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", id, err)
	}
	return &Validator{schema: s}, nil
}

// Validate checks one JSON document.
func (v *Validator) Validate(data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("parse document: %w", err)
	}
	return v.schema.Validate(doc)
}

// CycloneDX16 compiles the official CycloneDX 1.6 JSON schema, with the
// SPDX and JSF schemas it refers to, from the cyclonedx-go module that
// mcpguard builds with (the module carries the specification's files).
func CycloneDX16() (*Validator, error) {
	// go mod download, not go list -m: a module no package imports is not
	// in a fresh module cache, and go list then names no directory.
	out, err := exec.Command("go", "mod", "download", "-json", "github.com/CycloneDX/cyclonedx-go").Output()
	if err != nil {
		return nil, fmt.Errorf("download the cyclonedx-go module: %w", err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return nil, fmt.Errorf("download the cyclonedx-go module: no directory in %q", out)
	}
	dir := filepath.Join(mod.Dir, "schema")
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	bom, err := read("bom-1.6.schema.json")
	if err != nil {
		return nil, err
	}
	spdx, err := read("spdx.schema.json")
	if err != nil {
		return nil, err
	}
	jsf, err := read("jsf-0.82.schemax.json")
	if err != nil {
		return nil, err
	}
	const base = "http://cyclonedx.org/schema/"
	return New(base+"bom-1.6.schema.json", bom,
		Resource{ID: base + "spdx.schema.json", Schema: spdx},
		Resource{ID: base + "jsf-0.82.schema.json", Schema: jsf})
}
