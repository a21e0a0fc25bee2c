// Package jsonedit changes JSON and JSONC documents in place: it splices new
// text over exact byte spans that internal/jsonc reports (Value.Pos.Offset to
// Value.End), so that every byte outside the spans — comments, trailing
// commas, indentation, line endings, escapes, key order — stays as it was.
package jsonedit
