// Package chunks runs work over a long list in fixed-size chunks on every
// processor: the tool analysis and the pins of large tools/list results.
package chunks
