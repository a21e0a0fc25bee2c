// Package chunks runs work over a long list in fixed-size chunks on every
// processor: the tool analysis and the pins of large tools/list results,
// and the ids, the building and the writing of a large scan's report.
package chunks
