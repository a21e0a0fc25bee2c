// Package schematest validates documents against mcpguard's JSON Schemas in
// tests. It is test support: the validator's package initialisation costs
// milliseconds, which the mcpguard binary must not pay.
package schematest

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validator checks documents against one schema.
type Validator struct{ schema *jsonschema.Schema }

// New compiles a schema given as JSON, identified by id.
func New(id string, schema []byte) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("load schema %s: %w", id, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("load schema %s: %w", id, err)
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
