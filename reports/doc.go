// Package reports turns scan results into the mcpguard/report/v1 document and
// renders it for people and machines (text, JSON, and the other formats of
// SPEC §4). It is the last step before output, so it is also where every value
// that could hold a secret is redacted one final time.
package reports
