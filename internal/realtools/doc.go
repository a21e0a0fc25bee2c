// Package realtools builds large tools/list results from the tool lists
// captured from popular MCP servers (scanner/testdata/tools/real), for the
// benchmarks and tests of the analysis and of the proxy that need realistic
// input of a given size.
package realtools
