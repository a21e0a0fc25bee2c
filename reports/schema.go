package reports

import _ "embed"

// SchemaJSON is the JSON Schema of mcpguard/report/v1 (draft 2020-12),
// documented in docs/report-schema.md. Tests validate every golden report
// against it (internal/schematest); no command prints it.
//
//go:embed report-v1.schema.json
var SchemaJSON []byte

// FleetSchemaJSON is the JSON Schema of mcpguard/fleet/v2, the merged
// report of `mcpguard report` (docs/report-schema.md).
//
//go:embed fleet-v2.schema.json
var FleetSchemaJSON []byte
