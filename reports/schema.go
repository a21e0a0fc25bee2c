package reports

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaJSON is the JSON Schema of mcpguard/report/v1 (draft 2020-12).
//
//go:embed schema/report-v1.schema.json
var SchemaJSON []byte

// Validator checks documents against the report schema.
type Validator struct{ schema *jsonschema.Schema }

// NewValidator compiles the embedded schema.
func NewValidator() (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("load report schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://github.com/mcpguard/mcpguard/reports/schema/report-v1.schema.json"
	if err := c.AddResource(id, doc); err != nil {
		return nil, fmt.Errorf("load report schema: %w", err)
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, fmt.Errorf("compile report schema: %w", err)
	}
	return &Validator{schema: s}, nil
}

// Validate checks one JSON report document.
func (v *Validator) Validate(data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("parse report: %w", err)
	}
	if err := v.schema.Validate(doc); err != nil {
		return fmt.Errorf("report does not match %s: %w", Schema, err)
	}
	return nil
}

// Decode parses and validates a saved report.
func Decode(data []byte, v *Validator) (*Report, error) {
	if err := v.Validate(data); err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode report: %w", err)
	}
	return &r, nil
}
